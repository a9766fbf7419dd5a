"""FLA's fused-recurrent calls on kernels/kda_recurrent.py: `fused_recurrent_kda` (fla.ops.kda)
and `fused_recurrent_gated_delta_rule` (fla.ops.gated_delta_rule, Gated DeltaNet), with FLA's
parameters in FLA's order (positional calls bind alike), shapes and semantics (docs/ops.md);
the options FLA has and these do not raise ValueError naming them. FLA's **kwargs
(transpose_state_layout, head_first=False) are taken as fla_keywords.py says.

Each sequence n runs from initial_state[n] (zeros when None) over its tokens; the final state
is returned, not written into the initial state. Underneath, the initial states are the state
pool with one slot per sequence, read in place; the kernel writes each sequence's state once,
after its last token, into a new final-state array (FINAL_STATE_ONLY with FINAL_STATE_OUT), or,
without output_final_state, writes no state (OUTPUTS_ONLY).
"""

from __future__ import annotations

from . import validation as vd
from ._kernels import bind, check_target, execute
from .fla_keywords import take_fla_keywords
from .recurrent import recurrent_slot_per_sequence
from .validation import FLOATS


def fused_recurrent_kda(q, k, v, g, beta, A_log=None, dt_bias=None, scale=None,
                        initial_state=None, output_final_state=False,
                        use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
                        use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False,
                        lower_bound=None, state_v_first=False, cu_seqlens=None, *, out=None,
                        **kwargs):
    """KDA over every token of each sequence; returns (o, final_state or None).

    q, k [B, T, H, K], v [B, T, HV, V] (GVA: HV a multiple of H), g [B, T, HV, K] (the log
    decay, or the raw gate with use_gate_in_kernel: lower_bound * sigmoid(exp(A_log) * (g +
    dt_bias)) when lower_bound is given, else -exp(A_log) * softplus(g + dt_bias)), beta
    [B, T, HV] or one per value channel [B, T, HV, V] (sigmoid applied with
    use_beta_sigmoid_in_kernel; 2 sigmoid with allow_neg_eigval, which needs it). Varlen:
    B = 1 and cu_seqlens [N + 1].
    q, k, v, g and beta bf16, fp16 or fp32 (o in q's dtype). initial_state [N, HV, K, V] ([N,
    HV, V, K] with state_v_first), fp32, bf16 or fp16, or None; the final state has its layout,
    in fp32 (as FLA's)."""
    o, final, launch = _kda(**locals())
    return execute(o, launch), final


def fused_recurrent_kda_launch(*args, target=None, **kwargs):
    """(o, final_state, Launch or None): what fused_recurrent_kda(*args, **kwargs) launches,
    without launching (the op's checks and preparation); target: None (the arrays' device) or
    a target name, NumPy arrays then standing for GPU tensors."""
    return _kda(**bind(fused_recurrent_kda, args, kwargs), target=check_target(target))


def _kda(q, k, v, g, beta, scale, initial_state, output_final_state, use_qk_l2norm_in_kernel,
         use_gate_in_kernel, use_beta_sigmoid_in_kernel, allow_neg_eigval, lower_bound,
         state_v_first, cu_seqlens, A_log, dt_bias, out, kwargs, target=None):
    state_v_first, _ = take_fla_keywords("fused_recurrent_kda", kwargs, state_v_first)
    use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel = _switches(
        use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel)
    return _prepare(q, k, v, g, beta, scale=scale, initial_state=initial_state,
                    output_final_state=output_final_state,
                    use_qk_l2norm=use_qk_l2norm_in_kernel, use_gate=use_gate_in_kernel,
                    use_beta_sigmoid=use_beta_sigmoid_in_kernel, lower_bound=lower_bound,
                    state_v_first=state_v_first, cu_seqlens=cu_seqlens, A_log=A_log,
                    dt_bias=dt_bias, out=out, gate_per_head=False,
                    allow_neg_eigval=allow_neg_eigval, target=target)


def fused_recurrent_gated_delta_rule(q, k, v, g=None, gk=None, gv=None, beta=None, scale=None,
                                     initial_state=None, output_final_state=False,
                                     use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
                                     A_log=None, dt_bias=None, use_beta_sigmoid_in_kernel=False,
                                     allow_neg_eigval=False, state_v_first=False,
                                     cu_seqlens=None, *, out=None, **kwargs):
    """Gated DeltaNet over every token of each sequence; returns (o, final_state or None).

    q, k [B, T, H, K], v [B, T, HV, V] (GVA), g [B, T, HV]: one log decay per token and value
    head (None: no decay, the plain delta rule), or with use_gate_in_kernel the raw gate
    (required then), activated in the kernel as -exp(A_log) softplus(g + dt_bias) (A_log [HV]
    fp32, required; dt_bias [HV] fp32 or None); beta [B, T, HV] or one per value channel [B, T,
    HV, V], in (0, 1) (logits with use_beta_sigmoid_in_kernel; 2 sigmoid with allow_neg_eigval,
    which needs it), None: ones. Varlen: B = 1 and cu_seqlens [N + 1]. gk [B, T, HV, K]: log
    decays per key channel (KDA's recurrence), applied after g's when both are given (with
    use_gate_in_kernel too: the kernel activates g only). gv [B, T, HV, V]: log decays per value
    channel, applied after the others (never activated in the kernel). Inputs bf16, fp16 or
    fp32. initial_state [N, HV, K, V] ([N, HV, V, K] with state_v_first), fp32, bf16 or fp16, or
    None."""
    o, final, launch = _gdn(**locals())
    return execute(o, launch), final


def fused_recurrent_gated_delta_rule_launch(*args, target=None, **kwargs):
    """(o, final_state, Launch or None): what fused_recurrent_gated_delta_rule(*args,
    **kwargs) launches, without launching (as fused_recurrent_kda_launch). With both g and gk
    the launch reads their sum, computed here: a later change of g or gk in place is not
    seen."""
    return _gdn(**bind(fused_recurrent_gated_delta_rule, args, kwargs),
                target=check_target(target))


def _gdn(q, k, v, g, gk, gv, beta, scale, initial_state, output_final_state,
         use_qk_l2norm_in_kernel, use_gate_in_kernel, A_log, dt_bias,
         use_beta_sigmoid_in_kernel, allow_neg_eigval, state_v_first, cu_seqlens, out, kwargs,
         target=None):
    state_v_first, _ = take_fla_keywords("fused_recurrent_gated_delta_rule", kwargs,
                                         state_v_first)
    use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel = _switches(
        use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel)
    per_head = True
    if gk is not None and g is None and not use_gate_in_kernel:
        # Per-key log decays alone: KDA's recurrence, gk read as the gate (checked under its
        # own name here; beside a per-head g, the kernel reads both: GATE_KEY).
        qi, vi, gki = vd.describe("q", q), vd.describe("v", v), vd.describe("gk", gk)
        vd.check_rank(qi, "[B, T, H, K]", 4)
        vd.check_rank(vi, "[B, T, HV, V]", 4)
        shape = tuple(qi.shape[:2]) + (vi.shape[2], qi.shape[3])
        vd.check_shape(gki, "[B, T, HV, K]", shape, " (B, T, K from q, HV from v)")
        vd.check_dtype(gki, FLOATS)
        vd.check_device(gki, qi)
        g, gk, per_head = gk, None, False
    # g=None: no decay, the plain delta rule; beta=None: ones (FLA's defaults, HAS_G and
    # UNIT_BETA: neither is built nor read).
    if g is None and use_gate_in_kernel:
        vd.fail("g", "is required with use_gate_in_kernel=True (the raw gate [B, T, HV])")
    if beta is None and use_beta_sigmoid_in_kernel:
        vd.fail("beta", "is required with use_beta_sigmoid_in_kernel=True")
    return _prepare(q, k, v, g, beta, scale=scale, initial_state=initial_state,
                    output_final_state=output_final_state,
                    use_qk_l2norm=use_qk_l2norm_in_kernel, use_gate=use_gate_in_kernel,
                    use_beta_sigmoid=use_beta_sigmoid_in_kernel, lower_bound=None,
                    state_v_first=state_v_first, cu_seqlens=cu_seqlens, A_log=A_log,
                    dt_bias=dt_bias, out=out, gate_per_head=per_head,
                    allow_neg_eigval=allow_neg_eigval, gk=gk, gv=gv, target=target,
                    fla_defaults=True)


def fused_recurrent_gla(q, k, v, gk=None, gv=None, scale=None, initial_state=None,
                        output_final_state=False, reverse=False, state_v_first=False,
                        cu_seqlens=None, *, out=None, **kwargs):
    """Gated linear attention over every token of each sequence (FLA's
    `fla.ops.gla.fused_recurrent_gla` parameters, in its order); returns (o, final_state or
    None). Per token: S <- diag(exp(gk)) S diag(exp(gv)) + k v^T, o = S^T (scale q).

    q, k [B, T, H, K], v [B, T, HV, V] (GVA: HV a multiple of H), gk [B, T, HV, K] and gv
    [B, T, HV, V]: the log decays of each key and value channel (None: no decay). Varlen:
    B = 1 and cu_seqlens [N + 1]. reverse: each sequence's tokens run from last to first
    (the final state is the one after its first token). Inputs bf16, fp16 or fp32.
    initial_state [N, HV, K, V] ([N, HV, V, K] with state_v_first) fp32, bf16 or fp16, or
    None; the final state is fp32, in the same layout."""
    o, final, launch = _gla(**locals())
    return execute(o, launch), final


def fused_recurrent_gla_launch(*args, target=None, **kwargs):
    """(o, final_state, Launch or None): what fused_recurrent_gla(*args, **kwargs) launches,
    without launching (as fused_recurrent_kda_launch)."""
    return _gla(**bind(fused_recurrent_gla, args, kwargs), target=check_target(target))


def _gla(q, k, v, gk, gv, scale, initial_state, output_final_state, reverse, state_v_first,
         cu_seqlens, out, kwargs, target=None):
    state_v_first, _ = take_fla_keywords("fused_recurrent_gla", kwargs, state_v_first)
    reverse = vd.check_flag("reverse", reverse)
    qi = vd.describe("q", q)
    vi = vd.describe("v", v)
    vd.check_rank(qi, "[B, T, H, K]", 4)
    vd.check_rank(vi, "[B, T, HV, V]", 4)
    B, T = qi.shape[:2]
    vd.check_shape(vi, "[B, T, HV, V]", (B, T) + tuple(vi.shape[2:]), " (B, T from q)")
    HV = vi.shape[2]
    if gk is not None:  # checked here to name it gk (kda_recurrent's checks say g)
        gi = vd.describe("gk", gk)
        vd.check_shape(gi, "[B, T, HV, K]", (B, T, HV, qi.shape[3]),
                       " (B, T from q, HV from v, K from q)")
        vd.check_dtype(gi, FLOATS)
    # Without gk no decay (HAS_G=False: nothing built or read); the delta rule is off: no beta.
    return _prepare(q, k, v, gk, None, scale=scale,
                    initial_state=initial_state, output_final_state=output_final_state,
                    use_qk_l2norm=False, use_gate=False, use_beta_sigmoid=False,
                    lower_bound=None, state_v_first=state_v_first, cu_seqlens=cu_seqlens,
                    A_log=None, dt_bias=None, out=out, gate_per_head=False, delta_rule=False,
                    gv=gv, reverse=reverse, target=target, fla_defaults=True)


def _switches(use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel):
    """The in-kernel switches, checked under the ops' names (kda_recurrent's differ)."""
    return (vd.check_flag("use_qk_l2norm_in_kernel", use_qk_l2norm_in_kernel),
            vd.check_flag("use_gate_in_kernel", use_gate_in_kernel),
            vd.check_flag("use_beta_sigmoid_in_kernel", use_beta_sigmoid_in_kernel))


def _prepare(q, k, v, g, beta, *, scale, initial_state, output_final_state, use_qk_l2norm,
             use_gate, use_beta_sigmoid, lower_bound, state_v_first, cu_seqlens, A_log,
             dt_bias, out, gate_per_head, delta_rule=True, allow_neg_eigval=False, gk=None,
             gv=None, reverse=False, target=None, fla_defaults=False):
    """(o, final state or None, Launch or None) of kda_recurrent's final-state-only launch:
    from the initial states (read in place; copied only when not dense), or, without them,
    from the zero state (ZERO_START: no pool is filled or read); the final states go to a new
    array with output_final_state (FINAL_STATE_OUT), else nowhere (OUTPUTS_ONLY)."""
    output_final_state = vd.check_flag("output_final_state", output_final_state)
    state_v_first = vd.check_flag("state_v_first", state_v_first)
    qi = vd.describe("q", q)
    vi = vd.describe("v", v)
    vd.check_rank(qi, "[B, T, H, K]", 4)
    vd.check_rank(vi, "[B, T, HV, V]", 4)
    K, HV, V = qi.shape[3], vi.shape[2], vi.shape[3]
    if cu_seqlens is not None:
        cu = vd.describe("cu_seqlens", cu_seqlens)
        vd.check_rank(cu, "[N + 1]", 1)
        N = max(cu.shape[0] - 1, 0)
    else:
        N = qi.shape[0]
    inner = (V, K) if state_v_first else (K, V)
    layout = "vk" if state_v_first else "kv"
    final = vd.new_like(qi, (N, HV) + inner, "f32") if output_final_state else None
    pool = None  # ZERO_START reads no pool
    if initial_state is not None:
        st = vd.describe("initial_state", initial_state)
        shape = "[N, HV, V, K]" if state_v_first else "[N, HV, K, V]"
        vd.check_shape(st, shape, (N, HV) + inner, f" (N = {N}, HV = {HV} from v)")
        # Read in place; a copy only for a non-dense array (the kernel reads dense slots).
        pool = st.value if st.is_contiguous() else st.contiguous().value
    # Sequence n's state is slot n of the pool: no slot table (SEQUENCE_SLOTS).
    o, launch = recurrent_slot_per_sequence(
        q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound, scale=scale,
        initial_state=pool, state_indices=None, cu_seqlens=cu_seqlens,
        use_qk_l2norm=use_qk_l2norm, use_gate=use_gate, use_beta_sigmoid=use_beta_sigmoid,
        state_layout=layout, out=out, final_state_only=True, gate_per_head=gate_per_head,
        delta_rule=delta_rule, target=target, final_out=final,
        zero_start=initial_state is None, outputs_only=not output_final_state,
        allow_neg_eigval=allow_neg_eigval, gate_keyword="use_gate_in_kernel", gk=gk, gv=gv,
        reverse=reverse, fla_defaults=fla_defaults)
    return o, final, launch
