#include "coop/toolkit.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>

#include "coop/digest.hpp"
#include "coop/error.hpp"
#include "coop/warning.hpp"
#include "environment.hpp"
#include "nvjitlink_api.hpp"
#include "nvrtc_api.hpp"

namespace coop {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultToolkit = "/usr/local/cuda";
constexpr const char* kCcclMarker = "cub/block/block_load.cuh";
constexpr const char* kCudaMarker = "cuda_fp16.h";

// A number in a file or directory name, or nullopt when it does not fit: such a name is
// nobody's version, and must not abort the search.
std::optional<int> small_number(const std::string& digits) {
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// The entries of `dir`; none when it cannot be read. An error mid-way ends the listing
// instead of throwing: the search goes on in the next place.
std::vector<fs::path> entries_of(const fs::path& dir) {
  std::vector<fs::path> paths;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    paths.push_back(it->path());
  }
  return paths;
}

std::string absolute_normal(const fs::path& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  return (error ? path : absolute).lexically_normal().string();
}

// CUDA_HOME, else CUDA_PATH; one that names no directory warns and is passed over, so a
// stale variable neither hides the other places nor goes unnoticed.
std::string toolkit_root_from_environment() {
  for (const char* name : {"CUDA_HOME", "CUDA_PATH"}) {
    const std::string value = env::text(name);
    if (value.empty()) continue;
    std::error_code error;
    const fs::file_status status = fs::status(value, error);
    if (fs::is_directory(status)) return value;
    const std::string why = error ? error.message() : "not a directory";
    warn_once(std::string(name) + "=" + value,
              std::string(name) + "='" + value + "' is not usable (" + why +
                  "); expected the directory of a CUDA toolkit; searching CUDA_PATH, the NVIDIA wheels and " +
                  kDefaultToolkit + " instead");
  }
  return "";
}

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> paths;
  std::stringstream stream(list);
  std::string path;
  while (std::getline(stream, path, ':')) {
    if (!path.empty()) paths.push_back(path);
  }
  return paths;
}

// Directories that may hold each piece, in the order they are preferred.
struct Places {
  std::vector<fs::path> libraries;
  std::vector<fs::path> cuda_includes;
  std::vector<fs::path> cccl_includes;
};

void add_toolkit(Places& places, const fs::path& root) {
  places.libraries.insert(places.libraries.end(), {root / "lib64", root / "lib"});
  places.cuda_includes.push_back(root / "include");
  places.cccl_includes.insert(places.cccl_includes.end(), {root / "include" / "cccl", root / "include"});
}

// CUDA 13 wheels share one <root>/cu13 tree; CUDA 12 wheels have one directory per component.
std::vector<fs::path> wheel_toolkit_dirs(const fs::path& root) {
  static const std::regex pattern("cu([0-9]+)");
  std::vector<std::pair<int, fs::path>> found;
  for (const fs::path& entry : entries_of(root)) {
    std::smatch match;
    const std::string name = entry.filename().string();
    if (!std::regex_match(name, match, pattern)) continue;
    if (const std::optional<int> major = small_number(match[1])) found.emplace_back(*major, entry);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<fs::path> dirs;
  for (auto& [major, dir] : found) dirs.push_back(std::move(dir));
  return dirs;
}

void add_wheels(Places& places, const fs::path& root) {
  for (const fs::path& dir : wheel_toolkit_dirs(root)) add_toolkit(places, dir);
  places.libraries.insert(places.libraries.end(), {root / "cuda_nvrtc" / "lib", root / "nvjitlink" / "lib"});
  places.cuda_includes.push_back(root / "cuda_runtime" / "include");
  places.cccl_includes.push_back(root / "cuda_cccl" / "include");
}

// "" for a site-packages/nvidia directory (one holding a wheel's component); otherwise why not.
std::string not_a_wheel_root(const fs::path& root) {
  std::error_code error;
  if (!fs::is_directory(fs::status(root, error))) return error ? error.message() : "not a directory";
  if (!wheel_toolkit_dirs(root).empty()) return "";
  for (const char* component : {"cuda_nvrtc", "nvjitlink", "cuda_runtime", "cuda_cccl"}) {
    if (fs::is_directory(root / component, error)) return "";
  }
  return "it holds none of cuNN, cuda_nvrtc, nvjitlink, cuda_runtime or cuda_cccl";
}

// CUDA_COOP_WHEEL_ROOTS: entries that are no wheel directory warn (once, together) and are
// passed over, as a stale CUDA_HOME is, so a typo neither hides the other places nor goes unnoticed.
std::vector<std::string> wheel_roots_from_environment() {
  const std::string value = env::text("CUDA_COOP_WHEEL_ROOTS");
  std::vector<std::string> roots;
  std::string unusable;
  for (const std::string& root : split_paths(value)) {
    if (const std::string why = not_a_wheel_root(root); !why.empty()) {
      unusable += (unusable.empty() ? "'" : ", '") + root + "' (" + why + ")";
    } else {
      roots.push_back(root);
    }
  }
  if (!unusable.empty()) {
    warn_once("CUDA_COOP_WHEEL_ROOTS=" + value,
              "CUDA_COOP_WHEEL_ROOTS='" + value + "' names what is not usable: " + unusable +
                  "; expected a colon-separated list of site-packages/nvidia directories; passed over");
  }
  return roots;
}

Places candidate_places(const ToolkitSearch& search) {
  Places places;
  if (!search.cuda_home.empty()) add_toolkit(places, search.cuda_home);
  for (const std::string& root : search.wheel_roots) add_wheels(places, root);
  add_toolkit(places, kDefaultToolkit);
  if (!search.cccl_root.empty()) places.cccl_includes = {search.cccl_root};
  return places;
}

// The highest libNAME.so.N in `dir` (numerically: .so.13 beats .so.9), else libNAME.so.
std::optional<fs::path> find_library(const fs::path& dir, const std::string& name) {
  const std::regex pattern("lib" + name + "\\.so\\.([0-9]+)");
  std::optional<std::pair<int, fs::path>> best;
  std::error_code error;
  for (const fs::path& entry : entries_of(dir)) {
    std::smatch match;
    const std::string file = entry.filename().string();
    if (!std::regex_match(file, match, pattern) || !fs::is_regular_file(entry, error)) continue;
    const std::optional<int> major = small_number(match[1]);
    if (major && (!best || *major > best->first)) best.emplace(*major, entry);
  }
  if (best) return best->second;
  const fs::path plain = dir / ("lib" + name + ".so");
  if (fs::is_regular_file(plain, error)) return plain;
  return std::nullopt;
}

std::string join(const std::vector<fs::path>& paths) {
  std::string text;
  for (const fs::path& path : paths) text += (text.empty() ? "" : ", ") + path.string();
  return text;
}

// Collects what could not be found, so one error names every missing piece at once, each with
// the pip package that provides it on a machine with only the driver.
class Lookup {
 public:
  std::string library(const std::vector<fs::path>& dirs, const std::string& name, const std::string& wheel,
                      const std::string& given) {
    std::error_code error;
    if (!given.empty()) {
      if (fs::is_regular_file(given, error)) return absolute_normal(given);
      missing_.push_back("lib" + name + ".so.N (pip package " + wheel + "): given as " + given + ", which is no file");
      return "";
    }
    for (const fs::path& dir : dirs) {
      if (auto found = find_library(dir, name)) return absolute_normal(*found);
    }
    missing_.push_back("lib" + name + ".so.N (pip package " + wheel + "): looked in " + join(dirs));
    return "";
  }

  std::string directory_with(const std::vector<fs::path>& dirs, const std::string& marker, const std::string& what,
                             const std::string& wheel, const std::string& given = "") {
    std::error_code error;
    if (!given.empty()) {
      if (fs::is_regular_file(fs::path(given) / marker, error)) return absolute_normal(given);
      missing_.push_back(what + " (" + marker + ", pip package " + wheel + "): given as " + given +
                         ", which does not hold " + marker);
      return "";
    }
    for (const fs::path& dir : dirs) {
      if (fs::is_regular_file(dir / marker, error)) return absolute_normal(dir);
    }
    missing_.push_back(what + " (" + marker + ", pip package " + wheel + "): looked in " + join(dirs));
    return "";
  }

  void throw_if_missing(const ToolkitSearch& search) const {
    if (missing_.empty()) return;
    std::string message = "cannot locate the CUDA toolkit pieces the engine needs:\n";
    for (const std::string& line : missing_) message += "  " + line + "\n";
    if (!search.cccl_root.empty()) {
      message += "The CCCL header root was given explicitly (cccl_root or CUDA_COOP_CCCL_ROOT = " + search.cccl_root +
                 "); it must hold " + kCcclMarker + ".\n";
    }
    message +=
        "Set CUDA_HOME or CUDA_PATH to a CUDA toolkit, CUDA_COOP_CCCL_ROOT to a directory holding cub/\n"
        "(CUDA_COOP_NVRTC_LIBRARY, CUDA_COOP_NVJITLINK_LIBRARY and CUDA_COOP_CUDA_INCLUDE name the others),\n"
        "or install the NVIDIA CUDA wheels: pip install \"cuda-coop[cu13]\" brings every piece above (the Python\n"
        "layer finds them through cuda-pathfinder; CUDA_COOP_WHEEL_ROOTS names site-packages/nvidia directories).";
    throw Error(ErrorKind::Toolkit, message);
  }

 private:
  std::vector<std::string> missing_;
};

// CUB_VERSION is MMMmmmpp: at most eight digits.
std::string cccl_version_from(const std::string& digits, const fs::path& header) {
  long version = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
  if (error != std::errc() || version > 99'999'999) {
    throw Error(ErrorKind::Toolkit, "CUB_VERSION in " + header.string() + " is " + digits +
                                        ", which is not a CCCL version; expected MMMmmmpp (at most 99999999), "
                                        "e.g. 300001 for CCCL 3.0.1");
  }
  return std::to_string(version / 100000) + "." + std::to_string(version / 100 % 1000) + "." +
         std::to_string(version % 100);
}

std::string read_cccl_version(const fs::path& cccl_include) {
  const fs::path header = cccl_include / "cub" / "version.cuh";
  std::ifstream in(header);
  const std::regex pattern(R"(^\s*#\s*define\s+CUB_VERSION\s+([0-9]+))");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch match;
    if (std::regex_search(line, match, pattern)) return cccl_version_from(match[1], header);
  }
  throw Error(ErrorKind::Toolkit, "cannot read CUB_VERSION from " + header.string());
}

using FileStamp = std::tuple<std::string, long long, long long>;  // relative path, size, mtime (ns)

void stamp(const fs::path& file, const std::string& relative, std::vector<FileStamp>& stamps) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  const long long mtime = static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
  stamps.emplace_back(relative, static_cast<long long>(info.st_size), mtime);
}

void stamp_tree(const fs::path& base, const std::string& sub, const std::string& label,
                std::vector<FileStamp>& stamps) {
  std::error_code error;
  for (fs::recursive_directory_iterator it(base / sub, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) {
      stamp(it->path(), label + it->path().lexically_relative(base).string(), stamps);
    }
  }
}

// Size and modification time stand in for the bytes: reading some 2000 headers would cost far more
// than stat-ing them, and any reinstall or edit changes one or the other.
std::string digest_headers(const fs::path& cccl_include, const fs::path& cuda_include) {
  std::vector<FileStamp> stamps;
  for (const char* sub : {"cub", "cuda", "nv", "thrust"}) stamp_tree(cccl_include, sub, "cccl:", stamps);
  for (const fs::path& entry : entries_of(cuda_include)) stamp(entry, "cuda:" + entry.filename().string(), stamps);
  stamp_tree(cuda_include, "crt", "cuda:", stamps);
  std::sort(stamps.begin(), stamps.end());
  Sha256 digest;
  for (const auto& [path, size, mtime] : stamps) {
    digest.field(path).field(std::to_string(size)).field(std::to_string(mtime));
  }
  return digest.hex();
}

// What a package manager changes when it installs, upgrades or removes a header tree, in a
// dozen stats: the trees' directories (a file added, removed or replaced by rename changes its
// directory) and their version headers. A note of the digest is trusted while this is equal;
// an edit in place of one header deep in a tree is not seen here, which is why a tree the
// user names (ToolkitSearch::headers_named) is digested every time.
std::string header_stamp(const fs::path& cccl_include, const fs::path& cuda_include) {
  Sha256 digest;
  digest.field(cccl_include.string()).field(cuda_include.string());
  for (const fs::path& path :
       {cccl_include, cccl_include / "cub", cccl_include / "cuda", cccl_include / "nv", cccl_include / "thrust",
        cccl_include / "cub" / "version.cuh", cccl_include / "cuda" / "version", cccl_include / "thrust" / "version.h",
        cuda_include, cuda_include / "crt", cuda_include / "cuda.h", cuda_include / "cuda_runtime_api.h",
        cuda_include / kCudaMarker}) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
      digest.field("-");
      continue;
    }
    const long long mtime = static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
    digest.field(std::to_string(info.st_size)).field(std::to_string(mtime)).field(std::to_string(info.st_ino));
  }
  return digest.hex();
}

// A note: "<stamp>\n<cccl version>\n<header digest>\n".
struct HeaderNote {
  std::string stamp;
  std::string cccl_version;
  std::string header_digest;

  std::string text() const { return stamp + "\n" + cccl_version + "\n" + header_digest + "\n"; }

  static std::optional<HeaderNote> parse(const std::string& text) {
    std::istringstream lines(text);
    HeaderNote note;
    if (!std::getline(lines, note.stamp) || !std::getline(lines, note.cccl_version) ||
        !std::getline(lines, note.header_digest) || note.header_digest.empty()) {
      return std::nullopt;
    }
    return note;
  }
};

// The CCCL version and header digest: from the note when its stamp is these trees' now, else
// read and digested (and noted).
void read_headers(Toolkit& toolkit, const ToolkitSearch& search, const HeaderNotes* notes) {
  const bool noted = notes != nullptr && !search.headers_named;
  const std::string stamp = noted ? header_stamp(toolkit.cccl_include, toolkit.cuda_include) : "";
  const std::string name =
      "toolkit-headers-" + Sha256().field(toolkit.cccl_include).field(toolkit.cuda_include).hex().substr(0, 16);
  if (noted) {
    const std::optional<std::string> text = notes->load(name);
    if (const std::optional<HeaderNote> note = text ? HeaderNote::parse(*text) : std::nullopt;
        note && note->stamp == stamp) {
      toolkit.cccl_version = note->cccl_version;
      toolkit.header_digest = note->header_digest;
      return;
    }
  }
  toolkit.cccl_version = read_cccl_version(toolkit.cccl_include);
  toolkit.header_digest = digest_headers(toolkit.cccl_include, toolkit.cuda_include);
  if (noted) notes->store(name, HeaderNote{stamp, toolkit.cccl_version, toolkit.header_digest}.text());
}

// A library's path, size and modification time stand for its version without loading it.
std::string file_stamp(const std::string& path) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  const auto mtime = fs::last_write_time(path, error).time_since_epoch().count();
  return path + ":" + std::to_string(size) + ":" + std::to_string(mtime);
}

std::string toolkit_identity(const Toolkit& toolkit) {
  return Sha256()
      .field(file_stamp(toolkit.nvrtc_library))
      .field(file_stamp(toolkit.nvjitlink_library))
      .field(toolkit.cccl_version)
      .field(toolkit.header_digest)
      .field(toolkit.cuda_include)
      .field(toolkit.cccl_include)
      .hex();
}

}  // namespace

ToolkitSearch ToolkitSearch::from_environment() {
  ToolkitSearch search;
  search.cccl_root = env::text("CUDA_COOP_CCCL_ROOT");
  search.nvrtc_library = env::text("CUDA_COOP_NVRTC_LIBRARY");
  search.nvjitlink_library = env::text("CUDA_COOP_NVJITLINK_LIBRARY");
  search.cuda_include = env::text("CUDA_COOP_CUDA_INCLUDE");
  search.cuda_home = toolkit_root_from_environment();
  search.wheel_roots = wheel_roots_from_environment();
  search.headers_named = !search.cccl_root.empty() || !search.cuda_include.empty();
  return search;
}

Toolkit Toolkit::locate(const ToolkitSearch& search, const HeaderNotes* notes) {
  const Places places = candidate_places(search);
  Lookup lookup;
  Toolkit toolkit;
  toolkit.nvrtc_library = lookup.library(places.libraries, "nvrtc", "nvidia-cuda-nvrtc", search.nvrtc_library);
  toolkit.nvjitlink_library =
      lookup.library(places.libraries, "nvJitLink", "nvidia-nvjitlink", search.nvjitlink_library);
  toolkit.cuda_include = lookup.directory_with(places.cuda_includes, kCudaMarker, "CUDA headers", "nvidia-cuda-runtime",
                                               search.cuda_include);
  toolkit.cccl_include = lookup.directory_with(places.cccl_includes, kCcclMarker, "CCCL headers", "nvidia-cuda-cccl");
  lookup.throw_if_missing(search);

  read_headers(toolkit, search, notes);
  toolkit.identity = toolkit_identity(toolkit);
  return toolkit;
}

std::string Toolkit::nvrtc_version() const { return nvrtc::Api::load(nvrtc_library).version(); }

std::string Toolkit::nvjitlink_version() const { return nvjitlink::Api::load(nvjitlink_library).version(); }

}  // namespace coop
