"""KDA chunked prefill: a validated drop-in for FLA's `fla.ops.kda.chunk_kda`, over the two
launches of kernels/kda_chunk.py (see docs/ops.md and docs/kda.md, "Chunked prefill").

`kda_chunk_prep` writes every chunk's WY form in parallel, `kda_chunk_scan` carries the state
over each sequence's chunks. Intermediates (allocated per call) and the operands of the
matrix products are in q's dtype, as FLA keeps them: with bf16 inputs they are bf16 (results
within relative RMS 1e-2 of the fp64 recurrence), with fp32 inputs fp32 (5e-3); accumulation
and the state are fp32 always.
"""

from __future__ import annotations

import math

from .. import language as lang
from . import tuning
from . import validation as vd
from ._kernels import (
    Launch,
    bind,
    check_target,
    execute,
    gpu_target,
    load_kernel,
    multiprocessors,
    on_gpu,
    pow2_at_least,
    wave_size,
)
from .fla_keywords import take_fla_keywords
from .validation import F32, FLOATS, INDEX

# Tokens per chunk of the kernels, and of the states return_intermediate_states gives (FLA's
# default chunk, so that callers see FLA's boundaries and shapes).
CHUNK = 16
STATE_CHUNK = 64
# The chunk_size values FLA's ops accept (fla_keywords.py): chunk_kda's spaces its
# intermediate states; Gated DeltaNet's changes nothing here.
KDA_CHUNK_SIZES = (32, 64)
GDN_CHUNK_SIZES = (16, 32, 64)
# Key columns the kernels take at a time (each [CHUNK, K_SLICE] operand is small enough that
# no warp holds a whole [CHUNK, K] one).
K_SLICE = 32
# Value columns per scan program on GPUs; the CPU target takes the whole (padded) head.
GPU_BV = 64
# Warps per program on GPUs (docs/performance.md, "Chunked prefill vs FLA": the K-sliced prep
# is fastest at 2, six programs a multiprocessor; the scan at 4 over 64 value columns).
PREP_WARPS = 2
SCAN_WARPS = 4
# A whole scan on NVIDIA GPUs whose programs would fill at most half the multiprocessors
# takes twice as many of half the width: 32 value columns at 2 warps (H100, one 8192-token
# sequence of 32 heads: 7-13% faster for KDA, Gated DeltaNet and GLA; where the programs
# already fill the GPU, slower; docs/performance.md, "Gated DeltaNet and GLA vs FLA"). With
# bf16 intermediates and heads up to 128 columns, as measured: fp32 ones spill at 2 warps.
NARROW_BV = 32
NARROW_SCAN_WARPS = 2
# Chunks in the scan's shared-memory ring: the copies run STAGES - 1 chunks ahead. Six where
# they are cp.async (and on the CPU): at one program a multiprocessor a step does not hide a
# copy's latency, and the ring's 126 KB keep a second program off a multiprocessor, where it
# would halve both programs' speed while others idle (the split scan's launches, whose idle
# programs exit at once; docs/performance.md). Fewer with fp32 intermediates, twice the bytes
# a chunk (scan_stages). Two on AMD, where a third would pass gfx950's LDS budget of two
# workgroups of 80 KB.
SCAN_STAGES = 6
AMD_SCAN_STAGES = 2
# Split scans (scan_segment): the shortest segment (64 steps of the scan, about 50 µs on an
# H100, against about 6 µs a segment for the chain and two more launches), and the
# kda_segment_starts programs' state rows, the reduction slice their products take at a
# time, and their warps (on GPUs; a program takes whole rows).
MIN_SEGMENT = 1024
STARTS_ROWS = 16
STARTS_SLICE = 32
STARTS_WARPS = 8
# The prep's intra-chunk pairs are two matrix products referred to the chunk's middle row
# when every log decay is >= this (the lower-bound gate): exp(8 * 10) stays finite in fp32
# (and bf16); steeper or unbounded gates take the run-time choice of kda_chunk.mild_slice.
# The anchored form makes no run-time test, so it also needs bounded operands: the in-kernel
# L2 norm (q entries at most scale, k entries at most 1) and scale * exp(C / 2 * |lower_bound|)
# at most ANCHORED_OPERAND (fp32 stops at 3.4e38).
ANCHORED_LOWER_BOUND = -10.0
ANCHORED_OPERAND = 1e37


def takes_anchored_pairs(bounded_gate, lower_bound, use_qk_l2norm, scale) -> bool:
    """Whether the prep's pairs may be anchored products with no run-time test: a per-key
    lower-bound gate no steeper than ANCHORED_LOWER_BOUND, and operands the in-kernel L2 norm
    bounds so that none times its factor (at most exp(C / 2 * |lower_bound|)) leaves fp32."""
    if (not bounded_gate or not use_qk_l2norm or lower_bound is None
            or lower_bound < ANCHORED_LOWER_BOUND):
        return False
    return max(abs(scale), 1.0) * math.exp(CHUNK // 2 * -lower_bound) <= ANCHORED_OPERAND


def chunk_kda(q, k, v, g, beta, scale=None, initial_state=None, output_final_state=False,
              use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
              use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False, safe_gate=False,
              lower_bound=None, disable_recompute=False, return_intermediate_states=False,
              state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None, cp_context=None, *,
              A_log=None, dt_bias=None, out=None, cp_group=None, **kwargs):
    """The KDA chunked forward; returns (o, final_state), or (o, final_state, states) with
    return_intermediate_states. FLA's keywords, shapes and semantics:

    q, k [B, T, H, K]; v [B, T, HV, V] with HV a multiple of H (GVA); g [B, T, HV, K]: the
    log decay, or with use_gate_in_kernel the raw gate: lower_bound * sigmoid(exp(A_log) *
    (g + dt_bias)) when lower_bound is given (A_log None: sigmoid(g + dt_bias)), else
    -exp(A_log) * softplus(g + dt_bias); A_log [HV] fp32, dt_bias [HV * K] fp32 (optional).
    beta [B, T, HV]: in (0, 1), or logits with use_beta_sigmoid_in_kernel (2 * sigmoid with
    allow_neg_eigval). q, k, v one dtype (bf16, fp16 or fp32; fp16 takes bf16 intermediates);
    g and beta bf16, fp16 or fp32. K and V up to 256, any sizes (K = V with cp_group).
    scale: default K ** -0.5. safe_gate: the gate is lower_bound's sigmoid form, or without
    the in-kernel gate g keeps lower_bound (lower_bound in [-5, 0) required); the kernels
    need no other mode. lower_bound without either is rejected.
    Varlen: B = 1 and cu_seqlens [N + 1] (int32/int64; 0, non-decreasing, T: host checks,
    skipped while a CUDA graph is captured unless cu_seqlens_cpu, FLA's host copy of it, is
    given and read instead). disable_recompute: FLA's backward-pass option, no effect on a
    forward. initial_state [N, HV, K, V] fp32, bf16 or fp16 ([N, HV, V, K] with
    state_v_first; fp32 with cp_group); the final state has the same layout (fp32), None
    unless output_final_state. return_intermediate_states: the state before every 64-token chunk
    of each sequence (chunk_size=32: every 32 tokens), [B, NT, HV, K, V] ([1, chunks] with
    cu_seqlens) in q's dtype, as FLA gives it (so with fp16 inputs a state past fp16's 65504 is
    inf there, as in FLA's; o and final_state are not affected). out: None or a contiguous array
    of v's shape in q's dtype. NumPy arrays and CPU tensors run on the CPU target, GPU tensors
    on their GPU. Bad arguments raise ValueError naming the argument, before anything is
    launched.
    FLA's **kwargs (fla_keywords.py): transpose_state_layout, head_first=False and
    chunk_size (32 or 64: the spacing of the intermediate states); cp_context, FLA's
    context-parallel object, must be None (cp_group below takes its place).

    cp_group: a torch.distributed process group over which the call is context parallel
    (context_parallel.py): q, k, v, g, beta (and out) are this rank's tokens, [1, T_rank, ...],
    rank r's after those of ranks 0 .. r-1; cu_seqlens and initial_state are global, as are
    the final states every rank returns; o is this rank's tokens' outputs.
    """
    a = _fla_arguments("chunk_kda", locals(), KDA_CHUNK_SIZES)
    cp_group = a.pop("cp_group")
    if cp_group is not None:
        from .context_parallel import chunk_kda_cp

        # chunk_size was checked; it spaces intermediate states, which this path has not.
        vd.check_flag("disable_recompute", disable_recompute)
        return chunk_kda_cp(cp_group, q, k, v, g, beta, target=None, **{
            name: a[name] for name in (
                "initial_state", "output_final_state", "state_v_first", "cu_seqlens",
                "cu_seqlens_cpu", "return_intermediate_states", "out", "scale",
                "use_qk_l2norm_in_kernel", "use_gate_in_kernel", "use_beta_sigmoid_in_kernel",
                "allow_neg_eigval", "safe_gate", "lower_bound", "A_log", "dt_bias")})
    result, launches = _chunk(**a, segment_tokens=None)
    _run(launches, q)
    return result


def chunk_launches(*args, target=None, segment_tokens=None, **kwargs):
    """(result, [Launch]): what chunk_kda(*args, **kwargs) launches, in order, without
    launching (the op's checks and argument preparation). target: None (the arrays' device)
    or a target name; NumPy arrays then stand for GPU tensors. segment_tokens: None (the op's
    choice, scan_segment), 0 (each sequence scanned whole) or the tokens of the segments a
    sequence's scan is split into (a multiple of 64). A context-parallel call (cp_group)
    launches between collectives, so it has no such list."""
    bound = _fla_arguments("chunk_kda", bind(chunk_kda, args, kwargs), KDA_CHUNK_SIZES)
    if bound.pop("cp_group") is not None:
        vd.fail("cp_group", "chunk_launches describes a single-process call; pass cp_group to "
                            "chunk_kda")
    return _chunk(**bound, target=check_target(target), segment_tokens=segment_tokens)


def _fla_arguments(op, arguments, chunk_sizes):
    """An FLA-named chunked op's arguments (by name) with FLA's **kwargs taken
    (fla_keywords.py: state_v_first and chunk_size set from them) and FLA's cp_context
    rejected unless None; FLA's chunk_indices (its precomputed chunk table) is dropped: the
    kernels build their own from cu_seqlens."""
    a = dict(arguments)
    a["state_v_first"], a["chunk_size"] = take_fla_keywords(op, a.pop("kwargs"),
                                                            a["state_v_first"], chunk_sizes)
    if a.pop("cp_context") is not None:
        vd.fail("cp_context", "FLA's context-parallel object is not taken: "
                + ("pass cp_group (a torch.distributed process group) with the global "
                   "cu_seqlens" if op == "chunk_kda" else f"{op} has no context-parallel form"))
    a.pop("chunk_indices", None)
    return a


def chunk_gated_delta_rule(q, k, v, g, beta, scale=None, initial_state=None,
                           output_final_state=False, use_qk_l2norm_in_kernel=False,
                           use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False,
                           state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None,
                           chunk_indices=None, cp_context=None, *, out=None,
                           use_gate_in_kernel=False, A_log=None, dt_bias=None, **kwargs):
    """Gated DeltaNet's chunked forward (FLA's `fla.ops.gated_delta_rule.
    chunk_gated_delta_rule` parameters, in its order; FLA takes the gate's keywords through
    **kwargs); returns (o, final_state). The launches of chunk_kda with one log decay per
    token and value head: q, k [B, T, H, K], v [B, T, HV, V] (GVA), g [B, T, HV] (the log
    decay, or with use_gate_in_kernel the raw gate, activated in the prep as -exp(A_log)
    softplus(g + dt_bias): A_log [HV] fp32, dt_bias [HV] fp32 or None), beta [B, T, HV] in
    (0, 1) (logits with use_beta_sigmoid_in_kernel, 2 * sigmoid with allow_neg_eigval),
    inputs bf16, fp16 or fp32 (as chunk_kda's), initial_state [N, HV, K, V] ([N, HV, V, K]
    with state_v_first) fp32, bf16, fp16 or None; varlen through cu_seqlens with B = 1.
    FLA's chunk_indices is not read (the kernels build their own chunk table), cp_context
    must be None, and FLA's **kwargs are taken as chunk_kda's (chunk_size 16, 32 or 64,
    which leaves the result as it is: there are no intermediate states)."""
    result, launches = _gdn(**_fla_arguments("chunk_gated_delta_rule", locals(),
                                             GDN_CHUNK_SIZES))
    _run(launches, q)
    return result


def chunk_gdn_launches(*args, target=None, segment_tokens=None, **kwargs):
    """(result, [Launch]): what chunk_gated_delta_rule(*args, **kwargs) launches, without
    launching (as chunk_launches)."""
    bound = _fla_arguments("chunk_gated_delta_rule", bind(chunk_gated_delta_rule, args, kwargs),
                           GDN_CHUNK_SIZES)
    return _gdn(**bound, target=check_target(target), segment_tokens=segment_tokens)


def _gdn(q, k, v, g, beta, scale, initial_state, output_final_state, use_qk_l2norm_in_kernel,
         use_beta_sigmoid_in_kernel, allow_neg_eigval, state_v_first, cu_seqlens,
         cu_seqlens_cpu, out, use_gate_in_kernel, A_log, dt_bias, chunk_size=None, target=None,
         segment_tokens=None):
    del chunk_size  # FLA's chunking: no effect here (no intermediate states)
    return _chunk(q, k, v, g, beta, scale=scale, initial_state=initial_state,
                  output_final_state=output_final_state,
                  use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel,
                  use_gate_in_kernel=use_gate_in_kernel,
                  use_beta_sigmoid_in_kernel=use_beta_sigmoid_in_kernel,
                  allow_neg_eigval=allow_neg_eigval, safe_gate=False, lower_bound=None,
                  disable_recompute=False, state_v_first=state_v_first,
                  cu_seqlens=cu_seqlens, cu_seqlens_cpu=cu_seqlens_cpu, A_log=A_log,
                  dt_bias=dt_bias, return_intermediate_states=False, out=out, target=target,
                  gate_per_head=True, segment_tokens=segment_tokens)


def chunk_gla(q, k, v, g, scale=None, initial_state=None, output_final_state=False,
              state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None, *, out=None):
    """Gated linear attention's chunked forward (FLA's `fla.ops.gla.chunk_gla` parameters, in
    its order); returns (o, final_state). The launches of chunk_kda with the delta rule off:
    per token S <- diag(exp(g)) S + k v^T, o = S^T (scale q). q, k [B, T, H, K], v [B, T, HV,
    V] (GVA), g [B, T, HV, K] log decays per key channel, initial_state [N, HV, K, V] ([N,
    HV, V, K] with state_v_first, the final state alike) fp32, bf16, fp16 or None; varlen through
    cu_seqlens with B = 1."""
    result, launches = _gla(**locals())
    _run(launches, q)
    return result


def chunk_gla_launches(*args, target=None, segment_tokens=None, **kwargs):
    """(result, [Launch]): what chunk_gla(*args, **kwargs) launches, without launching (as
    chunk_launches)."""
    return _gla(**bind(chunk_gla, args, kwargs), target=check_target(target),
                segment_tokens=segment_tokens)


def _gla(q, k, v, g, scale, initial_state, output_final_state, state_v_first, cu_seqlens,
         cu_seqlens_cpu, out, target=None, segment_tokens=None):
    # No beta in GLA: zeros stand for it (loaded, never used).
    vi = vd.describe("v", v)
    vd.check_rank(vi, "[B, T, HV, V]", 4)
    zeros = vd.new_like(vd.describe("q", q), vi.shape[:3], "f32")
    zeros[...] = 0
    return _chunk(q, k, v, g, zeros, scale=scale, initial_state=initial_state,
                  output_final_state=output_final_state, use_qk_l2norm_in_kernel=False,
                  use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
                  allow_neg_eigval=False, safe_gate=False, lower_bound=None,
                  disable_recompute=False, state_v_first=state_v_first,
                  cu_seqlens=cu_seqlens, cu_seqlens_cpu=cu_seqlens_cpu, A_log=None,
                  dt_bias=None, return_intermediate_states=False, out=out, target=target,
                  delta_rule=False, segment_tokens=segment_tokens)


def _run(launches, q):
    """Runs an op's launches (q: its query array, on the launches' device); with
    kdatile.ops.tuning enabled, a whole scan through its tuner."""
    for launch in launches:
        if tuning.enabled() and tuning.is_whole_scan(launch):
            tuning.run_scan(launch, scan_configs(launch), vd.is_capturing(vd.describe("q", q)))
        else:
            execute(None, launch)


def scan_configs(scan):
    """kdatile.ops.tuning's candidates for a whole scan's launch `scan` (the rule's first)."""
    gpu = scan.num_warps is not None  # the CPU target takes no warps
    columns = max(16, pow2_at_least(scan.constexprs["V"]))  # the value tile's power of two
    return tuning.scan_configs(scan.constexprs["BV"], scan.num_warps, columns, gpu)


def tuning_candidates(launches):
    """The launches kdatile.ops.tuning may run for the whole scans among `launches` (an op's,
    the rule's): each with every candidate configuration, for ahead-of-time bundles."""
    return [candidate for launch in launches if tuning.is_whole_scan(launch)
            for candidate in tuning.scan_launches(launch, scan_configs(launch))]


def _chunk(q, k, v, g, beta, scale, initial_state, output_final_state,
           use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel,
           allow_neg_eigval, safe_gate, lower_bound, disable_recompute, state_v_first,
           cu_seqlens, cu_seqlens_cpu, A_log, dt_bias, return_intermediate_states, out,
           target=None, gate_per_head=False, delta_rule=True, segment_tokens=None,
           chunk_size=None):
    """chunk_size: tokens between two intermediate states (None: STATE_CHUNK)."""
    state_chunk = STATE_CHUNK if chunk_size is None else chunk_size
    # disable_recompute is FLA's choice for its backward pass; a forward has nothing to
    # recompute, so only its type is checked.
    (output_final_state, use_qk_l2norm_in_kernel, use_gate_in_kernel,
     use_beta_sigmoid_in_kernel, allow_neg_eigval, safe_gate, state_v_first,
     return_intermediate_states, _) = (
        vd.check_flag(name, value) for name, value in (
            ("output_final_state", output_final_state),
            ("use_qk_l2norm_in_kernel", use_qk_l2norm_in_kernel),
            ("use_gate_in_kernel", use_gate_in_kernel),
            ("use_beta_sigmoid_in_kernel", use_beta_sigmoid_in_kernel),
            ("allow_neg_eigval", allow_neg_eigval), ("safe_gate", safe_gate),
            ("state_v_first", state_v_first),
            ("return_intermediate_states", return_intermediate_states),
            ("disable_recompute", disable_recompute)))
    if segment_tokens is not None and (type(segment_tokens) is not int or segment_tokens < 0
                                       or segment_tokens % STATE_CHUNK):
        vd.fail("segment_tokens", f"must be None or a multiple of {STATE_CHUNK} >= 0, got "
                                  f"{segment_tokens!r}")
    lower_bound = vd.check_float("lower_bound", lower_bound, allow_none=True, below=0.0)
    scale = vd.check_float("scale", scale, allow_none=True)
    if scale is not None and scale <= 0.0:
        vd.fail("scale", f"must be > 0, got {scale}")
    if safe_gate and (lower_bound is None or lower_bound < -5.0):
        vd.fail("lower_bound", f"safe_gate=True needs lower_bound in [-5, 0), got {lower_bound}")
    if use_gate_in_kernel:
        if A_log is None and gate_per_head:
            vd.fail("A_log", "is required with use_gate_in_kernel=True (the gate is -exp(A_log) "
                             "softplus(g + dt_bias))")
        if A_log is None and lower_bound is None:
            vd.fail("A_log", "is required with use_gate_in_kernel=True unless lower_bound is "
                             "given (the gate is then lower_bound * sigmoid(g + dt_bias))")
    else:
        for name, val in (("A_log", A_log), ("dt_bias", dt_bias)):
            if val is not None:
                vd.fail(name, "is given but use_gate_in_kernel=False (g is then already the "
                              "log decay); pass None or use_gate_in_kernel=True")
        # With safe_gate, lower_bound states the bound g already keeps (FLA's meaning); alone
        # it would be ignored.
        if lower_bound is not None and not safe_gate:
            vd.fail("lower_bound", "is given but use_gate_in_kernel=False and safe_gate=False "
                                   "(g is then already the log decay); pass None or "
                                   "use_gate_in_kernel=True")
    if allow_neg_eigval and not use_beta_sigmoid_in_kernel:
        vd.fail("allow_neg_eigval", "requires use_beta_sigmoid_in_kernel=True (beta is then "
                                    "2 * sigmoid(beta))")

    names = ("q", "k", "v", "g", "beta", "initial_state", "cu_seqlens", "A_log", "dt_bias",
             "out")
    values = (q, k, v, g, beta, initial_state, cu_seqlens, A_log, dt_bias, out)
    required = ("q", "k", "v", "g", "beta")
    a = {n: vd.describe(n, val, optional=n not in required) for n, val in zip(names, values)}
    ref = a["q"]
    for info in a.values():
        if info is not None:
            vd.check_device(info, ref)
    vd.check_writable(a["out"])

    qi = a["q"]
    vd.check_rank(qi, "[B, T, H, K]", 4)
    B, T, H, K = qi.shape
    if H < 1:
        vd.fail("q", f"needs at least one head, got shape {list(qi.shape)}")
    vd.check_any_head_dim(K, "q", "K")
    vd.check_dtype(qi, FLOATS)
    why = f" (from q {list(qi.shape)})"
    vd.check_shape(a["k"], "[B, T, H, K]", qi.shape, why)
    vi = a["v"]
    vd.check_rank(vi, "[B, T, HV, V]", 4)
    HV, V = vi.shape[2], vi.shape[3]
    vd.check_shape(vi, "[B, T, HV, V]", (B, T, HV, V), why)
    if HV < H or HV % H:
        vd.fail("v", f"its heads HV = {HV} must be a multiple of q's H = {H} (GVA)")
    vd.check_any_head_dim(V, "v", "V")
    for name in ("k", "v"):
        if a[name].dtype != qi.dtype:
            vd.fail(name, f"dtype must match q's ({qi.value.dtype}), got {a[name].value.dtype}")
    why_v = f" (B, T from q, HV = {HV} from v)"
    if gate_per_head:
        vd.check_shape(a["g"], "[B, T, HV]", (B, T, HV), why_v)
    else:
        vd.check_shape(a["g"], "[B, T, HV, K]", (B, T, HV, K), why_v)
    vd.check_shape(a["beta"], "[B, T, HV]", (B, T, HV), why_v)
    vd.check_dtype(a["g"], FLOATS)
    vd.check_dtype(a["beta"], FLOATS)
    if a["A_log"] is not None:
        vd.check_shape(a["A_log"], "[HV]", (HV,), f" (HV = {HV} from v)")
        vd.check_dtype(a["A_log"], F32)
    if a["dt_bias"] is not None:
        dt = a["dt_bias"]
        if gate_per_head:  # one bias per value head
            layout, shape = "[HV]", (HV,)
        elif dt.ndim == 2:
            layout, shape = "[HV, K]", (HV, K)
        else:
            layout, shape = "[HV * K]", (HV * K,)
        vd.check_shape(dt, layout, shape, f" (HV = {HV} from v, K = {K} from q)")
        vd.check_dtype(dt, F32)

    varlen = a["cu_seqlens"] is not None
    if varlen:
        if B != 1:
            vd.fail("cu_seqlens", f"needs the sequences packed as B = 1, got q of shape "
                                  f"{list(qi.shape)}")
        cu = a["cu_seqlens"]
        vd.check_rank(cu, "[N + 1]", 1)
        if cu.shape[0] < 1:
            vd.fail("cu_seqlens", "needs at least one entry (cu_seqlens[0] = 0)")
        vd.check_dtype(cu, INDEX)
        N = cu.shape[0] - 1
    else:
        N = B
    cu_host = None
    if cu_seqlens_cpu is not None:
        if not varlen:
            vd.fail("cu_seqlens_cpu", "is given without cu_seqlens")
        cu_host = vd.host_cu_seqlens(cu_seqlens_cpu)
        vd.check_shape(cu_host, "[N + 1]", (N + 1,), " (the length of cu_seqlens)")
    state_layout = "[N, HV, V, K]" if state_v_first else "[N, HV, K, V]"
    st = a["initial_state"]
    if st is not None:
        vd.check_shape(st, state_layout, (N, HV) + ((V, K) if state_v_first else (K, V)),
                       f" (N = {N} from {'cu_seqlens' if varlen else 'q'}, HV from v)")
        vd.check_dtype(st, FLOATS)  # the kernels read it as fp32
    o = a["out"]
    if o is not None:
        vd.check_shape(o, "[B, T, HV, V]", (B, T, HV, V), " (v's shape)")
        if o.dtype != qi.dtype:
            vd.fail("out", f"dtype must be q's ({qi.value.dtype}), got {o.value.dtype}")
        vd.check_contiguous(o, "[B, T, HV, V]")
        vd.check_no_overlap([o], [a[n] for n in names[:-1] if a[n] is not None])

    T_total = B * T
    capturing = vd.is_capturing(ref)
    seq_lens = None
    if cu_host is not None:  # no device read: checked under graph capture too
        seq_lens = vd.check_cu_seqlens(cu_host, T_total)
    elif varlen and not capturing:
        seq_lens = vd.check_cu_seqlens(cu, T_total)
    if return_intermediate_states and varlen and capturing:
        vd.fail("return_intermediate_states", "with cu_seqlens needs the chunk count, a host "
                                              "read of cu_seqlens, which cannot run while a "
                                              "CUDA graph is captured")

    # Valid: conversions and allocations (graph-capturable torch ops for GPU tensors).
    toks = {}
    for name in ("q", "k", "v", "g", "beta"):
        a[name], toks[name] = vd.token_stride(a[name], "[B, T, H, *]")
    for name in ("A_log", "dt_bias", "initial_state"):
        if a[name] is not None:
            a[name] = a[name].contiguous()
    cu = _sequence_bounds(ref, cu if varlen else None, N, T)
    if o is None:
        o = vd.ArrayInfo("out", vd.new_like(ref, (B, T, HV, V), qi.dtype))
    final = (vd.new_like(ref, (N, HV) + ((V, K) if state_v_first else (K, V)), "f32")
             if output_final_state else None)
    states = None
    if return_intermediate_states:
        lens = seq_lens if varlen else [T] * N
        per_seq = [(n + state_chunk - 1) // state_chunk for n in lens]
        inner = (HV,) + ((V, K) if state_v_first else (K, V))
        lead = (1, sum(per_seq)) if varlen else (B, per_seq[0] if per_seq else 0)
        states = vd.new_like(ref, lead + inner, qi.dtype)
    result = (o.value, final) + ((states,) if return_intermediate_states else ())
    if N == 0 or T_total == 0:
        if final is not None:
            _copy_initial(final, a["initial_state"])
        return result, []

    chunk_offsets = None
    if states is not None:
        # Sequence n's first state: the chunks of the sequences before it.
        if varlen:
            offsets = [0]
            for c in per_seq[:-1]:
                offsets.append(offsets[-1] + c)
            chunk_offsets = _host_ints(ref, offsets)  # not capturing: checked above
        else:
            chunk_offsets = _arange(ref, N, per_seq[0])
    gpu = on_gpu(ref.device, target)
    chip = gpu_target(ref, target)  # None for host arrays without a target
    BK = max(16, pow2_at_least(K))
    BV_ALL = max(16, pow2_at_least(V))
    BV = min(GPU_BV, BV_ALL) if gpu else BV_ALL
    slots = T_total // CHUNK + N
    f32 = "f32"
    inter = intermediate_dtype(qi.dtype)
    # One block per chunk slot; w, qg, u and aqk transposed inside it (see the kernels).
    w = vd.new_like(ref, (slots, HV, K, CHUNK), inter)
    qg = vd.new_like(ref, (slots, HV, K, CHUNK), inter)
    kd = vd.new_like(ref, (slots, HV, CHUNK, K), inter)
    u = vd.new_like(ref, (slots, HV, V, CHUNK), inter)
    aqk = vd.new_like(ref, (slots, HV, CHUNK, CHUNK), inter)
    gend = vd.new_like(ref, (slots, HV, K), f32)
    unused = cu.value  # pointer parameters a variant does not read
    prep = load_kernel("kda_chunk", "kda_chunk_prep")
    scan = load_kernel("kda_chunk", "kda_chunk_scan")
    beta_scale = 2.0 if allow_neg_eigval else 1.0
    dot = product_type(inter)
    scale = float(K ** -0.5 if scale is None else scale)
    anchored = takes_anchored_pairs(use_gate_in_kernel and not gate_per_head, lower_bound,
                                    use_qk_l2norm_in_kernel, scale)
    prep_args = (
        a["q"].value, a["k"].value, a["v"].value, a["g"].value, a["beta"].value,
        a["A_log"].value if a["A_log"] is not None else unused,
        a["dt_bias"].value if a["dt_bias"] is not None else unused, cu.value,
        w, u, qg, kd, aqk, gend, int(N), int(T_total), toks["q"], toks["k"], toks["v"], toks["g"],
        toks["beta"], scale,
        float(0.0 if lower_bound is None else lower_bound), beta_scale)
    prep_constexprs = dict(
        H=H, HV=HV, K=K, V=V, BK=BK, BV_ALL=BV_ALL, C=CHUNK, USE_QK_L2NORM=use_qk_l2norm_in_kernel,
        USE_GATE=use_gate_in_kernel, USE_LOWER_BOUND=use_gate_in_kernel and lower_bound is not None,
        HAS_A_LOG=a["A_log"] is not None, HAS_DT_BIAS=a["dt_bias"] is not None,
        USE_BETA_SIGMOID=use_beta_sigmoid_in_kernel, ANCHORED=anchored, DOT=dot,
        LANES=wave_size(ref, target), GATE_PER_HEAD=gate_per_head, DELTA_RULE=delta_rule,
        KS=min(K_SLICE, BK, BV_ALL),
        # No tf32 instruction on gfx1250: the pairs as bf16 products of split factors there.
        PAIRS_BF16X3=chip == "gfx1250")
    value_tiles = (V + BV - 1) // BV
    sms = multiprocessors(ref, target) if gpu else 0
    if segment_tokens is None:
        # The segments' summaries carry K x K transitions beside the V x K states: K = V only.
        segment_tokens = (scan_segment(T_total, N, HV * value_tiles, sms)
                          if gpu and V == K else 0)
    elif segment_tokens and V != K:
        vd.fail("segment_tokens", f"a split scan needs V = K, got V = {V}, K = {K}")
    split = 0 < segment_tokens <= T_total
    scan_warps = SCAN_WARPS if gpu else None
    if (not split and chip is not None and chip.startswith("sm_") and inter == "bf16"
            and BV > NARROW_BV and max(BK, BV_ALL) <= 128
            and 2 * N * HV * value_tiles <= sms):
        BV, scan_warps = NARROW_BV, NARROW_SCAN_WARPS
        value_tiles = (V + BV - 1) // BV
    scan_constexprs = dict(
        HV=HV, K=K, V=V, BK=BK, BV=BV, C=CHUNK, STATE_VK=state_v_first,
        HAS_INITIAL=a["initial_state"] is not None or split, STORE_FINAL=final is not None,
        STORE_STATES=states is not None, STATES_EVERY=state_chunk // CHUNK, DOT=dot,
        DELTA_RULE=delta_rule,
        STAGES=scan_stages(chip, inter, BK))
    blocks = (w, u, qg, kd, aqk, gend)
    initial = a["initial_state"].value if a["initial_state"] is not None else unused
    chunk_offsets = chunk_offsets if chunk_offsets is not None else unused
    tail = (final if final is not None else unused, states if states is not None else unused)
    prep_launch = Launch(prep, prep_args, prep_constexprs, (slots, HV),
                         PREP_WARPS if gpu else None)
    if not split:
        scan_args = blocks + (initial, cu.value, chunk_offsets, o.value) + tail + (
            int(N), int(T_total), int(T_total + 1))
        return result, [prep_launch, Launch(scan, scan_args, scan_constexprs,
                                            (value_tiles, HV, N), scan_warps)]
    # The sequences' segments of segment_tokens tokens: every segment's (P, Q) at once, the
    # state before each segment from them, then every segment's outputs at once.
    seg_slots = T_total // segment_tokens + N
    summary = vd.new_like(ref, (seg_slots, HV, 2 * K, K), f32)
    starts = vd.new_like(ref, (seg_slots, HV, K, K), f32)
    sizes = (int(N), int(T_total), int(segment_tokens))
    summary_args = blocks + (initial, cu.value, unused, unused, summary, unused) + sizes
    summary_constexprs = dict(scan_constexprs, HAS_INITIAL=a["initial_state"] is not None,
                              STORE_FINAL=False, STORE_STATES=False, SUMMARY=True)
    starts_kernel = load_kernel("kda_cp", "kda_segment_starts")
    rows = min(STARTS_ROWS, BK) if gpu else BK
    starts_args = (initial, summary, cu.value, starts, int(T_total), int(segment_tokens))
    starts_constexprs = dict(HV=HV, K=K, BK=BK, BV=rows, BN=BK, BJ=min(STARTS_SLICE, BK),
                             HAS_INITIAL=a["initial_state"] is not None,
                             STATE_VK=state_v_first, DOT=dot)
    scan_args = blocks + (starts, cu.value, chunk_offsets, o.value) + tail + sizes
    return result, [
        prep_launch,
        Launch(scan, summary_args, summary_constexprs,
               (value_tiles + (K + BV - 1) // BV, HV, seg_slots), scan_warps),
        Launch(starts_kernel, starts_args, starts_constexprs, ((K + rows - 1) // rows, N, HV),
               STARTS_WARPS if gpu else None),
        Launch(scan, scan_args, scan_constexprs, (value_tiles, HV, seg_slots), scan_warps)]


def intermediate_dtype(dtype: str) -> str:
    """The dtype of the prep's outputs (w, u, qg, kd, aqk) and of the scan's product operands
    for inputs of `dtype`: the inputs' own for bf16 and fp32, as FLA keeps them; bf16 for fp16,
    since the scan's products take the fp32 state as an operand of that type, and a state may
    pass fp16's 65504 where bf16 keeps fp32's range (fp16 inputs take bf16's path and
    tolerance)."""
    return "bf16" if dtype == "f16" else dtype


def product_type(inter: str):
    """The kernels' DOT: the operand type of the matrix products for intermediates `inter`."""
    return lang.bfloat16 if inter == "bf16" else lang.float32


def scan_stages(chip, inter, BK):
    """Chunks in the scan's ring for a launch on `chip` (None: the CPU) with intermediates of
    dtype `inter` and BK key columns. On sm_90a a program may take 227 KB: with bf16
    intermediates six chunks take 222 KB at BK = 256; with fp32 ones, twice the bytes a chunk
    and fp32 layout conversions, three up to BK = 128 (165 KB) and two at 256 (226 KB)."""
    if chip is not None and chip.startswith("gfx"):
        return AMD_SCAN_STAGES
    if inter == "bf16":
        return SCAN_STAGES
    return 3 if BK <= 128 else 2


def scan_segment(T_total, N, programs_per_sequence, multiprocessors):
    """Tokens per scan segment, 0 to scan each sequence whole. The scan is serial over a
    sequence's chunks and a multiprocessor runs one program at full speed (two take twice as
    long), so where a batch's programs (a value tile of a head of a sequence each) leave
    multiprocessors idle, long sequences are cut into J segments: one launch summarizes each
    segment but a sequence's last as an affine map of the state (P and Q: 2J - 3 programs a
    tile and head), one chains the maps, one scans every segment from its start (J
    programs). J is the most for which both launches fit the multiprocessors once when one
    sequence holds the tokens (the lengths are not read, as under CUDA-graph capture), and
    at least 3: with two segments the two scans take as long as one whole."""
    if N * programs_per_sequence >= multiprocessors:
        return 0
    segments = (multiprocessors // programs_per_sequence + 3) // 2
    if segments < 3:
        return 0
    seg = -(-T_total // segments)
    seg = max(MIN_SEGMENT, -(-seg // STATE_CHUNK) * STATE_CHUNK)
    return seg if T_total >= 3 * seg else 0


def _sequence_bounds(ref, cu, N, T):
    """int32 sequence bounds [N + 1] on ref's device: cu_seqlens converted (no host read), or
    0, T, 2T, ... for B fixed-length sequences."""
    np = vd._np()
    if cu is not None:
        if cu.is_torch:
            return vd.ArrayInfo("cu_seqlens", cu.value.to(vd._torch().int32).contiguous())
        return vd.ArrayInfo("cu_seqlens", np.ascontiguousarray(cu.value, np.int32))
    return vd.ArrayInfo("cu_seqlens", _arange(ref, N + 1, T))


def _arange(ref, count, step):
    """[0, step, 2 step, ...] (count int32 values) on ref's device (graph-capturable)."""
    if ref.is_torch:
        torch = vd._torch()
        return torch.arange(count, dtype=torch.int32, device=ref.value.device) * step
    return vd._np().arange(count, dtype=vd._np().int32) * step


def _host_ints(ref, values):
    """An int32 array of `values` on ref's device."""
    if ref.is_torch:
        torch = vd._torch()
        return torch.tensor(values, dtype=torch.int32, device=ref.value.device)
    return vd._np().asarray(values, vd._np().int32)


def _copy_initial(final, initial):
    """The final state of sequences without tokens: the initial state (or zeros)."""
    if initial is None:
        final[...] = 0
    elif initial.dtype == "bf16" and not initial.is_torch:  # NumPy bf16: the bit patterns
        final[...] = vd.host_f32(initial)
    else:
        final[...] = initial.value
