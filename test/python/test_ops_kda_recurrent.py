"""kdatile.ops.kda_recurrent on the CPU target: numerics against the fp64 reference
(kda_recurrent_reference.py) with the docs/kda.md tolerances, and every bad input of docs/kda.md
that applies to the multi-token core (docs/ops.md has the table these tests follow).

Tolerances: output rel RMS <= 5e-3; fp32 state rel RMS <= 1e-5 (bf16 state <= 5e-3); untouched
slots bit-exact; padding outputs exactly zero; no NaN/Inf. NumPy arrays always; torch CPU
tensors (views of the same memory) when torch is importable.
"""

import numpy as np
import pytest

import kdatile as kt
from kda_recurrent_reference import kda_recurrent_reference
from kda_reference import f32_to_bf16, rel_rms
from kdatile import ops
from test_kda_recurrent_kernel import distinct_slots, make_inputs, widen

from conftest import BAD_ARRAY_PROBLEMS, bad_array, fake_device, requires_lib

try:
    import torch
except ImportError:  # torch is optional
    torch = None


def to_backend(arr, backend):
    if arr is None or backend == "numpy" or not isinstance(arr, np.ndarray):
        return arr
    if arr.dtype == np.uint16:
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(arr)


def to_numpy(value):
    if torch is not None and isinstance(value, torch.Tensor):
        if value.dtype == torch.bfloat16:
            return value.view(torch.int16).numpy().view(np.uint16)
        return value.numpy()
    return value


BACKENDS = [pytest.param("numpy", id="numpy"),
            pytest.param("torch", id="torch", marks=pytest.mark.skipif(
                torch is None, reason="torch is not installed"))]


def call(inp, state_indices, backend="numpy", **kw):
    """The op on inp (the kernel test's make_inputs dict); the pool is updated in place."""
    b = lambda a: to_backend(a, backend)  # noqa: E731
    use_gate = kw.get("use_gate", True)
    kw.setdefault("lower_bound", -5.0 if use_gate else None)
    for name in ("cu_seqlens", "num_accepted_tokens", "out"):
        if name in kw:
            kw[name] = b(kw[name])
    gate = dict(A_log=b(inp["A_log"]), dt_bias=b(inp["dt_bias"])) if use_gate else {}
    out = ops.kda_recurrent(b(inp["q"]), b(inp["k"]), b(inp["v"]), b(inp["g"]), b(inp["beta"]),
                            initial_state=b(inp["state"]), state_indices=b(state_indices),
                            **gate, **kw)
    return to_numpy(out)


def check(inp, state_indices, backend="numpy", *, ref_indices=None, ref_accepted=None, **kw):
    """Op vs reference. ref_indices / ref_accepted: what the reference sees when the op gets
    another spelling (int64, 1-D). Returns the output as fp32 [tokens, H, V]."""
    K = inp["q"].shape[-1]
    use_gate = kw.get("use_gate", True)
    lower_bound = kw.get("lower_bound", -5.0 if use_gate else None)
    state_bf16 = inp["state"].dtype == np.uint16
    before = inp["state"].copy()
    si = np.asarray(state_indices if ref_indices is None else ref_indices)
    si = si.reshape(1, -1) if si.ndim == 1 else si
    acc = kw.get("num_accepted_tokens") if ref_accepted is None else ref_accepted
    ref_o, ref_pool = kda_recurrent_reference(
        widen(inp["q"]), widen(inp["k"]), widen(inp["v"]), widen(inp["g"]), widen(inp["beta"]),
        widen(before), si, scale=kw.get("scale") or K ** -0.5,
        cu_seqlens=kw.get("cu_seqlens"), num_accepted=acc, A_log=inp["A_log"],
        dt_bias=np.asarray(inp["dt_bias"]).reshape(-1), lower_bound=lower_bound,
        use_qk_l2norm=kw.get("use_qk_l2norm", True), use_gate=use_gate,
        use_beta_sigmoid=kw.get("use_beta_sigmoid", True),
        state_layout=kw.get("state_layout", "vk"), state_bf16=state_bf16)
    out = call(inp, state_indices, backend, **kw)
    assert out.shape == inp["v"].shape
    o = widen(out).reshape(ref_o.shape)
    after = widen(inp["state"])
    assert np.isfinite(o).all() and np.isfinite(after).all()
    pad = np.all(ref_o == 0.0, axis=(1, 2))
    assert (o[pad] == 0.0).all()
    if (~pad).any():
        assert rel_rms(ref_o[~pad], o[~pad]) <= 5e-3
    written = np.flatnonzero(np.any(ref_pool != widen(before).astype(np.float64),
                                    axis=tuple(range(1, before.ndim))))
    if written.size:
        assert rel_rms(ref_pool[written], after[written]) <= (5e-3 if state_bf16 else 1e-5)
    untouched = np.setdiff1d(np.arange(before.shape[0]), written)
    np.testing.assert_array_equal(inp["state"][untouched], before[untouched])
    return o


# The speculative-decoding batch of varlen_case: six sequences packed with cu_seqlens, a
# [6, 4] slot table.
SPEC_LENS, SPEC_TCOLS = [3, 1, 4, 0, 2, 4], 4


def spec_slots(rng, slots):
    """(slot table [6, 4], num_accepted_tokens) for SPEC_LENS: padding tokens, an
    out-of-range slot and a padding sequence among distinct live slots."""
    si = distinct_slots(rng, slots, (len(SPEC_LENS), SPEC_TCOLS))
    si[0, 1] = -1
    si[2, 3] = slots
    si[5, :] = -1
    si[1, 1:] = -1
    return si, np.array([3, 1, 3, 1, 2, 3], np.int32)


def varlen_case(rng, *, state_layout="vk", state_bf16=False):
    """SPEC_LENS packed with cu_seqlens, three heads, spec_slots' table."""
    N = len(SPEC_LENS)
    cu = np.concatenate([[0], np.cumsum(SPEC_LENS)]).astype(np.int32)
    slots = 2 * N * SPEC_TCOLS + 3
    inp = make_inputs(rng, int(cu[-1]), 3, slots, state_bf16=state_bf16,
                      state_layout=state_layout)
    si, acc = spec_slots(rng, slots)
    return inp, si, cu, acc


# ---------------------------------------------------------------------------------------------
# Numerics


@requires_lib
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("state_layout,state_bf16", [("vk", False), ("kv", True),
                                                     ("kv", False), ("vk", True)])
def test_varlen_spec_decode(state_layout, state_bf16, backend):
    """Varlen tokens, per-token slots, num_accepted_tokens, padding tokens and a padding
    sequence, in one call."""
    rng = np.random.default_rng(7 + state_bf16 + 2 * (state_layout == "kv"))
    inp, si, cu, acc = varlen_case(rng, state_layout=state_layout, state_bf16=state_bf16)
    o = check(inp, si, backend, cu_seqlens=cu, num_accepted_tokens=acc,
              state_layout=state_layout)
    pad = np.zeros(int(cu[-1]), bool)
    pad[cu[0] + 1] = pad[cu[2] + 3] = True
    pad[cu[5]:cu[6]] = True
    assert (o[pad] == 0.0).all() and (np.abs(o[~pad]).sum(axis=(1, 2)) > 0).all()


@requires_lib
@pytest.mark.parametrize("state_layout", ["vk", "kv"])
def test_beta_per_value_channel(state_layout):
    """beta [.., HV, V] (logits, one per value channel) in the speculative-decoding batch."""
    rng = np.random.default_rng(31)
    inp, si, cu, acc = varlen_case(rng, state_layout=state_layout)
    inp["beta"] = f32_to_bf16(rng.standard_normal(inp["v"].shape).astype(np.float32))
    check(inp, si, cu_seqlens=cu, num_accepted_tokens=acc, state_layout=state_layout)


@requires_lib
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("state_layout,state_bf16", [("vk", False), ("kv", True)])
def test_final_state_only(state_layout, state_bf16, backend):
    """final_state_only: the outputs of every token, and only each sequence's last live
    token's slot written (with the state every-token writing leaves there): varlen tokens,
    num_accepted_tokens, padding tokens, an out-of-range slot and a padding sequence."""
    rng = np.random.default_rng(21 + state_bf16)
    inp, si, cu, acc = varlen_case(rng, state_layout=state_layout, state_bf16=state_bf16)
    before = inp["state"].copy()
    kw = dict(cu_seqlens=cu, num_accepted_tokens=acc, state_layout=state_layout)
    every = dict(inp, state=before.copy())
    want_o = call(every, si, backend, **kw)
    got_o = call(inp, si, backend, final_state_only=True, **kw)
    np.testing.assert_array_equal(got_o, want_o)
    slots = before.shape[0]
    want = before.copy()
    for n in range(len(cu) - 1):
        if not 0 <= si[n, acc[n] - 1] < slots:
            continue  # a padding sequence writes nothing
        live = [si[n, t] for t in range(min(cu[n + 1] - cu[n], si.shape[1]))
                if 0 <= si[n, t] < slots]
        if live:
            want[live[-1]] = every["state"][live[-1]]
    np.testing.assert_array_equal(inp["state"], want)
    assert not np.array_equal(want, before)


@requires_lib
@pytest.mark.parametrize("state_layout", ["vk", "kv"])
def test_every_num_accepted(state_layout):
    """[N, T, H, D] inputs: sequence n starts from column num_accepted[n] - 1, every value
    1..T; then the same in varlen form (lengths 1..T, int64 offsets and counts)."""
    rng = np.random.default_rng(11)
    H, T = 2, 4
    N = T
    slots = N * T + 5
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T), state_layout=state_layout)
    si = distinct_slots(rng, slots, (N, T))
    check(inp, si, num_accepted_tokens=np.arange(1, T + 1, dtype=np.int32),
          state_layout=state_layout)
    lens = np.array([4, 1, 3, 2])
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    inp = make_inputs(rng, int(cu[-1]), H, slots, state_layout=state_layout)
    acc = np.array([2, 4, 1, 3], np.int64)
    check(inp, si.astype(np.int64), cu_seqlens=cu, num_accepted_tokens=acc,
          state_layout=state_layout, ref_indices=si)


@requires_lib
@pytest.mark.parametrize("H,N,T,state_bf16", [(12, 8, 3, False), (32, 33, 1, True),
                                              (12, 3, 2, True), (32, 1, 4, False)])
def test_model_shapes(H, N, T, state_bf16):
    """The decode's head counts and batches (Kimi-K3 at TP8: H = 12; Kimi-Linear: H = 32; N in
    {1, 3, 8, 33}) with per-token slots, num_accepted values 1, 2, ... in turn, a padding token
    (T > 1) and a padding sequence (N > 1). (CPU target: BV = V.)"""
    rng = np.random.default_rng(100 * H + N)
    slots = N * T + 3
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T), state_bf16=state_bf16)
    si = distinct_slots(rng, slots, (N, T))
    acc = (np.arange(N) % T + 1).astype(np.int32)
    if N > 1:
        si[1, :] = -1  # a padding sequence
    if T > 1:
        si[0, acc[0] % T] = slots  # a padding token (not the starting column)
    check(inp, si, num_accepted_tokens=acc)


SWITCHES = [(l2, gate, bs) for l2 in (True, False) for gate in ("lb", "sp", None)
            for bs in (True, False)]


@requires_lib
@pytest.mark.parametrize("use_qk_l2norm,gate,use_beta_sigmoid", SWITCHES)
def test_switches(use_qk_l2norm, gate, use_beta_sigmoid):
    """L2-norm on/off (scale 0.5 when off), gate with a lower bound / softplus / off (g already
    the log decay, A_log and dt_bias not given), beta sigmoid on/off."""
    rng = np.random.default_rng(17)
    H, T, N = 2, 3, 2
    slots = N * T + 1
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T), unit_qk=not use_qk_l2norm,
                      use_gate=gate is not None, use_beta_sigmoid=use_beta_sigmoid,
                      g_bf16=gate is not None, beta_bf16=use_beta_sigmoid)
    si = distinct_slots(rng, slots, (N, T))
    check(inp, si, num_accepted_tokens=np.array([2, 3], np.int32),
          scale=None if use_qk_l2norm else 0.5,
          lower_bound={"lb": -5.0, "sp": None, None: None}[gate], use_qk_l2norm=use_qk_l2norm,
          use_gate=gate is not None, use_beta_sigmoid=use_beta_sigmoid)


@requires_lib
def test_plain_decode_1d_table_and_fp32_inputs():
    """T = 1 with no num_accepted_tokens (plain decode); one sequence with a 1-D slot table
    (read as [1, T]); fp32 q, k, v (fp32 out); dt_bias as [H, K]; a preallocated out."""
    rng = np.random.default_rng(13)
    H, N = 4, 3
    slots = 8
    inp = make_inputs(rng, N, H, slots, lead=(N, 1))
    si = np.array([[5], [-5], [0]], np.int32)
    o = check(inp, si)
    assert (o[1] == 0.0).all() and (o[[0, 2]] != 0.0).any()
    inp = make_inputs(rng, 3, H, slots, lead=(1, 3))
    inp["dt_bias"] = inp["dt_bias"].reshape(H, 128)
    for name in ("q", "k", "v"):
        inp[name] = widen(inp[name])
    out = np.full(inp["v"].shape, np.nan, np.float32)
    check(inp, np.array([2, 7, 0], np.int32), out=out)
    assert np.isfinite(out).all()


@requires_lib
def test_packed_qkv_and_noncontiguous_inputs():
    """q, k, v as splits of one packed [tokens, 3*H*D] tensor are read through their token
    stride; a transposed g and a strided beta are copied; a pool whose slots carry extra
    storage (slot stride > H*D*D) is used in place."""
    rng = np.random.default_rng(19)
    H, slots = 2, 9
    lens = [2, 3, 1]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    inp = make_inputs(rng, int(cu[-1]), H, slots, packed_qkv=True)
    assert not inp["q"].flags.c_contiguous
    inp["g"] = np.ascontiguousarray(inp["g"].transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    inp["beta"] = np.repeat(inp["beta"], 2, axis=-1)[..., ::2]
    pool = np.zeros((slots, H * 128 * 128 + 64), np.float32)
    pool[:, :H * 128 * 128] = inp["state"].reshape(slots, -1)
    inp["state"] = pool[:, :H * 128 * 128].reshape(slots, H, 128, 128)
    si = distinct_slots(rng, slots, (3, 3))
    check(inp, si, cu_seqlens=cu, num_accepted_tokens=np.array([1, 3, 2], np.int32))
    assert not pool[:, H * 128 * 128:].any()  # the per-slot extra storage is never written


@requires_lib
def test_float_parameters_do_not_compile():
    """scale and lower_bound are runtime arguments: several values cost at most one compile."""
    rng = np.random.default_rng(9)
    inp = make_inputs(rng, 2, 1, 5, lead=(2, 1))
    si = np.array([[0], [3]], np.int32)
    call(inp, si)  # compiled (or found) before counting
    before = kt.cache_stats()["compiles"]
    for scale, lb in ((0.1, -5.0), (0.25, -3.0), (1.0, -7.5), (None, -1.0)):
        check(inp, si, scale=scale, lower_bound=lb)
    assert kt.cache_stats()["compiles"] - before <= 1


@requires_lib
def test_empty_calls():
    """No sequences or no tokens: an empty out, no launch, the pool untouched."""
    rng = np.random.default_rng(3)
    inp = make_inputs(rng, 0, 1, 4, lead=(0, 2))
    before = inp["state"].copy()
    assert call(inp, np.zeros((0, 2), np.int32)).shape == (0, 2, 1, 128)
    np.testing.assert_array_equal(inp["state"], before)
    inp = make_inputs(rng, 0, 1, 4)
    before = inp["state"].copy()
    out = call(inp, np.zeros((2, 3), np.int32), cu_seqlens=np.zeros(3, np.int32))
    assert out.shape == (1, 0, 1, 128)
    np.testing.assert_array_equal(inp["state"], before)


@requires_lib
def test_capture_skips_host_checks(monkeypatch):
    """While a CUDA graph is captured the value checks (num_accepted_tokens range, cu_seqlens,
    duplicates) are skipped: out-of-range counts reach the kernel, which clamps them."""
    from kdatile.ops import recurrent

    rng = np.random.default_rng(12)
    H, T, N = 2, 3, 4
    slots = N * T + 2
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T))
    si = distinct_slots(rng, slots, (N, T))
    monkeypatch.setattr(recurrent.vd, "is_capturing", lambda info: True)
    check(inp, si, num_accepted_tokens=np.array([0, -7, T + 1, 1 << 30], np.int32),
          ref_accepted=np.array([1, 1, T, T], np.int32), check_duplicate_slots=True)


@requires_lib
def test_duplicate_slots_opt_in():
    """A live slot shared by two sequences raises with check_duplicate_slots=True; one sequence
    reusing a slot, padding, and columns its tokens never use are fine."""
    rng = np.random.default_rng(21)
    H, slots = 1, 10
    cu = np.array([0, 2, 3], np.int32)
    inp = make_inputs(rng, 3, H, slots)
    si = np.array([[4, 4, 7], [-1, 7, 1]], np.int32)  # row 1 is padding (start -1)
    check(inp, si, cu_seqlens=cu, check_duplicate_slots=True)
    si = np.array([[4, 5, 9], [2, 9, 9]], np.int32)  # 9: column 2 of row 0 is unused
    check(inp, si, cu_seqlens=cu, check_duplicate_slots=True)
    si = np.array([[4, 5, 9], [5, 9, 9]], np.int32)
    with pytest.raises(ValueError, match="argument 'state_indices'.*live slot 5"):
        call(inp, si, cu_seqlens=cu, check_duplicate_slots=True)
    call(inp, si, cu_seqlens=cu)  # undefined result, but unchecked unless asked for


@requires_lib
def test_state_pool_over_4_gib():
    """Slot offsets are 64-bit: a slot past 2**31 elements of an 8.6 GB pool (allocated
    lazily) gives bit-identical results to the same data in a small pool."""
    rng = np.random.default_rng(4)
    slots = 131075
    big = slots - 2
    small = make_inputs(rng, 2, 1, 3, lead=(1, 2))
    try:
        pool = np.zeros((slots, 1, 128, 128), np.float32)
    except MemoryError:
        pytest.skip("cannot reserve 8.6 GB of address space")
    pool[big - 1:big + 1] = small["state"][1:3]
    big_inp = dict(small, state=pool)
    out_big = call(big_inp, np.array([big, big - 1], np.int32))
    out_small = call(small, np.array([2, 1], np.int32))
    np.testing.assert_array_equal(out_big, out_small)
    np.testing.assert_array_equal(pool[big - 1:big + 1], small["state"][1:3])
    assert not pool[:2].any() and not pool[-1].any()


@requires_lib
def test_token_offsets_past_2_31():
    """Token offsets are 64-bit: q read through a token stride of 2**31 + 128 elements (an
    8.6 GB storage allocated lazily; only two tokens' pages are touched) gives the same result
    as a contiguous q."""
    rng = np.random.default_rng(6)
    inp = make_inputs(rng, 2, 1, 3, lead=(1, 2))
    try:
        storage = np.zeros((2, 2**31 + 128), np.uint16)
    except MemoryError:
        pytest.skip("cannot reserve 8.6 GB of address space")
    storage[:, :128] = inp["q"].reshape(2, 128)
    far = storage[:, :128].reshape(1, 2, 1, 128)
    assert far.strides[1] // 2 == 2**31 + 128
    state = inp["state"].copy()
    out_far = call(dict(inp, q=far), np.array([1, 2], np.int32))
    far_state = inp["state"].copy()
    inp["state"][...] = state
    out_near = call(inp, np.array([1, 2], np.int32))
    np.testing.assert_array_equal(out_far, out_near)
    np.testing.assert_array_equal(far_state, inp["state"])


# ---------------------------------------------------------------------------------------------
# Bad inputs (docs/kda.md): each raises ValueError naming the argument before any launch.


@pytest.fixture
def no_launch(monkeypatch):
    from kdatile.ops import recurrent

    def boom(*a, **k):
        raise AssertionError("the kernel was reached")

    monkeypatch.setattr(recurrent, "load_kernel", boom)


def base(N=2, T=2, H=1, slots=6, varlen=False):
    """Valid arguments (a dict of keywords) for a small call."""
    rng = np.random.default_rng(0)
    if varlen:
        inp = make_inputs(rng, N * T, H, slots)
    else:
        inp = make_inputs(rng, N * T, H, slots, lead=(N, T))
    args = dict(q=inp["q"], k=inp["k"], v=inp["v"], g=inp["g"], beta=inp["beta"],
                A_log=inp["A_log"], dt_bias=inp["dt_bias"], initial_state=inp["state"],
                state_indices=np.arange(N * T, dtype=np.int32).reshape(N, T),
                lower_bound=-5.0)
    if varlen:
        args["cu_seqlens"] = np.arange(0, N * T + 1, T, dtype=np.int32)
    return args


def rejects(args, name, match=""):
    with pytest.raises(ValueError, match=f"argument '{name}'{match}"):
        ops.kda_recurrent(**args)


ARRAYS = ["q", "k", "v", "g", "beta", "A_log", "dt_bias", "initial_state", "state_indices"]


@pytest.mark.parametrize("name", ARRAYS[1:] + ["cu_seqlens", "num_accepted_tokens", "out"])
def test_array_on_another_device(no_launch, monkeypatch, name):
    """One argument on another device than q (its metadata says cuda:0) is rejected naming
    it, before anything is launched."""
    fake_device(monkeypatch, [name])
    args = base(varlen=True)
    args["num_accepted_tokens"] = np.ones(2, np.int32)
    args["out"] = np.zeros(args["v"].shape, np.uint16)
    rejects(args, name, ".*'cuda:0'")


@pytest.mark.parametrize("name", ARRAYS)
@pytest.mark.parametrize("problem", BAD_ARRAY_PROBLEMS)
def test_bad_array(no_launch, name, problem):
    args = base()
    args[name] = bad_array(args[name], problem)
    # q and v set K and V (any sizes up to 256): a column more is then the mismatch of the
    # arrays shaped after them, named by its first.
    partner = {"q": "k", "v": "initial_state"}
    rejects(args, partner[name] if problem == "size" and name in partner else name)


@pytest.mark.parametrize("name", ["q", "k", "v", "g", "beta", "initial_state",
                                  "state_indices"])
def test_missing_required(no_launch, name):
    args = base()
    args[name] = None
    rejects(args, name, ".*required")


def test_1d_table_with_several_sequences(no_launch):
    """A 1-D per-token table with N > 1 is rejected, never read with a guessed stride (N = 1
    reads it as [1, T]: test_plain_decode_1d_table_and_fp32_inputs)."""
    args = base(N=2, T=2)
    args["state_indices"] = np.arange(4, dtype=np.int32)
    rejects(args, "state_indices", ".*1-D.*N = 2")
    args["state_indices"] = np.arange(2, dtype=np.int32)  # [N] (one slot per sequence)
    rejects(args, "state_indices", ".*1-D")


@pytest.mark.parametrize("name", ["initial_state", "out"])
def test_read_only_arrays_written_in_place(no_launch, name, tmp_path):
    args = base()
    if name == "out":
        args["out"] = np.zeros(args["v"].shape, args["q"].dtype)
    np.save(tmp_path / "a.npy", np.ascontiguousarray(args[name]))
    args[name] = np.load(tmp_path / "a.npy", mmap_mode="r")
    rejects(args, name, ": is read-only")


@pytest.mark.parametrize("name,value,why", [
    ("lower_bound", 1e39, "not finite in float32"), ("lower_bound", 5.0, "must be < 0"),
    ("lower_bound", 0.0, "must be < 0"), ("scale", 1e39, "not finite in float32"),
    ("scale", 1e-50, "is 0 in float32"), ("scale", float("nan"), "must be finite")])
def test_float_parameters_as_float32(no_launch, name, value, why):
    """scale and lower_bound reach the kernel as float32: inf or 0 there, and a lower bound
    that would not decay, are rejected naming the argument."""
    rejects(dict(base(), **{name: value}), name, f".*{why}")


@pytest.mark.parametrize("name", ["A_log", "dt_bias", "lower_bound"])
def test_gate_parameters_without_gate(no_launch, name):
    args = base()
    keep = args[name]
    for other in ("A_log", "dt_bias", "lower_bound"):
        args[other] = None
    args[name] = keep
    rejects(dict(args, use_gate=False), name, ".*use_gate=False")


def test_gate_without_parameters(no_launch):
    """The softplus form needs A_log."""
    args = base()
    args.update(A_log=None, lower_bound=None)
    rejects(args, "A_log", ".*use_gate=True unless lower_bound is given")


def test_lower_bound_gate_parameters_optional():
    """The lower-bound form takes A_log (a rate of 1) and dt_bias (no bias) as optional, as
    chunk_kda and FLA's ops do: neither pointer is then read."""
    from kdatile.ops.recurrent import recurrent_launch

    for name, constexpr in (("A_log", "HAS_A_LOG"), ("dt_bias", "HAS_DT_BIAS")):
        args = base()
        args[name] = None
        launch = recurrent_launch(**args)[1]
        assert launch.constexprs[constexpr] is False and launch.constexprs["USE_GATE"]


@pytest.mark.parametrize("varlen", [False, True])
@pytest.mark.parametrize("value", [0, -1, 3, 2**40])
def test_num_accepted_out_of_range(no_launch, varlen, value):
    """Values outside [1, T] (T = the table's columns, 2) are rejected on the host."""
    args = base(varlen=varlen)
    args["num_accepted_tokens"] = np.array([1, value], np.int64)
    rejects(args, "num_accepted_tokens", ".*\\[1, T = 2\\]")


def test_num_accepted_shape_and_dtype(no_launch):
    args = base()
    args["num_accepted_tokens"] = np.array([1, 2, 1], np.int32)
    rejects(args, "num_accepted_tokens", ".*shape")
    args["num_accepted_tokens"] = np.array([1.0, 2.0], np.float32)
    rejects(args, "num_accepted_tokens", ".*dtype")


@pytest.mark.parametrize("cu,what", [
    ([1, 2, 4], "start at 0"), ([0, 2, 3], "end at T_total = 4"), ([0, 3, 2, 4], "N=3"),
    ([0, 3, 1], "end at"), ([[0, 2, 4]], "1-D"),
])
def test_bad_cu_seqlens_values(no_launch, cu, what):
    args = base(varlen=True)
    args["cu_seqlens"] = np.array(cu, np.int32)
    rejects(args, "state_indices" if what == "N=3" else "cu_seqlens", f".*{what}")


def test_cu_seqlens_decreasing_and_dtype(no_launch):
    args = base(N=3, T=2, varlen=True)
    args["cu_seqlens"] = np.array([0, 4, 2, 6], np.int64)
    rejects(args, "cu_seqlens", ".*non-decreasing")
    for dt in (np.float32, np.int16, np.uint32):
        args["cu_seqlens"] = np.array([0, 2, 4, 6], dt)
        rejects(args, "cu_seqlens", ".*dtype")


def test_cu_seqlens_needs_packed_tokens(no_launch):
    args = base(N=2, T=2)
    args["cu_seqlens"] = np.array([0, 2, 4], np.int32)
    rejects(args, "q", ".*\\[1, T_total, H, K\\]")


def test_varlen_table_without_columns(no_launch):
    args = base(varlen=True)
    args["state_indices"] = np.zeros((2, 0), np.int32)
    rejects(args, "state_indices", ".*at least one column")


@pytest.mark.parametrize("layout", ["VK", "auto", None, 1])
def test_state_layout_explicit(no_launch, layout):
    rejects(dict(base(), state_layout=layout), "state_layout")


def test_state_not_dense(no_launch):
    """Each slot must be dense; a transposed [K, V] view is not a layout (state_layout is)."""
    args = base()
    st = args["initial_state"]
    args["initial_state"] = st.transpose(0, 1, 3, 2)
    rejects(args, "initial_state", ".*dense")
    args["initial_state"] = np.zeros(st.shape[:-1] + (256,), np.float32)[..., ::2]
    rejects(args, "initial_state", ".*dense")
    # Slots overlapping each other (slot stride smaller than a slot): written in place.
    args["initial_state"] = np.lib.stride_tricks.as_strided(st, st.shape,
                                                            (4 * 64,) + st.strides[1:])
    rejects(args, "initial_state", ".*share memory")


def test_state_layout_shape_mismatch(no_launch):
    """K != V: the state's shape must follow state_layout."""
    args = base()
    args["q"] = args["q"][..., :64]
    args["k"] = args["k"][..., :64]
    args["g"] = np.ascontiguousarray(args["g"][..., :64])
    args["dt_bias"] = args["dt_bias"][:64]
    args["initial_state"] = np.zeros((6, 1, 64, 128), np.float32)  # [K, V], declared "vk"
    rejects(args, "initial_state", ".*state_layout='vk'")


def test_qkv_dtypes_must_match(no_launch):
    args = base()
    args["v"] = widen(args["v"])
    rejects(args, "v", ".*match q")


def test_head_dim_not_supported(no_launch):
    args = base()
    for name in ("q", "k", "g"):
        args[name] = np.zeros(args[name].shape[:-1] + (320,), args[name].dtype)
    rejects(args, "q", ".*K = 320 is not supported \\(1 to 256\\)")


@pytest.mark.parametrize("name,value", [("scale", 0.0), ("scale", -1.0), ("scale", float("nan")),
                                        ("lower_bound", float("inf")), ("lower_bound", "-5"),
                                        ("use_gate", 1), ("use_qk_l2norm", None),
                                        ("use_beta_sigmoid", "yes"),
                                        ("check_duplicate_slots", 0)])
def test_bad_scalars(no_launch, name, value):
    rejects(dict(base(), **{name: value}), name)


def test_bad_out(no_launch):
    args = base()
    shape = args["v"].shape
    for out, what in [(np.zeros(shape, np.float32), "dtype"),
                      (np.zeros(shape[:-1] + (64,), np.uint16), "shape"),
                      (np.zeros(shape[:-1] + (256,), np.uint16)[..., ::2], "contiguous"),
                      (np.zeros(shape[1:], np.uint16), "4-D")]:
        rejects(dict(args, out=out), "out", f".*{what}")


@pytest.mark.parametrize("victim", ["q", "v", "beta", "state_indices", "initial_state"])
def test_out_overlapping(no_launch, victim):
    args = base()
    a = args[victim]
    n_out = int(np.prod(args["v"].shape))
    bits = a.view(np.uint8).reshape(-1)
    off = min(64, bits.size // 2) & ~1  # out starts inside the victim
    buf = np.zeros(bits.size + 2 * n_out + 64, np.uint8)
    buf[:bits.size] = bits
    args[victim] = buf[:bits.size].view(a.dtype).reshape(a.shape)
    out = buf[off:off + 2 * n_out].view(np.uint16).reshape(args["v"].shape)
    rejects(dict(args, out=out), "out", f".*overlaps.*'{victim}'")


def test_state_aliasing_an_input(no_launch):
    """q read from the pool's memory (written by the same launch) is rejected."""
    args = base()
    st = args["initial_state"]
    args["q"] = st.reshape(-1).view(np.uint16)[:args["q"].size].reshape(args["q"].shape)
    rejects(args, "initial_state", ".*overlaps.*'q'")


def test_state_indices_dtype_and_shape(no_launch):
    args = base()
    for dt in (np.int16, np.float32, np.uint32):
        args["state_indices"] = np.zeros((2, 2), dt)
        rejects(args, "state_indices", ".*dtype")
    args["state_indices"] = np.zeros((2, 3), np.int32)  # not varlen: columns must be T
    rejects(args, "state_indices", ".*\\[N, T\\]")


def test_launch_configuration(monkeypatch):
    """The CPU target runs BV = V (grid (N, H, 1)); a GPU launch splits V into BV = 32 blocks
    (grid (N, H, V // 32)) with 2 warps when the sequences average more than one token, else
    4 and the starting state prefetched where block copies run on a copy engine. The kernel is
    replaced by a recorder."""
    from kdatile.ops import recurrent

    launches = []

    class Recorder:
        def __getitem__(self, grid):
            def launch(*args, **kw):
                launches.append((grid, kw))
            return launch

    monkeypatch.setattr(recurrent, "load_kernel", lambda *a: Recorder())
    args = base(N=3, T=2, H=2)
    ops.kda_recurrent(**args)
    grid, kw = launches[-1]
    assert grid == (3, 2, 1) and kw["BV"] == 128 and "num_warps" not in kw
    assert not kw["PREFETCH_STATE"]
    fake_device(monkeypatch)
    monkeypatch.setattr(recurrent, "has_block_copy_engine", lambda ref, target: True)
    ops.kda_recurrent(**args)  # 2 tokens per sequence: 2 warps, no prefetch
    grid, kw = launches[-1]
    assert grid == (3, 2, 4) and kw["BV"] == 32 and kw["num_warps"] == 2
    assert not kw["PREFETCH_STATE"]
    one_token = base(N=3, T=1, H=2)
    ops.kda_recurrent(**one_token)  # one token per sequence: 4 warps, prefetch
    grid, kw = launches[-1]
    assert grid == (3, 2, 4) and kw["num_warps"] == 4 and kw["PREFETCH_STATE"]
    # Where block copies would be register copies, no prefetch.
    monkeypatch.setattr(recurrent, "has_block_copy_engine", lambda ref, target: False)
    ops.kda_recurrent(**one_token)
    assert launches[-1][1]["num_warps"] == 4 and not launches[-1][1]["PREFETCH_STATE"]
    assert [recurrent.gpu_launch_options(*a) for a in ((4, 4), (4, 5), (4, 4, False))] == [
        (4, True), (2, False), (4, False)]
    # Launches prepared for a named target: the prefetch on every GPU (each has an engine).
    monkeypatch.undo()
    # On sm_90a the prefetch of at most 8 sequences goes by the lanes (cp.async), not TMA.
    many = base(N=9, T=1, H=2)
    for target, prefetch, lanes in (("sm_90a", True, True), ("gfx950", True, False),
                                    ("gfx1250", True, False)):
        _, launch = recurrent.recurrent_launch(**one_token, target=target)
        assert launch.num_warps == 4 and launch.constexprs["PREFETCH_STATE"] is prefetch
        assert launch.constexprs["ELEMENT_COPIES"] is lanes
        _, launch = recurrent.recurrent_launch(**many, target=target)
        assert launch.constexprs["PREFETCH_STATE"] and not launch.constexprs["ELEMENT_COPIES"]
        _, launch = recurrent.recurrent_launch(**args, target=target)
        assert launch.num_warps == 2 and not launch.constexprs["PREFETCH_STATE"]
        assert not launch.constexprs["ELEMENT_COPIES"]
    # An explicit configuration may name the copy (None: the rule above).
    for lanes, want in ((False, False), (True, True), (None, True)):
        _, launch = recurrent.recurrent_launch(**one_token, target="sm_90a",
                                               config=(32, 4, True, lanes))
        assert launch.constexprs["ELEMENT_COPIES"] is want
    from kdatile.ops import _kernels

    info = recurrent.vd.ArrayInfo("q", np.zeros(1, np.float32))
    assert [_kernels.has_block_copy_engine(info, t)
            for t in ("sm_90a", "sm_90", "gfx950", "gfx1250")] == [True, True, True, True]
    assert not _kernels.has_block_copy_engine(info, None)  # host arrays


def test_copy_engine_of_the_tensors_gpu(monkeypatch):
    """A CUDA tensor's launch asks its own GPU's target (the current device for a tensor
    without an index): clusters on NVIDIA, not on gfx950; both have a copy engine. torch
    stands in here."""
    import sys
    import types

    from kdatile import gpu
    from kdatile.ops import _kernels

    targets = {0: "sm_90a", 1: "gfx950"}
    monkeypatch.setattr(gpu, "device_target", lambda torch, index: ("x", targets[index]))
    cuda = types.SimpleNamespace(current_device=lambda: 1)
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))

    def tensor_info(index):
        value = types.SimpleNamespace(device=types.SimpleNamespace(index=index))
        return types.SimpleNamespace(device="cuda", is_torch=True, value=value)

    assert _kernels.has_block_copy_engine(tensor_info(0), None)
    assert _kernels.has_block_copy_engine(tensor_info(None), None)  # current device: gfx950
    assert _kernels.has_clusters(tensor_info(0), None)
    assert not _kernels.has_clusters(tensor_info(1), None)
    assert not _kernels.has_clusters(tensor_info(None), None)


@requires_lib
@pytest.mark.parametrize("gate", ["lb", "sp"])
def test_gate_rates_past_fp32_range(gate):
    """A_log = 95 (exp(A_log) overflows fp32) with biased gates of exactly 0 and of -110 (an
    underflowed softplus): no inf * 0 = NaN, the recurrence's values."""
    rng = np.random.default_rng(23)
    H, T, N = 2, 3, 2
    slots = N * T + 1
    inp = make_inputs(rng, N * T, H, slots, lead=(N, T), use_gate=True, g_bf16=False)
    inp["A_log"][:] = 95.0
    inp["dt_bias"][...] = 0.0
    g = inp["g"]
    g[0, 0] = 0.0
    g[0, 1, :, ::2] = -110.0
    g[1, 2, :, 1::2] = 0.0
    check(inp, distinct_slots(rng, slots, (N, T)), num_accepted_tokens=np.array([2, 3], np.int32),
          lower_bound=-5.0 if gate == "lb" else None)
