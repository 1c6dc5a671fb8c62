// Plan: the validated CUB specialization for one call, and everything a front
// end needs to call it: the ABI of its wrapper, its scratch and its barrier.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "coop/call_facts.hpp"
#include "coop/catalog.hpp"

namespace coop {

// One parameter of a generated wrapper after its leading `void* ret` slot.
enum class AbiKind { Pointer, Value };
struct AbiParam {
  std::string name;
  AbiKind kind;
  std::string cpp_type;  // the value's type, or the pointee's for a pointer
  friend bool operator==(const AbiParam&, const AbiParam&) = default;
};

// Barrier a front end must place before another consumer reuses this call's scratch.
enum class Barrier { None, Block, Warp };
const char* to_string(Barrier barrier);

struct Plan {
  CallFacts facts;
  const OperationSpec* operation = nullptr;
  const GroupForm* form = nullptr;
  const AlgorithmSpec* algorithm = nullptr;
  std::vector<std::pair<std::string, std::string>> template_arguments;  // name, C++
  std::string cub_type;  // the full specialization, e.g. ::cub::BlockLoad<...>
  std::vector<std::string> headers;
  std::vector<AbiParam> abi;
  bool needs_scratch = false;
  int scratch_instances = 0;  // one TempStorage per group instance in the block
  Barrier reuse_barrier = Barrier::None;
  std::string key;     // canonical text of everything that shapes the generated code
  std::string digest;  // SHA-256 of `key`, hex

  int tile_capacity() const;  // items one group instance moves
  std::string describe() const;
};

// Validates `facts` against the catalog; throws coop::Error naming the call, the
// argument, the value and what is allowed. Nothing reaches NVRTC that this rejects.
Plan plan(const CallFacts& facts);

}  // namespace coop
