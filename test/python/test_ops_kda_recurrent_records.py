"""kdatile.ops.kda_recurrent_records on the CPU target: speculative decoding with per-token
records instead of per-token states, over several steps, against the fp64 recurrence
(kda_recurrent_reference.py) with the docs/kda.md tolerances, and its bad inputs.

Each step runs T tokens per sequence from the committed state after replaying the previous
step's accepted records; the reference runs the same tokens from the fp64 state after the
accepted tokens. Tolerances: output rel RMS <= 5e-3, fp32 committed state <= 1e-5 (bf16
<= 5e-3), padding outputs exactly zero, slots and records of padding sequences untouched.
"""

import numpy as np
import pytest

from kda_recurrent_reference import kda_recurrent_reference, make_inputs
from kda_reference import bf16_to_f32, rel_rms
from kdatile import ops

from conftest import requires_lib

pytestmark = requires_lib

H, D, LB = 2, 32, -5.0


def widen(a):
    return bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float64)


def reference_step(inp, starts, lens, state_layout):
    """fp64 outputs [tokens, H, V] and the state after every token ([N] lists of [H, *, *]) of
    one step from the fp64 starting states `starts` ([N] of [H, *, *] or None: padding)."""
    N = len(lens)
    cols = max(max(lens, default=0), 1)
    shape = inp["state"].shape[1:]
    # A scratch pool: sequence n's token t writes slot n * cols + t, starting from slot n * cols.
    pool = np.zeros((N * cols,) + shape)
    table = np.full((N, cols), -1, np.int64)
    for n in range(N):
        if starts[n] is not None:
            table[n] = n * cols + np.arange(cols)
            pool[n * cols] = starts[n]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    o, pool = kda_recurrent_reference(
        widen(inp["q"]), widen(inp["k"]), widen(inp["v"]), widen(inp["g"]), widen(inp["beta"]),
        pool, table, scale=D ** -0.5, cu_seqlens=cu, A_log=inp["A_log"], dt_bias=inp["dt_bias"],
        lower_bound=LB, state_layout=state_layout)
    after = [[pool[n * cols + t] for t in range(lens[n])] if starts[n] is not None else []
             for n in range(N)]
    return o, after


def records_pool(slots, TR, dim=D):
    return np.full((slots, TR, H, 3 * dim), np.nan, np.float32)


def step(rng, pool, slots_of, lens, rin, rout, accepted, state_layout):
    """One kda_recurrent_records call on fresh tokens (varlen); returns (inputs, fp32 o)."""
    tokens = int(sum(lens))
    inp = make_inputs(rng, tokens, H, pool.shape[0], K=D, V=D, state_layout=state_layout)
    inp["state"] = pool
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    out = ops.kda_recurrent_records(
        inp["q"], inp["k"], inp["v"], inp["g"], inp["beta"], A_log=inp["A_log"],
        dt_bias=inp["dt_bias"], lower_bound=LB, initial_state=pool, state_indices=slots_of,
        records_in=rin, records_out=rout, num_accepted_tokens=accepted, cu_seqlens=cu,
        state_layout=state_layout)
    return inp, bf16_to_f32(out).reshape(tokens, H, D)


@pytest.mark.parametrize("state_layout,state_bf16", [("vk", False), ("kv", False),
                                                     ("vk", True)])
def test_steps_replay_accepted_records(state_layout, state_bf16):
    """Three speculative steps; each accepts 0 .. T of the previous step's tokens (0 only
    after a prefill, i.e. the first step), sequences of different lengths, one padding
    sequence. The committed state after a step's replay is the state after its accepted
    tokens, and every output is the recurrence's from there."""
    rng = np.random.default_rng(11 + state_bf16 + 2 * (state_layout == "kv"))
    N, slots, TR = 5, 9, 4
    slots_of = np.array([7, 2, -1, 5, 0], np.int32)
    pool = make_inputs(rng, 1, H, slots, K=D, V=D, state_layout=state_layout,
                       state_bf16=state_bf16)["state"]
    live = slots_of >= 0
    untouched = np.setdiff1d(np.arange(slots), slots_of[live])
    before = pool.copy()
    committed = [widen(pool[s]) if s >= 0 else None for s in slots_of]
    pools = [records_pool(slots, TR), records_pool(slots, TR)]
    after_prev = None
    for i, lens in enumerate(([4, 1, 3, 2, 4], [3, 4, 2, 4, 0], [1, 2, 4, 3, 2])):
        if after_prev is None:
            accepted = None
        else:
            accepted = np.array([min(a, len(st)) for a, st in
                                 zip(rng.integers(0, TR + 1, N), after_prev)], np.int32)
            accepted[0] = len(after_prev[0])  # every token of the previous step
            accepted[1] = 0  # none
            for n in range(N):
                if committed[n] is not None and accepted[n] > 0:
                    committed[n] = after_prev[n][accepted[n] - 1]
        rin, rout = pools[i % 2], pools[(i + 1) % 2]
        rin_before, rout_before = rin.copy(), rout.copy()
        inp, o = step(rng, pool, slots_of, lens, rin, rout, accepted, state_layout)
        ref_o, after_prev = reference_step(inp, committed, lens, state_layout)
        np.testing.assert_array_equal(rin, rin_before)  # records_in is only read
        got = widen(pool)
        for n in range(N):
            if committed[n] is not None:
                tol = 5e-3 if state_bf16 else 1e-5
                assert rel_rms(committed[n], got[slots_of[n]]) <= tol, (i, n)
        np.testing.assert_array_equal(pool[untouched], before[untouched])
        cu = np.concatenate([[0], np.cumsum(lens)])
        pad = np.zeros(len(o), bool)
        pad[cu[2]:cu[3]] = True
        assert (o[pad] == 0.0).all()
        assert rel_rms(ref_o[~pad], o[~pad]) <= 5e-3, i
        # Records: written for each live token (t < its length), nowhere else.
        for n in range(N):
            written = np.zeros(TR, bool)
            if live[n]:
                written[:lens[n]] = True
                assert np.isfinite(rout[slots_of[n], written]).all()
            row = slots_of[n] if live[n] else None
            if row is not None:
                np.testing.assert_array_equal(rout[row, ~written], rout_before[row, ~written])
        np.testing.assert_array_equal(rout[untouched], rout_before[untouched])


@pytest.mark.parametrize("dim", [D, 100])
def test_records_match_per_token_states(dim):
    """The state rebuilt from a records step equals the per-token state kda_recurrent writes
    for the same tokens (fp32 pools, same starting state), also at a head dim that is not a
    power of two (the kernels mask its padding)."""
    rng = np.random.default_rng(5)
    N, T, slots = 3, 4, 3 * 4 + 3
    inp = make_inputs(rng, N * T, H, slots, K=dim, V=dim, lead=(N, T))
    gate = dict(A_log=inp["A_log"], dt_bias=inp["dt_bias"], lower_bound=LB)
    per_token = inp["state"].copy()
    table = (3 + np.arange(N * T)).reshape(N, T).astype(np.int32)
    table[:, 0] = np.arange(N)
    per_token[table[:, 0]] = inp["state"][:N]
    args = (inp["q"], inp["k"], inp["v"], inp["g"], inp["beta"])
    o_ref = ops.kda_recurrent(*args, **gate, initial_state=per_token, state_indices=table)
    records = [records_pool(slots, T, dim), records_pool(slots, T, dim)]
    pool = inp["state"].copy()
    slots_of = np.arange(N, dtype=np.int32)
    o = ops.kda_recurrent_records(*args, **gate, initial_state=pool, state_indices=slots_of,
                                  records_in=records[0], records_out=records[1])
    np.testing.assert_array_equal(bf16_to_f32(o), bf16_to_f32(o_ref))
    for a in range(1, T + 1):
        replay = pool.copy()
        # A step without tokens only replays (and commits).
        empty = make_inputs(rng, 0, H, slots, K=dim, V=dim)
        ops.kda_recurrent_records(
            empty["q"], empty["k"], empty["v"], empty["g"], empty["beta"], **gate,
            initial_state=replay, state_indices=slots_of, records_in=records[1],
            records_out=records[0], cu_seqlens=np.zeros(N + 1, np.int32),
            num_accepted_tokens=np.full(N, a, np.int32))
        expect = per_token[table[:, a - 1]]
        assert rel_rms(expect.astype(np.float64), replay[:N].astype(np.float64)) <= 1e-6, a


# ---------------------------------------------------------------------------------------------
# Bad inputs


def call_with(**changes):
    rng = np.random.default_rng(3)
    N, T, slots, TR = 2, 3, 4, 3
    inp = make_inputs(rng, N * T, H, slots, K=D, V=D, lead=(N, T))
    kw = dict(A_log=inp["A_log"], dt_bias=inp["dt_bias"], lower_bound=LB,
              initial_state=inp["state"], state_indices=np.array([1, 3], np.int32),
              records_in=records_pool(slots, TR), records_out=records_pool(slots, TR))
    kw.update(changes)
    if "records_out" in changes and isinstance(changes["records_out"], str):
        kw["records_out"] = kw["records_in"]  # the same pool
    return ops.kda_recurrent_records(inp["q"], inp["k"], inp["v"], inp["g"], inp["beta"], **kw)


def test_valid_call_runs():
    out = call_with()
    assert np.isfinite(bf16_to_f32(out)).all()


@pytest.mark.parametrize("changes,name,words", [
    (dict(records_in=None), "records_in", "required"),
    (dict(records_out=np.zeros((4, 3, H, 3 * D), np.uint16)), "records_out", "float32"),
    (dict(records_in=np.zeros((4, 3, H, 3 * D + 1), np.float32)), "records_in", "2K + V"),
    (dict(records_in=np.zeros((5, 3, H, 3 * D), np.float32)), "records_in", "slots=4"),
    (dict(records_out=np.zeros((4, 2, H, 3 * D), np.float32)), "records_out",
     "records_in's shape"),
    (dict(records_in=records_pool(4, 2), records_out=records_pool(4, 2)), "records_out",
     "TR = 2 records per slot, fewer than the T = 3"),
    (dict(records_out=np.zeros((4, 3, H, 6 * D), np.float32)[..., ::2]), "records_out",
     "contiguous"),
    (dict(records_out="same"), "records_out", "overlaps"),
    (dict(num_accepted_tokens=np.array([0, 4], np.int32)), "num_accepted_tokens", "[0, TR = 3]"),
    (dict(num_accepted_tokens=np.array([-1, 0], np.int32)), "num_accepted_tokens", "got -1"),
    (dict(state_indices=np.array([[1, 3]], np.int32)), "state_indices", "[N]"),
])
def test_bad_input(changes, name, words):
    with pytest.raises(ValueError) as e:
        call_with(**changes)
    assert f"'{name}'" in str(e.value) or name in str(e.value).split(":")[0]
    assert words in str(e.value)


def test_varlen_sequence_longer_than_records():
    rng = np.random.default_rng(4)
    inp = make_inputs(rng, 5, H, 4, K=D, V=D)
    with pytest.raises(ValueError, match="records_out.*TR = 3.*4 tokens of sequence 1"):
        ops.kda_recurrent_records(
            inp["q"], inp["k"], inp["v"], inp["g"], inp["beta"], A_log=inp["A_log"],
            dt_bias=inp["dt_bias"], lower_bound=LB, initial_state=inp["state"],
            state_indices=np.array([0, 2], np.int32), records_in=records_pool(4, 3),
            records_out=records_pool(4, 3), cu_seqlens=np.array([0, 1, 5], np.int32))


def test_read_only_records_out():
    ro = records_pool(4, 3)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="records_out.*read-only"):
        call_with(records_out=ro)

