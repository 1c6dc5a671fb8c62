#include "background.hpp"

#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace coop {
namespace {

struct Threads {
  std::mutex mutex;
  std::vector<std::thread> running;
};

// Never destroyed: exit() waits on it from its own handler, after static destructors may have run.
Threads& threads() {
  static auto* all = new Threads();
  return *all;
}

void wait_at_exit() { wait_for_background(); }

// SIGINT and SIGTERM are for the caller's threads, whose handlers (Python's, the coop command's)
// expect them: this thread may be the one the kernel picks while the caller holds them back.
void leave_signals_to_the_caller() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

}  // namespace

// At the caller's priority: at the lowest (nice 19) the work starved while the kernel compiler's
// threads ran, and the next kernel's compile waited for it (0.7 s on the H200, issue 23): NVRTC
// compiles one program at a time in a process, so a PCH still being created holds up every
// compile behind it.
void run_in_background(std::function<void()> work) {
  static std::once_flag hooks;
  std::call_once(hooks, [] {
    std::atexit(wait_at_exit);
    pthread_atfork(wait_at_exit, nullptr, nullptr);
  });
  Threads& all = threads();
  const std::lock_guard lock(all.mutex);
  all.running.emplace_back([work = std::move(work)] {
    leave_signals_to_the_caller();
    work();
  });
}

void wait_for_background() {
  std::vector<std::thread> finishing;
  {
    const std::lock_guard lock(threads().mutex);
    finishing.swap(threads().running);
  }
  for (std::thread& thread : finishing) {
    if (thread.get_id() != std::this_thread::get_id()) thread.join();
  }
}

}  // namespace coop
