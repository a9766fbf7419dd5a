"""kernels/matmul.py on the CPU target against fp64 products of its bf16 / f16 inputs: tile
edges masked in M, N and K, rings of two to four stages, slices split into K steps, fp32 and
bf16 results."""

import numpy as np
import pytest

import kdatile as kt
from kda_reference import bf16_to_f32
from matmul import matmul

from conftest import requires_lib
from refs import matmul_inputs

pytestmark = requires_lib


@pytest.mark.parametrize("dtype", ["bf16", "float16"])
@pytest.mark.parametrize("M,N,K,BM,BN,BK,stages,ks", [
    (64, 64, 64, 32, 32, 32, 2, 32),     # exact tiles, two stages
    (100, 72, 200, 64, 32, 64, 3, 32),   # every edge masked, two K steps per slice
    (33, 130, 48, 32, 64, 16, 4, 16),    # K shorter than the ring
])
def test_matmul(M, N, K, BM, BN, BK, stages, ks, dtype):
    rng = np.random.default_rng(M + N + K)
    a, b, _, (a64, b64) = matmul_inputs(rng, M, N, K, dtype)
    c = np.full((M, N), np.nan, np.float32)
    grid = ((M + BM - 1) // BM, (N + BN - 1) // BN)
    matmul[grid](a, b, c, M, N, K, K, N, N, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                 STAGES=stages, KS=ks, DTYPE=kt.bfloat16 if dtype == "bf16" else kt.float16)
    # bf16 / f16 products are exact in fp32; only the fp32 sums round.
    np.testing.assert_allclose(c, a64 @ b64, rtol=1e-5, atol=1e-5 * np.sqrt(K))


def test_matmul_bf16_result():
    """A uint16 c holds bf16 results: the fp32 sums rounded to nearest even once."""
    M = N = K = 96
    rng = np.random.default_rng(5)
    a, b, _, (a64, b64) = matmul_inputs(rng, M, N, K, "bf16")
    c = np.zeros((M, N), np.uint16)
    matmul[(2, 2)](a, b, c, M, N, K, K, N, N, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, STAGES=3)
    ref = a64 @ b64
    # One bf16 rounding: within half a unit of the last place (2^-8 relative), plus the
    # fp32 sum's own error.
    np.testing.assert_allclose(bf16_to_f32(c), ref, rtol=2 ** -8, atol=1e-5 * np.sqrt(K))


def test_matmul_needs_two_stages():
    a = np.zeros((16, 16), np.uint16)
    c = np.zeros((16, 16), np.float32)
    with pytest.raises(Exception, match="at least two shared-memory stages"):
        matmul[(1, 1)](a, a, c, 16, 16, 16, 16, 16, 16, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16,
                       STAGES=1, KS=16)
