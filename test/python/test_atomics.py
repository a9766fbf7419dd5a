"""kt.atomic_*: once per program, concurrent programs on the CPU target's thread pool (GPU:
test/gpu)."""

import numpy as np
import pytest

import dsl_kernels as dk
from conftest import requires_lib

pytestmark = requires_lib


@pytest.mark.parametrize("nprog", [4, 64])
def test_last_program_sees_every_partial(nprog):
    block = 32
    rng = np.random.default_rng(nprog)
    x = rng.integers(-100, 100, nprog * block).astype(np.float32)
    partial = np.zeros(nprog, np.float32)
    counter = np.zeros(1, np.int32)
    out = np.zeros(1, np.float32)
    for launch in range(1, 4):  # tickets keep counting: no reset between launches
        x += 1
        dk.last_program_sum[(nprog,)](x, partial, counter, out, BLOCK=block, NPROG=nprog)
        assert out[0] == x.astype(np.float64).sum()
        assert counter[0] == launch * nprog


def test_atomic_kinds():
    n = 200
    i32 = np.array([5, -1, -7], np.int32)
    f32 = np.zeros(1, np.float32)
    i64 = np.zeros(1, np.int64)
    olds = np.full(n, -99, np.int32)
    dk.atomic_kinds[(n,)](i32, f32, i64, olds)
    assert i32[0] == 5 + n * (n - 1) // 2
    assert i32[1] == n - 1
    assert f32[0] == 0.5 * n
    assert i64[0] == -(n - 1)
    # The exchanges form one chain: the old values plus the final one are the
    # initial value and every program id, each once.
    assert sorted(olds.tolist() + [int(i32[2])]) == sorted([-7] + list(range(n)))


@pytest.mark.parametrize("n,block", [(1000, 64), (37, 128)])
def test_tile_atomic_histogram(n, block):
    """One atomic per element, collisions within a program and across programs, a masked tail:
    the counts are exact and the old values seen at each bin are 0, 1, ..., count - 1."""
    rng = np.random.default_rng(n)
    nbins = 7
    idx = rng.integers(0, nbins, n).astype(np.int32)
    bins = np.zeros(nbins, np.int32)
    olds = np.full(n, -1, np.int32)
    dk.histogram[(-(-n // block),)](idx, bins, olds, n, BLOCK=block)
    np.testing.assert_array_equal(bins, np.bincount(idx, minlength=nbins))
    for b in range(nbins):
        assert sorted(olds[idx == b].tolist()) == list(range(int(bins[b])))


def test_tile_atomic_kinds():
    nprog, block = 50, 16
    i32 = np.zeros(3 * block, np.int32)
    i32[block:2 * block] = -1
    i32[2 * block:] = -5
    f32 = np.zeros(block, np.float32)
    i64 = np.zeros(block, np.int64)
    olds = np.zeros(nprog * block, np.int32)
    dk.tile_atomic_kinds[(nprog,)](i32, f32, i64, olds, BLOCK=block)
    lanes = np.arange(block)
    np.testing.assert_array_equal(i32[:block], nprog * (nprog - 1) // 2)
    np.testing.assert_array_equal(i32[block:2 * block], nprog - 1 + lanes)
    np.testing.assert_array_equal(i64, np.minimum(0, lanes - (nprog - 1)))
    np.testing.assert_array_equal(f32, np.where(lanes < block // 2, 0.25 * nprog, 0.0))
    # Per lane the exchanges form one chain: the olds plus the final value are -5 and every
    # program id, each once.
    for lane in range(block):
        chain = olds.reshape(nprog, block)[:, lane].tolist() + [int(i32[2 * block + lane])]
        assert sorted(chain) == sorted([-5] + list(range(nprog)))


def test_masked_scalar_atomic():
    n = 41
    counter = np.zeros(1, np.int32)
    olds = np.full(n, -1, np.int32)
    dk.masked_counter[(n,)](counter, olds)
    assert counter[0] == (n + 1) // 2
    np.testing.assert_array_equal(olds[1::2], 0)  # masked off: 0, no memory touched
    assert sorted(olds[0::2].tolist()) == list(range((n + 1) // 2))


@pytest.mark.parametrize("block", [64, 512])
def test_atomic_old_values(block):
    """The old values a tile atomic returns, per element (masked ones: 0), and a masked scalar
    exchange's, where no two atomics share an address."""
    nprog = 6
    rng = np.random.default_rng(block)
    buf = rng.integers(-1000, 1000, nprog * block).astype(np.int32)
    before = buf.copy()
    olds = np.full(nprog * block, -1, np.int32)
    slots = rng.integers(-1000, 1000, nprog).astype(np.int32)
    slots_before = slots.copy()
    slot_olds = np.full(nprog, -1, np.int32)
    dk.atomic_olds[(nprog,)](buf, olds, slots, slot_olds, BLOCK=block)
    lanes = np.tile(np.arange(block), nprog)
    live = lanes % 3 != 0
    np.testing.assert_array_equal(olds, np.where(live, before, 0))
    np.testing.assert_array_equal(buf, np.where(live, before + lanes + 1, before))
    even = np.arange(nprog) % 2 == 0
    np.testing.assert_array_equal(slot_olds, np.where(even, slots_before, 0))
    np.testing.assert_array_equal(slots, np.where(even, np.arange(nprog) + 100, slots_before))
