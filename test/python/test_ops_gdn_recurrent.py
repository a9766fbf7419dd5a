"""kdatile.ops.gdn_recurrent (Gated DeltaNet's multi-token core: one log decay per token and
value head) on the CPU target against the fp64 recurrence (kda_recurrent_reference.py, the
per-head decay repeated over the key channels, which is Gated DeltaNet's update): outputs
within relative RMS 5e-3, written states 1e-5 (fp32) or 5e-3 (bf16), untouched slots
bit-exact, padding outputs zero; GVA, varlen with per-token slots, padding tokens, a padding
sequence and num_accepted_tokens, final_state_only, both state layouts, and the checks."""

import numpy as np
import pytest

from kda_recurrent_reference import kda_recurrent_reference, make_inputs
from kda_reference import bf16_to_f32, rel_rms
from kdatile import ops
from test_ops_kda_recurrent import SPEC_LENS, SPEC_TCOLS, spec_slots

from conftest import requires_lib


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def gdn_case(rng, *, H=2, HV=4, K=32, state_layout="vk", state_bf16=False, beta_logits=False):
    """Packed varlen inputs (q/k with H heads, v/g/beta with HV), a [6, 4] slot table with
    padding tokens, an out-of-range slot and a padding sequence, and num_accepted_tokens."""
    N = len(SPEC_LENS)
    cu = np.concatenate([[0], np.cumsum(SPEC_LENS)]).astype(np.int32)
    slots = 2 * N * SPEC_TCOLS + 3
    inp = make_inputs(rng, int(cu[-1]), HV, slots, K=K, V=K, use_gate=False,
                      use_beta_sigmoid=beta_logits, state_bf16=state_bf16,
                      state_layout=state_layout)
    group = HV // H
    for name in ("q", "k"):  # one q/k head per group of value heads
        inp[name] = np.ascontiguousarray(inp[name][:, :, ::group])
    inp["g"] = np.ascontiguousarray(inp["g"][..., 0])  # one log decay per value head
    si, acc = spec_slots(rng, slots)
    return inp, si, cu, acc


def reference(inp, si, cu, acc, *, beta_logits=False, state_layout="vk"):
    """(o, pool) of the fp64 recurrence for gdn_case's inputs."""
    HV, K = inp["v"].shape[-2], inp["q"].shape[-1]
    group = HV // inp["q"].shape[-2]
    q, k = (np.repeat(widen(inp[n]), group, axis=-2) for n in ("q", "k"))
    g = np.repeat(widen(inp["g"])[..., None], K, axis=-1)
    return kda_recurrent_reference(
        q, k, widen(inp["v"]), g, widen(inp["beta"]), widen(inp["state"]), si,
        scale=K ** -0.5, cu_seqlens=cu, num_accepted=acc, use_qk_l2norm=True, use_gate=False,
        use_beta_sigmoid=beta_logits, state_layout=state_layout,
        state_bf16=inp["state"].dtype == np.uint16)


def call(inp, si, cu, acc, **kw):
    return ops.gdn_recurrent(inp["q"], inp["k"], inp["v"], inp["g"], inp["beta"],
                             initial_state=inp["state"], state_indices=si, cu_seqlens=cu,
                             num_accepted_tokens=acc, **kw)


@requires_lib
@pytest.mark.parametrize("state_layout,state_bf16,beta_logits",
                         [("vk", False, False), ("kv", True, True), ("kv", False, False)])
def test_varlen_spec_decode(state_layout, state_bf16, beta_logits):
    rng = np.random.default_rng(31 + 2 * state_bf16 + beta_logits)
    inp, si, cu, acc = gdn_case(rng, state_layout=state_layout, state_bf16=state_bf16,
                                beta_logits=beta_logits)
    before = inp["state"].copy()
    ref_o, ref_pool = reference(inp, si, cu, acc, beta_logits=beta_logits,
                                state_layout=state_layout)
    out = call(inp, si, cu, acc, state_layout=state_layout, use_beta_sigmoid=beta_logits)
    o = widen(out).reshape(ref_o.shape)
    assert np.isfinite(o).all()
    pad = np.zeros(int(cu[-1]), bool)
    pad[cu[0] + 1] = pad[cu[2] + 3] = True
    pad[cu[5]:cu[6]] = True
    assert (o[pad] == 0.0).all() and np.all(ref_o[pad] == 0.0)
    assert rel_rms(ref_o[~pad], o[~pad]) <= 5e-3
    after = widen(inp["state"])
    written = np.flatnonzero(np.any(ref_pool != widen(before), axis=(1, 2, 3)))
    assert written.size
    assert rel_rms(ref_pool[written], after[written]) <= (5e-3 if state_bf16 else 1e-5)
    untouched = np.setdiff1d(np.arange(before.shape[0]), written)
    np.testing.assert_array_equal(inp["state"][untouched], before[untouched])


@requires_lib
def test_final_state_only_writes_each_sequence_once():
    """final_state_only: the same outputs, bit for bit, and only each live sequence's last
    live token's slot written, with the state every-token writing leaves there."""
    rng = np.random.default_rng(37)
    inp, si, cu, acc = gdn_case(rng)
    before = inp["state"].copy()
    every = dict(inp, state=before.copy())
    want_o = call(every, si, cu, acc)
    got_o = call(inp, si, cu, acc, final_state_only=True)
    np.testing.assert_array_equal(got_o, want_o)
    want = before.copy()
    for n in range(len(SPEC_LENS)):
        if not 0 <= si[n, acc[n] - 1] < before.shape[0]:
            continue  # a padding sequence writes nothing
        live = [s for s in si[n, :min(SPEC_LENS[n], SPEC_TCOLS)] if 0 <= s < before.shape[0]]
        if live:
            want[live[-1]] = every["state"][live[-1]]
    np.testing.assert_array_equal(inp["state"], want)
    assert not np.array_equal(want, before)


@requires_lib
def test_argument_checks():
    rng = np.random.default_rng(41)
    inp, si, cu, acc = gdn_case(rng)
    key_gate = np.repeat(inp["g"][..., None], 32, axis=-1)
    with pytest.raises(ValueError, match=r"argument 'g'.*\[1, T_total, HV\]"):
        call(dict(inp, g=key_gate), si, cu, acc)
    with pytest.raises(ValueError, match="argument 'num_accepted_tokens'"):
        call(inp, si, cu, np.full(len(SPEC_LENS), SPEC_TCOLS + 1, np.int32))
    with pytest.raises(ValueError, match="argument 'v'.*multiple of q's H = 2"):
        call(dict(inp, v=np.ascontiguousarray(inp["v"][:, :, :3])), si, cu, acc)
    with pytest.raises(ValueError, match="argument 'A_log'.*required"):
        call(inp, si, cu, acc, use_gate=True)
    with pytest.raises(ValueError, match=r"argument 'dt_bias'.*\[HV\]"):
        call(inp, si, cu, acc, use_gate=True, A_log=np.zeros(4, np.float32),
             dt_bias=np.zeros(4 * 32, np.float32))


@requires_lib
def test_in_kernel_gate_and_negative_eigenvalues():
    """use_gate: g is the raw gate, -exp(A_log) softplus(g + dt_bias) per value head in the
    kernel; allow_neg_eigval with beta logits: beta = 2 sigmoid(beta)."""
    from kda_reference import softplus

    rng = np.random.default_rng(43)
    inp, si, cu, acc = gdn_case(rng, beta_logits=True)
    raw = rng.standard_normal(inp["g"].shape).astype(np.float32)
    A_log = rng.uniform(-1, 1, 4).astype(np.float32)
    dt_bias = rng.standard_normal(4).astype(np.float32)
    log_decay = (-np.exp(A_log.astype(np.float64))
                 * softplus(raw.astype(np.float64) + dt_bias.astype(np.float64)))
    # The reference takes beta's values, 2 sigmoid(logits), with its sigmoid off.
    beta = 2.0 / (1.0 + np.exp(-widen(inp["beta"]).astype(np.float64)))
    ref_inp = dict(inp, g=log_decay, beta=beta)
    ref_o, ref_pool = reference(ref_inp, si, cu, acc)
    before = inp["state"].copy()
    out = call(dict(inp, g=raw), si, cu, acc, use_gate=True, A_log=A_log, dt_bias=dt_bias,
               use_beta_sigmoid=True, allow_neg_eigval=True)
    o = widen(out).reshape(ref_o.shape)
    live = np.any(ref_o != 0.0, axis=(1, 2))
    assert rel_rms(ref_o[live], o[live]) <= 5e-3
    written = np.flatnonzero(np.any(ref_pool != widen(before), axis=(1, 2, 3)))
    assert rel_rms(ref_pool[written], widen(inp["state"])[written]) <= 1e-5
