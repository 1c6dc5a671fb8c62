// SHA-256's compression of whole 64-byte blocks, in portable C++ and, where the CPU has them,
// with x86-64's SHA extensions: a warm cache verifies every entry it serves (an HMAC over the
// whole LTO-IR, megabytes for a sort), and the extensions do that five to ten times faster.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace coop::sha256_blocks {

using State = std::array<std::uint32_t, 8>;
using Compress = void (*)(State& state, const unsigned char* blocks, std::size_t count);

void portable(State& state, const unsigned char* blocks, std::size_t count);

// The SHA-extension form when this build and this CPU have it, else nullptr.
Compress accelerated();

// What Sha256 uses: accelerated() where there is one, else portable.
Compress chosen();

}  // namespace coop::sha256_blocks
