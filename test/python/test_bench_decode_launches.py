"""bench/bench_kda_decode.py names each decode launch by its (BV, BLK, STAGES, warps, CLUSTER)
tuple: the ops' pick at every benchmark shape and every launch of its LAUNCHES table must map to
that tuple and back to the same launch, whichever decode kernel (one strategy per file) runs
it. Runs on the CPU: the launches are prepared for sm_90a from NumPy stand-ins, not run."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

import bench_kda_decode as bench  # noqa: E402

from kdatile.ops.decode import DecodeConfig  # noqa: E402


def same_launch(a, b):
    return (a.kernel.__name__ == b.kernel.__name__ and a.constexprs == b.constexprs
            and tuple(a.grid) == tuple(b.grid) and a.num_warps == b.num_warps)


@pytest.mark.parametrize("state_dtype", bench.STATE_DTYPES)
@pytest.mark.parametrize("layout", bench.LAYOUTS)
def test_ops_pick_round_trips(state_dtype, layout):
    for H in bench.HEADS:
        for B in bench.BATCHES:
            config = bench.ops_launch(B, H, state_dtype, layout)
            assert len(config) == 5, (H, B, config)
            picked = bench.numpy_launch(H, B, state_dtype, layout)
            again = bench.numpy_launch(H, B, state_dtype, layout, config=DecodeConfig(*config))
            assert same_launch(picked, again), (H, B, config)


@pytest.mark.parametrize("state_dtype", bench.STATE_DTYPES)
@pytest.mark.parametrize("layout", bench.LAYOUTS)
def test_table_launches_round_trip(state_dtype, layout):
    for config in bench.LAUNCHES:
        for H in (12, 96):
            launch = bench.numpy_launch(H, 8, state_dtype, layout, config=DecodeConfig(*config))
            assert bench.variant_of(launch) == config
    # The tables' columns are named by launch_name: one name per launch.
    assert len({bench.launch_name(c) for c in bench.LAUNCHES}) == len(bench.LAUNCHES)
