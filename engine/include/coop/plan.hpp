// Plan: the validated CUB specialization for one call, and everything a front
// end needs to call it: the ABI of its wrapper, its scratch and its barrier.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coop/abi.hpp"
#include "coop/call_facts.hpp"
#include "coop/catalog.hpp"

namespace coop {

// Most dimensions a strided view may have.
inline constexpr int kMaxViewDimensions = 8;

// A device function the provider calls but does not define (a user operator):
// the front end must give nvJitLink its LTO-IR together with the bundle's.
// A function compiled elsewhere that a provider calls and is linked with.
struct ExternalFunction {
  enum class Kind { BinaryOperator, PrefixCallback, Predicate };
  Kind kind = Kind::BinaryOperator;
  std::string symbol;
  std::string declaration;  // extern "C" __device__ T symbol(T a, T b);
  bool by_pointer = false;  // values cross as pointers (16-bit floats)
  friend bool operator==(const ExternalFunction&, const ExternalFunction&) = default;
};

// Barrier a front end must place before another consumer reuses this call's scratch.
// Own: the call frees its scratch itself before returning (a group of warps on its own
// named barrier, a cluster on the cluster's barrier), so its next run needs none; another call sharing the scratch lays
// it out differently, so it waits at a block barrier.
enum class Barrier { None, Block, Warp, Own };
const char* to_string(Barrier barrier);

// The values a Count may take, and how a message says it; nullopt for CountRange::Any.
struct CountBounds {
  long long low = 0, high = 0;
  std::string words;  // "1..32 (the tile capacity: items_per_thread x group threads)"
};
// A Count's value where it is known before the call runs: STATIC, or omitted with a default
// (its default_choice or omitted_value; a KeyBitEnd's is the key's width); nullopt where it is
// RUNTIME or has no default.
std::optional<long long> known_count(const CallFacts& facts, const OptionSpec& option);

// `key_bits`: the width of the call's dtype, for the key-bit ranges.
std::optional<CountBounds> count_bounds(CountRange range, long long tile, int threads, int key_bits);

struct Plan {
  CallFacts facts;
  const OperationSpec* operation = nullptr;
  const GroupForm* form = nullptr;
  const AlgorithmSpec* algorithm = nullptr;  // null where CUB's class has one implementation (warps)
  const ClassAdapter* adapter = nullptr;     // null where CUB's class has the overload itself
  std::string method;                        // the CUB member function called
  const MethodRule* rule = nullptr;          // the rule that chose it, if the operation has rules
  std::vector<std::pair<std::string, std::string>> template_arguments;  // name, C++
  std::string cub_type;   // the full specialization, e.g. ::cub::BlockLoad<...>
  std::string call_type;  // what the call is made on: cub_type, or the adapter's specialization
  std::vector<std::string> headers;
  std::vector<AbiParam> abi;
  // The value the call produces, written through the wrapper's leading `void* ret`
  // (kind Pointer, cpp_type the pointee); nullopt when it produces none and ret
  // is unused. The front end allocates the slot and reads it after the call.
  std::optional<AbiParam> result;
  std::vector<ExternalFunction> external_functions;
  bool needs_scratch = false;
  int scratch_instances = 0;  // one TempStorage per group instance in the block
  Barrier reuse_barrier = Barrier::None;
  std::string key;     // canonical text of everything that shapes the generated code
  std::string digest;  // SHA-256 of `key`, hex

  long long tile_capacity() const;  // items one group instance holds
  CountRange range_of(const OptionSpec& option) const;
  bool broadcasts() const;  // the result reaches every thread of the group (OptionType::Broadcast)  // the option's, or
                            // what the method rule narrows it to
  std::string describe() const;
};

// Bounds on items_per_thread. CUB unrolls its loops over a thread's items, and
// nvJitLink optimizes the unrolled code when it inlines a provider into the
// kernel, so link time grows with the items, quadratically past about 128.
// Measured on 2 shared CPU cores (CUDA 13.0, sm_90, a block of 128 threads,
// int32, NVRTC without its precompiled header; nvJitLink joining an nvcc kernel
// with the bundle):
//   items per thread        16    32    64   128   256   512  1024  2048
//   load + store, transpose
//     NVRTC (s)            1.9   1.7   1.7   1.9   1.9   1.9   1.3   1.4
//     nvJitLink (s)        0.14  0.17  0.26  0.76  2.4   4.2  18.1  68.5
//   inclusive_sum, warp_scans
//     NVRTC (s)            1.1   1.1   1.1   1.1   1.1   1.2
//     nvJitLink (s)        0.08  0.09  0.11  0.18  0.36  0.92
// NVRTC's time stays flat: it only instantiates the templates. ThreadData(10000)
// spent about 400 s in nvJitLink. Past kMaxItemsPerThread a call is refused (a
// few seconds of link per call at most); past kSlowItemsPerThread, where the
// curve bends and the items no longer fit in registers, it warns once per call.
inline constexpr int kMaxItemsPerThread = 512;
inline constexpr int kSlowItemsPerThread = 128;

// Bound on a named extent (CallFacts::extents: a histogram's bins). It specializes the CUB
// class and sizes an array the group holds in shared or local memory: 65536 int32 counters
// are 256 KiB, more than a block's shared memory (228 KiB on the H200), and CUB unrolls
// its loops over them.
inline constexpr int kMaxNamedExtent = 65536;

// Validates `facts` against the catalog; throws coop::Error naming the call, the
// argument, the value and what is allowed. Nothing reaches NVRTC that this rejects.
Plan plan(const CallFacts& facts);

// Plans against `operation` rather than the catalog's entry named facts.operation: an
// operation the product catalog does not register (the engine's tests of catalog features
// no family uses yet). The plan points into `operation`, which must outlive it.
Plan plan(const CallFacts& facts, const OperationSpec& operation);

}  // namespace coop
