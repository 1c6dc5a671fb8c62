// Device C++ the generated sources include verbatim: each is a .cuh file beside this
// one, embedded at build time (engine/cmake/embed.cmake).
#pragma once

namespace coop::adapters {

extern const char* const strided_view;       // strided_view.cuh: coop_adapt::StridedView<T, N>
extern const char* const warp_reduce_items;  // warp_reduce_items.cuh: coop_adapt::WarpReduceItems<T, LANES>
extern const char* const warp_scan_items;    // warp_scan_items.cuh: coop_adapt::WarpScanItems<T, LANES>

}  // namespace coop::adapters
