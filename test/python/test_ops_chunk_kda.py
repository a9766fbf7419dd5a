"""kdatile.ops.chunk_kda on the CPU target against the fp64 token-by-token recurrence
(kda_chunk_reference.py): outputs, final states and the states at chunk boundaries within
relative RMS 5e-3 with fp32 inputs (fp32 intermediates) and 1e-2 with bf16 inputs (bf16
intermediates and matrix operands, as FLA keeps them), varlen lengths around
the chunk size, GVA, both gate forms, both state layouts, non-power-of-two head dims, saturated
gates, prefill then recurrent decode, and the argument checks."""

import numpy as np
import pytest

from kda_chunk_reference import chunk_states, kda_prefill_reference, prefill_inputs
from kda_reference import bf16_to_f32, rel_rms
from kdatile.ops import chunk_kda, kda_recurrent

from conftest import requires_lib

pytestmark = requires_lib

LIMIT = 5e-3
BF16_LIMIT = 1e-2


def limit(x):
    """The tolerance of chunk_kda's results for inputs of x's dtype."""
    return BF16_LIMIT if x.dtype == np.uint16 else LIMIT


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def gate_params(rng, HV, K, lower_bound, a_log=True, bias=True):
    kw = {"lower_bound": lower_bound}
    if a_log:
        kw["A_log"] = rng.uniform(-1.0, 1.0, HV).astype(np.float32)
    if bias:
        kw["dt_bias"] = rng.standard_normal(HV * K).astype(np.float32)
    return kw


def check(q, k, v, g, beta, *, states_every=None, **kw):
    """Runs chunk_kda and the reference on the same inputs; returns the op's results."""
    initial = kw.get("initial_state")
    got = chunk_kda(q, k, v, g, beta, output_final_state=True,
                    return_intermediate_states=states_every is not None, **kw)
    ref_kw = {name: kw.get(name) for name in ("scale", "cu_seqlens", "A_log", "dt_bias",
                                              "lower_bound")}
    ref_o, ref_final, trace = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta), initial_state=initial,
        use_qk_l2norm=kw.get("use_qk_l2norm_in_kernel", False),
        use_gate=kw.get("use_gate_in_kernel", False),
        use_beta_sigmoid=kw.get("use_beta_sigmoid_in_kernel", False),
        allow_neg_eigval=kw.get("allow_neg_eigval", False),
        state_v_first=kw.get("state_v_first", False), **ref_kw)
    o, final = got[0], got[1]
    o = widen(o)
    assert np.isfinite(o).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, o) <= limit(q)
    assert rel_rms(ref_final, final) <= limit(q)
    if states_every is not None:
        ref_states = chunk_states(trace, states_every, kw.get("state_v_first", False))
        states = widen(got[2]).reshape(ref_states.shape)
        assert rel_rms(ref_states, states) <= limit(q)
    return got


@pytest.mark.parametrize("K,V,state_v_first", [(32, 48, False), (48, 16, True)])
def test_value_head_dim_other_than_key_head_dim(K, V, state_v_first):
    rng = np.random.default_rng(K + V)
    lens = [1, 17, 40]
    H, HV = 1, 2
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, g, beta = prefill_inputs(rng, 1, int(cu[-1]), H, HV, K, V, dtype="f32",
                                      use_gate=False, use_beta_sigmoid=False)
    shape = (len(lens), HV) + ((V, K) if state_v_first else (K, V))
    h0 = rng.standard_normal(shape).astype(np.float32)
    _, final, _ = check(q, k, v, g, beta, initial_state=h0, cu_seqlens=cu, states_every=64,
                        use_qk_l2norm_in_kernel=True, state_v_first=state_v_first)
    assert final.shape == shape


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_fixed_length_log_decay(dtype):
    rng = np.random.default_rng(1)
    B, T, H, D = 2, 40, 1, 32
    q, k, v, g, beta = prefill_inputs(rng, B, T, H, H, D, D, dtype=dtype, use_gate=False,
                                      use_beta_sigmoid=False)
    h0 = rng.standard_normal((B, H, D, D)).astype(np.float32)
    check(q, k, v, g, beta, initial_state=h0, use_qk_l2norm_in_kernel=True)


def test_varlen_lower_bound_gate_with_states():
    rng = np.random.default_rng(2)
    lens = [1, 15, 16, 17, 63, 64, 65, 200]
    H, D = 3, 64
    T = sum(lens)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, g, beta = prefill_inputs(rng, 1, T, H, H, D, D)
    h0 = rng.standard_normal((len(lens), H, D, D)).astype(np.float32) * 0.5
    check(q, k, v, g, beta, initial_state=h0, cu_seqlens=cu, use_qk_l2norm_in_kernel=True,
          use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True, states_every=64,
          **gate_params(rng, H, D, -5.0))


def test_gva_softplus_gate_v_first_non_power_of_two():
    rng = np.random.default_rng(3)
    H, HV, D = 1, 3, 100
    lens = [17, 0, 33]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(lens), H, HV, D, D, dtype="f32")
    h0 = rng.standard_normal((len(lens), HV, D, D)).astype(np.float32) * 0.3
    check(q, k, v, g, beta, initial_state=h0, cu_seqlens=cu, state_v_first=True,
          use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
          use_beta_sigmoid_in_kernel=True, allow_neg_eigval=True,
          **gate_params(rng, HV, D, None))


def test_kimi_heads_sigmoid_gate_without_a_log():
    rng = np.random.default_rng(4)
    H, D = 12, 128
    q, k, v, g, beta = prefill_inputs(rng, 1, 24, H, H, D, D)
    check(q, k, v, g, beta, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
          use_beta_sigmoid_in_kernel=True, safe_gate=True,
          **gate_params(rng, H, D, -5.0, a_log=False))


@pytest.mark.parametrize("gate", ["saturated", "extreme_softplus"])
def test_saturated_gates_stay_finite(gate):
    rng = np.random.default_rng(5)
    H, D, T = 2, 32, 160  # 160 tokens at -5 nats: 800 nats of decay
    q, k, v, g, beta = prefill_inputs(rng, 1, T, H, H, D, D)
    if gate == "saturated":
        g = np.full_like(g, 60.0)  # sigmoid(exp(A_log) * 60) = 1: every step decays by e^-5
        kw = gate_params(rng, H, D, -5.0, bias=False)
    else:
        g = (rng.choice([-1.0, 1.0], g.shape) * 1e4).astype(np.float32)
        kw = gate_params(rng, H, D, None, bias=False)
    check(q, k, v, g, beta, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
          use_beta_sigmoid_in_kernel=True, **kw)


@pytest.mark.parametrize("norm", [False, True])
def test_large_queries_under_the_steepest_bounded_gate(norm):
    """Saturated lower-bound gates at -10 (70-80 nats over half a chunk) with queries of
    1e9, unnormalized or through a scale of 1e9 after the in-kernel norm: a pair factor
    referred to the chunk's middle row times such an entry passes fp32's range, so the op
    must not take that form there."""
    rng = np.random.default_rng(11)
    H, D, T = 2, 32, 48
    q, k, v, g, beta = prefill_inputs(rng, 1, T, H, H, D, D, dtype="f32")
    if not norm:
        q = q * np.float32(1e9)
        k = k / np.linalg.norm(k, axis=-1, keepdims=True)  # a stable delta rule
    g = np.full_like(g, 60.0)  # sigmoid(exp(A_log) * 60) = 1: every step decays by e^-10
    check(q, k, v, g, beta, use_qk_l2norm_in_kernel=norm, use_gate_in_kernel=True,
          use_beta_sigmoid_in_kernel=True, scale=1e9 if norm else None,
          **gate_params(rng, H, D, -10.0, bias=False))


@pytest.mark.parametrize("bounded, lower_bound, norm, scale, expect", [
    (True, -5.0, True, 128 ** -0.5, True),
    (True, -10.0, True, 128 ** -0.5, True),
    (True, -10.0, True, 180.0, True),      # 180 * exp(80) = 9.97e36
    (True, -10.0, True, 200.0, False),     # 1.1e37
    (True, -10.0, False, 128 ** -0.5, False),
    (True, -10.5, True, 128 ** -0.5, False),
    (True, None, True, 128 ** -0.5, False),
    (False, -5.0, True, 128 ** -0.5, False),
])
def test_anchored_pair_rule(bounded, lower_bound, norm, scale, expect):
    from kdatile.ops.chunk import takes_anchored_pairs

    assert takes_anchored_pairs(bounded, lower_bound, norm, scale) is expect


@pytest.mark.parametrize("D", [64, 100])
def test_prefill_then_recurrent_continues_the_sequence(D):
    rng = np.random.default_rng(6)
    H, T, extra = 2, 37, 3
    q, k, v, g, beta = prefill_inputs(rng, 1, T + extra, H, H, D, D)
    gate = gate_params(rng, H, D, -5.0)
    flags = dict(use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                 use_beta_sigmoid_in_kernel=True)
    whole_o, whole_final = chunk_kda(q, k, v, g, beta, output_final_state=True, **flags, **gate)
    head = [x[:, :T] for x in (q, k, v, g, beta)]
    _, state = chunk_kda(*head, output_final_state=True, **flags, **gate)
    # The [K, V] state continues in the recurrent core: it starts from slot 0 and writes
    # token t's state to slot t.
    pool = np.concatenate([state, np.zeros((extra - 1, H, D, D), np.float32)])
    tail = [np.ascontiguousarray(x[:, T:]) for x in (q, k, v, g, beta)]
    o = kda_recurrent(*tail, initial_state=pool,
                      state_indices=np.arange(extra, dtype=np.int32).reshape(1, extra),
                      state_layout="kv", A_log=gate["A_log"], dt_bias=gate["dt_bias"],
                      lower_bound=-5.0)
    assert rel_rms(widen(whole_o)[:, T:], widen(o)) <= limit(q)
    assert rel_rms(whole_final, pool[extra - 1]) <= limit(q)


def test_zero_tokens_and_empty_sequences():
    rng = np.random.default_rng(7)
    q, k, v, g, beta = prefill_inputs(rng, 1, 0, 1, 1, 16, 16, use_gate=False,
                                      use_beta_sigmoid=False)
    h0 = rng.standard_normal((2, 1, 16, 16)).astype(np.float32)
    o, final = chunk_kda(q, k, v, g, beta, initial_state=h0, output_final_state=True,
                         cu_seqlens=np.array([0, 0, 0], np.int32))
    assert o.shape == (1, 0, 1, 16)
    np.testing.assert_array_equal(final, h0)


def _args(rng, **over):
    q, k, v, g, beta = prefill_inputs(rng, 1, 20, 2, 2, 16, 16, use_gate=False,
                                      use_beta_sigmoid=False)
    kw = dict(q=q, k=k, v=v, g=g, beta=beta)
    kw.update(over)
    return kw


BAD = [
    ({"cu_seqlens": np.array([1, 20], np.int32)}, "cu_seqlens", "start at 0"),
    ({"cu_seqlens": np.array([0, 19], np.int32)}, "cu_seqlens", "end at T"),
    ({"cu_seqlens": np.array([0, 12, 8, 20], np.int32)}, "cu_seqlens", "non-decreasing"),
    ({"cu_seqlens": np.array([0, 20], np.float32)}, "cu_seqlens", "dtype"),
    ({"A_log": np.zeros(2, np.float32)}, "A_log", "use_gate_in_kernel=False"),
    ({"dt_bias": np.zeros(32, np.float32)}, "dt_bias", "use_gate_in_kernel=False"),
    ({"use_gate_in_kernel": True}, "A_log", "required"),
    ({"allow_neg_eigval": True}, "allow_neg_eigval", "use_beta_sigmoid_in_kernel"),
    ({"use_gate_in_kernel": True, "safe_gate": True, "A_log": np.zeros(2, np.float32)},
     "lower_bound", "safe_gate"),
    ({"lower_bound": 1.0}, "lower_bound", ""),
    ({"safe_gate": True}, "lower_bound", "safe_gate"),
    ({"safe_gate": True, "lower_bound": -9.0}, "lower_bound", "safe_gate"),
    ({"lower_bound": -3.0}, "lower_bound", "use_gate_in_kernel=False"),
    ({"scale": -1.0}, "scale", "> 0"),
    ({"initial_state": np.zeros((2, 2, 16, 16), np.float32)}, "initial_state", "shape"),
    ({"initial_state": np.zeros((1, 2, 16, 16), np.float64)}, "initial_state", "dtype"),
]


@pytest.mark.parametrize("over,name,text", BAD)
def test_bad_arguments(over, name, text):
    with pytest.raises(ValueError, match=f"argument '{name}'.*{text}"):
        chunk_kda(**_args(np.random.default_rng(8), **over))


def test_safe_gate_with_a_given_log_decay():
    """Without the in-kernel gate, safe_gate with its bound states what g keeps (FLA's
    meaning): accepted, and the same result as without them."""
    kw = _args(np.random.default_rng(10))
    o, _ = chunk_kda(**kw)
    o_safe, _ = chunk_kda(**kw, safe_gate=True, lower_bound=-5.0)
    np.testing.assert_array_equal(o_safe, o)


def test_bad_shapes():
    rng = np.random.default_rng(9)
    kw = _args(rng)
    with pytest.raises(ValueError, match="argument 'v'.*multiple"):
        chunk_kda(**dict(kw, v=np.zeros((1, 20, 3, 16), np.float32),
                         g=np.zeros((1, 20, 3, 16), np.float32),
                         beta=np.zeros((1, 20, 3), np.float32)))
    with pytest.raises(ValueError, match="argument 'cu_seqlens'.*B = 1"):
        two = {n: np.concatenate([x, x]) for n, x in kw.items()}
        chunk_kda(**two, cu_seqlens=np.array([0, 40], np.int32))
    with pytest.raises(ValueError, match="argument 'out'"):
        chunk_kda(**kw, out=kw["v"])
    with pytest.raises(ValueError, match="argument 'q'.*head dim"):
        big = np.zeros((1, 2, 1, 300), np.float32)
        chunk_kda(big, big, big, big, np.zeros((1, 2, 1), np.float32))


# Heads x head dims, each with a different mix of the other factors (GVA, gate form, state
# layout, initial state, allow_neg_eigval, input dtype) over the varlen lengths around the
# chunk: every factor level appears with several H and D.
GRID_LENS = [1, 15, 16, 17, 63, 64, 65, 200]
GRID = [(H, D) for H in (1, 3, 12) for D in (32, 64, 100, 128)]


@pytest.mark.parametrize("H,D", GRID, ids=[f"H{H}-D{D}" for H, D in GRID])
def test_heads_by_head_dims(H, D):
    i = GRID.index((H, D))
    rng = np.random.default_rng(100 + i)
    HV = H * (2 if i % 3 == 1 else 1)
    lens = GRID_LENS[i % 4:] if H < 12 else GRID_LENS[i % 4:i % 4 + 3]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    dtype = "bf16" if i % 2 == 0 else "f32"
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(lens), H, HV, D, D, dtype=dtype)
    kw = {}
    if i % 4 != 3:
        kw["initial_state"] = rng.standard_normal((len(lens), HV, D, D)).astype(np.float32) * 0.3
    check(q, k, v, g, beta, cu_seqlens=cu, state_v_first=i % 2 == 1,
          use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
          use_beta_sigmoid_in_kernel=True, allow_neg_eigval=i % 5 == 2,
          **gate_params(rng, HV, D, -5.0 if i % 3 != 2 else None), **kw)


@pytest.mark.parametrize("stages", [2, 3])
def test_scan_ring_depth(stages):
    """The scan's ring depth (six chunks on the CPU and NVIDIA, two on AMD) changes only when
    the copies run: outputs, final and boundary states are bit-identical, with varlen lengths
    shorter than the ring, an empty sequence and a partial last chunk."""
    from kdatile.ops._kernels import execute
    from kdatile.ops.chunk import chunk_launches

    rng = np.random.default_rng(7)
    lens = [1, 0, 17, 40, 5]
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(lens), 2, 2, 32, 32)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    kw = dict(cu_seqlens=cu, output_final_state=True, return_intermediate_states=True,
              use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
              use_beta_sigmoid_in_kernel=True, lower_bound=-5.0,
              initial_state=rng.standard_normal((len(lens), 2, 32, 32)).astype(np.float32))
    results = []
    for depth in (None, stages):
        result, (prep, scan) = chunk_launches(q, k, v, g, beta, **kw)
        assert scan.constexprs["STAGES"] == 6
        if depth is not None:
            scan = scan._replace(constexprs=dict(scan.constexprs, STAGES=depth))
        execute(None, prep)
        execute(None, scan)
        results.append([np.array(x) for x in result])
    for ours, other in zip(*results):
        np.testing.assert_array_equal(ours, other)


@pytest.mark.parametrize("lens,H,HV,D", [([1, 17, 64, 100], 2, 2, 64), ([65, 15], 1, 3, 128)])
def test_pairs_as_split_bf16_products(lens, H, HV, D):
    """The prep's anchored pairs as three bf16 products of split fp32 factors (PAIRS_BF16X3,
    what chunk_kda launches on gfx1250, which has no tf32 instruction) meet the bf16
    tolerance against the fp64 recurrence at lower bound -5, and stay as close to the tf32
    pairs as their precision implies (the high parts' product alone is 4x further off)."""
    from kdatile.ops._kernels import execute
    from kdatile.ops.chunk import chunk_launches

    rng = np.random.default_rng(D + len(lens))
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(lens), H, HV, D, D)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    kw = dict(cu_seqlens=cu, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
              use_beta_sigmoid_in_kernel=True,
              initial_state=rng.standard_normal((len(lens), HV, D, D)).astype(np.float32),
              **gate_params(rng, HV, D, -5.0))
    results = {}
    for split in (False, True):
        (o, final), (prep, scan) = chunk_launches(q, k, v, g, beta, output_final_state=True,
                                                  **kw)
        assert prep.constexprs["ANCHORED"] and not prep.constexprs["PAIRS_BF16X3"]
        execute(None, prep._replace(constexprs=dict(prep.constexprs, PAIRS_BF16X3=split)))
        execute(None, scan)
        results[split] = widen(o), final
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta), initial_state=kw["initial_state"],
        cu_seqlens=cu, use_qk_l2norm=True, use_gate=True, use_beta_sigmoid=True,
        A_log=kw["A_log"], dt_bias=kw["dt_bias"], lower_bound=-5.0)
    o, final = results[True]
    assert np.isfinite(o).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, o) <= BF16_LIMIT
    assert rel_rms(ref_final, final) <= BF16_LIMIT
    # tf32 against the split products: 1.1e-3 (o) and 2-5e-6 (final state) here; the high
    # parts alone give 3.1e-3 and 2-5e-5.
    assert rel_rms(results[False][0], o) <= 2e-3
    assert rel_rms(results[False][1], final) <= 1e-5


def run_split(launches, block_v=None):
    """Runs chunk_launches' launches; block_v: the scans' value tiles narrowed to block_v
    columns (as GPUs take them), the summary's transition tiles after them."""
    from kdatile.ops._kernels import execute

    for launch in launches:
        if block_v is not None and launch.kernel.__name__ == "kda_chunk_scan":
            c = dict(launch.constexprs, BV=block_v)
            tiles = -(-c["V"] // block_v) + (-(-c["K"] // block_v) if c.get("SUMMARY") else 0)
            launch = launch._replace(constexprs=c, grid=(tiles,) + tuple(launch.grid[1:]))
        execute(None, launch)


@pytest.mark.parametrize("dtype,state_v_first,block_v,initial", [
    ("f32", False, None, True), ("bf16", True, None, True), ("f32", True, 16, False),
    ("f32", False, 16, True)])
def test_split_scan(dtype, state_v_first, block_v, initial):
    """Sequences scanned in segments (what chunk_kda launches on GPUs where a few long
    sequences leave multiprocessors idle): every segment's affine summary (P, Q), their chain
    into each segment's starting state, and every segment's scan from it give the whole
    scan's outputs, final and boundary states, and meet the fp64 recurrence. Gentle decays
    (log decays in [-0.02, 0]) keep each segment's transition far from zero, so a wrong chain
    shows; an empty sequence, sequences shorter than a segment, one of six segments with a
    partial last chunk, value tiles narrower than the head."""
    from kdatile.ops.chunk import chunk_launches

    rng = np.random.default_rng(21)
    lens = [300, 0, 17, 700, 64, 128]
    H, HV, D = 1, 2, 32
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(lens), H, HV, D, D, dtype=dtype,
                                      use_gate=False, gate_low=-0.02)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    h0 = rng.standard_normal((len(lens), HV, D, D)).astype(np.float32) if initial else None
    kw = dict(cu_seqlens=cu, output_final_state=True, return_intermediate_states=True,
              use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True,
              state_v_first=state_v_first, initial_state=h0)
    results = {}
    for segment in (0, 128):
        result, launches = chunk_launches(q, k, v, g, beta, segment_tokens=segment, **kw)
        names = [launch.kernel.__name__ for launch in launches]
        assert names == (["kda_chunk_prep", "kda_chunk_scan"] if segment == 0 else
                         ["kda_chunk_prep", "kda_chunk_scan", "kda_segment_starts",
                          "kda_chunk_scan"])
        run_split(launches, block_v)
        results[segment] = [widen(np.asarray(x)) for x in result]
    ref_o, ref_final, trace = kda_prefill_reference(
        widen(q), widen(k), widen(v), g, beta, initial_state=h0, cu_seqlens=cu,
        use_qk_l2norm=True, use_beta_sigmoid=True, state_v_first=state_v_first)
    o, final, states = results[128]
    assert np.isfinite(o).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, o) <= limit(q)
    assert rel_rms(ref_final, final) <= limit(q)
    want = chunk_states(trace, 64, state_v_first)
    assert rel_rms(want, widen(states).reshape(want.shape)) <= limit(q)
    close = 1e-5 if dtype == "f32" else BF16_LIMIT
    for whole, split in zip(results[0], results[128]):
        assert rel_rms(whole, split) <= close


@pytest.mark.parametrize("T_total,N,HV,expected", [
    (8192, 3, 12, 2048),   # 7168 + 512 + 512 at H = 12: 72 programs for 132 multiprocessors
    (8192, 1, 12, 2048),   # four segments: 5 x 24 summary programs, then 4 x 24
    (32768, 1, 12, 8192),
    (8192, 1, 4, 1024),    # nine segments of 8 programs, but none shorter than 1024 tokens
    (8192, 8, 12, 0),      # 8 x 1024: 192 programs fill them
    (8192, 1, 64, 0),      # 128 programs, one a multiprocessor
    (8192, 1, 32, 0),      # 64 programs: two segments at most, no gain
    (3000, 1, 2, 0),       # no sequence can span three segments of 1024
])
def test_scan_segment_rule(T_total, N, HV, expected):
    from kdatile.ops.chunk import scan_segment

    assert scan_segment(T_total, N, 2 * HV, 132) == expected


@pytest.mark.parametrize("bad", [100, -64, 64.0, True])
def test_segment_tokens_is_checked(bad):
    from kdatile.ops.chunk import chunk_launches

    rng = np.random.default_rng(2)
    q, k, v, g, beta = prefill_inputs(rng, 1, 40, 1, 1, 16, 16, use_gate=False)
    with pytest.raises(ValueError, match="segment_tokens"):
        chunk_launches(q, k, v, g, beta, segment_tokens=bad)


@pytest.mark.parametrize("dtype,D", [("bf16", 256), ("f32", 128), ("f32", 256)])
def test_scan_ring_fits_sm90(dtype, D):
    """The scan's ring depth the op picks for sm_90a (scan_stages) fits a program's 227 KB of
    shared memory at the largest head dims of each intermediate dtype (the compile fails
    otherwise)."""
    from kdatile import _lib
    from kdatile.ops.chunk import chunk_launches

    rng = np.random.default_rng(4)
    q, k, v, g, beta = prefill_inputs(rng, 1, 64, 1, 1, D, D, dtype=dtype)
    _, launches = chunk_launches(q, k, v, g, beta, use_qk_l2norm_in_kernel=True,
                                 use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                                 lower_bound=-5.0, output_final_state=True, target="sm_90a")
    scan = launches[-1]
    spec = scan.kernel.specialize(*scan.args, **scan.constexprs, target="sm_90a",
                                  num_warps=scan.num_warps, grid=scan.grid)
    shared = _lib.compile(dict(spec.request(), emit="ptx"))["shared_bytes"]
    assert 0 < shared <= 227 * 1024


@pytest.mark.parametrize("lens,H,target,expect", [
    ([300], 32, "sm_90a", (32, 2, 4)),   # 64 programs at 64 columns: narrowed
    ([300], 64, "sm_90a", (64, 4, 2)),   # 128 programs fill the 132 multiprocessors
    ([300] * 3, 24, "sm_90a", (64, 4, 2)),  # 144 programs
    ([300], 32, "gfx950", (64, 4, 2)),   # measured on NVIDIA only
    ([4096], 12, "sm_90a", (64, 4, 2)),  # split: the segments' scans keep 64 columns
    ([300], 32, "sm_90a-f32", (64, 4, 2)),  # fp32 intermediates: not narrowed
    ([300], 32, "sm_90a-D256", (64, 4, 4)),  # a 256-column head: not narrowed
])
def test_scan_width_rule(lens, H, target, expect):
    """A whole scan on an NVIDIA GPU whose 64-column programs would fill at most half the
    multiprocessors takes 32 columns at 2 warps (NARROW_BV) with bf16 intermediates and heads
    up to 128 columns: (BV, warps, value tiles)."""
    from kdatile.ops.chunk import chunk_launches

    target, _, variant = target.partition("-")
    D = 256 if variant == "D256" else 128
    rng = np.random.default_rng(5)
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(lens), H, H, D, D,
                                      dtype="f32" if variant == "f32" else "bf16")
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    _, launches = chunk_launches(q, k, v, g, beta, cu_seqlens=cu, use_qk_l2norm_in_kernel=True,
                                 use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                                 lower_bound=-5.0, target=target)
    scan = launches[-1]
    assert (scan.constexprs["BV"], scan.num_warps, scan.grid[0]) == expect
    if len(launches) == 2:  # whole: a program per value tile, head and sequence
        assert scan.grid[1:] == (H, len(lens))
    else:
        assert [x.kernel.__name__ for x in launches[1:]] == [
            "kda_chunk_scan", "kda_segment_starts", "kda_chunk_scan"]


@pytest.mark.parametrize("lower_bound", [-5.0, None])
def test_gate_rates_past_fp32_range(lower_bound):
    """A_log = 95 (exp(A_log) overflows fp32) with raw gates of exactly 0 and of -110 (an
    underflowed softplus) among ordinary ones: no inf * 0 = NaN, the recurrence's values."""
    rng = np.random.default_rng(29)
    H, D, T = 2, 32, 40
    q, k, v, g, beta = prefill_inputs(rng, 1, T, H, H, D, D, dtype="f32")
    g[0, 3:9] = 0.0
    g[0, 12:30, :, ::3] = -110.0
    kw = gate_params(rng, H, D, lower_bound, bias=False)
    kw["A_log"][:] = 95.0
    check(q, k, v, g, beta, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
          use_beta_sigmoid_in_kernel=True, **kw)
