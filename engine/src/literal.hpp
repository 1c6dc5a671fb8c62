// literal: the text of a STATIC value, read one way by plan (which checks it) and
// emit (which spells it in C++), so the generated code means what was checked.
// C++ reads "010" as octal and has no "inf": the emitter never pastes the text.
#pragma once

#include <optional>
#include <string>

#include "coop/dtype.hpp"

namespace coop::literal {

struct Float {
  enum class Kind { Finite, Infinity, NaN };
  Kind kind = Kind::Finite;
  bool negative = false;
  double value = 0;     // as strtod reads it; +-HUGE_VAL when out of double's range
  std::string decimal;  // Finite: a C++ double literal of the same value, sign included ("-5.0")
};

// A decimal number ("-1.5", "2e3", "7"), or inf, infinity or nan in any case,
// signed or not. Hexadecimal and NaN payloads are not numbers here.
std::optional<Float> parse_float(const std::string& text);

// Whether a finite `value` rounds to infinity as `dtype` (float16 and bfloat16
// are converted through float, as the generated code does).
bool rounds_to_infinity(DType dtype, double value);

// Decimal integers, "-" allowed for signed only; no "+", no spaces.
std::optional<long long> parse_signed(const std::string& text);
std::optional<unsigned long long> parse_unsigned(const std::string& text);

}  // namespace coop::literal
