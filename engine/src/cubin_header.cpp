#include "cubin_header.hpp"

#include <elf.h>

#include <cstring>

namespace coop {
namespace {

constexpr unsigned char kOsAbiCuda = 0x33;  // ELFOSABI_CUDA in e_ident[EI_OSABI]
constexpr unsigned char kOsAbiCudaV2 = 0x41;
constexpr unsigned char kFirstAbiWithSmInSecondByte = 8;  // CUDA 12.8+: e_flags bits 8-15; before: bits 0-7

}  // namespace

std::optional<CubinHeader> read_cubin_header(const std::vector<char>& bytes) {
  Elf64_Ehdr header{};
  if (bytes.size() < sizeof header) return std::nullopt;
  std::memcpy(&header, bytes.data(), sizeof header);
  const unsigned char* ident = header.e_ident;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0 || ident[EI_CLASS] != ELFCLASS64 || header.e_machine != EM_CUDA) {
    return std::nullopt;
  }
  if (ident[EI_OSABI] != kOsAbiCuda && ident[EI_OSABI] != kOsAbiCudaV2) return std::nullopt;
  const unsigned shift = ident[EI_ABIVERSION] >= kFirstAbiWithSmInSecondByte ? 8 : 0;
  return CubinHeader{header.e_type == ET_REL, static_cast<int>((header.e_flags >> shift) & 0xffu)};
}

}  // namespace coop
