"""Numerics of the reduction-heavy test kernels (cross-warp reduction and a
layout conversion on GPUs) on the CPU target, against fp64 NumPy."""

import numpy as np
import pytest

import dsl_kernels as dk
from conftest import requires_lib
from refs import (
    matmul_inputs,
    recurrence_inputs,
    recurrences,
    round_to_tf32,
    scan_inputs,
    scans,
)

pytestmark = requires_lib


@pytest.mark.parametrize("M,N", [(64, 32), (128, 16), (8, 128)])
def test_column_sums(M, N):
    rng = np.random.default_rng(M * N)
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.empty(N, np.float32)
    dk.column_sums[(1,)](x, out, M=M, N=N)
    ref = x.astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("M,N", [(16, 128), (64, 32)])
def test_row_norms_plus(M, N):
    rng = np.random.default_rng(M + N)
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = rng.standard_normal(M).astype(np.float32)
    out = np.empty(M, np.float32)
    dk.row_norms_plus[(1,)](x, y, out, M=M, N=N)
    ref = np.sqrt((x.astype(np.float64) ** 2).sum(axis=1)) + y
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("N", [16, 64])
def test_transpose_add(N):
    rng = np.random.default_rng(N)
    x = rng.standard_normal((N, N)).astype(np.float32)
    out = np.empty_like(x)
    dk.transpose_add[(1,)](x, out, N=N)
    np.testing.assert_allclose(out, x + x.T, rtol=1e-6, atol=1e-6)


def test_explicit_layouts_run_on_cpu():
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out = np.zeros_like(x)
    dk.explicit_layouts[(1,)](x, out, N=64)
    np.testing.assert_array_equal(out, 2 * x)


@pytest.mark.parametrize("dtype", ["bf16", "float16", "float32"])
@pytest.mark.parametrize("M,N,K", [(16, 8, 16), (64, 64, 32), (32, 128, 64)])
def test_matmul_tile(M, N, K, dtype):
    """c + a @ b against fp64: 16-bit products are exact in fp32, so only the fp32 sums
    round."""
    rng = np.random.default_rng(M * N + K)
    a, b, c, (a64, b64) = matmul_inputs(rng, M, N, K, dtype)
    out = np.empty((M, N), np.float32)
    dk.matmul_tile[(1,)](a, b, c, out, M=M, N=N, K=K)
    ref = c.astype(np.float64) + a64 @ b64
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(K))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("M,N", [(1, 8), (64, 32), (16, 128)])
def test_scans(M, N, reverse):
    rng = np.random.default_rng(M + 3 * N)
    x, i = scan_inputs(rng, M, N)
    outs = [np.empty((M, N), np.float32) for _ in range(3)] + [np.empty((M, N), np.int32)]
    dk.scans[(1,)](x, i, *outs, M=M, N=N, REVERSE=reverse)
    ref_sum, ref_max, ref_min, ref_isum = scans(x, i, reverse)
    np.testing.assert_allclose(outs[0], ref_sum, rtol=1e-5, atol=1e-5 * np.sqrt(M))
    np.testing.assert_array_equal(outs[1], ref_max)
    np.testing.assert_array_equal(outs[2], ref_min)
    np.testing.assert_array_equal(outs[3], ref_isum)



@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("M,N", [(1, 8), (64, 32), (16, 128)])
def test_recurrences(M, N, reverse):
    """kt.cumprod, and kt.associative_scan with a non-commutative combine function over
    a tuple (the combine order matters)."""
    rng = np.random.default_rng(7 * M + N)
    a, b = recurrence_inputs(rng, M, N)
    prod, h = np.empty((M, N), np.float32), np.empty((M, N), np.float32)
    dk.recurrences[(1,)](a, b, prod, h, M=M, N=N, REVERSE=reverse)
    ref_prod, ref_h = recurrences(a, b, reverse)
    np.testing.assert_allclose(prod, ref_prod, rtol=1e-6 * N + 1e-6)
    np.testing.assert_allclose(h, ref_h, rtol=1e-5, atol=1e-5 * np.sqrt(M))


@pytest.mark.parametrize("M,N,K", [(16, 8, 8), (64, 64, 32)])
def test_matmul_tile_tf32(M, N, K):
    """allow_tf32=True: the operands rounded to tf32 (ties away from zero), whose
    products are exact in fp32; differs from the exact fp32 product."""
    rng = np.random.default_rng(M + 2 * N + K)
    a, b, c, _ = matmul_inputs(rng, M, N, K, "float32")
    out = np.empty((M, N), np.float32)
    dk.matmul_tile[(1,)](a, b, c, out, M=M, N=N, K=K, TF32=True)
    a64, b64 = (round_to_tf32(x).astype(np.float64) for x in (a, b))
    ref = c.astype(np.float64) + a64 @ b64
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(K))
    exact = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(out - exact).max() > 1e-4  # the rounding is there


def test_round_to_tf32_reference():
    """The reference rounding: ties away from zero, carries into the exponent, NaN kept."""
    x = np.array([1.0 + 2.0 ** -11, -(1.0 + 2.0 ** -11), 1.0 + 2.0 ** -12, np.nan,
                  np.inf, 2.0 - 2.0 ** -23], np.float32)
    got = round_to_tf32(x)
    assert got[0] == 1.0 + 2.0 ** -10 and got[1] == -(1.0 + 2.0 ** -10)
    assert got[2] == 1.0 and np.isnan(got[3]) and got[4] == np.inf and got[5] == 2.0
