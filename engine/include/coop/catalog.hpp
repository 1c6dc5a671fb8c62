// The catalog: every operation the engine can plan, declared as data. Each
// family lives in one file under src/catalog/ and contributes OperationSpecs in
// the same shape; plan and emit are generic over them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "coop/group.hpp"

namespace coop {

// What a data operand is to the CUB call; decides its C++ parameter type.
enum class OperandRole {
  SourceArray,       // const T* the group reads from
  DestinationArray,  // T* the group writes to
  PayloadIn,         // this thread's T[ITEMS_PER_THREAD], read
  PayloadOut,        // this thread's T[ITEMS_PER_THREAD], written
  PayloadInOut,      // read and possibly rearranged in place (CUB Store transposes)
};

struct OperandSpec {
  std::string name;
  OperandRole role;
};

enum class OptionType {
  Choice,         // one of `choices`, STATIC only
  Count,          // an integer; a RUNTIME value arrives as int64 and is range-checked
  PayloadScalar,  // a value of the payload's dtype
  Offset,         // an element offset (int64) added to `target` before the call
};

// Range a Count must lie in; checked at plan time when STATIC, trapped on the
// device before narrowing to CUB's int when RUNTIME.
enum class CountRange { Any, ZeroToTileCapacity };

struct OptionSpec {
  std::string name;
  OptionType type;
  std::vector<std::string> choices;  // Choice
  std::string default_choice;        // Choice: used when omitted
  bool allow_static = true;
  bool allow_runtime = true;
  std::string requires_option;  // must be bound too (oob_default needs valid_items)
  std::string target;           // Offset: the operand displaced
  CountRange range = CountRange::Any;
};

struct AlgorithmSpec {
  std::string name;      // user-facing: "transpose"
  std::string cub_enum;  // "::cub::BLOCK_LOAD_TRANSPOSE"
  bool needs_scratch = false;
  bool needs_whole_warps = false;  // CUB static_asserts a block of whole warps
  // CUB function doing the same work with scalar accesses. CUB's vectorized
  // store does not check the pointer's alignment (its load does), so the wrapper
  // falls back to this when the pointer cannot take CUB's vectors.
  std::string unaligned_fallback;
};

// Template argument derivations, in the order the CUB class declares them.
enum class TemplateArg { DType, BlockDimX, BlockDimY, BlockDimZ, ItemsPerThread, Algorithm, LogicalWarpThreads };

// How one operation maps to CUB for one group kind.
struct GroupForm {
  GroupKind group;
  std::string cub_class;  // "::cub::BlockLoad"
  std::string header;     // "cub/block/block_load.cuh"
  std::vector<TemplateArg> template_args;
  std::vector<AlgorithmSpec> algorithms;
  bool needs_whole_warps = false;  // warp forms: the block must be whole warps
};

struct OperationSpec {
  std::string name;    // "load"
  std::string family;  // "load_store"
  std::string method;  // CUB member function: "Load"
  std::vector<OperandSpec> operands;
  std::vector<OptionSpec> options;
  // Operands and options in the order of CUB's parameters; an OMITTED option is
  // dropped, which selects the shorter overload.
  std::vector<std::string> method_arguments;
  std::vector<GroupForm> forms;

  const GroupForm* form(GroupKind kind) const;
  const OptionSpec* option(std::string_view option_name) const;
};

const std::vector<OperationSpec>& catalog();
const OperationSpec* find_operation(std::string_view name);
std::string operation_names();  // "load, store" for error messages

const AlgorithmSpec* find_algorithm(const GroupForm& form, std::string_view name);
std::string algorithm_names(const GroupForm& form);

}  // namespace coop
