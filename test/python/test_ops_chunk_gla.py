"""kdatile.ops.chunk_gla (FLA's name and parameters) on the CPU target against the fp64
token-by-token recurrence of gated linear attention (gla_reference.py): outputs and final states
within relative RMS 5e-3 with fp32 inputs and 1e-2 with bf16 ones (bf16 intermediates, as
chunk_kda), varlen lengths around the chunk size, GVA, a non-power-of-two head dim, steep
decays, prefill continued by fused_recurrent_gla, and the argument checks."""

import numpy as np
import pytest

from gla_reference import gla_reference
from kda_reference import bf16_to_f32, f32_to_bf16, rel_rms
from kdatile.ops import chunk_gla, fused_recurrent_gla

from conftest import requires_lib

pytestmark = requires_lib


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def inputs(rng, B, T, H, HV, D, dtype, gate_scale=1.0):
    def cast(x):
        x = np.asarray(x, np.float32)
        return f32_to_bf16(x) if dtype == "bf16" else x

    q = cast(rng.standard_normal((B, T, H, D)) * 0.5)
    k = cast(rng.standard_normal((B, T, H, D)) * 0.5)
    v = cast(rng.standard_normal((B, T, HV, D)))
    # Log-sigmoid gates per key channel (GLA's usual gk), scaled to steepen them.
    g = (gate_scale * -np.log1p(np.exp(-rng.standard_normal((B, T, HV, D)) - 2.0))).astype(
        np.float32)
    return q, k, v, g


def check(q, k, v, g, **kw):
    o, final = chunk_gla(q, k, v, g, output_final_state=True, **kw)
    ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), g, scale=kw.get("scale"),
                                     initial_state=kw.get("initial_state"),
                                     cu_seqlens=kw.get("cu_seqlens"))
    tol = 1e-2 if q.dtype == np.uint16 else 5e-3
    o = widen(o)
    assert np.isfinite(o).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, o) <= tol
    assert rel_rms(ref_final, final) <= tol
    return o, final


def test_key_head_dim_half_the_value_head_dim():
    # FLA's GLA layer defaults to K = V / 2 (expand_k = 0.5).
    rng = np.random.default_rng(13)
    B, T, H, K, V = 2, 37, 2, 32, 64
    q, k, _, _ = inputs(rng, B, T, H, H, K, "f32")
    v = rng.standard_normal((B, T, H, V)).astype(np.float32)
    g = (-np.log1p(np.exp(-rng.standard_normal((B, T, H, K)) - 2.0))).astype(np.float32)
    h0 = (rng.standard_normal((B, H, K, V)) * 0.3).astype(np.float32)
    o, final = check(q, k, v, g, initial_state=h0)
    assert o.shape == v.shape and final.shape == h0.shape


def test_state_v_first_matches_the_transposed_state():
    # FLA's GLA layer passes state_v_first=True: states are [N, HV, V, K], in and out.
    rng = np.random.default_rng(12)
    lens = [5, 33]
    H, HV, D = 1, 2, 32
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, g = inputs(rng, 1, int(cu[-1]), H, HV, D, "f32")
    h0 = (rng.standard_normal((len(lens), HV, D, D)) * 0.3).astype(np.float32)
    o, final = check(q, k, v, g, initial_state=h0, cu_seqlens=cu)
    o_vk, final_vk = chunk_gla(q, k, v, g, initial_state=np.ascontiguousarray(
        h0.transpose(0, 1, 3, 2)), output_final_state=True, state_v_first=True, cu_seqlens=cu)
    assert rel_rms(o, widen(o_vk)) <= 1e-6
    assert rel_rms(final.transpose(0, 1, 3, 2), final_vk) <= 1e-6


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_varlen_gva_with_initial_state(dtype):
    rng = np.random.default_rng(11)
    lens = [1, 15, 16, 17, 63, 64, 65, 200]
    H, HV, D = 2, 4, 64
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, g = inputs(rng, 1, int(cu[-1]), H, HV, D, dtype)
    h0 = (rng.standard_normal((len(lens), HV, D, D)) * 0.3).astype(np.float32)
    check(q, k, v, g, initial_state=h0, cu_seqlens=cu)


def test_fixed_length_head_dim_100_steep_decays():
    rng = np.random.default_rng(12)
    # Decays down to ~ -40 nats a token: the exact pair-by-pair path, no overflow.
    q, k, v, g = inputs(rng, 2, 70, 3, 3, 100, "f32", gate_scale=8.0)
    check(q, k, v, g, scale=0.2)


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_pairs_at_the_mild_decay_edge(dtype):
    """The prep takes a key slice's pairs as anchored products where its log decays sum to at
    most 40 nats over a chunk (factors within exp(+-40)), pair by pair where steeper: one slice
    of channels just inside (-2.4 a token, 38.4 nats a 16-token chunk), one mixing those with
    channels just past it (-2.6), both as exact as the recurrence."""
    rng = np.random.default_rng(16)
    q, k, v, _ = inputs(rng, 1, 50, 2, 2, 64, dtype)
    g = np.full((1, 50, 2, 64), -2.4, np.float32)
    g[..., 48:] = -2.6
    g += rng.uniform(-0.05, 0.0, g.shape).astype(np.float32) * (g < -2.5)
    check(q, k, v, g)


@pytest.mark.parametrize("q_size,decay", [(3e4, -11.4), (1e22, -5.5)])
def test_large_operands_with_decay_in_half_a_chunk(q_size, decay):
    """A chunk whose decay sits in its first half: anchored products would scale a query row
    by up to exp(80) (3e4 * exp(79.8) overflows fp32) or exp(38.5) (1e22 * exp(38.5) does),
    so those slices go pair by pair (too steep, or an operand past 1e20): finite and exact."""
    rng = np.random.default_rng(17)
    q, k, v, _ = inputs(rng, 1, 16, 1, 1, 32, "f32")
    q[0, 0] *= q_size / np.abs(q[0, 0]).max()
    g = np.zeros((1, 16, 1, 32), np.float32)
    g[0, 1:8] = decay
    check(q, k, v, g, scale=1.0)


def test_huge_log_decay_stays_finite_and_exact():
    """Key channels with a log decay of -3e38 at some tokens: finite, as the recurrence."""
    rng = np.random.default_rng(15)
    q, k, v, g = inputs(rng, 1, 40, 2, 2, 32, "f32")
    g[0, [3, 20], :, :8] = -3e38
    check(q, k, v, g)


def test_prefill_then_recurrent_continues_the_sequence():
    rng = np.random.default_rng(13)
    H, D, T, extra = 2, 32, 80, 5
    q, k, v, g = inputs(rng, 1, T + extra, H, H, D, "f32")
    _, state = chunk_gla(q[:, :T], k[:, :T], v[:, :T], g[:, :T], output_final_state=True)
    o_tail, final = fused_recurrent_gla(q[:, T:], k[:, T:], v[:, T:], g[:, T:],
                                        initial_state=state, output_final_state=True)
    ref_o, ref_final = gla_reference(q, k, v, g)
    assert rel_rms(ref_o[:, T:], o_tail) <= 5e-3
    assert rel_rms(ref_final, final) <= 5e-3


def test_bad_arguments():
    rng = np.random.default_rng(14)
    q, k, v, g = inputs(rng, 1, 8, 2, 2, 16, "f32")
    with pytest.raises(ValueError, match="'g'"):
        chunk_gla(q, k, v, g[..., :8])
    with pytest.raises(ValueError, match="'g'.*dtype"):
        chunk_gla(q, k, v, g.astype(np.int32))
    with pytest.raises(ValueError, match="'q'.*dtype"):
        chunk_gla(q.astype(np.float64), k, v, g)
    with pytest.raises(ValueError, match="'scale'"):
        chunk_gla(q, k, v, g, scale=-1.0)
    with pytest.raises(ValueError, match="'cu_seqlens'"):
        chunk_gla(np.concatenate([q, q]), np.concatenate([k, k]), np.concatenate([v, v]),
                  np.concatenate([g, g]), cu_seqlens=np.array([0, 8], np.int32))


def test_split_scan_matches_whole():
    """Sequences scanned in segments of 64 tokens (the summaries' transitions are then the
    products of the decays alone) give the whole scan's results and meet the recurrence."""
    from kdatile.ops._kernels import execute
    from kdatile.ops.chunk import chunk_gla_launches

    rng = np.random.default_rng(5)
    lens = [200, 0, 33, 130]
    H, HV, D = 1, 2, 32
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, g = inputs(rng, 1, int(cu[-1]), H, HV, D, "f32", gate_scale=0.05)
    h0 = (rng.standard_normal((len(lens), HV, D, D)) * 0.3).astype(np.float32)
    results = []
    for segment in (0, 64):
        result, launches = chunk_gla_launches(q, k, v, g, initial_state=h0, cu_seqlens=cu,
                                              output_final_state=True, segment_tokens=segment)
        assert len(launches) == (2 if segment == 0 else 4)
        for launch in launches:
            execute(None, launch)
        results.append(result)
    ref_o, ref_final = gla_reference(q, k, v, g, initial_state=h0, cu_seqlens=cu)
    (o, final), (whole_o, whole_final) = results[1], results[0]
    assert rel_rms(ref_o, o) <= 5e-3 and rel_rms(ref_final, final) <= 5e-3
    assert rel_rms(whole_o, o) <= 1e-5 and rel_rms(whole_final, final) <= 1e-5
