// The coop tool's subcommands; each returns the process exit status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "call_arguments.hpp"

namespace coop::cli {

struct CompileArguments {
  CallArguments call;
  std::vector<std::string> more_calls;  // --call "<description>"
  std::string arch = "sm_90";
  std::optional<std::string> output;  // -o: LTO-IR file
  std::optional<std::string> header;  // --header: declarations for a CUDA C++ caller
  bool json = false;
};

struct LinkArguments {
  std::vector<std::string> inputs;  // kind from the extension: .ltoir .cubin .ptx .fatbin .o
  std::string arch = "sm_90";
  std::string output;
};

int explain(const CallArguments& call, const std::string& arch);
int compile(const CompileArguments& arguments);
int link(const LinkArguments& arguments);
int cache_stats(bool json);
int cache_clear(bool json);  // exits 1 naming every file it could not remove

// "coop: <kind>: <message>" on stderr, or with `json` {"error": {"kind", "message"}} on
// stdout, where the document a --json caller parses would have been.
void print_error(const std::string& kind, const std::string& message, bool json);
int doctor();

}  // namespace coop::cli
