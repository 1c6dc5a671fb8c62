// coop: plan, generate, compile, link and cache CUB providers from the shell.
// Bad input exits with status 2 and one message naming the argument; a toolkit,
// compile or link failure exits with status 1; Ctrl-C exits with status 130 and one line.
#include <signal.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "coop/emit.hpp"
#include "coop/error.hpp"
#include "negative_values.hpp"
#include "parse_errors.hpp"

namespace {

int exit_status(coop::ErrorKind kind) {
  switch (kind) {
    case coop::ErrorKind::InvalidArgument:
    case coop::ErrorKind::InvalidGroup:
    case coop::ErrorKind::UnsupportedOperation:
      return 2;
    default:
      return 1;
  }
}

// An argument error is one line even when a value holds a line break: it is shown escaped.
std::string one_line(const std::string& text) {
  std::string line;
  for (const char c : text) {
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else {
      line += c;
    }
  }
  return line;
}

// Status 130, as a shell reports a command it interrupted, and one line instead of silence. NVRTC
// never replaces this handler with its own (exit 4, no message): see engine/src/process_signals.hpp.
// Exiting at once is safe: cache entries are written whole or not at all.
void exit_interrupted(int /*signal*/) {
  static constexpr char kLine[] = "coop: interrupted\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
  ::_exit(130);
}

// A SIGINT the parent ignores (a command started in the background) stays ignored.
void exit_130_on_interrupt() {
  struct sigaction action {};
  if (::sigaction(SIGINT, nullptr, &action) != 0 || action.sa_handler == SIG_IGN) return;
  action = {};
  action.sa_handler = exit_interrupted;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  exit_130_on_interrupt();
  CLI::App app("cuda.coop engine: CUB cooperative primitives as compiled providers", "coop");
  app.require_subcommand(1);
  app.set_version_flag("--version", coop::engine_version(), "Print the engine version and exit");

  coop::cli::CallArguments explain_call;
  std::string explain_arch = "sm_90";
  CLI::App* explain = app.add_subcommand("explain", "Print the plan and generated C++ for one call");
  coop::cli::add_call_options(*explain, explain_call);
  explain->add_option("--arch", explain_arch, "Target architecture")->capture_default_str();

  coop::cli::CompileArguments compile_arguments;
  CLI::App* compile = app.add_subcommand("compile", "Compile one bundle of calls to LTO-IR and print their layouts");
  coop::cli::add_call_options(*compile, compile_arguments.call);
  compile->add_option("--call", compile_arguments.more_calls, "Another call in the same bundle, quoted");
  compile->add_option("--arch", compile_arguments.arch, "Target architecture, sm_XX")->capture_default_str();
  compile->add_option("-o,--output", compile_arguments.output, "Write the LTO-IR here");
  compile->add_option("--header", compile_arguments.header,
                      "Write a CUDA C++ header declaring the providers (COOP_PROVIDER_<n> names the n-th call)");
  compile->add_flag("--json", compile_arguments.json, "Print the result as JSON");

  coop::cli::LinkArguments link_arguments;
  CLI::App* link = app.add_subcommand("link", "Link LTO-IR and other device code into a cubin with nvJitLink");
  link->add_option("inputs", link_arguments.inputs, "Inputs: .ltoir .cubin .ptx .fatbin .o")->required();
  link->add_option("--arch", link_arguments.arch, "Target architecture, sm_XX")->capture_default_str();
  link->add_option("-o,--output", link_arguments.output, "The cubin to write")->required();

  bool cache_json = false;
  CLI::App* cache = app.add_subcommand("cache", "Inspect or clear the persistent provider cache");
  cache->require_subcommand(1);
  CLI::App* stats = cache->add_subcommand("stats", "Entries and bytes in the cache");
  stats->add_flag("--json", cache_json, "Print as JSON");
  CLI::App* clear = cache->add_subcommand("clear", "Remove every entry");
  clear->add_flag("--json", cache_json, "Print as JSON");

  CLI::App* doctor = app.add_subcommand("doctor", "Which NVRTC, nvJitLink, headers and cache are in use");

  const std::vector<std::string> args = coop::cli::attach_negative_values(app, {argv + 1, argv + argc});
  try {
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 takes them last first
  } catch (const CLI::Success& done) {                                // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    std::cerr << "coop: " << coop::to_string(coop::ErrorKind::InvalidArgument) << ": "
              << one_line(coop::cli::describe_parse_error(app, error, args)) << "\n";
    return 2;
  }
  try {
    if (*explain) return coop::cli::explain(explain_call, explain_arch);
    if (*compile) return coop::cli::compile(compile_arguments);
    if (*link) return coop::cli::link(link_arguments);
    if (*stats) return coop::cli::cache_stats(cache_json);
    if (*clear) return coop::cli::cache_clear(cache_json);
    if (*doctor) return coop::cli::doctor();
  } catch (const coop::Error& error) {
    // Argument errors are one line; compile and link faults keep their multi-line logs.
    const int status = exit_status(error.kind());
    coop::cli::print_error(coop::to_string(error.kind()), status == 2 ? one_line(error.what()) : error.what(),
                           cache_json);
    return status;
  } catch (const std::exception& error) {
    // A fault no check foresaw is still one line and a status, never an abort.
    coop::cli::print_error("InternalError", one_line(error.what()) + " (a bug in coop: please report it)", cache_json);
    return 1;
  }
  return 2;
}
