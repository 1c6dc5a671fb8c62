#include "coop/plan.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>

#include "coop/digest.hpp"
#include "coop/error.hpp"
#include "coop/warning.hpp"
#include "literal.hpp"
#include "named_facts.hpp"

namespace coop {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string option_names(const OperationSpec& operation) {
  std::string names;
  for (const auto& option : operation.options) names += (names.empty() ? "" : ", ") + option.name;
  return names;
}

const OperationSpec& require_operation(const CallFacts& facts) {
  const OperationSpec* operation = find_operation(facts.operation);
  if (operation == nullptr) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "operation", quoted(facts.operation),
           "one of: " + operation_names());
  }
  return *operation;
}

const GroupForm& require_form(const OperationSpec& operation, const CallFacts& facts) {
  const GroupForm* form = operation.form(facts.group.kind);
  if (form == nullptr) {
    std::string kinds;
    for (const auto& candidate : operation.forms)
      kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(candidate.group));
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "group", facts.group.describe(),
           "a group kind that " + operation.name + " supports: " + kinds);
  }
  return *form;
}

// The operations that take record payloads, for messages: "reduce, scan, ...".
std::string record_operation_names() {
  std::string names;
  for (const auto& operation : catalog()) {
    if (operation.takes_records) names += (names.empty() ? "" : ", ") + operation.name;
  }
  return names;
}

// A record payload goes to the operations whose CUB class moves or combines any type, and
// is combined by the user's functions only: a built-in operator has no meaning on it.
void require_record_support(const OperationSpec& operation, const CallFacts& facts) {
  const std::string dtype(info(facts.dtype).name);
  if (!operation.takes_records) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "dtype", dtype,
           "a scalar dtype: " + operation.name + " (family " + operation.family +
               ") takes no records; the operations that take records are " + record_operation_names());
  }
  for (const auto& option : operation.options) {
    const bool predicate = option.type == OptionType::Predicate;
    if (option.type != OptionType::Operator && !predicate) continue;
    const OptionBinding bound = facts.option(option.name);
    if (bound.binding == Binding::Static && bound.value.starts_with(kUserOperatorPrefix)) continue;
    const std::string given = bound.binding == Binding::Static    ? quoted(bound.value)
                              : bound.binding == Binding::Omitted ? (predicate ? "omitted (less)" : "omitted (the sum)")
                                                                  : "a runtime value";
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), option.name, given + " on " + dtype,
           predicate ? "a user comparator (a Python function less(a, b) taking the records' fields as tuples and "
                       "returning a bool): a built-in comparison has no meaning on a record"
                     : "a user operator (a Python function op(a, b) taking and returning the record's fields as a "
                       "tuple): a built-in operator has no meaning on a record");
  }
}

void require_dtype(const OperationSpec& operation, const CallFacts& facts) {
  if (info(facts.dtype).is_record) return require_record_support(operation, facts);
  if (operation.dtypes.empty() ||
      std::find(operation.dtypes.begin(), operation.dtypes.end(), facts.dtype) != operation.dtypes.end()) {
    return;
  }
  std::string names;
  for (const DType dtype : operation.dtypes) names += (names.empty() ? "" : ", ") + std::string(info(dtype).name);
  reject(ErrorKind::UnsupportedOperation, facts.call_name(), "dtype", std::string(info(facts.dtype).name),
         "one of the dtypes " + operation.name + " supports: " + names);
}

const char* payload_words(PayloadKind kind) { return kind == PayloadKind::Array ? "a ThreadData array" : "a scalar"; }
const char* overload_words(PayloadKind kind) { return kind == PayloadKind::Array ? "ThreadData" : "scalar"; }

// The payload operand named in messages: the first that takes the payload's shape.
std::string payload_operand(const OperationSpec& operation) {
  for (const auto& operand : operation.operands) {
    if (is_payload(operand.role)) return operand.name;
  }
  return "items";
}

// CUB unrolls over the items: their number multiplies what nvJitLink optimizes (see kMaxItemsPerThread).
void require_bounded_items(const CallFacts& facts) {
  if (facts.items_per_thread <= kMaxItemsPerThread) return;
  reject(ErrorKind::InvalidArgument, facts.call_name(), "items_per_thread", std::to_string(facts.items_per_thread),
         "at most " + std::to_string(kMaxItemsPerThread) +
             ": CUB unrolls over the items, so compile and link time grow with them (1024 took 18 s to link, "
             "2048 68 s); loop over tiles instead");
}

// Once per call and value: a kernel compiled again is not news.
void warn_if_slow(const CallFacts& facts) {
  const int items = facts.items_per_thread;
  if (items <= kSlowItemsPerThread) return;
  warn_once("items_per_thread " + std::to_string(items) + " " + facts.call_name(),
            facts.call_name() + ": items_per_thread " + std::to_string(items) + " is above " +
                std::to_string(kSlowItemsPerThread) +
                ": CUB unrolls over the items, so linking the kernel takes seconds (quadratic in the items) and "
                "they no longer fit in registers");
}

const PayloadShape& require_payload(const OperationSpec& operation, const GroupForm& form, const CallFacts& facts) {
  if (facts.items_per_thread < 1) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), "items_per_thread", std::to_string(facts.items_per_thread),
           "an integer >= 1");
  }
  require_bounded_items(facts);
  if (facts.payload == PayloadKind::Scalar && facts.items_per_thread != 1) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), "items_per_thread", std::to_string(facts.items_per_thread),
           "1 for a scalar payload (one value per thread)");
  }
  const PayloadShape* shape = form.payload(facts.payload);
  if (shape == nullptr) {
    const PayloadKind other = facts.payload == PayloadKind::Array ? PayloadKind::Scalar : PayloadKind::Array;
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), payload_operand(operation), payload_words(facts.payload),
           std::string(payload_words(other)) + ": " + form.cub_class + "::" + operation.method + " has no " +
               overload_words(facts.payload) + " overload");
  }
  return *shape;
}

// A complex value or a record crosses the ABI by pointer, so it has no literal: a STATIC one is refused.
void require_complex_by_pointer(const OperationSpec& operation, const CallFacts& facts) {
  if (!info(facts.dtype).is_complex && !info(facts.dtype).is_record) return;
  const std::string dtype(info(facts.dtype).name);
  const char* kind = info(facts.dtype).is_record ? "records" : "complex values";
  for (const auto& option : operation.options) {
    if (option.type != OptionType::PayloadScalar || facts.option(option.name).binding != Binding::Static) continue;
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), option.name, "a constant for a " + dtype + " payload",
           "a " + dtype + " value computed in the kernel (" + kind + " cross by pointer and have no constant form)");
  }
}

// The memory the operation reads or writes: its operands of a memory role, then its options of
// type DestinationArray.
std::vector<std::string> memory_parameters(const OperationSpec& operation) {
  std::vector<std::string> names;
  for (const auto& operand : operation.operands) {
    if (is_memory(operand.role)) names.push_back(operand.name);
  }
  for (const auto& option : operation.options) {
    if (option.type == OptionType::DestinationArray) names.push_back(option.name);
  }
  return names;
}

// A strided view names memory of the operation and has 1..kMaxViewDimensions dimensions.
void check_views(const OperationSpec& operation, const CallFacts& facts) {
  for (const auto& [name, dimensions] : facts.strided_views) {
    const std::vector<std::string> memory_names = memory_parameters(operation);
    if (std::find(memory_names.begin(), memory_names.end(), name) == memory_names.end()) {
      std::string memory;
      for (const auto& candidate : memory_names) memory += (memory.empty() ? "" : ", ") + candidate;
      reject(ErrorKind::InvalidArgument, facts.call_name(), "strided view", quoted(name),
             "a memory operand of " + operation.name + (memory.empty() ? " (it has none)" : ": " + memory));
    }
    if (dimensions < 1 || dimensions > kMaxViewDimensions) {
      reject(ErrorKind::UnsupportedOperation, facts.call_name(), name,
             "a view of " + std::to_string(dimensions) + " dimensions",
             "an array of 1 to " + std::to_string(kMaxViewDimensions) + " dimensions");
    }
  }
}

// A STATIC float: a decimal number, inf or nan that the payload's dtype holds
// without rounding to infinity (1e6 as float16 would silently become inf).
void check_float_literal(const CallFacts& facts, const std::string& name, const std::string& text) {
  const std::string dtype(info(facts.dtype).name);
  const auto value = literal::parse_float(text);
  if (!value) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text),
           "a number for " + dtype + ": decimal, inf, -inf or nan");
  }
  if (value->kind == literal::Float::Kind::Finite && literal::rounds_to_infinity(facts.dtype, value->value)) {
    const std::map<DType, const char*> largest = {
        {DType::Float16, "65504"}, {DType::BFloat16, "3.3895e38"}, {DType::Float32, "3.4028e38"}};
    const auto found = largest.find(facts.dtype);
    reject(ErrorKind::InvalidArgument, facts.call_name(), name, text,
           "a number " + dtype + " holds without rounding to infinity (largest finite " +
               (found != largest.end() ? found->second : "1.7977e308") + "), or inf or -inf written as such");
  }
}

// Checks a STATIC payload scalar fits the payload's dtype exactly.
void check_payload_literal(const CallFacts& facts, const std::string& name, const std::string& text) {
  const DTypeInfo& dtype = info(facts.dtype);
  const std::string expected_integer = "an integer literal representable as " + std::string(dtype.name);
  if (facts.dtype == DType::Bool) {
    if (text != "true" && text != "false" && text != "0" && text != "1") {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text), "true, false, 0 or 1 for bool");
    }
    return;
  }
  if (dtype.is_floating) return check_float_literal(facts, name, text);
  if (facts.dtype == DType::UInt64) {
    if (literal::parse_unsigned(text)) return;
    if (literal::parse_signed(text))
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, text, expected_integer + " (>= 0)");
    reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text),
           expected_integer + " (0.." + std::to_string(std::numeric_limits<unsigned long long>::max()) + ")");
  }
  const auto value = literal::parse_signed(text);
  if (!value) reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text), expected_integer);
  const int bits = dtype.size * 8;
  const bool is_signed = dtype.name.front() == 'i';
  if (bits < 64) {
    const long long low = is_signed ? -(1LL << (bits - 1)) : 0;
    const long long high = is_signed ? (1LL << (bits - 1)) - 1 : (1LL << bits) - 1;
    if (*value < low || *value > high) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, text,
             expected_integer + " (" + std::to_string(low) + ".." + std::to_string(high) + ")");
    }
  }
}

bool is_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front()))) return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// Why the generated source cannot declare `extern "C" __device__ ... symbol(...)`: a C++ or
// CUDA keyword, a name reserved to the compiler and its headers (C++ reserves any name with
// "__", and at global scope any that starts with "_"), main, or a namespace the source itself
// uses. "" when it can.
std::string unusable_symbol(const std::string& symbol) {
  static const std::set<std::string, std::less<>> kKeywords = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  static const std::set<std::string, std::less<>> kTaken = {"cub",    "cuda",       "std",       "nv",
                                                            "thrust", "coop_probe", "coop_adapt"};
  if (kKeywords.contains(symbol)) return "a C++ keyword";
  if (symbol.find("__") != std::string::npos || symbol.starts_with('_')) {
    return "a name reserved to the compiler and its headers";
  }
  if (symbol == "main") return "main, which no device function may be called";
  if (kTaken.contains(symbol)) return "a namespace the generated source uses";
  return "";
}

void check_user_symbol(const CallFacts& facts, const OptionSpec& option, const std::string& text) {
  const std::string expected =
      "user:<symbol> with a C identifier as the symbol (an extern \"C\" device function), not a C++ keyword, not "
      "reserved (no '__', no leading '_'), not main and not cub, cuda, std, nv or thrust";
  if (!text.starts_with(kUserOperatorPrefix) || !is_identifier(text.substr(kUserOperatorPrefix.size()))) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text), expected);
  }
  if (const std::string why = unusable_symbol(text.substr(kUserOperatorPrefix.size())); !why.empty()) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text) + " (" + why + ")", expected);
  }
}

// A built-in operator's name, or "user:<symbol>" naming a C identifier.
void check_operator(const CallFacts& facts, const OptionSpec& option, const std::string& text) {
  const std::string expected =
      "one of: " + operator_names(option.needs_associative) + ", or user:<symbol> (an extern \"C\" device function)";
  if (text.starts_with(kUserOperatorPrefix)) return check_user_symbol(facts, option, text);
  const OperatorSpec* op = find_operator(text);
  if (op == nullptr) reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text), expected);
  if (!op->associative && option.needs_associative) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text),
           expected + " (" + op->name + " is not associative: " + facts.operation + " regroups its operands)");
  }
  if (op->needs_order && info(facts.dtype).is_complex) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), option.name,
           quoted(text) + " on " + std::string(info(facts.dtype).name),
           "an ordered dtype for " + op->name + " (complex values have no order); sum or a user operator");
  }
  if (op->integers_only && !info(facts.dtype).is_integer) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), option.name,
           quoted(text) + " on " + std::string(info(facts.dtype).name),
           "an integer dtype for " + op->name + " (" + op->functor + ")");
  }
}

int key_bits(const CallFacts& facts) { return info(facts.dtype).size * 8; }

// A built-in predicate's name, or "user:<symbol>" naming a C identifier.
void check_predicate(const CallFacts& facts, const OptionSpec& option, const std::string& text) {
  if (text.starts_with(kUserOperatorPrefix)) return check_user_symbol(facts, option, text);
  const PredicateSpec* predicate = find_predicate(text);
  if (predicate == nullptr) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text),
           "one of: " + predicate_names() + ", or user:<symbol> (an extern \"C\" device function)");
  }
  if (predicate->needs_order && info(facts.dtype).is_complex) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), option.name,
           quoted(text) + " on " + std::string(info(facts.dtype).name),
           "an ordered dtype for " + predicate->name + " (complex values have no order); a user predicate");
  }
}

// A predicate left to its default ("less") must suit the dtype too.
void check_default_predicates(const CallFacts& facts, const OperationSpec& operation) {
  for (const auto& option : operation.options) {
    if (option.type == OptionType::Predicate) check_predicate(facts, option, facts.option(option.name).value);
  }
}

// `shown`: how the message names the value, where it was derived ("12 (end_bit - begin_bit)").
void check_count(const CallFacts& facts, const OptionSpec& option, CountRange allowed, const std::string& text,
                 long long tile, const std::string& shown = "") {
  const auto bounds = count_bounds(allowed, tile, facts.group.threads(), key_bits(facts));
  const auto value = literal::parse_signed(text);
  if (!value) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text),
           bounds ? "an integer " + bounds->words : "an integer");
  }
  if (bounds && (*value < bounds->low || *value > bounds->high)) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, shown.empty() ? text : shown, bounds->words);
  }
  if (allowed == CountRange::Selection && *value == 0) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, text,
           "1.." + std::to_string(tile) + " as a constant: 0 selects nothing (a runtime value may be 0)");
  }
}

void check_static_value(const CallFacts& facts, const OptionSpec& option, const std::string& text, long long tile) {
  switch (option.type) {
    case OptionType::Choice:
      // The algorithm is resolved with the group form, which knows the ones it has.
      if (option.name != "algorithm" &&
          std::find(option.choices.begin(), option.choices.end(), text) == option.choices.end()) {
        std::string choices;
        for (const auto& choice : option.choices) choices += (choices.empty() ? "" : ", ") + choice;
        reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text), "one of: " + choices);
      }
      break;
    case OptionType::Count:
      check_count(facts, option, option.range, text, tile);
      break;
    case OptionType::Operator:
      check_operator(facts, option, text);
      break;
    case OptionType::PrefixCallback:
      check_user_symbol(facts, option, text);
      break;
    case OptionType::Predicate:
      check_predicate(facts, option, text);
      break;
    case OptionType::Bool:
    case OptionType::Broadcast:
      if (text != "true" && text != "false") {
        reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text), "true or false");
      }
      break;
    case OptionType::ScalarOutput:
    case OptionType::PayloadArray:
    case OptionType::DestinationArray:
      break;  // never STATIC: rejected by allow_static
    case OptionType::Offset: {
      if (!option.index_dtype.empty()) {  // an index the method takes whole, of any 64-bit value >= 0
        if (literal::parse_unsigned(text)) break;
        const auto negative = literal::parse_signed(text);
        reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, negative ? text : quoted(text),
               "an integer index >= 0 and <= " + std::to_string(std::numeric_limits<unsigned long long>::max()));
      }
      // Elements from the start of the array: CUB's pointer arithmetic before it would read out of bounds.
      // The tile's last element, (offset + tile) x sizeof(T) bytes in, must fit the 64-bit pointer
      // arithmetic: beyond it the address wraps and the call reads or writes somewhere else.
      const long long size = info(facts.dtype).size;
      const long long largest = std::numeric_limits<std::int64_t>::max() / size - tile;
      const auto offset = literal::parse_signed(text);
      if (!offset || *offset < 0 || *offset > largest) {
        reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, offset ? text : quoted(text),
               "an integer element offset >= 0 and <= " + std::to_string(largest) +
                   " (elements from the start of the array; the tile's last byte, (offset + " + std::to_string(tile) +
                   ") x " + std::to_string(size) + " bytes in, must fit a 64-bit pointer offset)");
      }
      break;
    }
    case OptionType::PayloadScalar:
      check_payload_literal(facts, option.name, text);
      break;
  }
}

// What to write instead of a valid_items CUB has no overload for: a partial tile loaded
// with the operator's identity past it gives the same result (the guide's partial tiles).
std::string instead_of(const std::string& name) {
  if (name != "valid_items") return "";
  return "; for a partial tile, load it with valid_items and oob_default set to the operator's identity (0 for a "
         "sum, 1 for a product, the dtype's lowest value for a max, its highest for a min): the slots past the tile "
         "then cannot change the result";
}

// Rejects a bound option that CUB's overloads of this class or payload shape do not take.
void check_overloads_exist(const CallFacts& facts, const GroupForm& form, const PayloadShape& shape,
                           const std::string& method) {
  for (const auto& name : form.lacks) {
    if (facts.option(name).binding == Binding::Omitted) continue;
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), name,
           std::string("given with a ") + to_string(form.group) + " group",
           "no " + name + ": " + form.cub_class + "::" + method + " has no overload taking " + name +
               " (an overload CUB does not have)" + instead_of(name));
  }
  for (const auto& name : shape.lacks) {
    if (facts.option(name).binding == Binding::Omitted) continue;
    const PayloadKind other = shape.kind == PayloadKind::Array ? PayloadKind::Scalar : PayloadKind::Array;
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), name,
           std::string("given with ") + payload_words(shape.kind) + " payload",
           std::string(payload_words(other)) + " payload, or no " + name + ": " + form.cub_class + "::" + method +
               " has no " + overload_words(shape.kind) + " overload taking " + name +
               " (an overload CUB does not have)" + instead_of(name));
  }
}

void check_required(const CallFacts& facts, const OperationSpec& operation) {
  for (const auto& option : operation.options) {
    if (!option.required || facts.option(option.name).binding != Binding::Omitted) continue;
    const std::string expected = option.type == OptionType::Operator
                                     ? "an operator: one of " + operator_names() + ", or user:<symbol>"
                                     : "a value: " + operation.name + " requires " + option.name;
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, "omitted", expected);
  }
}

void check_options(const CallFacts& facts, const OperationSpec& operation, long long tile) {
  for (const auto& [name, bound] : facts.options) {
    const OptionSpec* option = operation.option(name);
    if (option == nullptr) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "given",
             "one of the options of " + operation.name + ": " + option_names(operation));
    }
    if (bound.binding == Binding::Omitted) continue;
    if (bound.binding == Binding::Runtime && !option->allow_runtime) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "a runtime value", "a compile-time constant");
    }
    if (bound.binding == Binding::Static && !option->allow_static) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "a compile-time constant", "a runtime value");
    }
    if (bound.binding == Binding::Static) check_static_value(facts, *option, bound.value, tile);
    for (const auto& excluded : option->excludes) {
      if (facts.option(excluded).binding == Binding::Omitted) continue;
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "given with " + excluded,
             "either " + name + " or " + excluded + ": " + operation.name + " has no overload taking both");
    }
    if (!option->requires_option.empty() && facts.option(option->requires_option).binding == Binding::Omitted) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "given without " + option->requires_option,
             name + " only together with " + option->requires_option);
    }
  }
  check_required(facts, operation);
}

// An array the front end read a named fact from (a run-length decode's relative offsets, of
// OffsetT[DECODED_ITEMS_PER_THREAD]) disagreeing with the option that fills it: the option does
// not silently retype the array.
template <typename Value>
void reject_other_fact(const CallFacts& facts, const OptionSpec& option, const std::map<std::string, Value>& given,
                       Value value, const std::string& shown) {
  const auto found = given.find(option.fills_fact);
  if (found == given.end() || found->second == value) return;
  std::ostringstream had;
  if constexpr (std::is_same_v<Value, DType>) {
    had << info(found->second).name;
  } else {
    had << found->second;
  }
  reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, shown,
         "the " + option.fills_fact + " of the arrays it types, which is " + had.str() + " there");
}

// The value an omitted dtype option takes where no array passed gives its fact: the named dtype
// it is like, at least 32 bits wide, else its default.
std::string omitted_dtype(const CallFacts& facts, const OptionSpec& option) {
  const auto like = facts.dtypes.find(option.default_like);
  if (option.default_like.empty() || like == facts.dtypes.end()) return option.default_choice;
  return std::string(info(at_least_32_bits(like->second)).name);
}

// The facts with the named dtype or extent each option with a fills_fact gives (a histogram's
// counter_dtype is its counters' CounterT), checked as the option is, so that the named facts
// the operands read are known before they are checked. An omitted dtype option yields to the
// arrays that give its fact (relative offsets the kernel typed). A runtime value or a required
// option omitted is refused here, before a parameter the fact shapes could be blamed for it.
CallFacts with_option_facts(const CallFacts& facts, const OperationSpec& operation, long long tile) {
  CallFacts filled = facts;
  for (const auto& option : operation.options) {
    if (option.fills_fact.empty()) continue;
    const OptionBinding bound = facts.option(option.name);
    if (bound.binding == Binding::Runtime) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, "a runtime value", "a compile-time constant");
    }
    if (bound.binding == Binding::Omitted && option.required) check_required(facts, operation);
    const bool dtype_option = option.type == OptionType::Choice;
    if (bound.binding == Binding::Omitted && dtype_option && facts.dtypes.contains(option.fills_fact)) continue;
    const std::string value = bound.binding == Binding::Static    ? bound.value
                              : bound.binding != Binding::Omitted ? ""
                              : dtype_option                      ? omitted_dtype(facts, option)
                                                                  : option.default_choice;
    if (value.empty()) continue;
    check_static_value(facts, option, value, tile);
    if (option.type == OptionType::Count) {
      const int extent = static_cast<int>(*literal::parse_signed(value));
      reject_other_fact(facts, option, facts.extents, extent, std::to_string(extent));
      filled.extents[option.fills_fact] = extent;
    } else {
      const DType dtype = *parse_dtype(value);
      reject_other_fact(facts, option, facts.dtypes, dtype, std::string(info(dtype).name));
      filled.dtypes[option.fills_fact] = dtype;
    }
  }
  return filled;
}

// The facts with the dtype each RUNTIME index crosses as (OptionSpec::index_dtype) where the
// front end left it out: int64.
CallFacts with_index_dtypes(const CallFacts& facts, const OperationSpec& operation) {
  CallFacts filled = facts;
  for (const auto& option : operation.options) {
    if (option.index_dtype.empty() || facts.option(option.name).binding != Binding::Runtime) continue;
    filled.dtypes.try_emplace(option.index_dtype, DType::Int64);
  }
  return filled;
}

// The facts with the extent of each result CUB derives from the call's shape (a batched warp
// reduction's results per lane), which the front end allocates as the catalog says.
CallFacts with_result_extents(const CallFacts& facts, const OperationSpec& operation) {
  CallFacts derived = facts;
  for (const auto& operand : operation.operands) {
    if (operand.array.rule != ExtentRule::BatchesPerLane) continue;
    const int lanes = std::max(1, facts.group.width);  // a warp form's: require_form refuses others
    derived.extents[operand.array.extent] = (facts.items_per_thread + lanes - 1) / lanes;
  }
  return derived;
}

// Each Count bounded by the group's threads times another (a histogram's bins by the striped
// counters its threads hold), where both are known.
void check_per_thread_capacities(const CallFacts& facts, const OperationSpec& operation) {
  for (const auto& option : operation.options) {
    if (option.at_most_threads_times.empty()) continue;
    const OptionSpec& per_thread = *operation.option(option.at_most_threads_times);
    const auto value = known_count(facts, option), each = known_count(facts, per_thread);
    if (!value || !each) continue;
    const long long capacity = 1LL * facts.group.threads() * *each;
    if (*value <= capacity) continue;
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, std::to_string(*value),
           "at most " + std::to_string(capacity) + " (" + std::to_string(facts.group.threads()) + " threads x " +
               per_thread.name + " " + std::to_string(*each) + "); raise " + per_thread.name + " to " +
               std::to_string((*value + facts.group.threads() - 1) / facts.group.threads()));
  }
}

// The facts with each option that is the sum of two others (a radix rank's end_bit =
// begin_bit + radix_bits) and the width it spans made STATIC and consistent: one given
// derives the other, neither given takes the width's default, both given must agree.
CallFacts with_sums_derived(const CallFacts& facts, const OperationSpec& operation, long long tile) {
  CallFacts derived = facts;
  for (const auto& option : operation.options) {
    if (option.sum_of.size() != 2) continue;
    const OptionSpec& first = *operation.option(option.sum_of[0]);
    const OptionSpec& width = *operation.option(option.sum_of[1]);
    const auto start = known_count(facts, first);
    const auto end = facts.option(option.name).binding == Binding::Static ? known_count(facts, option) : std::nullopt;
    const auto span = facts.option(width.name).binding == Binding::Static ? known_count(facts, width) : std::nullopt;
    if (!start) continue;  // check_options refused what cannot be known here
    if (end && span && *end - *start != *span) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), width.name, std::to_string(*span),
             option.name + " - " + first.name + " (" + std::to_string(*end) + " - " + std::to_string(*start) + " = " +
                 std::to_string(*end - *start) + "), or omitted");
    }
    const long long bits = span ? *span : end ? *end - *start : *known_count(facts, width);
    const std::string words = std::to_string(bits) + (span  ? ""
                                                      : end ? " (" + option.name + " - " + first.name + ")"
                                                            : " (its default)");
    check_count(facts, width, width.range, std::to_string(bits), tile, words);
    check_count(facts, option, option.range, std::to_string(*start + bits), tile,
                std::to_string(*start + bits) + " (" + first.name + " + " + width.name + ")");
    derived.options[width.name] = OptionBinding::fixed(std::to_string(bits));
    derived.options[option.name] = OptionBinding::fixed(std::to_string(*start + bits));
  }
  return derived;
}

// An array whose length CUB derives (ExtentRule) holds exactly that many items.
void check_derived_extents(const CallFacts& facts, const OperationSpec& operation) {
  const auto check = [&](const std::string& parameter, const ArrayType& array) {
    if (array.rule != ExtentRule::DigitsPerThread || !facts.extents.contains(array.extent)) return;
    const long long digits = 1LL << *known_count(facts, *operation.option("radix_bits"));
    const long long threads = facts.group.threads();
    const long long expected = std::max(1LL, (digits + threads - 1) / threads);
    const int given = facts.extents.at(array.extent);
    if (given == expected) return;
    reject(ErrorKind::InvalidArgument, facts.call_name(), parameter,
           "an array of " + std::to_string(given) + " item(s) per thread",
           std::to_string(expected) + " item(s) per thread: max(1, ceil(" + std::to_string(digits) + " digits / " +
               std::to_string(threads) + " threads)), one counter per digit, blocked");
  };
  for (const auto& operand : operation.operands) check(operand.name, operand.array);
  for (const auto& option : operation.options) {
    if (facts.option(option.name).binding != Binding::Omitted) check(option.name, option.array);
  }
}

// Counts that must be below another (begin_bit < end_bit), where both are known.
void check_ordered_counts(const CallFacts& facts, const OperationSpec& operation) {
  for (const auto& option : operation.options) {
    if (option.less_than.empty()) continue;
    const OptionSpec& upper = *operation.option(option.less_than);
    const auto low = known_count(facts, option);
    const auto high = known_count(facts, upper);
    if (!low || !high || *low < *high) continue;
    reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, std::to_string(*low),
           "a value below " + upper.name + " (" + std::to_string(*high) +
               (facts.option(upper.name).binding == Binding::Omitted ? ", its default" : "") + ")");
  }
}

// What CUB's class static_asserts of the group's shape: a power-of-two thread count
// (BlockMergeSort's merge path), a one-dimensional block, a bounded tile.
void check_group_shape(const CallFacts& facts, const GroupForm& form) {
  const int threads = facts.group.threads();
  if (form.needs_power_of_two_threads && (threads & (threads - 1)) != 0) {
    reject(ErrorKind::InvalidGroup, facts.call_name(), "group",
           facts.group.describe() + ", " + std::to_string(threads) + " threads",
           "a power-of-two thread count (1, 2, 4, ... 1024): " + form.cub_class + " requires one");
  }
  if (form.needs_one_dimensional_block && (facts.group.block.y != 1 || facts.group.block.z != 1)) {
    reject(ErrorKind::InvalidGroup, facts.call_name(), "group", facts.group.describe(),
           "a one-dimensional block (y = z = 1): " + form.cub_class + " has BLOCK_DIM_X only");
  }
  const long long tile = 1LL * threads * facts.items_per_thread;
  if (form.max_tile_items > 0 && tile > form.max_tile_items) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), "items_per_thread",
           std::to_string(facts.items_per_thread) + " (a tile of " + std::to_string(tile) + " items)",
           "a tile of at most " + std::to_string(form.max_tile_items) + " items (items_per_thread x " +
               std::to_string(threads) + " threads), the most " + form.cub_class + " can count");
  }
}

// Null where CUB's class has a single implementation (the warp classes).
const AlgorithmSpec* resolve_algorithm(const CallFacts& facts, const OperationSpec& operation, const GroupForm& form) {
  const OptionSpec* option = operation.option("algorithm");
  const OptionBinding bound = facts.option("algorithm");
  if (form.algorithms.empty()) {
    if (bound.binding == Binding::Static) {
      reject(ErrorKind::UnsupportedOperation, facts.call_name(), "algorithm", quoted(bound.value),
             "no algorithm: " + form.cub_class + " has one implementation (for " + to_string(form.group) + " groups)");
    }
    return nullptr;
  }
  const std::string name = bound.binding == Binding::Static ? bound.value : option->default_choice;
  const AlgorithmSpec* algorithm = find_algorithm(form, name);
  if (algorithm == nullptr) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "algorithm", quoted(name),
           "one of: " + algorithm_names(form) + " (for " + to_string(form.group) + " groups)");
  }
  if (algorithm->needs_whole_warps && facts.group.block.count() % kWarpThreads != 0) {
    reject(ErrorKind::InvalidGroup, facts.call_name(), "block", facts.group.describe(),
           "whole warps (a multiple of 32 threads) for algorithm '" + name + "'");
  }
  return algorithm;
}

// How a template slot spells a Choice's value: its C++ enumerator where the catalog gives one.
std::string choice_cpp(const OptionSpec& option, const std::string& value) {
  for (std::size_t i = 0; i < option.choices_cpp.size() && i < option.choices.size(); ++i) {
    if (option.choices[i] == value) return option.choices_cpp[i];
  }
  return value;
}

// A STATIC option's value, or its default when omitted ("" for none).
std::string static_value(const CallFacts& facts, const OptionSpec& option) {
  const OptionBinding bound = facts.option(option.name);
  if (bound.binding == Binding::Static) return bound.value;
  return option.type == OptionType::Bool && option.default_choice.empty() ? "false" : option.default_choice;
}

bool rule_applies(const MethodRule& rule, const CallFacts& facts, const OperationSpec& operation) {
  for (const auto& [name, value] : rule.when) {
    const bool omitted = facts.option(name).binding == Binding::Omitted;
    if (value == kOmittedOption ? !omitted : static_value(facts, *operation.option(name)) != value) return false;
  }
  return true;
}

// Every operator option given, by its name: one spelled by an alias ("+", "add") is
// its name, and an omitted one is its default (the sum), so one key means one provider
// and method rules see one spelling.
CallFacts with_operators_named(const CallFacts& facts, const OperationSpec& operation) {
  CallFacts named = facts;
  for (const OptionSpec& option : operation.options) {
    if (option.type != OptionType::Operator && option.type != OptionType::Predicate) continue;
    OptionBinding& bound = named.options[option.name];
    if (bound.binding == Binding::Omitted && !option.default_choice.empty())
      bound = OptionBinding::fixed(option.default_choice);
    if (bound.binding != Binding::Static) continue;
    if (const OperatorSpec* op = find_operator(bound.value); op && option.type == OptionType::Operator)
      bound.value = op->name;
    if (const PredicateSpec* predicate = find_predicate(bound.value); predicate && option.type == OptionType::Predicate)
      bound.value = predicate->name;
  }
  return named;
}

template <typename Kind>
bool admits(const std::vector<Kind>& kinds, Kind kind) {
  return kinds.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// "mode 'scatter_to_blocked'": how a message names the option values that chose a rule.
std::string rule_words(const MethodRule& rule) {
  std::string words;
  for (const auto& [name, value] : rule.when)
    words += (words.empty() ? "" : ", ") + (value == kOmittedOption ? "no " + name : name + " " + quoted(value));
  return words;
}

// The options that only some method rules take.
std::set<std::string> conditional_options(const OperationSpec& operation) {
  std::set<std::string> names;
  for (const auto& rule : operation.methods) {
    names.insert(rule.needs.begin(), rule.needs.end());
    names.insert(rule.allows.begin(), rule.allows.end());
  }
  return names;
}

// The rule's group and payload fit the call, its needed options are given, the
// options only other rules take are not, and its fixed options hold their value.
void check_rule_fits(const MethodRule& rule, const CallFacts& facts, const OperationSpec& operation,
                     const GroupForm& form) {
  const std::string chosen = rule.when.empty() ? form.cub_class + "::" + rule.method : rule_words(rule);
  if (!admits(rule.groups, facts.group.kind)) {
    std::string kinds;
    for (const GroupKind kind : rule.groups) kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(kind));
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), rule.when.front().first,
           quoted(rule.when.front().second),
           "a value " + form.cub_class + " has for " + to_string(facts.group.kind) + " groups (" + chosen + " is " +
               kinds + " only)");
  }
  if (!admits(rule.payloads, facts.payload)) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), payload_operand(operation), payload_words(facts.payload),
           std::string(payload_words(rule.payloads.front())) + " for " + chosen + " (" + form.cub_class +
               "::" + rule.method + " has no " + overload_words(facts.payload) + " overload)");
  }
  for (const auto& name : rule.needs) {
    if (facts.option(name).binding != Binding::Omitted) continue;
    reject(ErrorKind::InvalidArgument, facts.call_name(), name, "omitted", "a value: " + chosen + " needs " + name);
  }
  if (!rule.needs_one_of.empty() &&
      std::none_of(rule.needs_one_of.begin(), rule.needs_one_of.end(),
                   [&](const auto& name) { return facts.option(name).binding != Binding::Omitted; })) {
    std::string names;
    for (const auto& name : rule.needs_one_of) names += (names.empty() ? "" : " or ") + name;
    reject(ErrorKind::InvalidArgument, facts.call_name(), rule.needs_one_of.front(), "omitted",
           "a value: " + chosen + " needs " + names);
  }
  for (const auto& name : conditional_options(operation)) {
    const bool taken = std::find(rule.needs.begin(), rule.needs.end(), name) != rule.needs.end() ||
                       std::find(rule.allows.begin(), rule.allows.end(), name) != rule.allows.end();
    if (taken || facts.option(name).binding == Binding::Omitted) continue;
    reject(ErrorKind::InvalidArgument, facts.call_name(), name, "given with " + chosen,
           "no " + name + " with " + chosen + ": " + form.cub_class + "::" + rule.method + " does not take it");
  }
  for (const auto& [name, value] : rule.fixed) {
    const OptionBinding bound = facts.option(name);
    if (bound.binding == Binding::Omitted || (bound.binding == Binding::Static && bound.value == value)) continue;
    reject(ErrorKind::InvalidArgument, facts.call_name(), name,
           bound.binding == Binding::Static ? bound.value : std::string("a runtime value"),
           value + " (or omitted) with " + chosen + ": " + form.cub_class + "::" + rule.method + " has no " + name +
               " of another value");
  }
}

// The method rule that chooses the CUB member function (the first that matches), or
// null for an operation without rules (it calls its `method`).
const MethodRule* resolve_rule(const CallFacts& facts, const OperationSpec& operation, const GroupForm& form) {
  for (const auto& rule : operation.methods) {
    if (!rule_applies(rule, facts, operation)) continue;
    check_rule_fits(rule, facts, operation, form);
    return &rule;
  }
  if (!operation.methods.empty()) {
    std::string values;
    for (const auto& rule : operation.methods) values += (values.empty() ? "" : "; ") + rule_words(rule);
    reject(ErrorKind::InvalidArgument, facts.call_name(), operation.methods.front().when.front().first,
           "this combination", "one of: " + values);
  }
  return nullptr;
}

std::string template_argument(const TemplateSlot& slot, const CallFacts& facts, const OperationSpec& operation,
                              const AlgorithmSpec* algorithm) {
  switch (slot.from) {
    case TemplateArg::DType:
      return std::string(info(facts.dtype).cpp);
    case TemplateArg::BlockDimX:
      return std::to_string(facts.group.block.x);
    case TemplateArg::BlockDimY:
      return std::to_string(facts.group.block.y);
    case TemplateArg::BlockDimZ:
      return std::to_string(facts.group.block.z);
    case TemplateArg::ItemsPerThread:
      return std::to_string(facts.items_per_thread);
    case TemplateArg::Algorithm:
      return algorithm->cub_enum;
    case TemplateArg::LogicalWarpThreads:
      return std::to_string(facts.group.width);
    case TemplateArg::ClusterBlocks:
      return std::to_string(facts.group.cluster_blocks());
    case TemplateArg::Option:
      return choice_cpp(*operation.option(slot.fact), static_value(facts, *operation.option(slot.fact)));
    case TemplateArg::NamedDType:
      return std::string(info(facts.dtypes.at(slot.fact)).cpp);
    case TemplateArg::NamedExtent:
      return std::to_string(facts.extents.at(slot.fact));
    case TemplateArg::Literal:
      return slot.fact;
  }
  return {};
}

std::vector<AbiParam> abi_of(const Plan& plan) {
  std::vector<AbiParam> abi;
  for (const auto& operand : plan.operation->operands) {
    for (AbiParam& param : operand_abi(plan.facts, operand)) abi.push_back(std::move(param));
  }
  for (const auto& option : plan.operation->options) {
    const Binding binding = plan.facts.option(option.name).binding;
    if (binding == Binding::Runtime) {
      for (AbiParam& param : option_abi(plan.facts, option)) abi.push_back(std::move(param));
    }
    if (option.type == OptionType::PrefixCallback && binding == Binding::Static)
      abi.push_back(prefix_state_abi(option));
  }
  if (plan.needs_scratch) abi.push_back(scratch_abi());
  return abi;
}

// CUB returns the value, or (for a scalar payload) writes it to the output argument.
std::optional<AbiParam> result_of(const Plan& plan) {
  bool produces = plan.operation->returns_value;
  for (const auto& operand : plan.operation->operands) {
    produces = produces || (operand.role == OperandRole::PayloadResult && payload_by_value(plan.facts, operand));
  }
  if (!produces) return std::nullopt;
  const std::string& named = plan.operation->result_dtype;
  return result_abi(named.empty() ? plan.facts.dtype : plan.facts.dtypes.at(named));
}

// The C declaration a user function must be compiled to: values by value, or
// (16-bit floats, complex values) by pointer with the result written through the first.
// A predicate's result is an int, nonzero meaning true (a C++ bool and a compiler's i1 need
// not be passed alike).
ExternalFunction external_function(const Plan& plan, ExternalFunction::Kind kind, const std::string& symbol) {
  const bool by_pointer = passes_by_pointer(plan.facts.dtype);
  const std::string type(info(plan.facts.dtype).cpp);
  const std::string value = by_pointer ? "void* " : type + " ";
  const std::string result_type = kind == ExternalFunction::Kind::Predicate ? "int" : type;
  std::vector<std::string> params = kind == ExternalFunction::Kind::PrefixCallback
                                        ? std::vector<std::string>{"void* state", value + "block_aggregate"}
                                        : std::vector<std::string>{value + "a", value + "b"};
  if (by_pointer) params.insert(params.begin(), "void* result");
  std::string declaration =
      "extern \"C\" __device__ " + (by_pointer ? std::string("void") : result_type) + " " + symbol + "(";
  for (std::size_t i = 0; i < params.size(); ++i) declaration += (i ? ", " : "") + params[i];
  return {kind, symbol, declaration + ");", by_pointer};
}

std::vector<ExternalFunction> external_functions_of(const Plan& plan) {
  std::vector<ExternalFunction> functions;
  for (const auto& option : plan.operation->options) {
    const OptionBinding bound = plan.facts.option(option.name);
    if (bound.binding != Binding::Static || !bound.value.starts_with(kUserOperatorPrefix)) continue;
    const std::string symbol = bound.value.substr(kUserOperatorPrefix.size());
    if (option.type == OptionType::Operator)
      functions.push_back(external_function(plan, ExternalFunction::Kind::BinaryOperator, symbol));
    if (option.type == OptionType::PrefixCallback)
      functions.push_back(external_function(plan, ExternalFunction::Kind::PrefixCallback, symbol));
    if (option.type == OptionType::Predicate)
      functions.push_back(external_function(plan, ExternalFunction::Kind::Predicate, symbol));
  }
  return functions;
}

std::vector<std::string> headers_of(const Plan& plan) {
  std::set<std::string> headers = {"cuda/std/cstdint", plan.form->header};
  std::vector<DType> dtypes = {plan.facts.dtype};
  for (const auto& [name, dtype] : plan.facts.dtypes) dtypes.push_back(dtype);
  for (const DType dtype : dtypes) {
    const RecordLayout* record = record_layout(dtype);
    for (const DType each : record != nullptr ? record->fields : std::vector<DType>{dtype}) {
      if (!info(each).header.empty()) headers.insert(std::string(info(each).header));
    }
  }
  if (plan.adapter != nullptr) headers.insert(plan.adapter->headers.begin(), plan.adapter->headers.end());
  for (const auto& option : plan.operation->options) {
    if (option.type == OptionType::Predicate) headers.insert("cuda/std/functional");
    if (option.type != OptionType::Operator) continue;
    if (const OperatorSpec* op = find_operator(plan.facts.option(option.name).value)) headers.insert(op->header);
  }
  return {headers.begin(), headers.end()};
}

std::string canonical_key(const Plan& plan) {
  const CallFacts& facts = plan.facts;
  std::string key = "operation=" + facts.operation + ";group=" + to_string(facts.group.kind);
  key += ";block=" + std::to_string(facts.group.block.x) + "," + std::to_string(facts.group.block.y) + "," +
         std::to_string(facts.group.block.z);
  if (facts.group.kind != GroupKind::Block) key += ";width=" + std::to_string(facts.group.width);
  key +=
      ";dtype=" + std::string(info(facts.dtype).name) + ";items_per_thread=" + std::to_string(facts.items_per_thread);
  key += ";payload=" + std::string(to_string(facts.payload));
  for (const auto& [name, dtype] : facts.dtypes) key += ";dtype:" + name + "=" + std::string(info(dtype).name);
  for (const auto& [name, extent] : facts.extents) key += ";extent:" + name + "=" + std::to_string(extent);
  for (const auto& [name, dimensions] : facts.strided_views) key += ";view:" + name + "=" + std::to_string(dimensions);
  key += ";algorithm=" + (plan.algorithm != nullptr ? plan.algorithm->name : std::string("none"));
  for (const auto& option : plan.operation->options) {
    if (option.name == "algorithm") continue;
    const OptionBinding bound = facts.option(option.name);
    key += ";" + option.name + "=" + to_string(bound.binding);
    if (bound.binding == Binding::Static) key += ":" + bound.value;
  }
  return key;
}

}  // namespace

std::optional<long long> known_count(const CallFacts& facts, const OptionSpec& option) {
  const OptionBinding bound = facts.option(option.name);
  if (bound.binding == Binding::Static) return literal::parse_signed(bound.value);
  if (bound.binding == Binding::Runtime) return std::nullopt;
  if (!option.default_choice.empty()) return literal::parse_signed(option.default_choice);
  if (!option.omitted_value.empty()) return literal::parse_signed(option.omitted_value);
  if (option.range == CountRange::KeyBitEnd) return key_bits(facts);
  return std::nullopt;
}

std::optional<CountBounds> count_bounds(CountRange range, long long tile, int threads, int key_bits) {
  const std::string width = " (the key is " + std::to_string(key_bits) + " bits wide)";
  const std::string capacity = " (the tile capacity: items_per_thread x group threads)";
  switch (range) {
    case CountRange::Any:  // what CUB's int parameter holds: a wider value must not wrap silently
      return CountBounds{-2147483648LL, 2147483647LL, "-2147483648..2147483647 (an int)"};
    case CountRange::ZeroToTileCapacity:
      return CountBounds{0, tile, "0.." + std::to_string(tile) + capacity};
    case CountRange::OneToTileCapacity:
      return CountBounds{1, tile, "1.." + std::to_string(tile) + capacity};
    case CountRange::GroupRank:
      return CountBounds{0, threads - 1LL, "0.." + std::to_string(threads - 1) + " (a rank in the group)"};
    case CountRange::OtherRank:
      return CountBounds{1, threads - 1LL,
                         "1.." + std::to_string(threads - 1) + " (a distance that moves every value)"};
    case CountRange::KeyBitBegin:
      return CountBounds{0, key_bits - 1LL, "0.." + std::to_string(key_bits - 1) + width};
    case CountRange::KeyBitEnd:
      return CountBounds{1, key_bits, "1.." + std::to_string(key_bits) + width};
    case CountRange::DigitBits:
      return CountBounds{1, 8, "1..8 (bits of one radix digit)"};
    case CountRange::Selection:
      return CountBounds{0, tile, "0.." + std::to_string(tile) + capacity};
    case CountRange::Positive:
      return CountBounds{1, 2147483647LL, "1..2147483647"};
  }
  return std::nullopt;
}

const char* to_string(Barrier barrier) {
  switch (barrier) {
    case Barrier::None:
      return "none";
    case Barrier::Block:
      return "block (__syncthreads)";
    case Barrier::Warp:
      return "warp (__syncwarp over the logical warp)";
    case Barrier::Own:
      return "its own (the group's own barrier frees the scratch; another call sharing it waits at __syncthreads)";
  }
  return "?";
}

long long Plan::tile_capacity() const { return 1LL * facts.items_per_thread * facts.group.threads(); }

bool Plan::broadcasts() const {
  for (const auto& option : operation->options) {
    if (option.type == OptionType::Broadcast) return static_value(facts, option) == "true";
  }
  return false;
}

CountRange Plan::range_of(const OptionSpec& option) const {
  if (rule != nullptr) {
    for (const auto& [name, range] : rule->ranges) {
      if (name == option.name) return range;
    }
  }
  return option.range;
}

Plan plan(const CallFacts& facts) { return plan(facts, require_operation(facts)); }

Plan plan(const CallFacts& given, const OperationSpec& operation) {
  const long long tile = 1LL * given.items_per_thread * given.group.threads();
  if (given.operation != operation.name) {
    reject(ErrorKind::UnsupportedOperation, given.call_name(), "operation", quoted(given.operation),
           quoted(operation.name) + ", the operation it is planned against");
  }
  validate(given.group, given.call_name());
  const CallFacts facts =
      with_result_extents(with_index_dtypes(with_option_facts(given, operation, tile), operation), operation);
  const GroupForm& form = require_form(operation, facts);
  check_group_shape(facts, form);
  require_dtype(operation, facts);
  const PayloadShape& shape = require_payload(operation, form, facts);
  require_complex_by_pointer(operation, facts);
  check_views(operation, facts);
  check_named_facts(facts, operation, form);
  check_options(facts, operation, tile);
  check_per_thread_capacities(facts, operation);

  Plan result;
  result.facts = with_operators_named(with_sums_derived(facts, operation, tile), operation);
  check_ordered_counts(result.facts, operation);
  check_derived_extents(result.facts, operation);
  check_default_predicates(result.facts, operation);
  result.operation = &operation;
  result.form = &form;
  result.algorithm = resolve_algorithm(facts, operation, form);
  result.adapter = shape.adapter;
  result.rule = resolve_rule(result.facts, operation, form);
  result.method = result.rule != nullptr ? result.rule->method : operation.method;
  if (result.rule != nullptr) {
    for (const auto& [name, value] : result.rule->fixed)
      result.facts.options.erase(name);  // what the method does anyway
    for (const auto& [name, range] : result.rule->ranges) {
      const OptionBinding bound = facts.option(name);
      if (bound.binding == Binding::Static)
        check_count(facts, *operation.option(name), range, bound.value, result.tile_capacity());
    }
  }
  check_overloads_exist(facts, form, shape, result.method);

  std::string arguments;
  for (const TemplateSlot& slot : form.template_args) {
    const std::string value = template_argument(slot, result.facts, operation, result.algorithm);
    result.template_arguments.emplace_back(slot.name, value);
    arguments += (arguments.empty() ? "" : ", ") + value;
  }
  result.cub_type = form.cub_class + "<" + arguments + ">";
  result.call_type = (shape.adapter != nullptr ? shape.adapter->name : form.cub_class) + "<" + arguments + ">";
  result.headers = headers_of(result);

  result.needs_scratch = form.needs_scratch || (result.algorithm != nullptr && result.algorithm->needs_scratch);
  result.scratch_instances = result.needs_scratch ? facts.group.instances() : 0;
  if (result.needs_scratch) {
    const GroupKind kind = facts.group.kind;
    result.reuse_barrier = kind == GroupKind::Block  ? Barrier::Block
                           : kind == GroupKind::Warp ? Barrier::Warp
                                                     : Barrier::Own;
  }
  result.abi = abi_of(result);
  result.result = result_of(result);
  result.external_functions = external_functions_of(result);
  result.key = canonical_key(result);
  result.digest = sha256_hex(result.key);
  warn_if_slow(facts);
  return result;
}

std::string Plan::describe() const {
  std::string text = "operation: " + facts.operation + " (" + operation->family + ")\n";
  text += "group: " + facts.group.describe() + "\n";
  text += "payload: " +
          (facts.payload == PayloadKind::Scalar ? std::string("scalar (one value per thread)")
                                                : "ThreadData[" + std::to_string(facts.items_per_thread) + "]") +
          "\n";
  for (const auto& [name, dtype] : facts.dtypes) text += name + ": " + std::string(info(dtype).name) + "\n";
  for (const auto& [name, extent] : facts.extents) text += name + ": " + std::to_string(extent) + "\n";
  for (const auto& [name, dimensions] : facts.strided_views) {
    text += name + ": a strided " + std::to_string(dimensions) +
            "-D view, addressed element by element in C order (coop_adapt::StridedView)\n";
  }
  text += "cub: " + cub_type + "::" + method + "\n";
  if (adapter != nullptr && adapter->name != form->cub_class)
    text += "called through: " + call_type + " (derived from CUB's class: adds the overloads or guarantees it lacks)\n";
  text += "template arguments:\n";
  for (const auto& [name, value] : template_arguments) text += "  " + name + " = " + value + "\n";
  text += "options:\n";
  for (const auto& option : operation->options) {
    const OptionBinding bound = facts.option(option.name);
    std::string shown = to_string(bound.binding);
    if (option.name == "algorithm")
      shown = algorithm != nullptr ? "STATIC " + algorithm->name : "none (one implementation)";
    else if (bound.binding == Binding::Static)
      shown += " " + bound.value;
    else if (bound.binding == Binding::Omitted && option.type == OptionType::Choice)
      shown += " (" + option.default_choice + ")";
    text += "  " + option.name + ": " + shown + "\n";
  }
  text += "abi: int symbol(void* ret";
  for (const auto& param : abi) {
    text += ", " + (param.kind == AbiKind::Pointer ? param.cpp_type + "* " + param.name : c_parameter(param));
  }
  text += ")\n";
  text += "result: " + (result ? result->cpp_type + " written through ret" : std::string("none (ret unused)"));
  if (result && form->result_in_every_member)
    text += ", in every member (" + form->cub_class + " gives it to all)";
  else if (result && broadcasts())
    text += facts.group.kind == GroupKind::Block ? ", in every thread (through scratch and a barrier)"
                                                 : ", in every lane (by shuffle)";
  text += "\n";
  for (const auto& function : external_functions) {
    text += "links with: " + function.symbol + " (LTO-IR from the kernel compiler): " + function.declaration + "\n";
  }
  const bool result_slot = result && broadcasts() && facts.group.kind == GroupKind::Block;
  text += "scratch: " +
          (needs_scratch ? std::to_string(scratch_instances) + " x sizeof(" + cub_type + "::TempStorage)" +
                               (result_slot ? " + the broadcast result" : "")
                         : std::string("none")) +
          "\n";
  text += "reuse barrier: " + std::string(to_string(reuse_barrier)) + "\n";
  return text;
}

}  // namespace coop
