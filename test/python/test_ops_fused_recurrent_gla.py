"""kdatile.ops.fused_recurrent_gla (FLA's name and parameters) on the CPU target against the
fp64 token-by-token recurrence of gated linear attention (gla_reference.py): outputs within relative
RMS 5e-3 (bf16 inputs) and final states 1e-5, GVA, varlen with an empty sequence, no gate,
per-value gates (gv), the reversed recurrence, and the argument checks."""

import numpy as np
import pytest

from gla_reference import gla_reference
from kda_reference import bf16_to_f32, f32_to_bf16, rel_rms
from kdatile.ops import fused_recurrent_gla

from conftest import requires_lib

pytestmark = requires_lib

LENS = [3, 1, 5, 0, 2]


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def inputs(rng, H, HV, D, lens, dtype="bf16"):
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    T = int(cu[-1])

    def cast(x):
        x = np.asarray(x, np.float32)
        return f32_to_bf16(x) if dtype == "bf16" else x

    q = cast(rng.standard_normal((1, T, H, D)) * 0.5)
    k = cast(rng.standard_normal((1, T, H, D)) * 0.5)
    v = cast(rng.standard_normal((1, T, HV, D)))
    # Log-sigmoid gates, as GLA's gk usually are.
    gk = -np.log1p(np.exp(-rng.standard_normal((1, T, HV, D)) - 2.0)).astype(np.float32)
    h0 = (rng.standard_normal((len(lens), HV, D, D)) * 0.3).astype(np.float32)
    return cu, q, k, v, gk, h0


def check(o, final, ref_o, ref_final):
    assert np.isfinite(widen(o)).all() and np.isfinite(final).all()
    assert rel_rms(ref_o, widen(o)) <= 5e-3
    assert rel_rms(ref_final, final) <= 1e-5


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_gva_varlen(dtype):
    rng = np.random.default_rng(3)
    H, HV, D = 2, 4, 32
    cu, q, k, v, gk, h0 = inputs(rng, H, HV, D, LENS, dtype)
    before = h0.copy()
    o, final = fused_recurrent_gla(q, k, v, gk, initial_state=h0, output_final_state=True,
                                   cu_seqlens=cu)
    ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), gk, initial_state=h0,
                                     cu_seqlens=cu)
    check(o, final, ref_o, ref_final)
    np.testing.assert_array_equal(h0, before)  # the initial state is read, not written
    np.testing.assert_array_equal(final[3], h0[3])  # the empty sequence keeps its state


def test_state_v_first_reads_and_writes_v_by_k_states():
    # FLA's GLA layer passes state_v_first=True: states are [N, HV, V, K], in and out.
    rng = np.random.default_rng(5)
    H, HV, D = 2, 4, 32
    cu, q, k, v, gk, h0 = inputs(rng, H, HV, D, LENS)
    o, final = fused_recurrent_gla(q, k, v, gk, initial_state=np.ascontiguousarray(
        h0.transpose(0, 1, 3, 2)), output_final_state=True, state_v_first=True, cu_seqlens=cu)
    ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), gk, initial_state=h0,
                                     cu_seqlens=cu)
    check(o, final.transpose(0, 1, 3, 2), ref_o, ref_final)


def test_fixed_length_without_gate_or_initial_state():
    rng = np.random.default_rng(4)
    H, D, B, T = 3, 64, 2, 6
    _, q, k, v, _, _ = inputs(rng, H, H, D, [B * T])
    q, k, v = (x.reshape(B, T, H, D) for x in (q, k, v))
    o, final = fused_recurrent_gla(q, k, v, scale=0.3, output_final_state=True)
    ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), scale=0.3)
    check(o, final, ref_o, ref_final)


@pytest.mark.parametrize("gates,reverse,state_v_first", [
    ("gv", False, False), ("gk+gv", False, True), ("gk", True, False), ("gk+gv", True, True),
    ("none", True, False)])
def test_value_gates_and_reverse(gates, reverse, state_v_first):
    """gv [B, T, HV, V] decays each value channel after gk's key channels; reverse runs each
    sequence's tokens from last to first (FLA's reverse=True), both in either state layout."""
    rng = np.random.default_rng(8)
    H, HV, D = 2, 4, 32
    cu, q, k, v, gk, h0 = inputs(rng, H, HV, D, LENS)
    gv = f32_to_bf16(-np.log1p(np.exp(-rng.standard_normal(v.shape) - 2.0)))
    gk = gk if "gk" in gates else None
    gv = gv if "gv" in gates else None
    h0_in = np.ascontiguousarray(h0.transpose(0, 1, 3, 2)) if state_v_first else h0
    o, final = fused_recurrent_gla(q, k, v, gk, gv, initial_state=h0_in, output_final_state=True,
                                   reverse=reverse, state_v_first=state_v_first, cu_seqlens=cu)
    ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), gk,
                                     gv=None if gv is None else widen(gv), initial_state=h0,
                                     cu_seqlens=cu, reverse=reverse)
    check(o, final.transpose(0, 1, 3, 2) if state_v_first else final, ref_o, ref_final)
    if reverse:  # a sequence of several tokens differs from its forward run
        fwd, _ = gla_reference(widen(q), widen(k), widen(v), gk,
                               gv=None if gv is None else widen(gv), initial_state=h0,
                               cu_seqlens=cu)
        assert rel_rms(fwd, widen(o)) > 0.05


def test_reverse_fixed_length_batches():
    """Fixed-length sequences reversed: each sequence of the batch from its own last token."""
    rng = np.random.default_rng(9)
    H, D, B, T = 2, 16, 3, 5
    _, q, k, v, gk, _ = inputs(rng, H, H, D, [B * T])
    q, k, v, gk = (x.reshape(B, T, H, D) for x in (q, k, v, gk))
    o, final = fused_recurrent_gla(q, k, v, gk, output_final_state=True, reverse=True)
    ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), gk, reverse=True)
    check(o, final, ref_o, ref_final)


@pytest.mark.parametrize("over,name,text", [
    (dict(gv=np.zeros((1, 4, 2, 8), np.float32)), "gv", "expected shape"),
    (dict(gv=np.zeros((1, 4, 2, 16), np.int32)), "gv", "dtype"),
    (dict(reverse=1), "reverse", "expected a bool"),
    (dict(scale=-1.0), "scale", "> 0"),
    (dict(gk=np.zeros((1, 4, 2, 8), np.float32)), "gk", "expected shape"),
    (dict(gk=np.zeros((1, 4, 2, 16), np.int32)), "gk", "dtype"),
    (dict(q=np.zeros((1, 4, 2, 16), np.float64)), "q", "dtype"),
])
def test_bad_arguments(over, name, text):
    rng = np.random.default_rng(5)
    _, q, k, v, gk, _ = inputs(rng, 2, 2, 16, [4])
    args = dict(q=q, k=k, v=v, gk=gk)
    args.update(over)
    with pytest.raises(ValueError, match=f"'{name}'.*{text}"):
        fused_recurrent_gla(**args)


def test_no_slot_table_and_no_beta():
    """GLA's call with gk reads no slot table and no beta (no array is built for either: on a
    GPU each would be a kernel beside the recurrence)."""
    from kdatile.ops.fused_recurrent import fused_recurrent_gla_launch

    cu, q, k, v, gk, h0 = inputs(np.random.default_rng(2), 2, 2, 32, LENS)
    _, _, launch = fused_recurrent_gla_launch(q, k, v, gk=gk, initial_state=h0,
                                              cu_seqlens=cu)
    assert launch.constexprs["SEQUENCE_SLOTS"] and not launch.constexprs["DELTA_RULE"]
    q_arg, beta_arg, table_arg = launch.args[0], launch.args[4], launch.args[8]
    assert beta_arg is q_arg and table_arg is q_arg  # the read-only stand-in
    # Without gk no decay, and no array of zero decays is built for it.
    _, _, launch = fused_recurrent_gla_launch(q, k, v, initial_state=h0, cu_seqlens=cu)
    assert not launch.constexprs["HAS_G"] and launch.args[3] is launch.args[0]
