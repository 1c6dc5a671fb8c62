// process_signals: SIGINT and SIGTERM stay the process's own while NVRTC and nvJitLink run.
//
// NVRTC's front end installs, for the length of a process's first compile, a SIGINT and SIGTERM
// handler that calls exit(4): a Ctrl-C during that compile ended a Python interpreter silently,
// and the coop command with status 4 and no message. Handing those two signals back after the
// call cannot help, since the handler is installed inside it. Instead each toolkit library's
// imports of signal() and sigaction() are redirected, once, when it is loaded, to functions that
// leave SIGINT and SIGTERM as the process set them: Python's handler records a Ctrl-C and
// KeyboardInterrupt is raised once the compile returns; the coop command's handler exits 130.
#pragma once

#include <signal.h>

namespace coop {

// Redirects the imports of signal() and sigaction() of the library `handle` (from dlopen) so
// that its requests for SIGINT and SIGTERM change nothing; other signals pass through. Safe to
// call more than once for one library.
void keep_process_signals(void* handle);

// The signals the toolkit libraries may not take from the process.
bool is_process_signal(int number);

// Restores SIGINT's and SIGTERM's dispositions when it goes out of scope: what a library's
// constructors install while dlopen() runs, before its imports can be redirected, is undone.
class ProcessSignalsRestored {
 public:
  ProcessSignalsRestored();
  ~ProcessSignalsRestored();
  ProcessSignalsRestored(const ProcessSignalsRestored&) = delete;
  ProcessSignalsRestored& operator=(const ProcessSignalsRestored&) = delete;

 private:
  struct sigaction interrupt_ {};
  struct sigaction terminate_ {};
};

// Holds SIGINT and SIGTERM back from the calling thread while it lives (a cache entry being
// written): a signal that arrives meanwhile is handled when it ends, so an interrupted process
// leaves a whole entry or none, never a temp file.
class ProcessSignalsDeferred {
 public:
  ProcessSignalsDeferred();
  ~ProcessSignalsDeferred();
  ProcessSignalsDeferred(const ProcessSignalsDeferred&) = delete;
  ProcessSignalsDeferred& operator=(const ProcessSignalsDeferred&) = delete;

 private:
  sigset_t previous_{};
};

}  // namespace coop
