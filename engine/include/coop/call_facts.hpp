// CallFacts: what the front end (Python planner, CLI, a C++ program) knows about
// one primitive call. It is the engine's only input; the engine never sees IR.
#pragma once

#include <map>
#include <string>

#include "coop/dtype.hpp"
#include "coop/group.hpp"

namespace coop {

// How an optional argument reaches the call (the spec's ArgumentBinding).
// OMITTED selects the overload without it; STATIC bakes `value` into the
// generated code; RUNTIME keeps it as an operand of the device call.
enum class Binding { Omitted, Static, Runtime };

struct OptionBinding {
  Binding binding = Binding::Omitted;
  std::string value;  // the literal, for STATIC only

  static OptionBinding omitted() { return {}; }
  static OptionBinding runtime() { return {Binding::Runtime, {}}; }
  static OptionBinding fixed(std::string literal) { return {Binding::Static, std::move(literal)}; }
  friend bool operator==(const OptionBinding&, const OptionBinding&) = default;
};

const char* to_string(Binding binding);

// The shape of the payload a call's data operands share: a ThreadData array of
// `items_per_thread` items per thread (passed by pointer), or one value per
// thread (items_per_thread 1, passed by value). CUB's overloads differ by shape.
enum class PayloadKind { Array, Scalar };

const char* to_string(PayloadKind kind);

struct CallFacts {
  std::string operation;  // catalog name: "load", "store", ...
  Group group;
  DType dtype = DType::Int32;
  int items_per_thread = 1;
  std::map<std::string, OptionBinding> options;  // absent means OMITTED
  std::string where;                             // the user's function, file and line; only for messages
  PayloadKind payload =
      PayloadKind::Array;  // after the fields every call has, so brace-initialized facts need not name it
  // Memory operands that are strided N-D views (a slice with a step, a sub-matrix, a
  // Fortran-order array), by operand name -> dimensions; absent: contiguous memory. A
  // view is addressed element by element in C order, never read as flat memory.
  std::map<std::string, int> strided_views;
  // Facts beyond the payload's one dtype and items per thread, by the names the catalog's
  // type expressions use (ArrayType): the dtype of each further array a call takes
  // ("ValueT": radix sort's values), and numbers read from array lengths ("bins": a
  // histogram's counters). The front end fills them from the arguments passed.
  std::map<std::string, DType> dtypes;
  std::map<std::string, int> extents;

  OptionBinding option(const std::string& name) const;
  std::string call_name() const;  // "load" or "load (copy_tile, kernel.py:12)"
};

}  // namespace coop
