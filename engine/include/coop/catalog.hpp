// The catalog: every operation the engine can plan, declared as data. Each
// family lives in one file under src/catalog/families/ (found by the build, which
// generates the one list of families) and contributes OperationSpecs in the same
// shape; plan, emit, the ABI, the CLI and the Python front end are generic over them.
#pragma once

#include <optional>
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

// An array whose length CUB derives from the call rather than from the payload: the
// front end passes the user's array's length as its named extent, which must equal it.
enum class ExtentRule {
  Given,            // any length the named extent gives (1..kMaxNamedExtent)
  DigitsPerThread,  // a radix rank's digit counters per thread: max(1, ceil(2^radix_bits / threads))
  // A result's items per lane, which plan() derives: ceil(items per thread / the group's threads)
  // (a batched warp reduction's one result per batch, spread over the lanes).
  BatchesPerLane,
};

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
  // An element dtype fixed by CUB whatever the call's (a radix rank's int32 ranks); it
  // takes precedence over `element`.
  std::optional<DType> fixed = {};
  ExtentRule rule = ExtentRule::Given;  // with a named `extent`: what its length must be
  // A memory array (an operand of role SourceArray or DestinationArray, an option of type
  // DestinationArray) whose element count the method receives with it, to check that what it
  // reads or writes fits: contiguous memory crosses as its pointer and its size (AbiKind::Size)
  // and reaches the method as a ::coop_adapt::Sized<T>, a strided view as its StridedView; both
  // answer size() and index from the array's first element. A sized array is no Offset's target.
  bool sized = false;
};

struct OperandSpec {
  std::string name;
  OperandRole role;
  // A PayloadResult that starts as a copy of this operand, so the slots CUB leaves
  // unwritten (a shuffle's vacated item) hold that operand's values, not garbage, and a
  // CUB method that works in place (a sort) can be handed the result to work on.
  std::string starts_as = {};
  ArrayType array = {};  // PayloadIn, PayloadOut, PayloadInOut: its named element type or extent
  // A PayloadResult the call returns only where one of these STATIC option values holds (option ->
  // value; an omitted option reads as its default): a discontinuity's tails, for the modes that flag
  // tails. Elsewhere the method leaves it unwritten and the front end does not return it. Empty: always.
  std::vector<std::pair<std::string, std::string>> returned_when = {};
};

enum class OptionType {
  Choice,         // one of `choices`, STATIC only
  Count,          // an integer; a RUNTIME value arrives as int64 and is range-checked
  PayloadScalar,  // a value of the payload's dtype
  // An element offset (int64) added to `target` before the call, or with `index_dtype` an index
  // the method takes whole.
  Offset,
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
  // A device array the method writes beside the call's memory (a run-length decode's relative
  // offsets, at the positions of the items it decodes), RUNTIME only: crossing as a memory operand
  // of role DestinationArray does (a pointer, or a strided view), of elements of the named dtype
  // `array.element`, or of the call's dtype.
  DestinationArray,
  // A binary predicate, STATIC only: a built-in name (builtin_predicates()) or
  // "user:<symbol>", an extern "C" __device__ function compiled elsewhere and linked with
  // the provider: `int symbol(T a, T b)`, nonzero meaning true, or for values passed by
  // pointer `void symbol(int* result, T* a, T* b)`. A merge sort's strict "less", a
  // discontinuity's "differ".
  Predicate,
};

// Range a Count must lie in; checked at plan time when STATIC, trapped on the
// device before narrowing to CUB's int when RUNTIME.
enum class CountRange {
  Any,
  ZeroToTileCapacity,
  OneToTileCapacity,  // at least one valid member (the seed's valid_items of a scan)
  GroupRank,          // 0 .. threads in the group - 1 (a source lane)
  OtherRank,          // 1 .. threads in the group - 1 (a rotation that moves every value)
  KeyBitBegin,        // 0 .. bits of the call's dtype - 1 (the first key bit a radix pass reads)
  KeyBitEnd,          // 1 .. bits of the call's dtype (one past the last)
  DigitBits,          // 1 .. 8 (bits of one radix digit: CUB keeps 2^bits counters per thread)
  // 0 .. tile capacity at run time (a top-k's k: 0 selects nothing); a constant selects at
  // least one, since a constant 0 is a mistake.
  Selection,
  Positive,  // 1 .. 2^31 - 1 (a histogram's bins)
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
  // Count: another Count option this one must be below (begin_bit < end_bit); checked at plan
  // time where both are known, trapped on the device where either is RUNTIME. An omitted
  // option reads as its `default_choice`, or for a KeyBitEnd as the key's width.
  std::string less_than = {};
  // Count: {first, width}: this option is first + width (a radix rank's end_bit is begin_bit +
  // radix_bits). Given with width, the two must agree; omitted, it is first + width; given
  // alone, width is derived from it. Each is STATIC (or omitted with a default or omitted_value).
  std::vector<std::string> sum_of = {};
  // What CUB's shorter overload takes for it when omitted, passed where a later argument is
  // given (begin_bit 0 before an end_bit); "" when it is the last of its overload.
  std::string omitted_value = {};
  // Choice: the C++ spelling of each of `choices`, in order, where a template slot takes it
  // (an inner scan's ::cub::BLOCK_SCAN_WARP_SCANS); empty: the choice's own text.
  std::vector<std::string> choices_cpp = {};
  // Predicate: a STATIC Bool option that, when true, reverses the predicate (a merge sort's
  // descending: the default "less" becomes "greater", a user predicate takes (b, a)).
  std::string reversed_by = {};
  // Operator: the call regroups its operands (a reduction, a scan), so a built-in that is not
  // associative (difference) is refused; an adjacent difference applies its operator once per pair.
  bool needs_associative = true;
  // STATIC Choice of dtype names, or STATIC Count: its value (or default) is this named dtype or
  // extent of the call (CallFacts::dtypes, ::extents), which plan() fills from it: a histogram's
  // counter_dtype is its counters' CounterT, bins_per_thread their extent.
  std::string fills_fact = {};
  // Count: at most the group's threads times this other STATIC Count's value (a histogram's bins
  // fit the striped counters its threads hold).
  std::string at_most_threads_times = {};
  // Choice of dtype names with a fills_fact, omitted: where no array passed gives the fact (an
  // array the kernel typed does), the named dtype of the call this names, widened to at least 32
  // bits within its signedness (at_least_32_bits), rather than `default_choice`: a run-length
  // decode counts its decoded items in its lengths' dtype.
  std::string default_like = {};
  // Offset taken whole as an index by the method (no `target`): the CallFacts::dtypes name of the
  // dtype its RUNTIME value crosses as, which the front end fills from the value given: uint64
  // for an unsigned 64-bit value, whose values past int64's range the method then sees whole, and
  // int64 for any other integer (also where the front end leaves it out). A STATIC value is then
  // 0..2^64-1. Empty: an int64 offset, and a front end refuses an unsigned 64-bit value.
  std::string index_dtype = {};
};

// The dtypes an Offset's `index_dtype` may be: int64, and uint64 for an unsigned 64-bit value.
inline const std::vector<DType>& index_dtypes() {
  static const std::vector<DType> dtypes = {DType::Int64, DType::UInt64};
  return dtypes;
}

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
  NamedExtent,         // the named extent `fact` (CallFacts::extents): "bins"
  Literal              // the C++ text `fact` itself: a keys-only sort's ValueT, ::cub::NullType
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
  std::vector<std::string> lacks;            // options no overload of this class takes, whatever the payload
  bool needs_power_of_two_threads = false;   // CUB static_asserts a power-of-two group (BlockMergeSort)
  bool needs_one_dimensional_block = false;  // CUB's class has BLOCK_DIM_X only (a block top-k)
  long long max_tile_items = 0;              // CUB's bound on items x threads (radix ranks count in 16 bits); 0: none
  // The first CCCL release whose headers have `header` (cub::WarpReduceBatched: "3.5"); "" for
  // every release. A CCCL without the header is refused at compile time, naming this.
  std::string since_cccl = {};
  // What CUB's header needs of NVRTC beyond the engine's own options, for the bundles holding
  // this form only (CCCL 3.5's WarpReduceBatched: -default-device, for its unannotated lambdas).
  std::vector<std::string> nvrtc_options = {};

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
  // With returns_value: the CallFacts::dtypes name the result is of (a run-length decode's total,
  // OffsetT); "": the call's dtype.
  std::string result_dtype = {};
  std::vector<DType> dtypes = {};  // payload dtypes CUB supports; empty: every dtype
  // On a group of one thread the call's result is its one value (a reduction of a scalar):
  // a front end may replace the call by its payload instead of planning it.
  bool identity_on_one_thread = false;
  // CUB's class has no overloads for one value per thread, but one item per thread is the
  // same call: a front end passes a scalar payload (and its other payload operands) as
  // one-item arrays, plans the call for arrays of one item, and returns each result's item.
  bool scalar_as_one_item = false;
  // The payload may be a record (a tuple of scalars, a NumPy aligned structured dtype) besides
  // `dtypes`: CUB's class moves or combines any copyable type. Its operators must then be user
  // functions (a built-in has no meaning on a record), which take and return records by pointer.
  bool takes_records = false;

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
  bool associative = true;           // false: a - b, which a reduction or scan would regroup
};

inline constexpr std::string_view kUserOperatorPrefix = "user:";

const std::vector<OperatorSpec>& builtin_operators();
const OperatorSpec* find_operator(std::string_view name);  // by name or alias
// "sum, min, ..." for error messages: the associative ones, or every one.
std::string operator_names(bool associative_only = true);

// A built-in binary predicate (OptionType::Predicate): a libcu++ functor returning bool.
struct PredicateSpec {
  std::string name;                  // "less"
  std::string functor;               // "::cuda::std::less<>"
  std::string reversed;              // the predicate with its arguments swapped: "greater"
  bool needs_order = false;          // less, greater: not for complex values
  std::vector<std::string> aliases;  // "<", "lt"
};

const std::vector<PredicateSpec>& builtin_predicates();
const PredicateSpec* find_predicate(std::string_view name);  // by name or alias
std::string predicate_names();

}  // namespace coop
