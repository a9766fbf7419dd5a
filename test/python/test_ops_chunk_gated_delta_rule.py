"""kdatile.ops.chunk_gated_delta_rule (Gated DeltaNet's chunked prefill, FLA's keywords) on the
CPU target against the fp64 token-by-token recurrence (kda_chunk_reference.py with one decay
for every key channel): GVA, varlen lengths around the chunk, saturated decays, and a prefill
continued by fused_recurrent_gated_delta_rule; relative RMS 5e-3 with fp32 inputs, 1e-2 with
bf16 ones (bf16 intermediates)."""

import numpy as np
import pytest

from kda_chunk_reference import kda_prefill_reference, prefill_inputs
from kda_reference import bf16_to_f32, f32_to_bf16, rel_rms
from kdatile.ops import chunk_gated_delta_rule, fused_recurrent_gated_delta_rule

from conftest import requires_lib

pytestmark = requires_lib

LENS = [1, 15, 16, 17, 63, 64, 65, 200, 0]


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def inputs(rng, H, HV, D, lens, dtype, low=-3.0):
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    T = int(cu[-1])
    q, k, v, _, _ = prefill_inputs(rng, 1, T, H, HV, D, D, dtype=dtype)
    g = -rng.uniform(0.0, -low, (1, T, HV)).astype(np.float32)
    beta = rng.uniform(0.05, 0.95, (1, T, HV)).astype(np.float32)
    h0 = (rng.standard_normal((len(lens), HV, D, D)) * 0.3).astype(np.float32)
    return cu, q, k, v, g, beta, h0


def reference(q, k, v, g, beta, h0, cu, D):
    return kda_prefill_reference(widen(q), widen(k), widen(v), np.repeat(g[..., None], D, -1),
                                 beta, initial_state=h0, cu_seqlens=cu, use_qk_l2norm=True)


@pytest.mark.parametrize("dtype,H,HV,D", [("bf16", 2, 4, 64), ("f32", 3, 3, 100),
                                          ("bf16", 1, 2, 128)])
def test_varlen_gva(dtype, H, HV, D):
    rng = np.random.default_rng(len(dtype) + H + D)
    cu, q, k, v, g, beta, h0 = inputs(rng, H, HV, D, LENS, dtype)
    o, final = chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                      output_final_state=True, cu_seqlens=cu,
                                      use_qk_l2norm_in_kernel=True)
    ref_o, ref_final, _ = reference(q, k, v, g, beta, h0, cu, D)
    limit = 1e-2 if dtype == "bf16" else 5e-3
    assert np.isfinite(widen(o)).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, widen(o)) <= limit
    assert rel_rms(ref_final, final) <= limit
    np.testing.assert_array_equal(final[-1], h0[-1])  # the empty sequence


def test_value_head_dim_twice_the_key_head_dim():
    # FLA's Gated DeltaNet layer defaults to V = 2K (expand_v = 2).
    rng = np.random.default_rng(8)
    lens, H, HV, K, V = [9, 33], 2, 4, 32, 64
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, _, _ = prefill_inputs(rng, 1, int(cu[-1]), H, HV, K, V, dtype="f32")
    g = -rng.uniform(0.0, 3.0, (1, int(cu[-1]), HV)).astype(np.float32)
    beta = rng.uniform(0.05, 0.95, (1, int(cu[-1]), HV)).astype(np.float32)
    h0 = (rng.standard_normal((len(lens), HV, V, K)) * 0.3).astype(np.float32)
    o, final = chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                      output_final_state=True, cu_seqlens=cu,
                                      use_qk_l2norm_in_kernel=True, state_v_first=True)
    ref_o, ref_final, _ = kda_prefill_reference(
        q, k, v, np.repeat(g[..., None], K, -1), beta, initial_state=h0, cu_seqlens=cu,
        use_qk_l2norm=True, state_v_first=True)
    assert o.shape == v.shape and final.shape == h0.shape
    assert rel_rms(ref_o, o) <= 5e-3 and rel_rms(ref_final, final) <= 5e-3


@pytest.mark.parametrize("lens", [[9, 0, 20], [0]])
def test_bf16_initial_state_reads_as_fp32(lens):
    """FLA's op takes any float initial state and reads it as fp32: a bf16 one gives what its
    values widened to fp32 give (sequences without tokens, and a call without any, too)."""
    rng = np.random.default_rng(9)
    cu, q, k, v, g, beta, h0 = inputs(rng, 2, 2, 32, lens, "f32")
    h0_bf16 = f32_to_bf16(h0)
    got = [chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h, output_final_state=True,
                                  cu_seqlens=cu, use_qk_l2norm_in_kernel=True)
           for h in (h0_bf16, bf16_to_f32(h0_bf16))]
    for a, b in zip(*got):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_saturated_decay_stays_finite():
    """-50 nats a token: every pair across more than a token underflows to 0, never a NaN."""
    rng = np.random.default_rng(7)
    cu, q, k, v, g, beta, h0 = inputs(rng, 2, 2, 32, [150, 9], "f32", low=-50.0)
    o, final = chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                      output_final_state=True, cu_seqlens=cu,
                                      use_qk_l2norm_in_kernel=True)
    ref_o, ref_final, _ = reference(q, k, v, g, beta, h0, cu, 32)
    assert rel_rms(ref_o, o) <= 5e-3 and rel_rms(ref_final, final) <= 5e-3


def test_huge_log_decay_stays_finite_and_exact():
    """A token's log decay of -3e38 (its running sum would be -inf, and -inf - -inf NaN) wipes
    the state there and nothing else, as in the recurrence; an empty call with out works."""
    rng = np.random.default_rng(17)
    cu, q, k, v, g, beta, h0 = inputs(rng, 2, 2, 32, [40], "f32")
    g[0, [5, 21, 22]] = -3e38
    o, final = chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                      output_final_state=True, use_qk_l2norm_in_kernel=True)
    ref_o, ref_final, _ = reference(q, k, v, g, beta, h0, cu, 32)
    assert np.isfinite(o).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, o) <= 5e-3 and rel_rms(ref_final, final) <= 5e-3
    empty = np.empty((1, 0, 2, 32), np.float32)  # NumPy's zero strides: still contiguous
    o, _ = chunk_gated_delta_rule(q[:, :0], k[:, :0], v[:, :0], g[:, :0], beta[:, :0],
                                  out=empty)
    assert o.shape == (1, 0, 2, 32)


def test_prefill_then_decode_continues_the_recurrence():
    rng = np.random.default_rng(8)
    H, HV, D, T, extra = 2, 4, 64, 40, 3
    _, q, k, v, g, beta, _ = inputs(rng, H, HV, D, [T + extra], "f32")
    _, whole = chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True,
                                      use_qk_l2norm_in_kernel=True)
    head = [x[:, :T] for x in (q, k, v, g, beta)]
    _, state = chunk_gated_delta_rule(*head, output_final_state=True,
                                      use_qk_l2norm_in_kernel=True)
    tq, tk, tv, tg, tbeta = [np.ascontiguousarray(x[:, T:]) for x in (q, k, v, g, beta)]
    _, final = fused_recurrent_gated_delta_rule(tq, tk, tv, tg, beta=tbeta, initial_state=state,
                                                output_final_state=True,
                                                use_qk_l2norm_in_kernel=True)
    assert rel_rms(whole, final) <= 5e-3


def test_gate_shape_is_checked():
    rng = np.random.default_rng(9)
    _, q, k, v, g, beta, _ = inputs(rng, 1, 1, 32, [8], "f32")
    with pytest.raises(ValueError, match=r"argument 'g'.*\[B, T, HV\]"):
        chunk_gated_delta_rule(q, k, v, np.repeat(g[..., None], 32, -1), beta)


def test_beta_logits_and_v_first_state():
    rng = np.random.default_rng(10)
    H, HV, D = 1, 2, 32
    cu, q, k, v, g, _, h0 = inputs(rng, H, HV, D, [5, 40], "f32")
    logits = rng.standard_normal(g.shape).astype(np.float32)
    o, final = chunk_gated_delta_rule(q, k, v, g, logits, None,
                                      np.ascontiguousarray(h0.transpose(0, 1, 3, 2)), True,
                                      True, True, True, True, cu)
    ref_o, ref_final, _ = kda_prefill_reference(
        q, k, v, np.repeat(g[..., None], D, -1), logits, initial_state=h0, cu_seqlens=cu,
        use_qk_l2norm=True, use_beta_sigmoid=True, allow_neg_eigval=True)
    assert rel_rms(ref_o, o) <= 5e-3
    assert rel_rms(ref_final.transpose(0, 1, 3, 2), final) <= 5e-3


def test_pairs_as_split_bf16_products():
    """Gated DeltaNet's pairs (q k^T, k k^T) as three bf16 products of split fp32 factors
    (PAIRS_BF16X3, what the op launches on gfx1250) meet the bf16 tolerance."""
    from kdatile.ops._kernels import execute
    from kdatile.ops.chunk import chunk_gdn_launches

    rng = np.random.default_rng(5)
    D = 64
    cu, q, k, v, g, beta, h0 = inputs(rng, 2, 4, D, LENS, "bf16")
    (o, final), (prep, scan) = chunk_gdn_launches(
        q, k, v, g, beta, initial_state=h0, output_final_state=True, cu_seqlens=cu,
        use_qk_l2norm_in_kernel=True)
    assert prep.constexprs["GATE_PER_HEAD"] and not prep.constexprs["PAIRS_BF16X3"]
    execute(None, prep._replace(constexprs=dict(prep.constexprs, PAIRS_BF16X3=True)))
    execute(None, scan)
    ref_o, ref_final, _ = reference(q, k, v, g, beta, h0, cu, D)
    assert rel_rms(ref_o, widen(o)) <= 1e-2
    assert rel_rms(ref_final, final) <= 1e-2


def test_split_scan_matches_whole():
    """Sequences scanned in segments of 64 tokens give the whole scan's results and meet the
    recurrence (gentle decays: the segments' transitions matter)."""
    from kdatile.ops._kernels import execute
    from kdatile.ops.chunk import chunk_gdn_launches

    rng = np.random.default_rng(8)
    lens = [200, 0, 33, 130]
    cu, q, k, v, g, beta, h0 = inputs(rng, 1, 2, 32, lens, "f32", low=-0.02)
    results = []
    for segment in (0, 64):
        result, launches = chunk_gdn_launches(q, k, v, g, beta, initial_state=h0,
                                              output_final_state=True,
                                              use_qk_l2norm_in_kernel=True, cu_seqlens=cu,
                                              segment_tokens=segment)
        assert len(launches) == (2 if segment == 0 else 4)
        for launch in launches:
            execute(None, launch)
        results.append(result)
    ref_o, ref_final, _ = reference(q, k, v, g, beta, h0, cu, 32)
    (o, final), (whole_o, whole_final) = results[1], results[0]
    assert rel_rms(ref_o, o) <= 5e-3 and rel_rms(ref_final, final) <= 5e-3
    assert rel_rms(whole_o, o) <= 1e-5 and rel_rms(whole_final, final) <= 1e-5


@pytest.mark.parametrize("dtype,with_bias", [("f32", True), ("bf16", False)])
def test_as_fla_layer_calls_it(dtype, with_bias):
    """FLA's GatedDeltaNet layer's call: the raw gate activated in the prep (-exp(A_log)
    softplus(g + dt_bias), dt_bias optional; rows past a sequence's end add no decay), beta
    logits with negative eigenvalues allowed, [V, K] states, varlen lengths around the chunk,
    GVA; and the prefill continued by fused_recurrent_gated_delta_rule with the same gate."""
    from kda_reference import softplus

    rng = np.random.default_rng(11 + with_bias)
    H, HV, D = 2, 4, 64
    cu, q, k, v, _, _, h0 = inputs(rng, H, HV, D, LENS, dtype)
    raw = rng.standard_normal((1, int(cu[-1]), HV)).astype(np.float32)
    logits = rng.standard_normal(raw.shape).astype(np.float32)
    A_log = rng.uniform(-1, 1, HV).astype(np.float32)
    dt_bias = rng.standard_normal(HV).astype(np.float32) if with_bias else None
    gate = dict(use_gate_in_kernel=True, A_log=A_log, dt_bias=dt_bias,
                use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                allow_neg_eigval=True, state_v_first=True)
    h0_vk = np.ascontiguousarray(h0.transpose(0, 1, 3, 2))
    o, final = chunk_gated_delta_rule(q=q, k=k, v=v, g=raw, beta=logits, initial_state=h0_vk,
                                      output_final_state=True, cu_seqlens=cu, **gate)
    bias = 0.0 if dt_bias is None else dt_bias.astype(np.float64)
    g = -np.exp(A_log.astype(np.float64)) * softplus(raw.astype(np.float64) + bias)
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), np.repeat(g[..., None], D, -1), logits,
        initial_state=h0, cu_seqlens=cu, use_qk_l2norm=True, use_beta_sigmoid=True,
        allow_neg_eigval=True)
    limit = 1e-2 if dtype == "bf16" else 5e-3
    assert rel_rms(ref_o, widen(o)) <= limit
    assert rel_rms(ref_final.transpose(0, 1, 3, 2), final) <= limit
    # Prefill the first 200-token sequence's head, then the recurrent op with the same gate.
    s = int(cu[7])
    head = [np.ascontiguousarray(x[:, s:s + 150]) for x in (q, k, v, raw, logits)]
    tail = [np.ascontiguousarray(x[:, s + 150:s + 200]) for x in (q, k, v, raw, logits)]
    _, mid = chunk_gated_delta_rule(*head[:3], g=head[3], beta=head[4],
                                    initial_state=h0_vk[7:8], output_final_state=True, **gate)
    _, end = fused_recurrent_gated_delta_rule(*tail[:3], g=tail[3], beta=tail[4],
                                              initial_state=mid, output_final_state=True,
                                              **gate)
    assert rel_rms(ref_final[7:8].transpose(0, 1, 3, 2), end) <= limit
    with pytest.raises(ValueError, match="argument 'A_log'.*required"):
        chunk_gated_delta_rule(q, k, v, raw, logits, cu_seqlens=cu, use_gate_in_kernel=True)
    with pytest.raises(ValueError, match=r"argument 'dt_bias'.*\[HV\]"):
        chunk_gated_delta_rule(q, k, v, raw, logits, cu_seqlens=cu, use_gate_in_kernel=True,
                               A_log=A_log, dt_bias=np.zeros(HV * D, np.float32))
    with pytest.raises(ValueError, match="argument 'dt_bias'.*use_gate_in_kernel=False"):
        chunk_gated_delta_rule(q, k, v, raw, logits, cu_seqlens=cu, dt_bias=A_log)
