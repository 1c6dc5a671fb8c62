#include "coop/link.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "coop/compile.hpp"
#include "coop/error.hpp"
#include "cubin_header.hpp"
#include "nvjitlink_api.hpp"

namespace coop {
namespace {

nvjitlink::InputType input_type(LinkInputKind kind) {
  switch (kind) {
    case LinkInputKind::LtoIr:
      return nvjitlink::InputType::LtoIr;
    case LinkInputKind::Cubin:
      return nvjitlink::InputType::Cubin;
    case LinkInputKind::Ptx:
      return nvjitlink::InputType::Ptx;
    case LinkInputKind::Fatbin:
      return nvjitlink::InputType::Fatbin;
    case LinkInputKind::Object:
      return nvjitlink::InputType::Object;
  }
  throw Error(ErrorKind::InvalidArgument, "link: unknown LinkInputKind " + std::to_string(static_cast<int>(kind)));
}

// Owns one nvJitLinkHandle; a failing step throws with nvJitLink's error log.
class Linker {
 public:
  Linker(const nvjitlink::Api& api, const std::vector<std::string>& options) : api_(api) {
    std::vector<const char*> arguments;
    for (const std::string& option : options) arguments.push_back(option.c_str());
    check(api_.create(&handle_, static_cast<std::uint32_t>(arguments.size()), arguments.data()), "create the linker");
  }
  ~Linker() {
    if (handle_ != nullptr) api_.destroy(&handle_);
  }
  Linker(const Linker&) = delete;
  Linker& operator=(const Linker&) = delete;

  void add(const LinkInput& input) {
    // nvJitLink reads PTX as a C string, up to its NUL: a file holds none, and without one
    // nvJitLink reads on past the end and refuses it (NVJITLINK_ERROR_INCORRECT_INPUT_TYPE).
    if (input.kind == LinkInputKind::Ptx && (input.bytes.empty() || input.bytes.back() != '\0')) {
      std::vector<char> text(input.bytes);
      text.push_back('\0');
      return add(input.kind, text, input.name);
    }
    add(input.kind, input.bytes, input.name);
  }

  void add(LinkInputKind kind, const std::vector<char>& bytes, const std::string& name) {
    check(api_.add_data(handle_, input_type(kind), bytes.data(), bytes.size(), name.c_str()), "add " + name);
  }

  std::vector<char> complete() {
    check(api_.complete(handle_), "complete the link");
    std::size_t size = 0;
    check(api_.get_linked_cubin_size(handle_, &size), "size the cubin");
    std::vector<char> cubin(size);
    check(api_.get_linked_cubin(handle_, cubin.data()), "copy the cubin");
    return cubin;
  }

  std::string info_log() const { return read_log(api_.get_info_log_size, api_.get_info_log); }

 private:
  using LogSize = nvjitlink::Result (*)(nvjitlink::Handle, std::size_t*);
  using LogText = nvjitlink::Result (*)(nvjitlink::Handle, char*);

  std::string read_log(LogSize log_size, LogText log_text) const {
    std::size_t size = 0;
    if (handle_ == nullptr || log_size(handle_, &size) != nvjitlink::kSuccess || size == 0) return "";
    std::string text(size, '\0');
    if (log_text(handle_, text.data()) != nvjitlink::kSuccess) return "";
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  }

  void check(nvjitlink::Result result, const std::string& step) const {
    if (result == nvjitlink::kSuccess) return;
    const std::string log = read_log(api_.get_error_log_size, api_.get_error_log);
    throw Error(ErrorKind::Link, "nvJitLink (" + api_.library.path() + ") could not " + step + " (" +
                                     nvjitlink::Api::describe(result) + ")\n" +
                                     (log.empty() ? "(empty error log)" : log));
  }

  const nvjitlink::Api& api_;
  nvjitlink::Handle handle_ = nullptr;
};

// nvJitLink drops an executable cubin silently and refuses one for another arch as "bad input".
void check_cubin(const LinkInput& input, int target_sm, const std::string& call) {
  const std::optional<CubinHeader> header = read_cubin_header(input.bytes);
  if (!header) return;  // not a CUDA ELF file: nvJitLink names what is wrong with it
  if (!header->relocatable) {
    reject(ErrorKind::InvalidArgument, call, "input", "'" + input.name + "' (an executable cubin)",
           "a relocatable cubin, which a link can use: build it with nvcc -rdc=true -cubin (or pass its .ptx)");
  }
  if (header->sm != target_sm) {
    reject(ErrorKind::InvalidArgument, call, "input",
           "'" + input.name + "' (a cubin for sm_" + std::to_string(header->sm) + ")",
           "a cubin for sm_" + std::to_string(target_sm) + ", the arch of the link: build it with -arch=sm_" +
               std::to_string(target_sm) +
               ", or pass PTX (a .ptx, or a fatbin holding it), which nvJitLink "
               "compiles for the target");
  }
}

std::vector<std::string> link_options(const std::vector<LinkInput>& inputs, const std::string& arch,
                                      const std::string& call) {
  const int target_sm = parse_arch(arch, call);
  for (const LinkInput& input : inputs) {
    if (input.kind == LinkInputKind::Cubin) check_cubin(input, target_sm, call);
  }
  std::vector<std::string> options = {"-arch=" + arch};
  // LTO-IR inputs are only optimized together, CUB inlined into the kernel, under -lto.
  const bool any_ltoir = std::any_of(inputs.begin(), inputs.end(),
                                     [](const LinkInput& input) { return input.kind == LinkInputKind::LtoIr; });
  if (any_ltoir) options.push_back("-lto");
  return options;
}

}  // namespace

LinkResult link(const Toolkit& toolkit, const std::vector<LinkInput>& inputs, const std::string& arch,
                const std::string& call) {
  const std::vector<std::string> options = link_options(inputs, arch, call);
  const auto start = std::chrono::steady_clock::now();
  Linker linker(nvjitlink::Api::load(toolkit.nvjitlink_library), options);
  for (const LinkInput& input : inputs) linker.add(input);
  LinkResult result;
  result.cubin = linker.complete();
  result.log = linker.info_log();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace coop
