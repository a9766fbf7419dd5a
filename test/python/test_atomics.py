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
