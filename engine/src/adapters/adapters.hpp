// Device C++ the generated sources include verbatim: each is a .cuh file beside this
// one, embedded at build time (engine/cmake/embed.cmake) under its file's stem.
#pragma once

#include <string_view>

namespace coop::adapters {

// The text of src/adapters/<stem>.cuh; an unknown stem is an Internal error.
const char* source(std::string_view stem);

}  // namespace coop::adapters
