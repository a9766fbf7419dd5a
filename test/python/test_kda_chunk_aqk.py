"""kernels/kda_chunk_aqk.py on the CPU target against the fp64 reference
(kda_chunk_reference.py): the chunk-local cumulative decay and the masked intra-chunk
products, with products on bf16 operands (rel RMS <= 1e-2, the bf16-intermediate limit of
docs/kda.md) or fp32 ones (<= 1e-5); gates down to -20 nats a token stay finite (a chunk
then spans 1280 nats), and a tail chunk leaves the rows past T untouched."""

import numpy as np
import pytest

import kdatile as kt
from kda_chunk_aqk import kda_chunk_aqk
from kda_chunk_reference import chunk_aqk_reference, chunk_inputs
from kda_reference import bf16_to_f32, f32_to_bf16, rel_rms

from conftest import requires_lib

pytestmark = requires_lib


@pytest.mark.parametrize("dot,limit", [("bf16", 1e-2), ("fp32", 1e-5)])
@pytest.mark.parametrize("T,H,D,gate_low", [(64, 1, 32, -1.0), (150, 2, 64, -5.0),
                                            (128, 2, 128, -20.0)])
def test_chunk_aqk(T, H, D, gate_low, dot, limit):
    rng = np.random.default_rng(T + D)
    q, k, g = chunk_inputs(rng, T, H, D, gate_low)
    qb, kb = f32_to_bf16(q), f32_to_bf16(k)
    scale = D ** -0.5
    C = 64
    gamma = np.full((T, H, D), np.nan, np.float32)
    A = np.full((T + 8, H, C), -7.0, np.float32)  # rows past T must stay as they are
    kda_chunk_aqk[((T + C - 1) // C, H)](
        qb, kb, g, gamma, A, T, scale, H=H, D=D, C=C,
        DOT=kt.bfloat16 if dot == "bf16" else kt.float32)
    ref_gamma, ref_A = chunk_aqk_reference(bf16_to_f32(qb), bf16_to_f32(kb), g, scale, C)
    assert np.isfinite(A).all() and np.isfinite(gamma).all()
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-5, atol=1e-5 * abs(gate_low))
    assert rel_rms(ref_A, A[:T]) <= limit
    # Exactly zero above the diagonal (masked by select).
    upper = np.triu(np.ones((C, C), bool), 1)
    for c0 in range(0, T, C):
        n = min(C, T - c0)
        block = A[c0:c0 + n]                                         # [n, H, C]
        mask = np.broadcast_to(upper[:n, None, :], block.shape)
        assert (block[mask] == 0).all()
    assert (A[T:] == -7.0).all()
