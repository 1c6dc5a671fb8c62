#include "check.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace coop::gpu_test {
namespace {

constexpr unsigned char kDestinationSentinel = 0xA5;
constexpr unsigned char kDumpSentinel = 0xC3;

int element_size(const Config& config) { return info(config.dtype).size; }

std::uint64_t read_bits(const Bytes& bytes, long long index, int size) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size, size);  // little endian: the low bytes
  return bits;
}

void write_bits(Bytes& bytes, long long index, int size, std::uint64_t bits) {
  std::memcpy(bytes.data() + index * size, &bits, size);
}

// Random bits that are a finite, normal (or zero) value of a floating dtype:
// the data only moves, but no denormal or NaN can then be flushed or canonicalized.
bool acceptable(DType dtype, std::uint64_t bits) {
  int exponent_bits = 0, mantissa_bits = 0;
  switch (dtype) {
    case DType::Float16:
      exponent_bits = 5, mantissa_bits = 10;
      break;
    case DType::BFloat16:
      exponent_bits = 8, mantissa_bits = 7;
      break;
    case DType::Float32:
      exponent_bits = 8, mantissa_bits = 23;
      break;
    case DType::Float64:
      exponent_bits = 11, mantissa_bits = 52;
      break;
    case DType::Bool:
      return bits <= 1;
    default:
      return true;
  }
  const std::uint64_t exponent = (bits >> mantissa_bits) & ((1ULL << exponent_bits) - 1);
  const std::uint64_t mantissa = bits & ((1ULL << mantissa_bits) - 1);
  if (exponent == (1ULL << exponent_bits) - 1) return false;
  return exponent != 0 || mantissa == 0;
}

std::uint64_t random_element(DType dtype, std::mt19937_64& random) {
  const int bits = info(dtype).size * 8;
  const std::uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
  for (;;) {
    const std::uint64_t value = dtype == DType::Bool ? random() & 1 : random() & mask;
    if (acceptable(dtype, value)) return value;
  }
}

double half_to_double(std::uint64_t bits) {
  const int sign = (bits >> 15) & 1, exponent = (bits >> 10) & 31, mantissa = bits & 0x3FF;
  double magnitude = 0;
  if (exponent == 0)
    magnitude = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}

// "0x3c00 (1)": the bits, then the value they hold.
std::string format_value(DType dtype, std::uint64_t bits) {
  char text[96];
  const int digits = info(dtype).size * 2;
  int length = std::snprintf(text, sizeof text, "0x%0*llx", digits, static_cast<unsigned long long>(bits));
  double value = 0;
  bool floating = true;
  switch (dtype) {
    case DType::Float16:
      value = half_to_double(bits);
      break;
    case DType::BFloat16: {
      const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
      float f;
      std::memcpy(&f, &widened, 4);
      value = f;
      break;
    }
    case DType::Float32: {
      const std::uint32_t narrow = static_cast<std::uint32_t>(bits);
      float f;
      std::memcpy(&f, &narrow, 4);
      value = f;
      break;
    }
    case DType::Float64:
      std::memcpy(&value, &bits, 8);
      break;
    default:
      floating = false;
  }
  if (floating) {
    std::snprintf(text + length, sizeof text - length, " (%.9g)", value);
  } else {
    const int shift = 64 - info(dtype).size * 8;
    const bool is_signed = info(dtype).name.front() == 'i';
    const long long shown = is_signed ? static_cast<long long>(bits << shift) >> shift : static_cast<long long>(bits);
    std::snprintf(text + length, sizeof text - length, " (%lld)", shown);
  }
  return text;
}

// Counts mismatches of one array and remembers the first.
class Findings {
 public:
  Findings(const Config& config, std::string what) : config_(config), what_(std::move(what)) {}

  // `where` describes the slot; it is only called for the first mismatch.
  template <class Where>
  void compare(std::uint64_t expected, std::uint64_t got, const Where& where) {
    if (expected == got) return;
    if (count_++ == 0) {
      first_ =
          where() + ": expected " + format_value(config_.dtype, expected) + ", got " + format_value(config_.dtype, got);
    }
  }

  void report(std::vector<std::string>& lines) const {
    if (count_ == 0) return;
    lines.push_back(what_ + ": " + std::to_string(count_) + " mismatch(es); first at " + first_);
  }

 private:
  const Config& config_;
  std::string what_;
  long long count_ = 0;
  std::string first_;
};

// The tile index that item `item` of lane `lane` holds in the group's arrangement:
// blocked (lane * items + item) or striped (lane + item * group threads).
long long tile_index(const Config& config, int lane, int item) {
  return config.striped() ? lane + 1LL * item * config.group_threads() : 1LL * lane * config.items + item;
}

}  // namespace

long long guard_elements(const Config& config) { return config.group_tile() + 64; }

HostCase make_case(const Config& config) {
  const int size = element_size(config);
  const long long total = config.shift() + config.elements() + guard_elements(config);
  HostCase host;
  host.source.resize(total * size);
  std::mt19937_64 random(0xC00DULL * 1000003ULL + static_cast<std::uint64_t>(config.id));
  for (long long i = 0; i < total; ++i) write_bits(host.source, i, size, random_element(config.dtype, random));
  host.destination.assign(total * size, kDestinationSentinel);
  host.dump.assign(config.elements() * size, kDumpSentinel);
  host.valid = valid_items_per_instance(config);
  host.oob_param = runtime_oob_bits(config.dtype);
  return host;
}

std::vector<std::string> verify(const Config& config, const HostCase& host, const Bytes& destination,
                                const Bytes& dump) {
  const int size = element_size(config);
  const int threads = config.block_threads();
  const int group_threads = config.group_threads();
  const long long group_tile = config.group_tile();
  const long long shift = config.shift();
  const std::optional<std::uint64_t> oob = oob_default_bits(config);
  std::vector<std::string> lines;
  if (destination.size() != host.destination.size() || dump.size() != host.dump.size()) {
    lines.push_back("internal: result arrays have the wrong size");
    return lines;
  }

  // Load: every thread's items against the tile slot its arrangement names.
  Findings load(config, "load (items dumped per thread)");
  for (int block = 0; block < config.grid; ++block) {
    for (int rank = 0; rank < threads; ++rank) {
      const int group = rank / group_threads, lane = rank % group_threads;
      const long long instance = 1LL * block * config.instances() + group;
      const long long valid = host.valid[instance];
      for (int item = 0; item < config.items; ++item) {
        const long long index = tile_index(config, lane, item);
        const long long slot = (1LL * block * threads + rank) * config.items + item;
        const std::uint64_t got = read_bits(dump, slot, size);
        const auto where = [&] {
          return "block " + std::to_string(block) + " thread " + std::to_string(rank) + " item " +
                 std::to_string(item) + " (group " + std::to_string(group) + " lane " + std::to_string(lane) +
                 ", tile index " + std::to_string(index) + ", valid_items " + std::to_string(valid) +
                 (index < valid ? ")" : ", beyond valid: oob_default)");
        };
        if (index < valid) {
          load.compare(read_bits(host.source, shift + instance * group_tile + index, size), got, where);
        } else if (oob) {
          load.compare(*oob, got, where);
        }
      }
    }
  }
  load.report(lines);

  // Store: the destination holds the source over each tile's valid range, the sentinel elsewhere.
  Findings store(config, "store (destination)");
  const long long instances = 1LL * config.grid * config.instances();
  for (long long instance = 0; instance < instances; ++instance) {
    for (long long index = 0; index < group_tile; ++index) {
      const long long element = shift + instance * group_tile + index;
      const bool written = index < host.valid[instance];
      const std::uint64_t expected = read_bits(written ? host.source : host.destination, element, size);
      store.compare(expected, read_bits(destination, element, size), [&] {
        return "element " + std::to_string(element) + " (group instance " + std::to_string(instance) + ", tile index " +
               std::to_string(index) + ", valid_items " + std::to_string(host.valid[instance]) +
               (written ? ")" : ", beyond valid: sentinel)");
      });
    }
  }
  // Nothing is written outside the tiles: not before the first, not after the last.
  const long long end = shift + config.elements();
  auto untouched = [&](long long element, const char* where) {
    store.compare(read_bits(host.destination, element, size), read_bits(destination, element, size),
                  [&] { return "element " + std::to_string(element) + " (" + where + " the tiles: sentinel)"; });
  };
  for (long long element = 0; element < shift; ++element) untouched(element, "before");
  for (long long element = end; element < end + guard_elements(config); ++element) untouched(element, "after");
  store.report(lines);
  return lines;
}

}  // namespace coop::gpu_test
