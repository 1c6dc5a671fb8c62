// The catalog: every operation the engine can plan, declared as data. Each
// family lives in one file under src/catalog/families/ (found by the build, which
// generates the one list of families) and contributes OperationSpecs in the same
// shape; plan, emit, the ABI, the CLI and the Python front end are generic over them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coop/call_facts.hpp"
#include "coop/dtype.hpp"
#include "coop/group.hpp"

namespace coop {

// What a data operand is to the CUB call; decides its C++ parameter type. A
// Payload* operand takes the call's payload shape: a T[ITEMS_PER_THREAD] by
// pointer, or one T by value for a scalar payload.
enum class OperandRole {
  SourceArray,       // const T* the group reads from
  DestinationArray,  // T* the group writes to
  PayloadIn,         // this thread's T[ITEMS_PER_THREAD], read
  PayloadOut,        // this thread's T[ITEMS_PER_THREAD], written
  PayloadInOut,      // read and possibly rearranged in place (CUB Store transposes)
  Flag,              // this thread's flag, an int32 by value (nonzero: set)
  // A fresh payload in the call's shape that the call writes and the front end
  // returns as the call's value (allocated by the front end, never the user's); for a
  // scalar payload, the call's result.
  PayloadResult,
};

// Memory the group reads or writes (a pointer or strided view), and this thread's items.
inline bool is_memory(OperandRole role) {
  return role == OperandRole::SourceArray || role == OperandRole::DestinationArray;
}
inline bool is_payload(OperandRole role) {
  return role == OperandRole::PayloadIn || role == OperandRole::PayloadOut || role == OperandRole::PayloadInOut ||
         role == OperandRole::PayloadResult;
}

// An array parameter's type expression where it is not the call's own
// `T[ITEMS_PER_THREAD]`: its element type, its extent, or both are facts of the call
// named here (CallFacts::dtypes, CallFacts::extents), which the front end reads from the
// array passed. Radix sort's values, `ValueT[N]`: {.element = "ValueT"}; a histogram's
// counters, `CounterT[bins]`: {.element = "CounterT", .extent = "bins"}. An array with a
// named extent is passed as an array whatever the payload's shape.
struct ArrayType {
  std::string element = {};        // a CallFacts::dtypes name; "": the call's dtype (an option's `element`)
  std::string extent = {};         // a CallFacts::extents name; "": the payload's items per thread
  std::vector<DType> dtypes = {};  // the dtypes a named `element` may be; empty: any
};

struct OperandSpec {
  std::string name;
  OperandRole role;
  // A PayloadResult that starts as a copy of this operand, so the slots CUB leaves
  // unwritten (a shuffle's vacated item) hold that operand's values, not garbage.
  std::string starts_as = {};
  ArrayType array = {};  // PayloadIn, PayloadOut, PayloadInOut: its named element type or extent
};

enum class OptionType {
  Choice,         // one of `choices`, STATIC only
  Count,          // an integer; a RUNTIME value arrives as int64 and is range-checked
  PayloadScalar,  // a value of the payload's dtype
  Offset,         // an element offset (int64) added to `target` before the call
  // A binary operator, STATIC only: a built-in name (builtin_operators()) or
  // "user:<symbol>", an extern "C" __device__ function compiled elsewhere and
  // linked with the provider: `T symbol(T a, T b)`, or for 16-bit floats (whose
  // compiler type and C++ struct are passed differently)
  // `void symbol(T* result, T* a, T* b)`.
  Operator,
  // CUB's block prefix callback, STATIC only: "user:<symbol>", an extern "C"
  // __device__ function `T symbol(void* state, T block_aggregate)` (16-bit
  // floats: `void symbol(T* result, void* state, T* block_aggregate)`). Its state,
  // memory of the calling thread, arrives at run time as the pointer `<name>_state`.
  PrefixCallback,
  ScalarOutput,  // one T the method writes (an aggregate), RUNTIME only: a pointer
  Bool,          // true or false, STATIC only (a template flag such as WARP_TIME_SLICING)
  // Whether the call's result reaches every thread of the group ("true", `default_choice`)
  // or, as CUB returns it, its first thread only ("false"), STATIC only: a warp's by
  // shuffle, a block's through a slot beside the scratch and a barrier.
  Broadcast,
  // An array shaped like the payload whose element type is `element` (exchange's
  // int32 ranks, bool valid_flags), RUNTIME only: read by the method.
  PayloadArray,
};

// Range a Count must lie in; checked at plan time when STATIC, trapped on the
// device before narrowing to CUB's int when RUNTIME.
enum class CountRange {
  Any,
  ZeroToTileCapacity,
  OneToTileCapacity,  // at least one valid member (the seed's valid_items of a scan)
  GroupRank,          // 0 .. threads in the group - 1 (a source lane)
  OtherRank,          // 1 .. threads in the group - 1 (a rotation that moves every value)
};

struct OptionSpec {
  std::string name;
  OptionType type;
  std::vector<std::string> choices;  // Choice
  std::string default_choice;        // Choice: used when omitted
  bool allow_static = true;
  bool allow_runtime = true;
  std::string requires_option;        // must be bound too (oob_default needs valid_items)
  std::vector<std::string> excludes;  // must not be bound with it: CUB has no overload taking both
  std::string target;                 // Offset: the operand displaced
  CountRange range = CountRange::Any;
  bool required = false;                  // OMITTED is rejected (a reduction's operator)
  DType element = DType::Int32;           // PayloadArray: its element type
  std::vector<std::string> aliases = {};  // other names a front end accepts for it (the seed's spellings)
  ArrayType array = {};                   // PayloadArray: its named element type or extent
};

// The ABI parameter carrying a PrefixCallback option's state pointer.
inline std::string prefix_state_parameter(const OptionSpec& option) { return option.name + "_state"; }

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

// The fact a template slot is bound from.
enum class TemplateArg {
  DType,
  BlockDimX,
  BlockDimY,
  BlockDimZ,
  ItemsPerThread,
  Algorithm,
  LogicalWarpThreads,  // threads of one group: a logical warp's lanes, a warps group's 32 x warps
  ClusterBlocks,       // blocks of a cluster group
  Option,              // a STATIC Bool or Choice option's value (or its default), named by `fact`
  NamedDType,          // the C++ type of the named dtype `fact` (CallFacts::dtypes): "ValueT"
  NamedExtent          // the named extent `fact` (CallFacts::extents): "bins"
};

// One template parameter of a CUB class, by its name in CUB, in declaration order.
struct TemplateSlot {
  std::string name;  // "WARP_TIME_SLICING"
  TemplateArg from;
  std::string fact = {};  // Option, NamedDType, NamedExtent: the option or named fact bound to it
};

// Which CUB member function a call makes, selected by the values of one or more
// STATIC options (an omitted option reads as its default). The first rule whose
// `when` all match, for the call's group and payload, is taken; an operation
// without rules always calls its `method`. Options some rule lists in `needs` or
// `allows` are taken only by the rules listing them.
// A `when` value that matches an option only when it is omitted.
inline const std::string kOmittedOption = "(omitted)";

struct MethodRule {
  std::vector<std::pair<std::string, std::string>> when;  // option -> value, or kOmittedOption
  std::string method;
  std::vector<GroupKind> groups = {};          // empty: every group form
  std::vector<PayloadKind> payloads = {};      // empty: every payload shape
  std::vector<std::string> needs = {};         // options that must be given
  std::vector<std::string> allows = {};        // options that may be given
  std::vector<std::string> needs_one_of = {};  // at least one of these must be given
  // Options that, when given, must be exactly this STATIC value (shuffle up shifts by 1);
  // the call is then planned as if they were omitted.
  std::vector<std::pair<std::string, std::string>> fixed = {};
  std::vector<std::pair<std::string, CountRange>> ranges = {};  // Count ranges this method narrows
};

// A class template standing in for a CUB class, declared with the same template
// parameters, that derives from it and adds overloads or guarantees CUB lacks, composed from
// CUB's own the way CUB composes its other classes' (see scan.cpp). Its source
// is emitted once per translation unit that uses it.
struct ClassAdapter {
  std::string name;                  // "::coop_adapt::WarpScanItems"
  std::vector<std::string> headers;  // what `source` needs besides the CUB class's own header
  std::string source;                // a .cuh file under src/adapters/, embedded at build time
};

// One payload shape a form takes, and the options CUB's overloads of that shape
// lack: giving one is rejected as an overload CUB does not have.
struct PayloadShape {
  PayloadKind kind = PayloadKind::Array;
  std::vector<std::string> lacks;
  const ClassAdapter* adapter = nullptr;  // when CUB's class lacks this shape's overloads
};

// How one operation maps to CUB for one group kind.
struct GroupForm {
  GroupKind group;
  std::string cub_class;  // "::cub::BlockLoad"
  std::string header;     // "cub/block/block_load.cuh"
  std::vector<TemplateSlot> template_args;
  std::vector<AlgorithmSpec> algorithms;  // empty: CUB's class has one implementation
  bool needs_whole_warps = false;         // warp forms: the block must be whole warps
  bool needs_scratch = false;             // every call uses a TempStorage, whatever the algorithm
  bool result_in_every_member = false;    // the class returns the result to every member: no broadcast to add
  std::vector<PayloadShape> payloads = {{PayloadKind::Array, {}, nullptr}};
  std::vector<std::string> lacks;  // options no overload of this class takes, whatever the payload

  const PayloadShape* payload(PayloadKind kind) const;
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
  std::vector<MethodRule> methods = {};  // empty: always `method`
  bool returns_value = false;            // CUB's method returns the call's result (a reduction)
  std::vector<DType> dtypes = {};        // payload dtypes CUB supports; empty: every dtype
  // On a group of one thread the call's result is its one value (a reduction of a scalar):
  // a front end may replace the call by its payload instead of planning it.
  bool identity_on_one_thread = false;

  const GroupForm* form(GroupKind kind) const;
  const OptionSpec* option(std::string_view option_name) const;
};

const std::vector<OperationSpec>& catalog();
const OperationSpec* find_operation(std::string_view name);
std::string operation_names();  // "load, store" for error messages

const AlgorithmSpec* find_algorithm(const GroupForm& form, std::string_view name);
std::string algorithm_names(const GroupForm& form);

// What an array parameter's type expression is in a call whose facts plan() has checked:
// the dtype of its elements and the items it holds per thread.
DType element_dtype(const CallFacts& facts, const OperandSpec& operand);
DType element_dtype(const CallFacts& facts, const OptionSpec& option);
int array_extent(const CallFacts& facts, const ArrayType& array);

// A built-in operator: a CUB or libcu++ functor, so it needs no link input.
struct OperatorSpec {
  std::string name;     // "max"
  std::string functor;  // "::cuda::maximum<>"
  std::string header;   // "cuda/functional"
  bool integers_only = false;
  bool needs_order = false;          // min, max: not for complex values
  std::vector<std::string> aliases;  // other spellings: "+", "add", "plus" for sum
};

inline constexpr std::string_view kUserOperatorPrefix = "user:";

const std::vector<OperatorSpec>& builtin_operators();
const OperatorSpec* find_operator(std::string_view name);  // by name or alias
std::string operator_names();                              // "sum, min, ..." for error messages

}  // namespace coop
