#include "literal.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

namespace coop::literal {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

template <typename Integer>
std::optional<Integer> parse_integer(const std::string& text) {
  Integer value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<Float> parse_float(const std::string& text) {
  static const std::regex decimal("([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  Float result;
  result.negative = !text.empty() && text.front() == '-';
  const bool signed_text = result.negative || (!text.empty() && text.front() == '+');
  const std::string magnitude = signed_text ? text.substr(1) : text;
  const std::string word = lower(magnitude);
  if (word == "inf" || word == "infinity" || word == "nan") {
    result.kind = word == "nan" ? Float::Kind::NaN : Float::Kind::Infinity;
    result.value = word == "nan" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    if (result.negative) result.value = -result.value;
    return result;
  }
  if (!std::regex_match(magnitude, decimal)) return std::nullopt;
  result.value = std::strtod(text.c_str(), nullptr);
  // "7" is an int literal in C++ and "010" an octal one; "7.0" and "010.0" are the decimal doubles.
  const bool has_point = magnitude.find_first_of(".eE") != std::string::npos;
  result.decimal = (result.negative ? "-" : "") + magnitude + (has_point ? "" : ".0");
  return result;
}

bool rounds_to_infinity(DType dtype, double value) {
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return true;
  if (dtype == DType::Float64) return false;
  // Round to nearest even: the halfway point above each largest finite value rounds up to infinity.
  if (magnitude >= 0x1.ffffffp127) return true;  // float: 2^128 - 2^103
  const float single = static_cast<float>(magnitude);
  if (dtype == DType::Float16) return single >= 65520.0f;      // 65504 + half its ulp (32)
  if (dtype == DType::BFloat16) return single >= 0x1.ffp127f;  // 0x1.fep127 + half its ulp (2^119)
  return false;
}

std::optional<long long> parse_signed(const std::string& text) { return parse_integer<long long>(text); }

std::optional<unsigned long long> parse_unsigned(const std::string& text) {
  return parse_integer<unsigned long long>(text);
}

}  // namespace coop::literal
