"""kt.multiple_of / kt.max_contiguous on the CPU target: a hinted kernel computes what the
unhinted one does (the hints change vector widths, never values), and the host stubs raise."""

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib


@kt.jit
def block_scale(x_ptr, y_ptr, stride, R: kt.constexpr, N: kt.constexpr, HINT: kt.constexpr):
    # R rows of N elements at a row stride the caller keeps a multiple of 4.
    rows = kt.arange(0, R)[:, None] * stride + kt.zeros((R, N), kt.int32)
    cols = kt.arange(0, N)[None, :] + kt.zeros((R, N), kt.int32)
    if HINT:
        rows = kt.multiple_of(rows, (4, 4))
        cols = kt.max_contiguous(cols, (1, N))
    ptrs = rows + cols
    kt.store(y_ptr + ptrs, kt.load(x_ptr + ptrs) * 2.0)


@requires_lib
@pytest.mark.parametrize("hint", [False, True])
def test_hinted_kernel_runs(hint):
    R, stride, N = 4, 68, 64
    x = np.random.default_rng(0).standard_normal(R * stride).astype(np.float32)
    y = np.zeros_like(x)
    block_scale[(1,)](x, y, stride, R=R, N=N, HINT=hint)
    want = np.zeros_like(x)
    for r in range(R):
        want[r * stride:r * stride + N] = 2 * x[r * stride:r * stride + N]
    np.testing.assert_array_equal(y, want)


def test_host_call_raises():
    with pytest.raises(RuntimeError, match="kt.multiple_of can only be used inside"):
        kt.multiple_of(4, 4)
