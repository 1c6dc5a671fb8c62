"""The seed's valid_items on warp scans of one value per lane: the lanes below the count get
their scan, the aggregate covers those lanes only, and a runtime count past the warp traps."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop


def partial_scan_kernel(mode, width):
    @cuda.jit
    def kernel(values, scanned, aggregates, valid):
        warp = coop.this_warp().group_by(width)
        t = cuda.threadIdx.x
        total = coop.ThreadData(1, dtype=np.int32)
        if mode == "inclusive_max":
            out = coop.inclusive_scan(warp, values[t], scan_op="max", aggregate_output=total, valid_items=valid)
        else:
            out = coop.exclusive_sum(warp, values[t], aggregate_output=total, valid_items=valid)
        scanned[t] = out
        aggregates[t] = total[0]

    return kernel


@pytest.mark.parametrize("valid", [1, 5, 16])
@pytest.mark.parametrize("width", [16, 32])
@pytest.mark.parametrize("mode", ["inclusive_max", "exclusive_sum"])
def test_the_valid_lanes_get_their_scan_and_the_aggregate(mode, width, valid):
    threads = 64
    values = np.random.default_rng(width + valid).integers(-100, 100, threads).astype(np.int32)
    scanned, aggregates = np.zeros_like(values), np.zeros_like(values)
    partial_scan_kernel(mode, width)[1, threads](values, scanned, aggregates, valid)
    cuda.synchronize()
    for group in range(threads // width):
        lanes = slice(group * width, group * width + valid)
        mine = values[lanes]
        if mode == "inclusive_max":
            expected, aggregate = np.maximum.accumulate(mine), mine.max()
        else:
            expected, aggregate = np.concatenate([[0], np.cumsum(mine)[:-1]]), mine.sum()
        np.testing.assert_array_equal(scanned[lanes], expected)
        assert (aggregates[group * width : (group + 1) * width] == aggregate).all()


def launch_with_too_many_valid_lanes():
    values = np.zeros(32, np.int32)
    partial_scan_kernel("exclusive_sum", 32)[1, 32](values, values.copy(), values.copy(), 33)


def launch_with_no_valid_lanes():
    values = np.zeros(32, np.int32)
    partial_scan_kernel("inclusive_max", 32)[1, 32](values, values.copy(), values.copy(), 0)


@pytest.mark.parametrize("launch", [launch_with_too_many_valid_lanes, launch_with_no_valid_lanes], ids=["33", "0"])
def test_a_count_outside_one_to_the_width_traps(traps_in_child, launch):
    traps_in_child(launch)
