// A real SIGINT during a process's first NVRTC compile, the one whose front end installs a handler
// that calls exit(4): the process's own handler must receive it, and the compile must finish.
// ctest runs each test in a process of its own, so this compile is the process's first.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "coop/compile.hpp"

namespace coop {
namespace {

volatile sig_atomic_t interrupts = 0;
void count_interrupt(int /*signal*/) { interrupts = interrupts + 1; }

constexpr const char* kSource = R"(
#include <cub/block/block_load.cuh>
extern "C" __device__ void coop_load(const int* src, int* items) {
  cub::LoadDirectBlocked(threadIdx.x, src, *reinterpret_cast<int(*)[4]>(items));
}
)";

TEST(ProcessSignals, SigintDuringTheFirstCompileReachesTheProcessHandler) {
  struct sigaction ours {};
  ours.sa_handler = count_interrupt;
  sigemptyset(&ours.sa_mask);
  ASSERT_EQ(sigaction(SIGINT, &ours, nullptr), 0);
  const Toolkit toolkit = Toolkit::locate(ToolkitSearch::from_environment());
  Compiler compiler(toolkit, PchPolicy::Never);

  std::atomic<bool> done = false;
  bool handler_replaced = false;
  std::thread compiling([&] {
    EXPECT_FALSE(compiler.compile({kSource, "sm_90", {}, ""}).ltoir.empty());
    done = true;
  });
  // The handler stays ours the whole compile long; a SIGINT mid-compile is ours to count.
  const auto start = std::chrono::steady_clock::now();
  bool sent = false;
  while (!done) {
    struct sigaction current {};
    sigaction(SIGINT, nullptr, &current);
    handler_replaced = handler_replaced || current.sa_handler != count_interrupt;
    if (!sent && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(200)) {
      sent = kill(getpid(), SIGINT) == 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  compiling.join();
  EXPECT_FALSE(handler_replaced);
  EXPECT_TRUE(sent) << "the compile ended within 200 ms: the signal came after it";
  EXPECT_EQ(interrupts, sent ? 1 : 0);
}

}  // namespace
}  // namespace coop
