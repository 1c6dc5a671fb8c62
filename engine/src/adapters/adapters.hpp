// Device C++ the generated sources include verbatim: each is a .cuh file beside this
// one, embedded at build time (engine/cmake/embed.cmake).
#pragma once

namespace coop::adapters {

extern const char* const strided_view;  // strided_view.cuh: coop_adapt::StridedView<T, N>

}  // namespace coop::adapters
