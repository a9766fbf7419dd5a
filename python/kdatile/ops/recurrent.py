"""KDA multi-token recurrent core: a validated wrapper around kernels/kda_recurrent.py (FLA
`fused_recurrent_kda_fwd` semantics; see docs/ops.md and docs/kda.md, "Several tokens per
sequence").

One launch per call, grid (N, H, V // BV): per sequence and head, the starting state is read
from state_indices[n, num_accepted_tokens[n] - 1], every token's state is written to its own
slot state_indices[n, t], and o[t] = S_t q_t.
"""

from __future__ import annotations

from typing import NamedTuple

from . import validation as vd
from ._kernels import (
    Launch,
    bind,
    check_target,
    execute,
    gpu_target,
    has_block_copy_engine,
    load_kernel,
    on_gpu,
    pow2_at_least,
)
from .validation import F32, FLOATS, INDEX, STATE_LAYOUTS

# Value rows per program on GPUs (bench/bench_kda_recurrent.py on the H200: BV = 32 or 64 is
# fastest; BV = V needs 8 warps on sm_90a). The CPU target always runs BV = V: a split only
# repeats the q/k norms and the gate.
GPU_BV = 32


def gpu_launch_options(num_sequences: int, num_tokens: int,
                       copy_engine: bool = True) -> tuple[int, bool]:
    """(warps, PREFETCH_STATE) of a BV = 32 program on a GPU (measured on the H200,
    docs/performance.md). Several tokens per sequence on average: 2 warps, the state loaded
    directly (with 4 tokens, 2 warps were 0.4-9% faster than 4 at every batch of the
    benchmark, and the prefetch gained at 2 batches of 5 and lost up to 7% at the others).
    One: 4 warps (faster from 32 sequences; 2 warps won by 4% at 8) and, where the block copy
    runs on a copy engine (`copy_engine`: TMA on NVIDIA, the Tensor Data Mover on gfx1250, as
    the Gluon seed streams its state, buffer loads into LDS on gfx950), the starting state
    prefetched through shared memory (10-12% faster at one sequence on the H200; on gfx950 the
    T = 1 program takes 50 VGPRs instead of 63)."""
    if num_tokens > num_sequences:
        return 2, False
    return 4, copy_engine


def prefetch_by_lanes(chip, num_sequences: int) -> bool:
    """Whether the prefetch of the starting state (PREFETCH_STATE) copies it with the
    program's lanes (cp.async: ELEMENT_COPIES) rather than the copy engine: on sm_90a for at
    most 8 sequences, where TMA's one issuing thread and every thread's barrier wait cost more
    than 32 lanes' copies already in flight (H200, 1 and 8 sequences of one token: 9% and 4%
    faster; from 32 sequences TMA is 1-7% faster; docs/performance.md)."""
    return chip in ("sm_90a", "sm_90") and num_sequences <= 8


def kda_recurrent(q, k, v, g, beta, *, A_log=None, dt_bias=None, lower_bound=None, scale=None,
                  initial_state, state_indices, cu_seqlens=None, num_accepted_tokens=None,
                  use_qk_l2norm=True, use_gate=True, use_beta_sigmoid=True, state_layout="vk",
                  out=None, check_duplicate_slots=False, final_state_only=False):
    """The KDA recurrent core over several tokens per sequence; returns `out` [.., HV, V].

    q, k [N, T, H, K], v [N, T, HV, V] (one dtype: bf16, fp16 or fp32; HV a multiple of H,
    GVA: value head hv reads q/k head hv // (HV / H)), g [N, T, HV, K] (bf16, fp16 or fp32;
    the raw gate with use_gate, else already the log decay), beta [N, T, HV] or one per value
    channel [N, T, HV, V] (bf16, fp16 or fp32; raw with use_beta_sigmoid, else already in
    (0, 1)). Varlen: the same arrays with a
    leading 1, [1, T_total, ...], and cu_seqlens [N + 1] (int32 or int64, 0 = cu[0] <= ... <=
    cu[N] = T_total). Any token stride (splits of a packed [tokens, channels] tensor are not
    copied); inner dims dense, else copied.

    initial_state [slots, HV, V, K] ("vk") or [slots, HV, K, V] ("kv"), fp32, bf16 or fp16: the
    state pool, updated in place (any slot stride; each slot's [HV, *, *] dense).
    state_indices [N, Tcols] int32 (int64 is converted): token t of sequence n writes its state
    to slot state_indices[n, t]; without cu_seqlens Tcols = T, with it tokens t >= Tcols are
    padding. A slot < 0 or >= slots is padding (zero output, no state written; a padding
    starting slot makes the whole sequence padding). A 1-D table is accepted only for N = 1
    (as [1, Tcols]); with N > 1 it is rejected.
    num_accepted_tokens [N] int32/int64 or None: the starting state is state_indices[n, a - 1]
    with a = num_accepted_tokens[n] (1 when None); values outside [1, Tcols] raise (a host
    check, skipped while a CUDA graph is captured: the kernel clamps them to [1, Tcols]).

    use_gate: g <- lower_bound * sigmoid(exp(A_log) * (g + dt_bias)), or with lower_bound None
    g <- -exp(A_log) * softplus(g + dt_bias); A_log [HV] fp32 (required without lower_bound;
    None: a rate of 1) and dt_bias [HV*K] (or [HV, K]) fp32 or None (no bias), as chunk_kda
    takes them; all three must be None when use_gate is False.
    scale: q's scale (default K ** -0.5), applied after the L2 norm. scale and lower_bound are
    runtime kernel arguments (changing them never compiles).
    state_layout: "vk" or "kv", never guessed from the shape.
    out: None (allocated) or a contiguous array of v's shape and q's dtype, sharing no memory
    with the other arguments.
    check_duplicate_slots: read the slot table on the host and raise ValueError when a live slot
    is used by two sequences (a device sync; skipped while a CUDA graph is captured).
    final_state_only: every token's output, but only the state after each sequence's last live
    token is written (to that token's slot, as without it); the other tokens' slots are left
    alone (one state write per sequence instead of one per token).
    Bad arguments raise ValueError naming the argument, before anything is launched.
    """
    return execute(*_recurrent(**locals()))


def recurrent_launch(*args, target=None, config=None, **kwargs):
    """(out, Launch or None): what kda_recurrent(*args, **kwargs) launches, without launching
    it: the op's own checks and argument preparation. target: None (the arrays' device) or a
    target name ("cpu", "sm_90a", ...); NumPy arrays then stand for GPU tensors (BV = 32 and
    gpu_launch_options on a GPU target), e.g. to export the launch into an AOT bundle. None
    when there is nothing to launch (no sequences or no tokens). config: None (the op's
    launch), or a RecurrentConfig (BV, num_warps, PREFETCH_STATE) to prepare instead, with the
    same arguments: benchmarks and kernel tests of other launches."""
    target = check_target(target)
    return _recurrent(**bind(kda_recurrent, args, kwargs), target=target, config=config)


def gdn_recurrent(q, k, v, g, beta, *, A_log=None, dt_bias=None, scale=None, initial_state,
                  state_indices, cu_seqlens=None, num_accepted_tokens=None, use_qk_l2norm=True,
                  use_gate=False, use_beta_sigmoid=False, allow_neg_eigval=False,
                  state_layout="vk", out=None, check_duplicate_slots=False,
                  final_state_only=False):
    """Gated DeltaNet's multi-token recurrent core: kda_recurrent with one log decay per token
    and value head; returns `out` [.., HV, V].

    g [N, T, HV] ([1, T_total, HV] with cu_seqlens), bf16, fp16 or fp32: the log decay, decaying
    every key channel of the value head's state alike; with use_gate the raw gate, activated in
    the kernel as -exp(A_log) softplus(g + dt_bias) (A_log [HV] fp32; dt_bias [HV] fp32 or
    None). beta [.., HV] or one per value channel [.., HV, V], in (0, 1), or logits with
    use_beta_sigmoid (2 sigmoid(beta) with allow_neg_eigval). Everything else is
    kda_recurrent's: shapes and GVA, varlen, the per-token slot table state_indices [N, Tcols]
    with its padding rules, num_accepted_tokens (speculative decoding), final_state_only, the
    state layouts and the checks (ValueError naming the argument before anything is launched).
    """
    return execute(*_recurrent(**_gdn_arguments(locals())))


def gdn_recurrent_launch(*args, target=None, config=None, **kwargs):
    """(out, Launch or None) of gdn_recurrent(*args, **kwargs), as recurrent_launch."""
    bound = bind(gdn_recurrent, args, kwargs)
    return _recurrent(**_gdn_arguments(bound), target=check_target(target), config=config)


def _gdn_arguments(bound: dict) -> dict:
    """_recurrent's keywords for gdn_recurrent's arguments: g per head, the softplus gate."""
    return dict(bound, lower_bound=None, gate_per_head=True)


def recurrent_slot_per_sequence(q, k, v, g, beta, *, target=None, gate_per_head=False,
                                delta_rule=True, final_out=None, zero_start=False,
                                outputs_only=False, allow_neg_eigval=False,
                                gate_keyword="use_gate", gk=None, gv=None, reverse=False,
                                fla_defaults=False, **kwargs):
    """(out, Launch or None) of kda_recurrent's arguments (keywords) with state_indices [N]:
    one slot per sequence, which every token of the sequence updates (FLA's fused_recurrent
    semantics, see fused_recurrent.py); state_indices=None: sequence n's slot is n (no table
    is read; the pool needs a slot per sequence). gate_per_head: g [.., HV] (Gated DeltaNet);
    delta_rule=False: gated linear attention (beta is not read and may be None). final_out:
    None, or (with final_state_only) a dense fp32 [N, HV, *, *] array in the pool's layout that
    receives each sequence's final state, the pool then only read (FINAL_STATE_OUT).
    outputs_only (with final_state_only, without final_out): no state is written, the pool is
    only read (OUTPUTS_ONLY). zero_start (with final_out or outputs_only, and
    state_indices=None): every sequence starts from the zero state and the pool is not read
    (ZERO_START; initial_state may then be None). allow_neg_eigval: with use_beta_sigmoid,
    beta = 2 sigmoid(beta). gate_per_head with use_gate: A_log, dt_bias [HV]. gk (with
    gate_per_head): log decays per key column [.., HV, K] or None; gv: log decays per value row
    [.., HV, V] or None; reverse (with state_indices=None): each sequence's
    tokens from last to first. fla_defaults: g=None is no decay, beta=None ones."""
    bound = bind(kda_recurrent, (q, k, v, g, beta), kwargs)
    return _recurrent(**bound, target=check_target(target), gate_per_head=gate_per_head,
                      delta_rule=delta_rule, slot_per_sequence=True, final_out=final_out,
                      zero_start=zero_start, outputs_only=outputs_only,
                      allow_neg_eigval=allow_neg_eigval, gate_keyword=gate_keyword, gk=gk,
                      gv=gv, reverse=reverse, fla_defaults=fla_defaults)


def kda_recurrent_records(q, k, v, g, beta, *, A_log=None, dt_bias=None, lower_bound=None,
                          scale=None, initial_state, state_indices, records_in, records_out,
                          num_accepted_tokens=None, cu_seqlens=None, use_qk_l2norm=True,
                          use_gate=True, use_beta_sigmoid=True, state_layout="vk", out=None,
                          check_duplicate_slots=False):
    """kda_recurrent with speculative state kept as per-token records; returns `out`.

    Token t's update is S <- S * e + d k^T: e = exp(g) [K], k the normalized key [K], d [V]
    the delta rule's error term beta (v - S k). Its record (e, k, d), 2K + V fp32 values per
    head, replaces the [V, K] state kda_recurrent would write for it (64x smaller at
    K = V = 128), and the state at any accepted token is rebuilt by replaying records onto the
    committed state.

    state_indices [N] int32/int64: the slot of each sequence (padding as in kda_recurrent):
    initial_state[slot] is its committed state. records_in, records_out [slots, TR, HV,
    2K + V] fp32, contiguous, distinct (alternate them from one step to the next): record t of
    a slot at [slot, t]. num_accepted_tokens [N] (None: all 0), values in [0, TR]: the first
    num_accepted_tokens[n] records of records_in[slot] (the accepted tokens of the previous
    step) are replayed onto the committed state, which is written back; then the step's
    tokens run from it, token t writing its output and records_out[slot, t] (and no state).
    Every sequence has at most TR tokens (checked on the host; under CUDA-graph capture
    records past TR are not written). The other arguments are kda_recurrent's.
    """
    return execute(*_recurrent(**_records_arguments(locals())))


def records_launch(*args, target=None, config=None, **kwargs):
    """(out, Launch or None) of kda_recurrent_records(*args, **kwargs), as recurrent_launch."""
    bound = bind(kda_recurrent_records, args, kwargs)
    return _recurrent(**_records_arguments(bound), target=check_target(target), config=config)


def _records_arguments(bound: dict) -> dict:
    """_recurrent's keywords for kda_recurrent_records' arguments."""
    bound = dict(bound)
    bound["records"] = (bound.pop("records_in"), bound.pop("records_out"))
    return dict(bound, final_state_only=False, slot_per_sequence=True)


class RecurrentConfig(NamedTuple):
    """A recurrent launch's configuration: value rows per program (BV), warps per program
    (None: the default; the CPU target ignores it), whether the starting state is
    prefetched through shared memory (PREFETCH_STATE) and whether the program's lanes copy
    it rather than a copy engine (ELEMENT_COPIES; None: prefetch_by_lanes decides)."""

    block_v: int
    num_warps: int | None
    prefetch_state: bool
    element_copies: bool | None = None


def _recurrent(q, k, v, g, beta, *, A_log, dt_bias, lower_bound, scale, initial_state,
               state_indices, cu_seqlens, num_accepted_tokens, use_qk_l2norm, use_gate,
               use_beta_sigmoid, state_layout, out, check_duplicate_slots, final_state_only,
               target=None, config=None, gate_per_head=False, delta_rule=True,
               slot_per_sequence=False, records=None, final_out=None, zero_start=False,
               outputs_only=False, allow_neg_eigval=False, gate_keyword="use_gate", gk=None,
               gv=None, reverse=False, fla_defaults=False):
    """(out, Launch or None) of kda_recurrent's arguments on `target` (None: the device's).
    gate_keyword: what the caller's API calls use_gate (in its messages). gk: None or log
    decays per key column [.., HV, K] beside a per-head g (GATE_KEY); gv: None or log decays
    per value row [.., HV, V] (GATE_VALUE); reverse: each sequence's tokens last to
    first (REVERSE, one slot per sequence without a table). fla_defaults: FLA's fused-recurrent
    defaults, g=None no decay (HAS_G=False) and beta=None ones (UNIT_BETA), neither read."""
    # The internal modes' combinations (the kernel's static asserts, said before any check).
    if outputs_only and not (final_state_only and final_out is None):
        raise ValueError("outputs_only needs final_state_only and no final_out")
    if zero_start and not (slot_per_sequence and state_indices is None and final_state_only
                           and (final_out is not None or outputs_only)):
        raise ValueError("zero_start needs state_indices=None, final_state_only and final_out "
                         "or outputs_only")
    if reverse and not (slot_per_sequence and state_indices is None):
        raise ValueError("reverse needs one slot per sequence and state_indices=None")
    if config is not None:
        config = RecurrentConfig(*config)
    # Scalars and switches first: cheap, and independent of the arrays.
    state_layout = vd.check_choice("state_layout", state_layout, STATE_LAYOUTS)
    (use_qk_l2norm, use_gate, use_beta_sigmoid, check_duplicate_slots, final_state_only,
     allow_neg_eigval) = (
        vd.check_flag(name, flag) for name, flag in (
            ("use_qk_l2norm", use_qk_l2norm), ("use_gate", use_gate),
            ("use_beta_sigmoid", use_beta_sigmoid),
            ("check_duplicate_slots", check_duplicate_slots),
            ("final_state_only", final_state_only), ("allow_neg_eigval", allow_neg_eigval)))
    if allow_neg_eigval and not use_beta_sigmoid:
        vd.fail("allow_neg_eigval", "requires beta's sigmoid in the kernel (beta is then "
                                    "2 * sigmoid(beta))")
    # The gate is lower_bound * sigmoid(...): a decay needs a negative bound.
    lower_bound = vd.check_float("lower_bound", lower_bound, allow_none=True, below=0.0)
    scale = vd.check_float("scale", scale, allow_none=True)
    if scale is not None and scale <= 0.0:
        vd.fail("scale", f"must be > 0, got {scale}")
    if not use_gate:
        for name, val in (("A_log", A_log), ("dt_bias", dt_bias), ("lower_bound", lower_bound)):
            if val is not None:
                vd.fail(name, f"is given but {gate_keyword}=False (g is then already the log "
                              f"decay); pass None or {gate_keyword}=True")
    else:
        # The bias is optional; the rate exp(A_log) too in KDA's lower-bound form (FLA's
        # ops take them alike), not in the softplus form.
        if A_log is None and (gate_per_head or lower_bound is None):
            vd.fail("A_log", f"is required with {gate_keyword}=True"
                             f"{'' if gate_per_head else ' unless lower_bound is given'} (pass "
                             f"{gate_keyword}=False when g is already the log decay)")

    names = ("q", "k", "v", "g", "beta", "A_log", "dt_bias", "initial_state", "state_indices",
             "cu_seqlens", "num_accepted_tokens", "records_in", "records_out", "out", "gk", "gv")
    optional = ("A_log", "dt_bias", "cu_seqlens", "num_accepted_tokens", "out", "gk", "gv")
    if slot_per_sequence:  # None: slot n for sequence n
        optional += ("state_indices",)
    if not delta_rule or (fla_defaults and not use_beta_sigmoid):
        optional += ("beta",)
    if fla_defaults and not use_gate:
        optional += ("g",)
    if zero_start:  # no pool is read
        optional += ("initial_state",)
    if records is None:
        optional += ("records_in", "records_out")
        records = (None, None)
    values = (q, k, v, g, beta, A_log, dt_bias, initial_state, state_indices, cu_seqlens,
              num_accepted_tokens) + tuple(records) + (out, gk, gv)
    a = {n: vd.describe(n, val, optional=n in optional) for n, val in zip(names, values)}
    with_records = a["records_in"] is not None
    ref = a["q"]
    for info in a.values():
        if info is not None:
            vd.check_device(info, ref)
    for name in ("initial_state", "records_out", "out"):  # written in place
        # With final_out or outputs_only the pool is only read.
        if name != "initial_state" or (final_out is None and not outputs_only):
            vd.check_writable(a[name])

    # q fixes the token shape, H and K; v fixes V.
    qi = a["q"]
    vd.check_rank(qi, "[N, T, H, K]", 4)
    lead0, lead1, H, K = qi.shape
    vd.check_any_head_dim(K, "q", "K")
    if H < 1:
        vd.fail("q", f"needs at least one head, got shape {list(qi.shape)}")
    vd.check_dtype(qi, FLOATS)
    varlen = a["cu_seqlens"] is not None
    if varlen and lead0 != 1:
        vd.fail("q", f"with cu_seqlens the tokens are packed as [1, T_total, H, K], got shape "
                    f"{list(qi.shape)}")
    layout_qk = "[1, T_total, H, K]" if varlen else "[N, T, H, K]"
    lead = "[1, T_total" if varlen else "[N, T"
    why = f" (from q {list(qi.shape)})"
    vd.check_shape(a["k"], layout_qk, qi.shape, why)
    vi = a["v"]
    vd.check_rank(vi, f"{lead}, HV, V]", 4)
    HV, V = vi.shape[2], vi.shape[3]
    vd.check_shape(vi, f"{lead}, HV, V]", (lead0, lead1, HV, V), why)
    if HV < H or HV % H:
        vd.fail("v", f"its heads HV = {HV} must be a multiple of q's H = {H} (GVA)")
    vd.check_any_head_dim(V, "v", "V")
    why_v = f" (from q {list(qi.shape)}, HV = {HV} from v)"
    if a["gk"] is not None and not gate_per_head:
        raise ValueError("gk needs a per-head g (gate_per_head)")
    # The log decays given (g None: no decay, fla_defaults): g per head or per key column, gk
    # per key column, gv per value row.
    decays = {"g": ("HV]", (HV,)) if gate_per_head else ("HV, K]", (HV, K)),
              "gk": ("HV, K]", (HV, K)), "gv": ("HV, V]", (HV, V))}
    for name, (dims, inner) in decays.items():
        if a[name] is not None:
            vd.check_shape(a[name], f"{lead}, {dims}", (lead0, lead1) + inner, why_v)
            vd.check_dtype(a[name], FLOATS)
    bi = a["beta"]
    beta_per_value = bi is not None and bi.ndim == 4
    if beta_per_value:  # one beta per value channel
        vd.check_shape(bi, f"{lead}, HV, V]", (lead0, lead1, HV, V), why_v)
    elif bi is not None:
        if bi.ndim != 3:
            vd.fail("beta", f"expected {lead}, HV] or, one per value channel, {lead}, HV, V], "
                            f"got a {bi.ndim}-D array of shape {list(bi.shape)}")
        vd.check_shape(bi, f"{lead}, HV]", (lead0, lead1, HV), why_v)
    if bi is not None:
        vd.check_dtype(bi, FLOATS)
    for name in ("k", "v"):
        if a[name].dtype != qi.dtype:
            vd.fail(name, f"dtype must match q's ({qi.value.dtype}), got {a[name].value.dtype}")
    if use_gate:
        if a["A_log"] is not None:
            vd.check_shape(a["A_log"], "[HV]", (HV,), f" (HV={HV} from v)")
            vd.check_dtype(a["A_log"], F32)
        dt = a["dt_bias"]
        if dt is not None:
            if gate_per_head:  # one bias per value head
                vd.check_shape(dt, "[HV]", (HV,), f" (HV={HV} from v)")
            elif dt.ndim == 2:
                vd.check_shape(dt, "[HV, K]", (HV, K), f" (HV={HV} from v, K={K} from q)")
            else:
                vd.check_shape(dt, "[HV*K]", (HV * K,), f" (HV={HV} from v, K={K} from q)")
            vd.check_dtype(dt, F32)

    # The state pool.
    st = a["initial_state"]
    inner = (V, K) if state_layout == "vk" else (K, V)
    head = inner[0] * inner[1]
    if st is not None:
        st_layout = "[slots, HV, V, K]" if state_layout == "vk" else "[slots, HV, K, V]"
        vd.check_rank(st, st_layout, 4)
        vd.check_shape(st, st_layout, (st.shape[0], HV) + inner,
                      f" (K={K} from q, HV={HV} and V={V} from v, state_layout='{state_layout}')")
        vd.check_dtype(st, FLOATS)
        if (HV > 1 and st.strides[1] != head) or st.strides[2] != inner[1] or st.strides[3] != 1:
            vd.fail("initial_state", f"each slot must be a dense [HV, {inner[0]}, {inner[1]}] "
                                    f"block (strides (*, {head}, {inner[1]}, 1) in elements; "
                                    f"use state_layout for the other layout), got strides "
                                    f"{st.strides}")
        vd.check_positive_strides(st, st_layout)

    # Sequences: N and the token count per sequence.
    if varlen:
        cu = a["cu_seqlens"]
        vd.check_rank(cu, "[N + 1]", 1)
        if cu.shape[0] < 1:
            vd.fail("cu_seqlens", "needs at least one entry (cu_seqlens[0] = 0)")
        vd.check_dtype(cu, INDEX)
        N = cu.shape[0] - 1
        T_total = lead1
    else:
        N, T_total = lead0, lead0 * lead1
    idx = a["state_indices"]
    sequence_slots = slot_per_sequence and idx is None
    slots = N if st is None else st.shape[0]  # no pool (ZERO_START): one per sequence
    if sequence_slots:
        if slots < N:
            vd.fail("initial_state", f"holds {slots} slots, fewer than the N = {N} sequences "
                                     "(without state_indices sequence n uses slot n)")
    elif slot_per_sequence:
        vd.check_shape(idx, "[N]", (N,), f" (N={N} from {'cu_seqlens' if varlen else 'q'})")
        idx = vd.ArrayInfo("state_indices", idx.value.reshape(N, 1))
        a["state_indices"] = idx
    elif idx.ndim == 1:
        if N != 1:
            vd.fail("state_indices", f"a 1-D table is ambiguous with N = {N} sequences: pass the "
                                    f"per-token table as a 2-D [N, T] array (shape "
                                    f"{list(idx.shape)} is never read with a guessed stride)")
        idx = vd.ArrayInfo("state_indices", idx.value.reshape(1, -1))
        a["state_indices"] = idx
    if not sequence_slots:
        vd.check_rank(idx, "[N, T]", 2)
    if slot_per_sequence:
        Tcols = 1
    elif varlen:
        Tcols = idx.shape[1]
        vd.check_shape(idx, "[N, Tcols]", (N, Tcols), f" (N={N} from cu_seqlens)")
        if Tcols < 1 and N > 0:
            vd.fail("state_indices", f"needs at least one column, got shape {list(idx.shape)}")
    else:
        Tcols = lead1
        vd.check_shape(idx, "[N, T]", (N, Tcols), why)
    if not sequence_slots:
        vd.check_dtype(idx, INDEX)
    na = a["num_accepted_tokens"]
    if na is not None:
        vd.check_shape(na, "[N]", (N,), f" (N={N} from {'cu_seqlens' if varlen else 'q'})")
        vd.check_dtype(na, INDEX)
    # Accepted tokens: the columns of the slot table, or records replayed (0 = none).
    accepted_range = (1, Tcols)
    TR = 0
    if with_records:
        TR = _check_records(a["records_in"], a["records_out"], slots, HV, K, V)
        accepted_range = (0, TR)
        if not varlen and lead1 > TR:
            vd.fail("records_out", f"holds TR = {TR} records per slot, fewer than the T = "
                                   f"{lead1} tokens per sequence (from q {list(qi.shape)})")

    out_shape = (lead0, lead1, HV, V)
    o = a["out"]
    if o is not None:
        vd.check_shape(o, f"{lead}, HV, V]", out_shape, f" (from q {list(qi.shape)} and v)")
        if o.dtype != qi.dtype:
            vd.fail("out", f"dtype must be q's ({qi.value.dtype}), got {o.value.dtype}")
        vd.check_contiguous(o, f"{lead}, HV, V]")
    written = ("out", "records_out", "initial_state")  # out first: named when it overlaps
    reads = [a[n] for n in names if n not in written and a[n] is not None]
    vd.check_no_overlap([a[n] for n in written if a[n] is not None], reads)

    # Values (host reads; a device sync for GPU tensors): skipped during CUDA graph capture.
    capturing = vd.is_capturing(ref)
    if not capturing:
        if varlen:
            vd.check_cu_seqlens(cu, T_total)
        if na is not None:
            vals = vd.host_values(na)
            lo, hi = accepted_range
            bad = (vals < lo) | (vals > hi)
            if bad.any():
                i = int(bad.argmax())
                what = (f"TR = {hi}] (the records per slot" if with_records else
                        f"T = {hi}] (the columns of state_indices")
                vd.fail("num_accepted_tokens", f"values must lie in [{lo}, {what}), got "
                                              f"{int(vals[i])} for sequence {i}")
        if with_records and varlen:
            lens = vd.host_values(cu)
            lens = lens[1:] - lens[:-1]
            if lens.size and int(lens.max()) > TR:
                i = int(lens.argmax())
                vd.fail("records_out", f"holds TR = {TR} records per slot, fewer than the "
                                       f"{int(lens[i])} tokens of sequence {i} (cu_seqlens)")

    # Valid: now the copies and conversions (graph-capturable torch ops for GPU tensors).
    toks = {"g": 0, "beta": 0, "gk": 0, "gv": 0}  # arrays not given: never read
    for name in ("q", "k", "v", "g", "beta", "gk", "gv"):
        if a[name] is not None:
            a[name], toks[name] = vd.token_stride(a[name], "[N, T, H, *]")
    for name in ("A_log", "dt_bias"):
        if a[name] is not None:
            a[name] = a[name].contiguous()
    if not sequence_slots:
        idx = vd.slot_indices(idx, "[N, T]", (N, Tcols))
    # One slot per sequence: every token reads column 0 (a zero column stride). The kernel's
    # T is the tokens per sequence without cu_seqlens, else the table's columns, which must
    # then cover any sequence.
    kernel_cols = Tcols
    if slot_per_sequence:
        kernel_cols = T_total if varlen else lead1
    if na is not None:
        na = vd.slot_indices(na, "[N]", (N,))  # clamped to [-1, 2**31 - 1]: the kernel clamps
    if varlen:
        cu = _narrow_offsets(cu, T_total) if cu.dtype == "i64" else cu.contiguous()
    if check_duplicate_slots and not capturing and not sequence_slots:
        _check_duplicates(idx, na, cu if varlen else None, N, Tcols, slots)

    if o is None:
        o = vd.ArrayInfo("out", vd.new_like(ref, out_shape, qi.dtype))
    # Without tokens only records (replayed) and final_out (the starting states) need a launch.
    if N == 0 or (T_total == 0 and not with_records and final_out is None):
        return o.value, None

    gpu = on_gpu(ref.device, target)
    chip = gpu_target(ref, target) if gpu else None
    lanes = None
    # Head dims of any size: the key axis padded to a power of two (BK) and the value rows
    # to whole tiles, both masked in the kernel (no block copy of the state then).
    KP, VP = pow2_at_least(K), pow2_at_least(V)
    if config is None:
        BV = min(GPU_BV, VP) if gpu else VP
        num_warps, prefetch = (gpu_launch_options(N, T_total, has_block_copy_engine(ref, target))
                               if gpu else (None, False))
        # Records: the state is read before the replay, so no prefetch to overlap.
        prefetch = prefetch and not with_records
    else:
        BV, prefetch = config.block_v, bool(config.prefetch_state)
        num_warps = config.num_warps if gpu else None
        lanes = config.element_copies
    prefetch = prefetch and not zero_start and KP == K and V % BV == 0
    lanes = prefetch_by_lanes(chip, N) if lanes is None else bool(lanes)
    # Pointer parameters a variant does not read: a read-only argument stands in.
    unused = a["q"].value if sequence_slots else idx.value
    stride_slot = st.strides[0] if st is not None and slots > 1 else HV * head
    kernel = load_kernel("kda_recurrent", "kda_recurrent")
    kargs = (
        a["q"].value, a["k"].value, a["v"].value,
        a["g"].value if a["g"] is not None else unused,
        a["beta"].value if a["beta"] is not None else unused,
        a["A_log"].value if a["A_log"] is not None else unused,
        a["dt_bias"].value if a["dt_bias"] is not None else unused,
        unused if st is None else st.value, unused if sequence_slots else idx.value,
        na.value if na is not None else unused,
        cu.value if varlen else unused, o.value,
        a["records_in"].value if with_records else unused,
        a["records_out"].value if with_records else unused,
        final_out if final_out is not None else unused,
        a["gk"].value if a["gk"] is not None else unused,
        a["gv"].value if a["gv"] is not None else unused,
        int(kernel_cols), int(slots), toks["q"], toks["k"], toks["v"], toks["g"],
        toks["beta"], int(stride_slot),
        0 if sequence_slots else int(idx.strides[0] if N > 1 else Tcols),
        0 if slot_per_sequence else int(idx.strides[1] if Tcols > 1 else 1),
        int(TR), int(TR * HV * (2 * K + V)), toks["gk"], toks["gv"],
        float(K ** -0.5 if scale is None else scale),
        float(0.0 if lower_bound is None else lower_bound))
    constexprs = dict(H=HV, K=K, V=V, STATE_KV=state_layout == "kv", IS_VARLEN=varlen,
                      HAS_NUM_ACCEPTED=na is not None, USE_QK_L2NORM=use_qk_l2norm,
                      USE_GATE=use_gate, USE_LOWER_BOUND=use_gate and lower_bound is not None,
                      USE_BETA_SIGMOID=use_beta_sigmoid, BV=BV, PREFETCH_STATE=prefetch,
                      FINAL_STATE_ONLY=final_state_only, QK_H=H if HV != H else 0,
                      GATE_PER_HEAD=gate_per_head, DELTA_RULE=delta_rule,
                      STATE_RECORDS=with_records, FINAL_STATE_OUT=final_out is not None,
                      READ_STATE_FIRST=prefetch and chip == "gfx1250",
                      ELEMENT_COPIES=prefetch and lanes, SEQUENCE_SLOTS=sequence_slots,
                      ZERO_START=zero_start, OUTPUTS_ONLY=outputs_only,
                      ALLOW_NEG_EIGVAL=allow_neg_eigval, HAS_DT_BIAS=a["dt_bias"] is not None,
                      HAS_A_LOG=a["A_log"] is not None, BK=0 if KP == K else KP,
                      HAS_G=a["g"] is not None, UNIT_BETA=delta_rule and a["beta"] is None,
                      GATE_KEY=a["gk"] is not None, GATE_VALUE=a["gv"] is not None,
                      BETA_PER_VALUE=beta_per_value,
                      REVERSE=bool(reverse))
    return o.value, Launch(kernel, kargs, constexprs, (N, HV, (V + BV - 1) // BV), num_warps)


def _check_records(rin: vd.ArrayInfo, rout: vd.ArrayInfo, slots: int, HV: int, K: int,
                   V: int) -> int:
    """Checks the record pools [slots, TR, HV, 2K + V] fp32 (both dense, of one shape);
    returns TR."""
    width = 2 * K + V
    for info in (rin, rout):
        vd.check_rank(info, "[slots, TR, HV, 2K + V]", 4)
        TR = info.shape[1]
        vd.check_shape(info, "[slots, TR, HV, 2K + V]", (slots, TR, HV, width),
                       f" (slots={slots} from initial_state, HV={HV} and V={V} from v, K={K} "
                       f"from q)")
        vd.check_dtype(info, F32)
        vd.check_contiguous(info, "[slots, TR, HV, 2K + V]")
    if rout.shape != rin.shape:
        vd.fail("records_out", f"must have records_in's shape {list(rin.shape)}, got "
                               f"{list(rout.shape)}")
    if rin.shape[1] < 1:
        vd.fail("records_out", "needs at least one record per slot (TR >= 1)")
    return rin.shape[1]


def _narrow_offsets(cu: vd.ArrayInfo, T_total: int) -> vd.ArrayInfo:
    """int64 offsets to int32 without a sync: clamped to [0, T_total] first, so that even an
    unchecked table (graph capture) never addresses a token outside [0, T_total)."""
    if cu.is_torch:
        torch = vd._torch()
        return vd.ArrayInfo("cu_seqlens", cu.value.clamp(0, T_total).to(torch.int32))
    np = vd._np()
    return vd.ArrayInfo("cu_seqlens", np.clip(cu.value, 0, T_total).astype(np.int32))


def _check_duplicates(idx, na, cu, N, Tcols, slots) -> None:
    """A live slot used by two sequences (their programs race) raises; one sequence may reuse a
    slot (its tokens run in order). Reads only what the kernel reads: the starting column and
    the columns of the sequence's tokens; padding sequences touch nothing."""
    np = vd._np()
    table = vd.host_values(idx)
    acc = vd.host_values(na) if na is not None else np.ones(N, np.int64)
    if cu is not None:
        offs = vd.host_values(cu)
        lens = offs[1:] - offs[:-1]
    else:
        lens = np.full(N, Tcols, np.int64)
    used = []
    for n in range(N):
        row = table[n]
        start = row[min(max(int(acc[n]), 1), Tcols) - 1]
        if not 0 <= start < slots:
            continue
        cols = np.concatenate([row[:max(0, min(int(lens[n]), Tcols))], [start]])
        used.append(np.unique(cols[(cols >= 0) & (cols < slots)]))
    if used:
        vd.check_duplicate_slots(vd.ArrayInfo("state_indices", np.concatenate(used)), slots)
