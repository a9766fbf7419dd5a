"""kdatile.ops.fused_recurrent_kda and fused_recurrent_gated_delta_rule (FLA's names) on the
CPU target against the fp64 token-by-token recurrence (kda_chunk_reference.py; Gated DeltaNet
is the same recurrence with one decay for every key channel): outputs within relative RMS 5e-3,
final states 1e-5 (fp32 states), GVA, varlen with an empty sequence, both state layouts, and
the argument checks."""

import numpy as np
import pytest

from kda_chunk_reference import kda_prefill_reference, prefill_inputs
from kda_reference import bf16_to_f32, rel_rms
from kdatile.ops import (
    fused_recurrent_gated_delta_rule,
    fused_recurrent_gla,
    fused_recurrent_kda,
)

from conftest import requires_lib

LENS = [3, 1, 5, 0, 2]


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def varlen_inputs(rng, H, HV, D, dtype="bf16"):
    cu = np.concatenate([[0], np.cumsum(LENS)]).astype(np.int32)
    q, k, v, g, beta = prefill_inputs(rng, 1, int(cu[-1]), H, HV, D, D, dtype=dtype)
    h0 = (rng.standard_normal((len(LENS), HV, D, D)) * 0.3).astype(np.float32)
    return cu, q, k, v, g, beta, h0


def check(o, final, ref_o, ref_final):
    assert np.isfinite(widen(o)).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, widen(o)) <= 5e-3
    assert rel_rms(ref_final, final) <= 1e-5


@requires_lib
@pytest.mark.parametrize("state_v_first", [False, True])
def test_kda_gva_varlen(state_v_first):
    rng = np.random.default_rng(1)
    H, HV, D = 2, 4, 64
    cu, q, k, v, g, beta, h0 = varlen_inputs(rng, H, HV, D)
    gate = dict(lower_bound=-5.0, A_log=rng.uniform(-1, 1, HV).astype(np.float32),
                dt_bias=rng.standard_normal(HV * D).astype(np.float32))
    initial = np.ascontiguousarray(h0.transpose(0, 1, 3, 2)) if state_v_first else h0
    before = initial.copy()
    o, final = fused_recurrent_kda(q, k, v, g, beta, initial_state=initial,
                                   output_final_state=True, use_qk_l2norm_in_kernel=True,
                                   use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                                   state_v_first=state_v_first, cu_seqlens=cu, **gate)
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta), initial_state=h0, cu_seqlens=cu,
        use_qk_l2norm=True, use_gate=True, use_beta_sigmoid=True, **gate)
    if state_v_first:
        ref_final = ref_final.transpose(0, 1, 3, 2)
    check(o, final, ref_o, ref_final)
    np.testing.assert_array_equal(initial, before)  # the initial state is read, not written
    np.testing.assert_array_equal(final[3], initial[3])  # the empty sequence keeps its state


@requires_lib
@pytest.mark.parametrize("K,V,state_v_first", [(60, 60, False), (100, 100, True),
                                               (32, 48, False), (24, 64, True)])
def test_head_dims_of_any_size(K, V, state_v_first):
    """Head dims that are not powers of two (FLA's tests use 60 and 100) and V != K: the
    kernel pads them to powers of two and masks the padding; records are per-token too."""
    rng = np.random.default_rng(K + V)
    H, HV = 1, 2
    cu = np.concatenate([[0], np.cumsum(LENS)]).astype(np.int32)
    q, k, v, g, beta = prefill_inputs(rng, 1, int(cu[-1]), H, HV, K, V, dtype="f32")
    h0 = (rng.standard_normal((len(LENS), HV, K, V)) * 0.3).astype(np.float32)
    initial = np.ascontiguousarray(h0.transpose(0, 1, 3, 2)) if state_v_first else h0
    gate = dict(lower_bound=-5.0, A_log=rng.uniform(-1, 1, HV).astype(np.float32),
                dt_bias=rng.standard_normal(HV * K).astype(np.float32))
    o, final = fused_recurrent_kda(q, k, v, g, beta, initial_state=initial,
                                   output_final_state=True, use_qk_l2norm_in_kernel=True,
                                   use_gate_in_kernel=True, state_v_first=state_v_first,
                                   cu_seqlens=cu, **gate)
    ref_o, ref_final, _ = kda_prefill_reference(
        q, k, v, g, beta, initial_state=h0, cu_seqlens=cu, use_qk_l2norm=True, use_gate=True,
        **gate)
    if state_v_first:
        ref_final = ref_final.transpose(0, 1, 3, 2)
    assert o.shape == v.shape and final.shape == initial.shape
    check(o, final, ref_o, ref_final)
    # On a GPU target the value rows split into 32-row programs, the last one partly padding.
    from kdatile.ops.fused_recurrent import fused_recurrent_kda_launch

    launch = fused_recurrent_kda_launch(q, k, v, g, beta, initial_state=initial,
                                        output_final_state=True, use_qk_l2norm_in_kernel=True,
                                        state_v_first=state_v_first, cu_seqlens=cu,
                                        target="sm_90a")[2]
    assert launch.grid[2] == -(-V // 32) and launch.constexprs["BV"] == 32
    assert launch.constexprs["BK"] == (0 if K & (K - 1) == 0 else 1 << (K - 1).bit_length())
    assert launch.constexprs["PREFETCH_STATE"] is False or (K & (K - 1) == 0 and V % 32 == 0)


@requires_lib
def test_kda_fixed_length_without_initial_state():
    rng = np.random.default_rng(2)
    H, D = 3, 32
    q, k, v, g, beta = prefill_inputs(rng, 2, 7, H, H, D, D, dtype="f32", use_gate=False,
                                      use_beta_sigmoid=False)
    o, final = fused_recurrent_kda(q, k, v, g, beta, output_final_state=True)
    ref_o, ref_final, _ = kda_prefill_reference(q, k, v, g, beta)
    check(o, final, ref_o, ref_final)
    o2, none = fused_recurrent_kda(q, k, v, g, beta)
    assert none is None
    np.testing.assert_array_equal(o2, o)
    # The zero start reads no pool (none is filled): its launch says so.
    from kdatile.ops.fused_recurrent import fused_recurrent_kda_launch
    launch = fused_recurrent_kda_launch(q, k, v, g, beta, output_final_state=True)[2]
    assert launch.constexprs["ZERO_START"] and not launch.constexprs["PREFETCH_STATE"]


@requires_lib
@pytest.mark.parametrize("with_state", [True, False])
def test_no_tokens_return_the_starting_states(with_state):
    """T = 0 (and varlen sequences all empty): the final states are the initial ones, or
    zeros without them, never an array left unwritten."""
    rng = np.random.default_rng(8)
    H, D = 2, 32
    h0 = (rng.standard_normal((3, H, D, D)) * 0.3).astype(np.float32) if with_state else None
    want = h0 if with_state else np.zeros((3, H, D, D), np.float32)
    q = np.zeros((3, 0, H, D), np.float32)
    _, final = fused_recurrent_gated_delta_rule(q, q, q, g=np.zeros((3, 0, H), np.float32),
                                                beta=np.zeros((3, 0, H), np.float32),
                                                initial_state=h0, output_final_state=True)
    np.testing.assert_array_equal(final, want)
    q = np.zeros((1, 0, H, D), np.float32)
    _, final = fused_recurrent_kda(q, q, q, np.zeros((1, 0, H, D), np.float32),
                                   np.zeros((1, 0, H), np.float32), initial_state=h0,
                                   output_final_state=True,
                                   cu_seqlens=np.zeros(4, np.int32))
    np.testing.assert_array_equal(final, want)


@requires_lib
@pytest.mark.parametrize("with_beta", [True, False])
def test_gated_delta_rule_gva_varlen(with_beta):
    """Qwen3-Next's GVA (twice as many value heads) with one decay per token and head."""
    rng = np.random.default_rng(3)
    H, HV, D = 2, 4, 64
    cu, q, k, v, _, _, h0 = varlen_inputs(rng, H, HV, D)
    T = int(cu[-1])
    g = -rng.uniform(0.01, 1.0, (1, T, HV)).astype(np.float32)
    beta = rng.uniform(0.1, 0.9, (1, T, HV)).astype(np.float32)
    o, final = fused_recurrent_gated_delta_rule(
        q, k, v, g, beta=beta if with_beta else None, initial_state=h0,
        output_final_state=True, cu_seqlens=cu, use_qk_l2norm_in_kernel=True)
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), np.repeat(g[..., None], D, -1),
        beta if with_beta else np.ones_like(beta), initial_state=h0, cu_seqlens=cu,
        use_qk_l2norm=True)
    check(o, final, ref_o, ref_final)


@requires_lib
@pytest.mark.parametrize("with_g,backend,with_beta", [
    (False, "numpy", False), (True, "numpy", False), (True, "numpy_bf16", True),
    (True, "torch", False), (True, "torch_gk", True), (True, "torch_q", False)])
def test_gated_delta_rule_per_key_gates(with_g, backend, with_beta):
    """gk [B, T, HV, K] (FLA's per-key log decays: KDA's recurrence), summed with g's per-head
    ones when both are given; beta None is ones. Backends: NumPy arrays (bf16 gates as bit
    patterns), torch CPU tensors, and the two mixed: torch gk with NumPy q and g ("torch_gk"),
    torch q, k, v with NumPy gates ("torch_q")."""
    from kda_reference import f32_to_bf16

    rng = np.random.default_rng(21)
    H, HV, D = 1, 2, 32
    cu, q, k, v, _, _, h0 = varlen_inputs(rng, H, HV, D, dtype="f32")
    T = int(cu[-1])
    gk = -rng.uniform(0.0, 0.5, (1, T, HV, D)).astype(np.float32)
    g = -rng.uniform(0.0, 0.5, (1, T, HV)).astype(np.float32)
    beta = rng.uniform(0.1, 0.9, (1, T, HV)).astype(np.float32)
    if backend == "numpy_bf16":
        gk, g = f32_to_bf16(gk), f32_to_bf16(g)
    args = dict(q=q, k=k, v=v, gk=gk, g=g if with_g else None, initial_state=h0,
                beta=beta if with_beta else None)
    torch_names = {"torch": set(args), "torch_gk": {"gk"},
                   "torch_q": {"q", "k", "v", "initial_state"}}.get(backend, set())
    if torch_names:
        torch = pytest.importorskip("torch")
        args = {name: torch.from_numpy(a) if a is not None and name in torch_names else a
                for name, a in args.items()}
    o, final = fused_recurrent_gated_delta_rule(**args, output_final_state=True,
                                                cu_seqlens=cu, use_qk_l2norm_in_kernel=True)
    o, final = (np.asarray(x) for x in (o, final))
    total = widen(gk) + widen(g)[..., None] if with_g else gk
    ref_o, ref_final, _ = kda_prefill_reference(
        q, k, v, total, beta if with_beta else np.ones((1, T, HV)), initial_state=h0,
        cu_seqlens=cu, use_qk_l2norm=True)
    check(o, final, ref_o, ref_final)


@requires_lib
def test_gated_delta_rule_per_key_gate_checks():
    rng = np.random.default_rng(22)
    cu, q, k, v, _, _, _ = varlen_inputs(rng, 1, 2, 16, dtype="f32")
    T = int(cu[-1])
    gk = np.zeros((1, T, 2, 16), np.float32)
    g = np.zeros((1, T, 2), np.float32)
    for kw, name, text in [
            (dict(gk=gk[..., :8]), "gk", "expected shape"),
            (dict(gk=gk.astype(np.int32)), "gk", "dtype"),
            (dict(gk=gk, g=g[..., :1]), "g", "expected shape"),
            (dict(gk=gk, g=g, use_gate_in_kernel=True, A_log=np.zeros(2, np.float32)[:1]),
             "A_log", "expected shape"),
            (dict(gv=np.zeros((1, T, 2, 8), np.float32)), "gv", "expected shape"),
            (dict(gv=np.zeros((1, T, 2, 16), np.int64)), "gv", "dtype"),
            (dict(beta=np.zeros((1, T, 2, 8), np.float32)), "beta", r"HV, V\] = ")]:
        with pytest.raises(ValueError, match=f"argument '{name}'.*{text}"):
            fused_recurrent_gated_delta_rule(q, k, v, cu_seqlens=cu, **kw)


@requires_lib
@pytest.mark.parametrize("with_bias", [True, False])
def test_gated_delta_rule_as_fla_layer_calls_it(with_bias):
    """FLA's GatedDeltaNet layer's call: the raw gate activated in the kernel
    (-exp(A_log) softplus(g + dt_bias), dt_bias optional), beta logits with negative
    eigenvalues allowed (2 sigmoid(beta)), [V, K] states, varlen, GVA."""
    from kda_reference import softplus

    rng = np.random.default_rng(12)
    H, HV, D = 2, 4, 32
    cu, q, k, v, _, logits, h0 = varlen_inputs(rng, H, HV, D, dtype="f32")
    T = int(cu[-1])
    raw = rng.standard_normal((1, T, HV)).astype(np.float32)
    A_log = rng.uniform(-1, 1, HV).astype(np.float32)
    dt_bias = rng.standard_normal(HV).astype(np.float32) if with_bias else None
    h0_vk = np.ascontiguousarray(h0.transpose(0, 1, 3, 2))
    o, final = fused_recurrent_gated_delta_rule(
        q=q, k=k, v=v, g=raw, beta=logits, A_log=A_log, dt_bias=dt_bias, initial_state=h0_vk,
        output_final_state=True, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
        use_beta_sigmoid_in_kernel=True, allow_neg_eigval=True, state_v_first=True,
        cu_seqlens=cu)
    bias = 0.0 if dt_bias is None else dt_bias.astype(np.float64)
    g = -np.exp(A_log.astype(np.float64)) * softplus(raw.astype(np.float64) + bias)
    ref_o, ref_final, _ = kda_prefill_reference(
        q, k, v, np.repeat(g[..., None], D, -1), logits, initial_state=h0, cu_seqlens=cu,
        use_qk_l2norm=True, use_beta_sigmoid=True, allow_neg_eigval=True)
    check(o, final, ref_o, ref_final.transpose(0, 1, 3, 2))
    # Without dt_bias the kernel adds none (no zero-filled array, no second launch).
    from kdatile.ops.fused_recurrent import fused_recurrent_gated_delta_rule_launch
    launch = fused_recurrent_gated_delta_rule_launch(
        q, k, v, raw, beta=logits, A_log=A_log, dt_bias=dt_bias, use_gate_in_kernel=True,
        use_beta_sigmoid_in_kernel=True, cu_seqlens=cu)[2]
    assert launch.constexprs["HAS_DT_BIAS"] == with_bias
    with pytest.raises(ValueError, match="argument 'A_log'.*required"):
        fused_recurrent_gated_delta_rule(q, k, v, raw, beta=logits, use_gate_in_kernel=True)
    with pytest.raises(ValueError, match=r"argument 'dt_bias'.*\[HV\]"):
        fused_recurrent_gated_delta_rule(q, k, v, raw, beta=logits, use_gate_in_kernel=True,
                                         A_log=A_log, dt_bias=np.zeros(HV * D, np.float32))


@requires_lib
@pytest.mark.parametrize("a_log,bias", [(False, True), (True, False), (False, False)])
def test_kda_lower_bound_gate_without_a_log_or_bias(a_log, bias):
    """As FLA's op and chunk_kda take them: with lower_bound, A_log (a rate of 1) and dt_bias
    (no bias) may be None; without lower_bound A_log stays required."""
    rng = np.random.default_rng(19)
    H, D = 2, 32
    q, k, v, raw, beta = prefill_inputs(rng, 2, 5, H, H, D, D, dtype="f32", use_gate=True)
    kw = dict(A_log=rng.uniform(-1.0, 1.0, H).astype(np.float32) if a_log else None,
              dt_bias=rng.standard_normal(H * D).astype(np.float32) if bias else None,
              lower_bound=-5.0)
    o, final = fused_recurrent_kda(q, k, v, raw, beta, output_final_state=True,
                                   use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, **kw)
    ref_o, ref_final, _ = kda_prefill_reference(q, k, v, raw, beta, use_qk_l2norm=True,
                                                use_gate=True, **kw)
    check(o, final, ref_o, ref_final)
    if not a_log:
        with pytest.raises(ValueError, match="argument 'A_log'.*unless lower_bound"):
            fused_recurrent_kda(q, k, v, raw, beta, use_gate_in_kernel=True,
                                dt_bias=kw["dt_bias"])


@requires_lib
def test_kda_negative_eigenvalues():
    """allow_neg_eigval with beta logits: beta = 2 sigmoid(beta), as FLA's kernel."""
    rng = np.random.default_rng(13)
    H, D = 2, 32
    q, k, v, g, beta = prefill_inputs(rng, 2, 5, H, H, D, D, dtype="f32", use_gate=False)
    o, final = fused_recurrent_kda(q, k, v, g, beta, output_final_state=True,
                                   use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                                   allow_neg_eigval=True)
    ref_o, ref_final, _ = kda_prefill_reference(q, k, v, g, beta, use_qk_l2norm=True,
                                                use_beta_sigmoid=True, allow_neg_eigval=True)
    check(o, final, ref_o, ref_final)
    plain, _ = fused_recurrent_kda(q, k, v, g, beta, use_qk_l2norm_in_kernel=True,
                                   use_beta_sigmoid_in_kernel=True)
    assert rel_rms(widen(plain), widen(o)) > 1e-2  # the switch changes the result


@requires_lib
@pytest.mark.parametrize("state_v_first", [False, True])
def test_kda_beta_per_value_channel(state_v_first):
    """beta [B, T, HV, V]: one beta per value channel (FLA's fused_recurrent_kda takes it)."""
    rng = np.random.default_rng(12)
    H, HV, D = 1, 2, 32
    cu, q, k, v, g, _, h0 = varlen_inputs(rng, H, HV, D)
    beta = rng.uniform(0.05, 0.95, v.shape).astype(np.float32)
    h0_in = np.ascontiguousarray(h0.transpose(0, 1, 3, 2)) if state_v_first else h0
    o, final = fused_recurrent_kda(q, k, v, g, beta, initial_state=h0_in,
                                   output_final_state=True, use_qk_l2norm_in_kernel=True,
                                   state_v_first=state_v_first, cu_seqlens=cu)
    ref_o, ref_final, _ = kda_prefill_reference(widen(q), widen(k), widen(v), widen(g), beta,
                                                initial_state=h0, cu_seqlens=cu,
                                                use_qk_l2norm=True)
    check(o, final.transpose(0, 1, 3, 2) if state_v_first else final, ref_o, ref_final)
    # Not one beta broadcast: the per-channel values are read.
    ref_mean, _, _ = kda_prefill_reference(widen(q), widen(k), widen(v), widen(g),
                                           beta.mean(-1), initial_state=h0, cu_seqlens=cu,
                                           use_qk_l2norm=True)
    assert rel_rms(ref_mean, widen(o)) > 0.05


@requires_lib
@pytest.mark.parametrize("gates", ["g+gv", "gv", "g+gk+gv+beta_v", "gate_in_kernel+gv",
                                   "gate_in_kernel+gk", "gate_in_kernel+gk+gv"])
def test_gated_delta_rule_value_gates(gates):
    """gv [B, T, HV, V] (per-value log decays, applied after g's and gk's, never activated),
    alone, with g, with g, gk and a per-value beta, and beside the in-kernel gate of g; gk
    beside the in-kernel gate (read raw, as FLA's kernel does)."""
    rng = np.random.default_rng(13)
    H, HV, D = 1, 2, 32
    cu, q, k, v, _, _, h0 = varlen_inputs(rng, H, HV, D, dtype="f32")
    T = int(cu[-1])
    g = -rng.uniform(0.01, 0.5, (1, T, HV)).astype(np.float32)
    gk = -rng.uniform(0.0, 0.5, (1, T, HV, D)).astype(np.float32)
    gv = -rng.uniform(0.0, 0.5, (1, T, HV, D)).astype(np.float32)
    shape = (1, T, HV, D) if "beta_v" in gates else (1, T, HV)
    beta = rng.uniform(0.1, 0.9, shape).astype(np.float32)
    gv = gv if "gv" in gates else None
    args = dict(gv=gv, beta=beta)
    decay = np.zeros((1, T, HV, D))
    if gates.startswith("g+"):
        args["g"] = g
        decay = decay + g[..., None]
    if "gk" in gates:
        args["gk"] = gk
        decay = decay + gk
    if gates.startswith("gate"):
        A_log = rng.uniform(-1, 1, HV).astype(np.float32)
        args.update(g=g, use_gate_in_kernel=True, A_log=A_log)
        softplus = np.log1p(np.exp(g.astype(np.float64)))
        decay = decay + (-np.exp(A_log.astype(np.float64)) * softplus)[..., None]
    o, final = fused_recurrent_gated_delta_rule(q, k, v, **args, initial_state=h0,
                                                output_final_state=True, cu_seqlens=cu,
                                                use_qk_l2norm_in_kernel=True)
    ref_o, ref_final, _ = kda_prefill_reference(q, k, v, decay, beta, initial_state=h0,
                                                cu_seqlens=cu, use_qk_l2norm=True, gv=gv)
    check(o, final, ref_o, ref_final)


def test_argument_checks():
    rng = np.random.default_rng(4)
    H, D = 2, 32
    q, k, v, g, beta = prefill_inputs(rng, 1, 4, H, H, D, D, dtype="f32", use_gate=False,
                                      use_beta_sigmoid=False)
    with pytest.raises(ValueError, match="argument 'allow_neg_eigval'"):
        fused_recurrent_kda(q, k, v, g, beta, allow_neg_eigval=1)
    with pytest.raises(ValueError, match="argument 'initial_state'"):
        fused_recurrent_kda(q, k, v, g, beta, initial_state=np.zeros((1, H, D, 16), np.float32))
    with pytest.raises(ValueError, match="argument 'v'.*multiple of q's H"):
        fused_recurrent_kda(q, k, v[:, :, :1].repeat(3, axis=2), g, beta)
    with pytest.raises(ValueError, match=r"argument 'g'.*\[N, T, HV\]"):
        fused_recurrent_gated_delta_rule(q, k, v, g, beta=beta)
    with pytest.raises(ValueError, match="argument 'state_v_first'"):
        fused_recurrent_kda(q, k, v, g, beta, state_v_first=1)
    # Switches are checked under the ops' names; NumPy bools are bools.
    with pytest.raises(ValueError, match="argument 'use_gate_in_kernel'.*bool, got int"):
        fused_recurrent_gated_delta_rule(q, k, v, g[..., 0], beta=beta, use_gate_in_kernel=1)
    o, final = fused_recurrent_kda(q, k, v, g, beta, output_final_state=np.bool_(True))
    assert final is not None
    # beta=None is built from g's dtype: a bad g is named, not a KeyError.
    with pytest.raises(ValueError, match="argument 'g'.*dtype"):
        fused_recurrent_gated_delta_rule(q, k, v, g[..., 0].astype(np.float64))
    with pytest.raises(ValueError, match="argument 'v'.*B, T from q"):
        fused_recurrent_gla(q, k, v[:, :2], g)
    # The gate's messages name these ops' keyword.
    with pytest.raises(ValueError, match="argument 'lower_bound'.*use_gate_in_kernel=False"):
        fused_recurrent_kda(q, k, v, g, beta, lower_bound=-3.0)
    with pytest.raises(ValueError, match="argument 'A_log'.*use_gate_in_kernel=True"):
        fused_recurrent_kda(q, k, v, g, beta, use_gate_in_kernel=True,
                            dt_bias=np.zeros(H * D, np.float32))


@requires_lib
def test_fla_positional_order_and_gdn_options():
    """FLA's parameter order binds positionally (A_log, dt_bias after beta for KDA; g, gk, gv,
    beta for Gated DeltaNet); Gated DeltaNet with beta logits and a [V, K] state."""
    rng = np.random.default_rng(5)
    H, HV, D = 1, 2, 32
    cu, q, k, v, g, beta, h0 = varlen_inputs(rng, H, HV, D, dtype="f32")
    A_log = rng.uniform(-1, 1, HV).astype(np.float32)
    dt_bias = rng.standard_normal(HV * D).astype(np.float32)
    o1, _ = fused_recurrent_kda(q, k, v, g, beta, A_log, dt_bias, None, h0, True, True, True,
                                True, False, -5.0, False, cu)
    o2, _ = fused_recurrent_kda(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias,
                                initial_state=h0, output_final_state=True,
                                use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                                use_beta_sigmoid_in_kernel=True, lower_bound=-5.0,
                                cu_seqlens=cu)
    np.testing.assert_array_equal(o1, o2)
    T = int(cu[-1])
    gh = -rng.uniform(0.01, 1.0, (1, T, HV)).astype(np.float32)
    logits = rng.standard_normal((1, T, HV)).astype(np.float32)
    h0_vk = np.ascontiguousarray(h0.transpose(0, 1, 3, 2))
    o, final = fused_recurrent_gated_delta_rule(
        q, k, v, gh, None, None, logits, initial_state=h0_vk, output_final_state=True,
        use_beta_sigmoid_in_kernel=True, state_v_first=True, cu_seqlens=cu)
    ref_o, ref_final, _ = kda_prefill_reference(
        q, k, v, np.repeat(gh[..., None], D, -1), logits, initial_state=h0, cu_seqlens=cu,
        use_beta_sigmoid=True)
    check(o, final, ref_o, ref_final.transpose(0, 1, 3, 2))
    with pytest.raises(ValueError, match="argument 'A_log'"):
        fused_recurrent_gated_delta_rule(q, k, v, gh, beta=beta[..., 0], A_log=gh)
    with pytest.raises(ValueError, match=r"argument 'beta'.*HV\] or, one per value channel"):
        fused_recurrent_gated_delta_rule(q, k, v, gh, beta=beta[..., 0])
    # g=None is no decay (FLA's default): the plain delta rule.
    bh = rng.uniform(0.05, 0.95, (1, T, HV)).astype(np.float32)
    o_none, final_none = fused_recurrent_gated_delta_rule(
        q, k, v, beta=bh, initial_state=h0, output_final_state=True, cu_seqlens=cu)
    o_zero, final_zero = fused_recurrent_gated_delta_rule(
        q, k, v, np.zeros_like(gh), beta=bh, initial_state=h0, output_final_state=True,
        cu_seqlens=cu)
    np.testing.assert_array_equal(o_none, o_zero)
    np.testing.assert_array_equal(final_none, final_zero)
    # Neither default builds an array: g and beta are not read (one launch on a GPU).
    from kdatile.ops.fused_recurrent import fused_recurrent_gated_delta_rule_launch

    _, _, launch = fused_recurrent_gated_delta_rule_launch(q, k, v, initial_state=h0,
                                                           cu_seqlens=cu)
    assert not launch.constexprs["HAS_G"] and launch.constexprs["UNIT_BETA"]
    assert launch.args[3] is launch.args[0] and launch.args[4] is launch.args[0]
    with pytest.raises(ValueError, match="argument 'g': is required with use_gate_in_kernel"):
        fused_recurrent_gated_delta_rule(q, k, v, beta=bh, use_gate_in_kernel=True,
                                         A_log=np.zeros(HV, np.float32))


@requires_lib
def test_prefetched_start_reaches_the_final_state():
    """The GPU launch at one token per sequence prefetches the starting state and writes the
    final states to their own array (FINAL_STATE_OUT): run that launch on the CPU target, an
    empty sequence (whose copy no token waits for) included: every final state, the empty
    one's equal to its initial state, as without the prefetch."""
    from kdatile.ops.fused_recurrent import fused_recurrent_gated_delta_rule_launch

    rng = np.random.default_rng(9)
    lens = [1, 0, 1, 1]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    q, k, v, g, beta = prefill_inputs(rng, 1, int(cu[-1]), 2, 2, 32, 32)
    g = g[..., 0].copy()  # one decay per head
    h0 = (rng.standard_normal((len(lens), 2, 32, 32)) * 0.3).astype(np.float32)
    args = (q, k, v)
    kwargs = dict(g=g, beta=beta, initial_state=h0, output_final_state=True, cu_seqlens=cu,
                  use_qk_l2norm_in_kernel=True)
    o_plain, final_plain = fused_recurrent_gated_delta_rule(*args, **kwargs)
    o, final, launch = fused_recurrent_gated_delta_rule_launch(*args, **kwargs)
    assert launch.constexprs["FINAL_STATE_OUT"]
    launch.kernel[launch.grid](*launch.args, **dict(launch.constexprs, PREFETCH_STATE=True))
    np.testing.assert_array_equal(final, final_plain)
    np.testing.assert_array_equal(final[1], h0[1])
    np.testing.assert_array_equal(widen(o), widen(o_plain))


@requires_lib
@pytest.mark.parametrize("prefetch", [False, True])
def test_outputs_only_writes_no_state(prefetch):
    """output_final_state=False writes no state anywhere (OUTPUTS_ONLY): the initial states,
    read-only here, are unchanged (a final-state-only launch would store into its slots), and
    the outputs equal, bit for bit, those of the call that returns the final states; also
    with the GPU launch's prefetched start, an empty sequence's copy included."""
    from kdatile.ops.fused_recurrent import fused_recurrent_kda_launch

    rng = np.random.default_rng(11)
    cu, q, k, v, g, beta, h0 = varlen_inputs(rng, 2, 2, 32)
    h0.flags.writeable = False
    kwargs = dict(initial_state=h0, cu_seqlens=cu, use_qk_l2norm_in_kernel=True)
    o_with, _ = fused_recurrent_kda(q, k, v, g, beta, output_final_state=True, **kwargs)
    before = h0.copy()
    o, final, launch = fused_recurrent_kda_launch(q, k, v, g, beta, **kwargs)
    assert final is None
    assert launch.constexprs["OUTPUTS_ONLY"] and not launch.constexprs["FINAL_STATE_OUT"]
    launch.kernel[launch.grid](*launch.args, **dict(launch.constexprs, PREFETCH_STATE=prefetch))
    np.testing.assert_array_equal(h0, before)
    np.testing.assert_array_equal(widen(o), widen(o_with))


@requires_lib
def test_sequence_slots_read_no_table():
    """FLA-shaped calls (state n belongs to sequence n) launch one kernel that reads no slot
    table (SEQUENCE_SLOTS; on a GPU a table would cost a kernel to build): the same results,
    bit for bit, as an explicit table [0, N); a pool with fewer slots than sequences is
    rejected, naming initial_state."""
    from kdatile.ops._kernels import execute
    from kdatile.ops.fused_recurrent import fused_recurrent_gated_delta_rule_launch
    from kdatile.ops.recurrent import recurrent_slot_per_sequence

    rng = np.random.default_rng(5)
    cu, q, k, v, g, beta, h0 = varlen_inputs(rng, 2, 4, 32)
    g = g[..., 0].copy()
    N = len(LENS)
    o, final, launch = fused_recurrent_gated_delta_rule_launch(
        q, k, v, g=g, beta=beta, initial_state=h0, output_final_state=True, cu_seqlens=cu)
    assert launch.constexprs["SEQUENCE_SLOTS"]
    launch.kernel[launch.grid](*launch.args, **launch.constexprs)
    common = dict(scale=None, cu_seqlens=cu, use_qk_l2norm=False, use_gate=False,
                  use_beta_sigmoid=False, state_layout="kv", gate_per_head=True)
    pool = h0.copy()
    o_table, table_launch = recurrent_slot_per_sequence(
        q, k, v, g, beta, initial_state=pool, state_indices=np.arange(N, dtype=np.int32),
        final_state_only=True, **common)
    execute(o_table, table_launch)
    np.testing.assert_array_equal(widen(o), widen(o_table))
    np.testing.assert_array_equal(final, pool)
    with pytest.raises(ValueError, match="argument 'initial_state'.*fewer than the N = 5"):
        recurrent_slot_per_sequence(q, k, v, g, beta, initial_state=h0[:N - 1].copy(),
                                    state_indices=None, final_state_only=True, **common)
