"""kt.multiple_of / kt.max_contiguous on the CPU target: a hinted kernel computes what the
unhinted one does (the hints change vector widths, never values), and the host stubs raise."""

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib


@kt.jit
def row_scale(x_ptr, y_ptr, stride, N: kt.constexpr, HINT: kt.constexpr):
    offs = kt.arange(0, N)
    start = kt.program_id(0) * stride
    if HINT:
        start = kt.multiple_of(start, 4)
        offs = kt.max_contiguous(offs, N)
    kt.store(y_ptr + start + offs, kt.load(x_ptr + start + offs) * 2.0)


@requires_lib
@pytest.mark.parametrize("hint", [False, True])
def test_hinted_kernel_runs(hint):
    rows, stride, N = 3, 68, 64
    x = np.random.default_rng(0).standard_normal(rows * stride).astype(np.float32)
    y = np.zeros_like(x)
    row_scale[(rows,)](x, y, stride, N=N, HINT=hint)
    want = np.zeros_like(x)
    for r in range(rows):
        want[r * stride:r * stride + N] = 2 * x[r * stride:r * stride + N]
    np.testing.assert_array_equal(y, want)


def test_host_call_raises():
    with pytest.raises(RuntimeError, match="kt.multiple_of can only be used inside"):
        kt.multiple_of(4, 4)
