// background: work the engine does off the caller's thread (creating NVRTC's precompiled
// header while the kernel compiler works). exit() and fork() wait for it: NVRTC must not be
// inside a compile while its statics are destroyed, nor while a child copies its locks.
#pragma once

#include <functional>

namespace coop {

// Starts `work` on its own thread. `work` must not throw, nor touch Python or the warning sink
// (the thread may outlive the interpreter's last call into the engine).
void run_in_background(std::function<void()> work);

// Returns once every piece of work started so far has finished.
void wait_for_background();

}  // namespace coop
