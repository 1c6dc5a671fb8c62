// compile: one NVRTC call turns a bundle's source into LTO-IR and the scratch
// layout of every provider (through name-expression probes).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coop/toolkit.hpp"

namespace coop {

struct Layout {
  std::size_t bytes = 0;
  std::size_t alignment = 0;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// NVRTC's automatic precompiled header lives in process memory only (its file holds
// addresses in NVRTC's PCH heap, so no other process can use it): creating it costs the
// compile that creates it about half again (0.3 s on top of 0.6 s), and pays back from the
// next compile with the same include prefix (its #include lines), which takes a third.
// NVRTC compiles one program at a time in a process, so a PCH created on the side holds
// up every compile that comes while it is being made.
enum class PchPolicy {
  Never,
  Always,      // every compile asks for it: the first creates it, the next ones start from it
  AfterFirst,  // the first compile in a process skips it; the second creates it
  Background,  // as AfterFirst, and the first compile's include prefix is precompiled on a
               // background thread right after it: a compile that comes meanwhile waits for it
};

struct CompileRequest {
  std::string source;
  std::string arch;                             // "sm_90"
  std::vector<std::string> layout_probes;       // "" entries are skipped
  std::string dump_path;                        // where the source was written, for error messages
  std::vector<std::string> extra_options = {};  // beyond options(): what the source's CUB classes need
};

struct CompileResult {
  std::vector<char> ltoir;
  std::vector<Layout> layouts;  // per probe; zero where the probe was ""
  std::string log;
  double seconds = 0;        // the compile, from the moment NVRTC was ours
  double load_seconds = 0;   // loading NVRTC (the first compile of a process)
  double wait_seconds = 0;   // waiting for NVRTC while it worked for another caller (the background PCH)
  bool used_pch = false;     // asked NVRTC for the precompiled header
  bool created_pch = false;  // and NVRTC had to create it (no earlier compile or background work had)
};

class Compiler {
 public:
  Compiler(const Toolkit& toolkit, PchPolicy policy);
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  // Throws coop::Error(ProviderCompile) carrying NVRTC's log and dump_path.
  CompileResult compile(const CompileRequest& request);
  // Returns once a background precompiled header (PchPolicy::Background) is ready.
  static void wait_for_background_pch();
  std::vector<std::string> options(const std::string& arch, bool pch) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The lines NVRTC precompiles into its PCH: the source's leading preprocessor lines (comments and
// blank lines between them do not end them).
std::string include_prefix(const std::string& source);

// Whether `bytes` start as NVRTC's -dlto output does: an NVVM LTO-IR container, whose 32-bit
// magic is 0x7F4E43ED, little-endian. An ELF cubin, PTX or text is not LTO-IR.
bool is_ltoir(std::string_view bytes);

// "" for LTO-IR, otherwise what `bytes` look like instead ("an ELF binary", "text", ...).
std::string not_ltoir(std::string_view bytes);

// "sm_90" -> 90; throws coop::Error(InvalidArgument) for anything else.
int parse_arch(const std::string& arch, const std::string& call);

// The archs the toolkit's NVRTC compiles for (75 for sm_75), ascending; loads NVRTC.
std::vector<int> supported_archs(const Toolkit& toolkit);

// Throws coop::Error(InvalidArgument) naming the supported archs when `arch` is
// well formed but the toolkit's NVRTC cannot target it (sm_10, sm_999). Loads NVRTC.
void require_supported_arch(const Toolkit& toolkit, const std::string& arch, const std::string& call);

}  // namespace coop
