"""fp16 inputs to the FLA-named ops on the CPU target, as FLA takes them: q, k, v, the gates and
beta in float16, outputs in float16, fp32 final states; checked against the fp64 recurrences
(kda_chunk_reference.py, gla_reference.py) on the fp16 values, within 1e-2 relative RMS (the
chunked ops keep bf16 intermediates for fp16 inputs: their products take the state, which may
pass fp16's range, as an operand; the last case below)."""

import numpy as np
import pytest

import kdatile as kt
from gla_reference import gla_reference
from kda_chunk_reference import kda_prefill_reference
from kda_reference import rel_rms
from kdatile.ops import (
    chunk_gated_delta_rule,
    chunk_gla,
    chunk_kda,
    fused_recurrent_gated_delta_rule,
    fused_recurrent_gla,
    fused_recurrent_kda,
    kda_recurrent,
)
from kdatile.ops.chunk import chunk_gdn_launches, chunk_gla_launches, chunk_launches

from conftest import requires_lib

pytestmark = requires_lib

LIMIT = 1e-2
LENS = [1, 15, 16, 17, 40, 0]


def half(x):
    return np.asarray(x, np.float32).astype(np.float16)


def wide(x):
    return np.asarray(x, np.float64)


def varlen(rng, H, HV, D, lens=LENS, gate_dims=None):
    """Packed fp16 q, k, v, a raw gate of shape [1, T, HV] + gate_dims and beta logits, with
    cu_seqlens and an fp32 initial state per sequence."""
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    T = int(cu[-1])
    q = half(rng.standard_normal((1, T, H, D)))
    k = half(rng.standard_normal((1, T, H, D)))
    v = half(rng.standard_normal((1, T, HV, D)))
    g = half(rng.standard_normal((1, T, HV) + tuple(gate_dims or ())))
    beta = half(rng.standard_normal((1, T, HV)))
    h0 = (rng.standard_normal((len(lens), HV, D, D)) * 0.3).astype(np.float32)
    return cu, q, k, v, g, beta, h0


def check(got, ref, final=None, ref_final=None):
    assert got.dtype == np.float16
    assert np.isfinite(got.astype(np.float32)).all()
    assert rel_rms(ref, got) <= LIMIT
    if final is not None:
        assert final.dtype == np.float32 and np.isfinite(final).all()
        assert rel_rms(ref_final, final) <= LIMIT


@pytest.mark.parametrize("op", [chunk_kda, fused_recurrent_kda])
def test_kda_ops(op):
    rng = np.random.default_rng(3)
    H, HV, D = 1, 2, 32
    cu, q, k, v, g, beta, h0 = varlen(rng, H, HV, D, gate_dims=(D,))
    A_log = rng.uniform(-1.0, 1.0, HV).astype(np.float32)
    kw = dict(initial_state=half(h0), output_final_state=True, cu_seqlens=cu,
              use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
              use_beta_sigmoid_in_kernel=True, A_log=A_log, lower_bound=-5.0)
    o, final = op(q, k, v, g, beta, **kw)
    ref_o, ref_final, _ = kda_prefill_reference(
        wide(q), wide(k), wide(v), wide(g), wide(beta), initial_state=wide(half(h0)),
        cu_seqlens=cu, use_qk_l2norm=True, use_gate=True, use_beta_sigmoid=True, A_log=A_log,
        dt_bias=None, lower_bound=-5.0)
    check(o, ref_o, final, ref_final)


def test_chunk_kda_saturated_gate():
    """160 tokens at the lower bound -5 (800 nats): finite and exact."""
    rng = np.random.default_rng(4)
    T, H, D = 160, 2, 32
    q, k, v = (half(rng.standard_normal((1, T, H, D))) for _ in range(3))
    g = np.full((1, T, H, D), -60.0, np.float16)  # the sigmoid saturates: log decay -5
    beta = half(rng.uniform(0.1, 0.9, (1, T, H)))
    o, final = chunk_kda(q, k, v, g, beta, output_final_state=True,
                         use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                         lower_bound=-5.0)
    ref_o, ref_final, _ = kda_prefill_reference(
        wide(q), wide(k), wide(v), wide(g), wide(beta), use_qk_l2norm=True, use_gate=True,
        lower_bound=-5.0)
    check(o, ref_o, final, ref_final)


@pytest.mark.parametrize("op", [chunk_gated_delta_rule, fused_recurrent_gated_delta_rule])
def test_gated_delta_rule_ops(op):
    rng = np.random.default_rng(5)
    H, HV, D = 2, 4, 32
    cu, q, k, v, g, beta, h0 = varlen(rng, H, HV, D)
    g = half(-np.abs(wide(g)) * 0.5)  # log decays
    o, final = op(q, k, v, g=g, beta=beta, initial_state=h0, output_final_state=True, cu_seqlens=cu,
                  use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True)
    ref_o, ref_final, _ = kda_prefill_reference(
        wide(q), wide(k), wide(v), np.repeat(wide(g)[..., None], D, -1), wide(beta),
        initial_state=h0, cu_seqlens=cu, use_qk_l2norm=True, use_beta_sigmoid=True)
    check(o, ref_o, final, ref_final)


@pytest.mark.parametrize("op", [chunk_gla, fused_recurrent_gla])
def test_gla_ops(op):
    rng = np.random.default_rng(6)
    H, HV, D = 1, 2, 32
    cu, q, k, v, g, _, h0 = varlen(rng, H, HV, D, gate_dims=(D,))
    g = half(-np.log1p(np.exp(-wide(g) - 2.0)))  # log-sigmoid gates per key channel
    o, final = op(q, k, v, g, initial_state=h0, output_final_state=True, cu_seqlens=cu)
    ref_o, ref_final = gla_reference(wide(q), wide(k), wide(v), wide(g), initial_state=h0,
                                     cu_seqlens=cu)
    check(o, ref_o, final, ref_final)


def test_kda_recurrent_fp16_state_pool():
    """An fp16 state pool is read and written in place in fp16: token t of sequence n reads
    its state from slot slots[n, t - 1] (slots[n, 0] for t = 0) and writes it to slots[n, t]."""
    rng = np.random.default_rng(7)
    N, T, H, D = 2, 3, 2, 32
    q, k, v = (half(rng.standard_normal((N, T, H, D))) for _ in range(3))
    g = half(-rng.uniform(0.0, 0.5, (N, T, H, D)))
    beta = half(rng.uniform(0.1, 0.9, (N, T, H)))
    pool = half(rng.standard_normal((N * T + 1, H, D, D)) * 0.3)
    start = pool.copy()
    slots = 1 + np.arange(N * T, dtype=np.int32).reshape(N, T)
    o = kda_recurrent(q, k, v, g, beta, initial_state=pool, state_indices=slots,
                      state_layout="vk", use_gate=False, use_beta_sigmoid=False)
    assert pool.dtype == np.float16
    np.testing.assert_array_equal(pool[0], start[0])  # no slot of the table
    for n in range(N):
        sl = slice(n, n + 1)
        ref_o, ref_final, trace = kda_prefill_reference(
            wide(q[sl]), wide(k[sl]), wide(v[sl]), wide(g[sl]), wide(beta[sl]),
            initial_state=wide(start[slots[n, :1]]), use_qk_l2norm=True, state_v_first=True)
        check(o[sl], ref_o)
        after = [s.transpose(0, 2, 1) for s in trace[0][1:]] + [ref_final[0]]
        for t in range(T):
            assert rel_rms(after[t], pool[slots[n, t]].astype(np.float64)) <= LIMIT


@pytest.mark.parametrize("launches", [chunk_launches, chunk_gdn_launches, chunk_gla_launches])
def test_chunked_ops_take_bf16_intermediates(launches):
    """fp16 inputs: the prep writes bf16 intermediates and the products take bf16 operands."""
    rng = np.random.default_rng(9)
    q, k, v = (half(rng.standard_normal((1, 20, 1, 32))) for _ in range(3))
    g = half(-rng.uniform(0.0, 0.5, (1, 20, 1) if launches is chunk_gdn_launches
                          else (1, 20, 1, 32)))
    beta = half(rng.uniform(0.1, 0.9, (1, 20, 1)))
    args = (q, k, v, g) if launches is chunk_gla_launches else (q, k, v, g, beta)
    _, (prep, *rest) = launches(*args, output_final_state=True)
    assert prep.constexprs["DOT"] is kt.bfloat16
    assert all(launch.constexprs.get("DOT", kt.bfloat16) is kt.bfloat16 for launch in rest)
    written = [a for a in prep.args if isinstance(a, np.ndarray) and a.ndim == 4
               and a.shape[-1] == 16]  # the 16-token chunks' w, qg, u (bf16 bit patterns)
    assert written and all(a.dtype == np.uint16 for a in written)


@pytest.mark.parametrize("op", [chunk_gla, chunk_kda])
def test_state_past_fp16_range(op):
    """A state far past fp16's 65504 with small queries: the outputs are in fp16's range, and
    the state's product operands are bf16 (fp16 ones would be inf)."""
    rng = np.random.default_rng(8)
    T, H, D = 40, 1, 32
    q = half(rng.standard_normal((1, T, H, D)) * 1e-3)
    k, v = (half(rng.standard_normal((1, T, H, D))) for _ in range(2))
    g = half(-rng.uniform(0.0, 0.1, (1, T, H, D)))
    h0 = (rng.standard_normal((1, H, D, D)) * 1e6).astype(np.float32)
    kw = dict(initial_state=h0, output_final_state=True, scale=1.0)
    if op is chunk_gla:
        o, final = op(q, k, v, g, **kw)
        ref_o, ref_final = gla_reference(wide(q), wide(k), wide(v), wide(g), scale=1.0,
                                         initial_state=h0)
    else:
        # Unit keys keep the delta rule contractive; the scale keeps the outputs small.
        beta = half(rng.uniform(0.1, 0.9, (1, T, H)))
        kw.update(scale=1e-4, use_qk_l2norm_in_kernel=True)
        o, final = op(q, k, v, g, beta, **kw)
        ref_o, ref_final, _ = kda_prefill_reference(wide(q), wide(k), wide(v), wide(g),
                                                    wide(beta), scale=1e-4, initial_state=h0,
                                                    use_qk_l2norm=True)
    check(o, ref_o, final, ref_final)
