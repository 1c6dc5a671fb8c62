#include "coop/dtype.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <mutex>
#include <set>

namespace coop {
namespace {

constexpr std::array kTable = {
    DTypeInfo{DType::Bool, "bool", "bool", "", 1, 1, false, false},
    DTypeInfo{DType::Int8, "int8", "::cuda::std::int8_t", "cuda/std/cstdint", 1, 1, true, false},
    DTypeInfo{DType::Int16, "int16", "::cuda::std::int16_t", "cuda/std/cstdint", 2, 2, true, false},
    DTypeInfo{DType::Int32, "int32", "::cuda::std::int32_t", "cuda/std/cstdint", 4, 4, true, false},
    DTypeInfo{DType::Int64, "int64", "::cuda::std::int64_t", "cuda/std/cstdint", 8, 8, true, false},
    DTypeInfo{DType::UInt8, "uint8", "::cuda::std::uint8_t", "cuda/std/cstdint", 1, 1, true, false},
    DTypeInfo{DType::UInt16, "uint16", "::cuda::std::uint16_t", "cuda/std/cstdint", 2, 2, true, false},
    DTypeInfo{DType::UInt32, "uint32", "::cuda::std::uint32_t", "cuda/std/cstdint", 4, 4, true, false},
    DTypeInfo{DType::UInt64, "uint64", "::cuda::std::uint64_t", "cuda/std/cstdint", 8, 8, true, false},
    DTypeInfo{DType::Float16, "float16", "__half", "cuda_fp16.h", 2, 2, false, true},
    DTypeInfo{DType::BFloat16, "bfloat16", "__nv_bfloat16", "cuda_bf16.h", 2, 2, false, true},
    DTypeInfo{DType::Float32, "float32", "float", "", 4, 4, false, true},
    DTypeInfo{DType::Float64, "float64", "double", "", 8, 8, false, true},
    DTypeInfo{DType::Complex64, "complex64", "::cuda::std::complex<float>", "cuda/std/complex", 8, 8, false, false,
              true},
    DTypeInfo{DType::Complex128, "complex128", "::cuda::std::complex<double>", "cuda/std/complex", 16, 16, false, false,
              true},
};

// Records are numbered after the scalars, in the order the process first meets them.
constexpr int kFirstRecord = 1 << 16;

struct Record {
  std::string name, cpp;
  RecordLayout layout;
  DTypeInfo info;
};

// A deque keeps each record where it was made, so the views into it stay valid.
struct Records {
  std::mutex mutex;
  std::deque<Record> made;
};

Records& records() {
  static Records instance;
  return instance;
}

bool is_record_value(DType dtype) { return static_cast<int>(dtype) >= kFirstRecord; }

const Record& record_of(DType dtype) {
  Records& all = records();
  const std::lock_guard lock(all.mutex);
  return all.made[static_cast<std::size_t>(static_cast<int>(dtype) - kFirstRecord)];
}

RecordLayout layout_of(const std::vector<DType>& fields) {
  RecordLayout layout{fields, {}, 0, 1};
  for (const DType field : fields) {
    const DTypeInfo& scalar = info(field);
    layout.size = (layout.size + scalar.alignment - 1) / scalar.alignment * scalar.alignment;
    layout.offsets.push_back(layout.size);
    layout.size += scalar.size;
    layout.alignment = std::max(layout.alignment, scalar.alignment);
  }
  layout.size = (layout.size + layout.alignment - 1) / layout.alignment * layout.alignment;
  return layout;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// "record(int32, float32)" -> its fields; nullopt where it is not a record's name.
std::optional<std::vector<DType>> record_fields(std::string_view name) {
  constexpr std::string_view kOpen = "record(";
  if (!name.starts_with(kOpen) || !name.ends_with(")")) return std::nullopt;
  std::string_view rest = name.substr(kOpen.size(), name.size() - kOpen.size() - 1);
  std::vector<DType> fields;
  while (true) {
    const std::size_t comma = rest.find(',');
    const auto field = parse_dtype(trimmed(rest.substr(0, comma)));
    if (!field) return std::nullopt;
    fields.push_back(*field);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return fields;
}

}  // namespace

const DTypeInfo& info(DType dtype) {
  if (is_record_value(dtype)) return record_of(dtype).info;
  return kTable[static_cast<std::size_t>(dtype)];
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& entry : kTable) {
    if (entry.name == name) return entry.dtype;
  }
  if (const auto fields = record_fields(name)) return record_dtype(*fields);
  return std::nullopt;
}

std::optional<DType> record_dtype(const std::vector<DType>& fields) {
  const bool scalars = std::none_of(fields.begin(), fields.end(), [](DType field) { return is_record_value(field); });
  if (fields.empty() || fields.size() > kMaxRecordFields || !scalars) return std::nullopt;
  std::string name = "record(", cpp = "coop_record";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    name += (i ? "," : "") + std::string(info(fields[i]).name);
    cpp += "_" + std::string(info(fields[i]).name);
  }
  name += ")";
  Records& all = records();
  const std::lock_guard lock(all.mutex);
  for (std::size_t i = 0; i < all.made.size(); ++i) {
    if (all.made[i].name == name) return static_cast<DType>(kFirstRecord + static_cast<int>(i));
  }
  const auto dtype = static_cast<DType>(kFirstRecord + static_cast<int>(all.made.size()));
  Record& record = all.made.emplace_back(Record{name, cpp, layout_of(fields), {}});
  record.info = DTypeInfo{dtype, record.name, record.cpp, "",  record.layout.size, record.layout.alignment,
                          false, false,       false,      true};
  return dtype;
}

const RecordLayout* record_layout(DType dtype) { return is_record_value(dtype) ? &record_of(dtype).layout : nullptr; }

std::string record_definition(DType dtype) {
  const DTypeInfo& record = info(dtype);
  const RecordLayout& layout = *record_layout(dtype);
  const std::string type(record.cpp);
  std::string text = "// " + std::string(record.name) + ": " + std::to_string(layout.size) + " bytes, aligned to " +
                     std::to_string(layout.alignment) + "\nstruct " + type + " {\n";
  for (std::size_t i = 0; i < layout.fields.size(); ++i)
    text += "  " + std::string(info(layout.fields[i]).cpp) + " f" + std::to_string(i) + ";\n";
  text += "};\n";
  const std::string why = ", \"" + std::string(record.name) + ": the layout cuda.coop computed\");\n";
  text += "static_assert(sizeof(" + type + ") == " + std::to_string(layout.size) + " && alignof(" + type +
          ") == " + std::to_string(layout.alignment) + why;
  // Fields in order at the next multiple of their alignment: their sizes and alignments fix every
  // offset (NVRTC has no constant offsetof; the engine's tests read the offsets with nvcc).
  std::set<DType> checked;
  for (const DType field : layout.fields) {
    if (!checked.insert(field).second) continue;
    const std::string cpp(info(field).cpp);
    text += "static_assert(sizeof(" + cpp + ") == " + std::to_string(info(field).size) + " && alignof(" + cpp +
            ") == " + std::to_string(info(field).alignment) + why;
  }
  return text;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = [] {
    std::vector<DType> result;
    for (const auto& entry : kTable) result.push_back(entry.dtype);
    return result;
  }();
  return dtypes;
}

std::string dtype_names() {
  std::string names;
  for (const auto& entry : kTable) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

DType at_least_32_bits(DType dtype) {
  switch (dtype) {
    case DType::Int8:
    case DType::Int16:
      return DType::Int32;
    case DType::UInt8:
    case DType::UInt16:
      return DType::UInt32;
    default:
      return dtype;
  }
}

}  // namespace coop
