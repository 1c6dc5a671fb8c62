// A kernel that keeps the GPU busy for a given time, queued before each timed
// launch so that the host's launch cost stays out of the events (timing.py).
#pragma once

extern "C" __global__ void spin(long long nanoseconds) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}
