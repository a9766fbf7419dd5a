"""The multi-token KDA recurrent core (kernels/kda_recurrent.py) on the CPU target against the
fp64 reference (kda_recurrent_reference.py), with the acceptance tolerances of docs/kda.md:
output rel RMS <= 5e-3, fp32 state <= 1e-5 (bf16 state <= 5e-3), untouched slots bit-exact,
padding outputs exactly zero."""

import os
import sys

import numpy as np
import pytest

from kda_recurrent_reference import (
    kda_recurrent_reference,
    make_inputs,
    recurrent_launch,
    token_stride,
)
from kda_reference import bf16_to_f32, rel_rms

from conftest import ROOT, requires_lib

sys.path.insert(0, os.path.join(ROOT, "kernels"))
from kda_recurrent import kda_recurrent  # noqa: E402

pytestmark = requires_lib


def widen(a):
    return bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float32)


def run(inp, state_indices, *, read_state_first=False, **options):
    """Launches the kernel (state updated in place) and returns o as fp32 [tokens, H, V];
    read_state_first: READ_STATE_FIRST (what the op launches on gfx1250)."""
    launch = recurrent_launch(inp, state_indices, **options)
    kda_recurrent[launch.grid](*launch.args,
                               **dict(launch.constexprs, READ_STATE_FIRST=read_state_first))
    o = bf16_to_f32(launch.args[kda_recurrent.arg_names.index("o_ptr")])
    return o.reshape(-1, *o.shape[-2:])


def check(inp, state_indices, *, cu_seqlens=None, num_accepted=None, scale=None,
          lower_bound=-5.0, use_qk_l2norm=True, use_gate=True, use_beta_sigmoid=True,
          state_layout="vk", BV=None, prefetch_state=False, read_state_first=False,
          expect_padding=None):
    """Runs kernel and reference; asserts the section 4 tolerances. Returns (o, ref_o)."""
    K = inp["q"].shape[-1]
    scale = K ** -0.5 if scale is None else scale
    state_bf16 = inp["state"].dtype == np.uint16
    before = inp["state"].copy()
    ref_o, ref_pool = kda_recurrent_reference(
        widen(inp["q"]), widen(inp["k"]), widen(inp["v"]), widen(inp["g"]), widen(inp["beta"]),
        widen(before), state_indices, scale=scale, cu_seqlens=cu_seqlens,
        num_accepted=num_accepted, A_log=inp["A_log"], dt_bias=inp["dt_bias"],
        lower_bound=lower_bound, use_qk_l2norm=use_qk_l2norm, use_gate=use_gate,
        use_beta_sigmoid=use_beta_sigmoid, state_layout=state_layout, state_bf16=state_bf16)
    o = run(inp, state_indices, cu_seqlens=cu_seqlens, num_accepted=num_accepted, scale=scale,
            lower_bound=lower_bound, use_qk_l2norm=use_qk_l2norm, use_gate=use_gate,
            use_beta_sigmoid=use_beta_sigmoid, state_layout=state_layout, BV=BV,
            prefetch_state=prefetch_state, read_state_first=read_state_first)
    after = widen(inp["state"])
    assert np.isfinite(o).all() and np.isfinite(after).all()
    # Padding tokens: exactly zero (the reference leaves them at zero too).
    pad = np.all(ref_o == 0.0, axis=(1, 2))
    if expect_padding is not None:
        np.testing.assert_array_equal(pad, expect_padding)
    assert (o[pad] == 0.0).all()
    if (~pad).any():
        assert rel_rms(ref_o[~pad], o[~pad]) <= 5e-3
    # Written slots match; every other slot is bit-exact.
    slots = before.shape[0]
    written = np.flatnonzero(np.any(ref_pool != widen(before).astype(np.float64),
                                    axis=tuple(range(1, before.ndim))))
    if written.size:
        tol = 5e-3 if state_bf16 else 1e-5
        assert rel_rms(ref_pool[written], after[written]) <= tol
    untouched = np.setdiff1d(np.arange(slots), written)
    np.testing.assert_array_equal(inp["state"][untouched], before[untouched])
    return o, ref_o


def distinct_slots(rng, slots, shape):
    return rng.permutation(slots)[:int(np.prod(shape))].reshape(shape).astype(np.int32)


def varlen_case(rng, lens, H, Tcols, slots, **make):
    """(inputs, distinct slot table [N, Tcols], cu_seqlens, tokens) of sequences of `lens`
    tokens packed through cu_seqlens (make: make_inputs' keywords)."""
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tokens = int(cu[-1])
    inp = make_inputs(rng, tokens, H, slots, **make)
    return inp, distinct_slots(rng, slots, (len(lens), Tcols)), cu, tokens


@pytest.mark.parametrize("state_layout", ["vk", "kv"])
@pytest.mark.parametrize("state_bf16", [False, True])
def test_varlen_spec_decode(state_layout, state_bf16):
    """Several sequences of different lengths packed through cu_seqlens, per-token slots,
    num_accepted_tokens, padding tokens and a padding sequence, in one launch."""
    rng = np.random.default_rng(7 + state_bf16 + 2 * (state_layout == "kv"))
    lens = [3, 1, 4, 0, 2, 4]
    slots = 2 * len(lens) * 4 + 3
    inp, si, cu, tokens = varlen_case(rng, lens, 3, 4, slots, state_bf16=state_bf16,
                                      state_layout=state_layout)
    si[0, 1] = -1            # a padding token in the middle of a sequence
    si[2, 3] = slots         # out of range: padding too
    si[5, :] = -1            # a padding sequence (its starting slot is padding)
    si[1, 1:] = -1           # columns past a sequence's length are never used
    acc = np.array([3, 1, 3, 1, 2, 3], np.int32)
    o, _ = check(inp, si, cu_seqlens=cu, num_accepted=acc, state_layout=state_layout)
    pad = np.zeros(tokens, bool)
    pad[cu[0] + 1] = pad[cu[2] + 3] = True
    pad[cu[5]:cu[6]] = True
    assert (o[pad] == 0.0).all()
    assert (np.abs(o[~pad]).sum(axis=(1, 2)) > 0).all()


@pytest.mark.parametrize("state_layout", ["vk", "kv"])
def test_every_num_accepted(state_layout):
    """Fixed T: sequence n starts from the state of column num_accepted[n] - 1, for every value
    1..T; every token writes its own slot."""
    rng = np.random.default_rng(11)
    H, T = 2, 4
    N = T
    slots = N * T + 5
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T), state_layout=state_layout)
    si = distinct_slots(rng, slots, (N, T))
    acc = np.arange(1, T + 1, dtype=np.int32)
    check(inp, si, num_accepted=acc, state_layout=state_layout)


def test_num_accepted_clamped():
    """Values outside [1, T] (rejected on the host) are clamped: never read outside the row."""
    rng = np.random.default_rng(12)
    H, T, N = 2, 3, 4
    slots = N * T + 2
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T))
    si = distinct_slots(rng, slots, (N, T))
    acc = np.array([0, -7, T + 1, 1 << 30], np.int32)
    check(inp, si, num_accepted=acc)


@pytest.mark.parametrize("state_bf16", [False, True])
def test_fixed_length_without_num_accepted(state_bf16):
    """[N, T, H, D] inputs, no num_accepted_tokens: the start state is column 0's slot; a
    padding token at column 0 makes the whole sequence padding; T = 1 is plain decode."""
    rng = np.random.default_rng(13)
    H, N = 4, 3
    for T in (1, 3):
        slots = N * T + 4
        inp = make_inputs(rng, N * T, H, slots, lead=(N, T), state_bf16=state_bf16)
        si = distinct_slots(rng, slots, (N, T))
        si[1, 0] = -5
        o, _ = check(inp, si)
        assert (o[T:2 * T] == 0.0).all()


SWITCHES = [(l2, gate, bs) for l2 in (True, False) for gate in ("lb", "sp", None)
            for bs in (True, False)]


@pytest.mark.parametrize("use_qk_l2norm,gate,use_beta_sigmoid", SWITCHES)
def test_switches(use_qk_l2norm, gate, use_beta_sigmoid):
    """Each in-kernel switch on and off: L2-norm (q, k given unit-norm when off, with a scale
    other than K^-0.5), gate (lower-bound form, softplus form, or g already the log decay),
    beta sigmoid (or beta already in (0, 1), given in fp32)."""
    rng = np.random.default_rng(17)
    H, T, N = 2, 3, 2
    slots = N * T + 1
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T), unit_qk=not use_qk_l2norm,
                      use_gate=gate is not None, use_beta_sigmoid=use_beta_sigmoid,
                      g_bf16=gate is not None, beta_bf16=use_beta_sigmoid)
    si = distinct_slots(rng, slots, (N, T))
    check(inp, si, num_accepted=np.array([2, 3], np.int32),
          scale=0.5 if not use_qk_l2norm else None,
          lower_bound={"lb": -5.0, "sp": None, None: None}[gate], use_qk_l2norm=use_qk_l2norm,
          use_gate=gate is not None, use_beta_sigmoid=use_beta_sigmoid)


@pytest.mark.parametrize("state_layout", ["vk", "kv"])
def test_v_blocks_and_packed_qkv(state_layout):
    """Grid over V blocks (BV = 32) and q, k, v as splits of one packed tensor (token strides
    other than H*D), varlen."""
    rng = np.random.default_rng(19)
    H, Tcols = 2, 3
    lens = [2, 3, 1]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    slots = 12
    inp = make_inputs(rng, int(cu[-1]), H, slots, packed_qkv=True, state_layout=state_layout)
    assert token_stride(inp["q"]) == 3 * H * 128
    si = distinct_slots(rng, slots, (len(lens), Tcols))
    check(inp, si, cu_seqlens=cu, num_accepted=np.array([1, 3, 2], np.int32),
          state_layout=state_layout, BV=32)


@pytest.mark.parametrize("read_state_first", [False, True])
@pytest.mark.parametrize("state_layout", ["vk", "kv"])
@pytest.mark.parametrize("state_bf16", [False, True])
def test_prefetched_state(state_layout, state_bf16, read_state_first):
    """PREFETCH_STATE (the starting state copied through shared memory and read at the first
    token, before its loads with READ_STATE_FIRST): one-token and longer sequences, a first
    token that is padding while the starting slot is live (the first real token reads the
    copy), a padding sequence; BV = 32."""
    rng = np.random.default_rng(29 + state_bf16 + 2 * (state_layout == "kv"))
    lens = [1, 3, 1, 2, 0, 3]
    slots = 2 * len(lens) * 3 + 1
    inp, si, cu, tokens = varlen_case(rng, lens, 2, 3, slots, state_bf16=state_bf16,
                                      state_layout=state_layout)
    acc = np.array([1, 2, 1, 3, 1, 2], np.int32)
    si[1, 0] = -1  # sequence 1 starts from column 1's live slot; its token 0 is padding
    si[2, 0] = -1  # sequence 2: starting slot padding, so the whole sequence is padding
    o, _ = check(inp, si, cu_seqlens=cu, num_accepted=acc, state_layout=state_layout, BV=32,
                 prefetch_state=True, read_state_first=read_state_first)
    pad = np.zeros(tokens, bool)
    pad[cu[1]] = pad[cu[2]] = True
    assert (o[pad] == 0.0).all() and (np.abs(o[~pad]).sum(axis=(1, 2)) > 0).all()


def test_sequence_longer_than_table():
    """Varlen tokens past the slot table's columns are padding (zero output, no write)."""
    rng = np.random.default_rng(23)
    H, Tcols = 2, 2
    cu = np.array([0, 4, 5], np.int32)
    slots = 6
    inp = make_inputs(rng, 5, H, slots)
    si = distinct_slots(rng, slots, (2, Tcols))
    o, _ = check(inp, si, cu_seqlens=cu)
    assert (o[2:4] == 0.0).all() and (o[:2] != 0.0).any() and (o[4] != 0.0).any()
