#include "coop/compile.hpp"

#include <algorithm>
#include <chrono>
#include <regex>

#include "background.hpp"
#include "coop/error.hpp"
#include "nvrtc_api.hpp"

namespace coop {
namespace {

// Owns one nvrtcProgram; every failing NVRTC call names the step that failed.
class Program {
 public:
  Program(nvrtc::Api& api, const std::string& source, const std::string& name) : api_(api) {
    check(api_.create_program(&program_, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  }
  ~Program() { api_.destroy_program(&program_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  void add_name_expression(const std::string& expression) {
    check(api_.add_name_expression(program_, expression.c_str()), "nvrtcAddNameExpression");
  }

  nvrtc::Result compile(const std::vector<std::string>& options) {
    std::vector<const char*> arguments;
    for (const std::string& option : options) arguments.push_back(option.c_str());
    return api_.compile_program(program_, static_cast<int>(arguments.size()), arguments.data());
  }

  nvrtc::Program handle() const { return program_; }

  std::string log() {
    std::size_t size = 0;
    check(api_.get_program_log_size(program_, &size), "nvrtcGetProgramLogSize");
    std::string text(size, '\0');
    check(api_.get_program_log(program_, text.data()), "nvrtcGetProgramLog");
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  }

  std::vector<char> ltoir() {
    std::size_t size = 0;
    check(api_.get_ltoir_size(program_, &size), "nvrtcGetLTOIRSize");
    std::vector<char> bytes(size);
    check(api_.get_ltoir(program_, bytes.data()), "nvrtcGetLTOIR");
    return bytes;
  }

  std::string lowered_name(const std::string& expression) {
    const char* lowered = nullptr;
    check(api_.get_lowered_name(program_, expression.c_str(), &lowered), "nvrtcGetLoweredName");
    return lowered != nullptr ? lowered : "";
  }

  // NVRTC only reports a too-small PCH heap after the fact; growing it now lets the next compile
  // with the same headers create the PCH instead of failing to again.
  void grow_pch_heap_if_exhausted() {
    if (api_.get_pch_create_status(program_) != nvrtc::kErrorPchCreateHeapExhausted) return;
    std::size_t required = 0;
    check(api_.get_pch_heap_size_required(program_, &required), "nvrtcGetPCHHeapSizeRequired");
    check(api_.set_pch_heap_size(required), "nvrtcSetPCHHeapSize");
  }

 private:
  void check(nvrtc::Result result, const char* step) const {
    if (result != nvrtc::kSuccess) {
      throw Error(ErrorKind::ProviderCompile, std::string(step) + " failed: " + api_.describe(result));
    }
  }

  nvrtc::Api& api_;
  nvrtc::Program program_ = nullptr;
};

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

Error compile_failure(const nvrtc::Api& api, nvrtc::Result result, const CompileRequest& request,
                      const std::vector<std::string>& options, const std::string& log) {
  const std::string where =
      request.dump_path.empty() ? "not dumped; set CUDA_COOP_SOURCE_DUMP_DIR to keep it" : request.dump_path;
  return Error(ErrorKind::ProviderCompile, "NVRTC could not compile the generated source for " + request.arch + " (" +
                                               api.describe(result) + ")\n" + log +
                                               "\nNVRTC options: " + join(options) + "\ngenerated source: " + where);
}

// The emitter's probe `&coop_probe::layout<sizeof(T), alignof(T)>` names a variable template
// instance; NVRTC lowers it to _ZN...ILy<bytes>ELy<align>EEE (Ly: unsigned long long literal).
Layout parse_layout(const std::string& probe, const std::string& lowered) {
  static const std::regex pattern("_ZN.+ILy([0-9]+)ELy([0-9]+)EEE");
  std::smatch match;
  if (!std::regex_match(lowered, match, pattern)) {
    throw Error(ErrorKind::ProviderCompile,
                "NVRTC lowered the layout probe `" + probe + "` to `" + lowered +
                    "`; expected a namespaced variable template instance with exactly two unsigned long long "
                    "arguments, _ZN...ILy<bytes>ELy<alignment>EEE");
  }
  return {std::stoull(match[1]), std::stoull(match[2])};
}

// Best effort: a failure here costs the next compile the PCH's creation, as under Always. Nothing
// may escape: an exception leaving a thread ends the process.
void create_pch(nvrtc::Api& api, const std::string& prefix, const std::vector<std::string>& options) noexcept {
  try {
    const std::lock_guard lock(api.compile_mutex);
    Program program(api, prefix + "namespace coop_pch {}\n", "coop_pch.cu");
    if (program.compile(options) == nvrtc::kSuccess) program.grow_pch_heap_if_exhausted();
  } catch (...) {  // NOLINT(bugprone-empty-catch): the compile that needs the PCH creates it itself
  }
}

}  // namespace

struct Compiler::Impl {
  Toolkit toolkit;
  PchPolicy policy;
  int compiles = 0;  // guarded by the NVRTC table's compile_mutex

  // Loaded on the first compile: a process served by the disk cache never pays for it.
  nvrtc::Api& nvrtc() const { return nvrtc::Api::load(toolkit.nvrtc_library); }

  bool wants_pch() const {
    if (!nvrtc().has_pch()) return false;
    switch (policy) {
      case PchPolicy::Never:
        return false;
      case PchPolicy::Always:
        return true;
      case PchPolicy::AfterFirst:
      case PchPolicy::Background:
        return compiles > 0;
    }
    return false;
  }
};

Compiler::Compiler(const Toolkit& toolkit, PchPolicy policy) : impl_(std::make_unique<Impl>(Impl{toolkit, policy})) {}

Compiler::~Compiler() = default;

std::vector<std::string> Compiler::options(const std::string& arch, bool pch) const {
  parse_arch(arch, "compile");
  // -rdc and -dlto: the bundle is LTO-IR whose extern "C" wrappers the kernel resolves at link
  // time, so CUB inlines across the call.
  // _CCCL_META_UNROLL_LIMIT: the unrolling nvcc gets by default; NVRTC, not detected as nvcc,
  // gets 16, whose preprocessor expansion in cuda/std's type lists is over half of a cold
  // compile of CUB (0.9 s of 1.7 s). It changes how the type lists are written, not what they are.
  std::vector<std::string> options = {"-std=c++17",
                                      "-rdc=true",
                                      "-dlto",
                                      "-arch=" + arch,
                                      "-D_CCCL_META_UNROLL_LIMIT=10",
                                      "-I" + impl_->toolkit.cccl_include,
                                      "-I" + impl_->toolkit.cuda_include};
  if (pch) options.push_back("-pch");
  return options;
}

CompileResult Compiler::compile(const CompileRequest& request) {
  const auto loading = std::chrono::steady_clock::now();
  require_supported_arch(impl_->toolkit, request.arch, "compile");
  nvrtc::Api& api = impl_->nvrtc();
  const auto waiting = std::chrono::steady_clock::now();
  const std::lock_guard lock(api.compile_mutex);
  const auto start = std::chrono::steady_clock::now();
  CompileResult result;
  result.load_seconds = std::chrono::duration<double>(waiting - loading).count();
  result.wait_seconds = std::chrono::duration<double>(start - waiting).count();
  result.used_pch = impl_->wants_pch();
  ++impl_->compiles;

  // Naming the program after the dumped file makes NVRTC's diagnostics point at a file that exists.
  Program program(api, request.source, request.dump_path.empty() ? "coop_bundle.cu" : request.dump_path);
  for (const std::string& probe : request.layout_probes) {
    if (!probe.empty()) program.add_name_expression(probe);
  }
  std::vector<std::string> options = this->options(request.arch, result.used_pch);
  options.insert(options.end(), request.extra_options.begin(), request.extra_options.end());
  const nvrtc::Result status = program.compile(options);
  result.log = program.log();
  if (status != nvrtc::kSuccess) throw compile_failure(api, status, request, options, result.log);
  if (result.used_pch) {
    result.created_pch = api.get_pch_create_status(program.handle()) == nvrtc::kSuccess;
    program.grow_pch_heap_if_exhausted();
  }

  result.ltoir = program.ltoir();
  for (const std::string& probe : request.layout_probes) {
    result.layouts.push_back(probe.empty() ? Layout{} : parse_layout(probe, program.lowered_name(probe)));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The kernel compiler works on the kernel for about a second after this returns; the next
  // bundle with these headers then finds their PCH ready (the thread waits for this lock).
  if (impl_->compiles == 1 && impl_->policy == PchPolicy::Background && api.has_pch()) {
    run_in_background([&api, prefix = include_prefix(request.source), options = this->options(request.arch, true)] {
      create_pch(api, prefix, options);
    });
  }
  return result;
}

void Compiler::wait_for_background_pch() { wait_for_background(); }

std::string include_prefix(const std::string& source) {
  std::string prefix;
  std::size_t start = 0;
  while (start < source.size()) {
    std::size_t end = source.find('\n', start);
    end = end == std::string::npos ? source.size() : end + 1;
    const std::string line = source.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && line[first] != '#' && line.compare(first, 2, "//") != 0) break;
    if (first != std::string::npos && line[first] == '#') prefix += line;
    start = end;
  }
  return prefix;
}

bool is_ltoir(std::string_view bytes) { return bytes.starts_with(std::string_view("\xED\x43\x4E\x7F", 4)); }

std::string not_ltoir(std::string_view bytes) {
  if (is_ltoir(bytes)) return "";
  if (bytes.empty()) return "nothing";
  if (bytes.starts_with("\x7F"
                        "ELF"))
    return "an ELF binary";
  if (bytes.starts_with("//") || bytes.starts_with(".version")) return "PTX or other text";
  return "bytes of an unknown kind";
}

int parse_arch(const std::string& arch, const std::string& call) {
  static const std::regex pattern("sm_([0-9]{2,3})");
  std::smatch match;
  if (!std::regex_match(arch, match, pattern)) {
    reject(ErrorKind::InvalidArgument, call, "arch", "'" + arch + "'", "sm_<major><minor>, e.g. sm_90");
  }
  return std::stoi(match[1]);
}

std::vector<int> supported_archs(const Toolkit& toolkit) {
  return nvrtc::Api::load(toolkit.nvrtc_library).supported_archs();
}

void require_supported_arch(const Toolkit& toolkit, const std::string& arch, const std::string& call) {
  const int number = parse_arch(arch, call);
  const nvrtc::Api& api = nvrtc::Api::load(toolkit.nvrtc_library);
  const std::vector<int> archs = api.supported_archs();
  // An NVRTC that cannot list its archs still rejects a bad one itself, with its log.
  if (archs.empty() || std::find(archs.begin(), archs.end(), number) != archs.end()) return;
  std::string names;
  for (const int supported : archs) names += (names.empty() ? "sm_" : ", sm_") + std::to_string(supported);
  reject(ErrorKind::InvalidArgument, call, "arch", "'" + arch + "'",
         "an arch NVRTC " + api.version() + " compiles for: " + names);
}

}  // namespace coop
