#!/usr/bin/env bash
# The tile copy of the spec, from the shell: plan and generate a BlockLoad and a
# BlockStore (transpose, partial tiles), compile both in one NVRTC call, compile
# a CUDA C++ kernel that calls them, and link everything into an sm_90 cubin.
set -euo pipefail
cd "$(dirname "$0")/.."
work=build/examples/tile_copy
mkdir -p "$work"
call=(--group block:128 --dtype int32 --items 4 --algorithm transpose --valid-items)

echo "== coop doctor"
coop doctor

echo; echo "== coop explain load ${call[*]} --oob-default"
coop explain load "${call[@]}" --oob-default

echo; echo "== coop compile: load + store in one bundle"
coop compile load "${call[@]}" --oob-default --call "store ${call[*]}" --arch sm_90 \
  -o "$work/providers.ltoir" --header "$work/providers.h"

cat >"$work/tile_copy.cu" <<'CU'
#include "providers.h"
// One block copies a 512-item tile; invalid slots of a partial tile load as -1.
extern "C" __global__ void tile_copy(const int* source, int* destination, long long valid) {
  constexpr unsigned long long scratch_bytes =
      COOP_PROVIDER_0_SCRATCH_BYTES > COOP_PROVIDER_1_SCRATCH_BYTES ? COOP_PROVIDER_0_SCRATCH_BYTES
                                                                    : COOP_PROVIDER_1_SCRATCH_BYTES;
  __shared__ __align__(16) unsigned char scratch[scratch_bytes];
  int items[4];
  int status = 0;
  COOP_PROVIDER_0(&status, const_cast<int*>(source), items, valid, -1, scratch);
  __syncthreads();  // the store reuses the load's scratch
  COOP_PROVIDER_1(&status, destination, items, valid, scratch);
}
CU
echo; echo "== nvcc: the calling kernel, as LTO-IR"
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
"$cuda_home/bin/nvcc" -std=c++17 -arch=sm_90 -rdc=true -dlto -fatbin -I"$cuda_home/include/cccl" \
  "$work/tile_copy.cu" -o "$work/tile_copy.fatbin"
echo "compiled $work/tile_copy.fatbin"

echo; echo "== coop link: kernel + providers -> cubin"
coop link "$work/tile_copy.fatbin" "$work/providers.ltoir" --arch sm_90 -o "$work/tile_copy.cubin"
