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
int cache_clear();
int doctor();

}  // namespace coop::cli
