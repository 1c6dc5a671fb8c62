#include "process_signals.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace coop {
namespace {

// As if the request were granted: the caller's own bookkeeping (save, install, restore) stays
// consistent while the disposition stays the process's.
sighandler_t keep_signal(int number, sighandler_t handler) {
  if (!is_process_signal(number)) return ::signal(number, handler);
  struct sigaction current {};
  if (::sigaction(number, nullptr, &current) != 0) return SIG_ERR;
  return current.sa_handler;
}

int keep_sigaction(int number, const struct sigaction* action, struct sigaction* previous) {
  if (!is_process_signal(number)) return ::sigaction(number, action, previous);
  return ::sigaction(number, nullptr, previous);
}

#if defined(__x86_64__)
constexpr std::uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr std::uint32_t kGlobalData = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr std::uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr std::uint32_t kGlobalData = R_AARCH64_GLOB_DAT;
#else
#error "process_signals: name this architecture's jump-slot and global-data relocations"
#endif

// The parts of a loaded library's dynamic section that name its imports.
struct Imports {
  ElfW(Addr) base = 0;
  const ElfW(Sym) * symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela) * tables[2] = {nullptr, nullptr};  // DT_JMPREL (calls) and DT_RELA (addresses taken)
  std::size_t sizes[2] = {0, 0};
};

Imports imports_of(const link_map* library) {
  Imports imports;
  imports.base = library->l_addr;
  // glibc relocates these entries in place on most targets, not on all: an unrelocated one is an
  // offset below the load address.
  const auto address = [&](ElfW(Addr) value) { return value < imports.base ? value + imports.base : value; };
  for (const ElfW(Dyn)* entry = library->l_ld; entry->d_tag != DT_NULL; ++entry) {
    switch (entry->d_tag) {
      case DT_SYMTAB:
        imports.symbols = reinterpret_cast<const ElfW(Sym)*>(address(entry->d_un.d_ptr));
        break;
      case DT_STRTAB:
        imports.names = reinterpret_cast<const char*>(address(entry->d_un.d_ptr));
        break;
      case DT_JMPREL:
        imports.tables[0] = reinterpret_cast<const ElfW(Rela)*>(address(entry->d_un.d_ptr));
        break;
      case DT_PLTRELSZ:
        imports.sizes[0] = entry->d_un.d_val;
        break;
      case DT_RELA:
        imports.tables[1] = reinterpret_cast<const ElfW(Rela)*>(address(entry->d_un.d_ptr));
        break;
      case DT_RELASZ:
        imports.sizes[1] = entry->d_un.d_val;
        break;
      default:
        break;
    }
  }
  return imports;
}

// The pages the loader made read-only once it had relocated the library (PT_GNU_RELRO): a
// slot there is made writable for the write and read-only again; every other slot is writable.
struct ReadOnlyAfterRelocation {
  ElfW(Addr) base = 0;
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};

int find_read_only_pages(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto* pages = static_cast<ReadOnlyAfterRelocation*>(data);
  if (info->dlpi_addr != pages->base) return 0;
  const auto page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type != PT_GNU_RELRO) continue;
    pages->begin = (info->dlpi_addr + header.p_vaddr) & ~(page_size - 1);
    pages->end = (info->dlpi_addr + header.p_vaddr + header.p_memsz) & ~(page_size - 1);
  }
  return 1;
}

void write_slot(void** slot, void* function, const ReadOnlyAfterRelocation& pages) {
  const auto address = reinterpret_cast<std::uintptr_t>(slot);
  if (address < pages.begin || address >= pages.end) {
    __atomic_store_n(slot, function, __ATOMIC_SEQ_CST);
    return;
  }
  const auto page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  void* page = reinterpret_cast<void*>(address & ~(page_size - 1));
  if (::mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return;  // the library keeps its own imports
  __atomic_store_n(slot, function, __ATOMIC_SEQ_CST);
  ::mprotect(page, page_size, PROT_READ);
}

void* replacement(const char* name) {
  if (std::strcmp(name, "signal") == 0) return reinterpret_cast<void*>(&keep_signal);
  if (std::strcmp(name, "sigaction") == 0) return reinterpret_cast<void*>(&keep_sigaction);
  return nullptr;
}

}  // namespace

bool is_process_signal(int number) { return number == SIGINT || number == SIGTERM; }

void keep_process_signals(void* handle) {
  link_map* library = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &library) != 0 || library == nullptr) return;
  const Imports imports = imports_of(library);
  if (imports.symbols == nullptr || imports.names == nullptr) return;
  ReadOnlyAfterRelocation pages{imports.base};
  ::dl_iterate_phdr(find_read_only_pages, &pages);
  for (int table = 0; table < 2; ++table) {
    const std::size_t count = imports.sizes[table] / sizeof(ElfW(Rela));
    for (std::size_t i = 0; imports.tables[table] != nullptr && i < count; ++i) {
      const ElfW(Rela)& relocation = imports.tables[table][i];
      const auto type = static_cast<std::uint32_t>(ELF64_R_TYPE(relocation.r_info));
      if (type != kJumpSlot && type != kGlobalData) continue;
      const ElfW(Sym)& symbol = imports.symbols[ELF64_R_SYM(relocation.r_info)];
      if (symbol.st_shndx != SHN_UNDEF) continue;  // the library's own definition, not an import
      if (void* function = replacement(imports.names + symbol.st_name)) {
        write_slot(reinterpret_cast<void**>(imports.base + relocation.r_offset), function, pages);
      }
    }
  }
}

ProcessSignalsRestored::ProcessSignalsRestored() {
  ::sigaction(SIGINT, nullptr, &interrupt_);
  ::sigaction(SIGTERM, nullptr, &terminate_);
}

ProcessSignalsRestored::~ProcessSignalsRestored() {
  ::sigaction(SIGINT, &interrupt_, nullptr);
  ::sigaction(SIGTERM, &terminate_, nullptr);
}

ProcessSignalsDeferred::ProcessSignalsDeferred() {
  sigset_t held;
  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &held, &previous_);
}

ProcessSignalsDeferred::~ProcessSignalsDeferred() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

}  // namespace coop
