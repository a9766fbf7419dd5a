"""Kimi Delta Attention: one fused decode step (docs/kda.md, "Decode step"): the kernel that
holds a whole head in one step, and the DSL helpers every decode kernel shares.

In one launch a decode kernel runs, per (batch row n, head h), the causal width-4 short
convolution of the head's q, k and v channels with its cache and SiLU, the q/k L2-norm, the
gate (lower-bound or softplus form), the beta sigmoid, the delta-rule state update and output,
and the sigmoid-gated RMSNorm. The launch strategies, one kernel each (kdatile.ops.decode picks
one per launch; docs/ops.md gives its rules):

  kda_decode          (this file) grid (B, H): a whole head per program in one step. Small
                      batches, where the chain of memory round trips is the time.
  kda_decode_steps    (kda_decode_steps.py) grid (B, H): a whole head walked BLK value rows at
                      a time, each block in registers or streamed through a shared-memory
                      ring. Large batches, where registers per thread decide how many
                      programs fit on a multiprocessor.
  kda_decode_split    (kda_decode_split.py) grid (B, H, D // BV): a head's value rows split
                      over programs that meet to finish the norm, through tickets in a
                      workspace or in a thread-block cluster.
  kda_decode_cluster  (kda_decode_cluster.py) the one-step [V, K] split in a cluster, with its
                      layouts written out for few exchanges (sm_90a).

Every kernel takes the same arguments (a kernel ignores those its strategy does not use: the
workspace ticket_ptr / partial_ptr without tickets, raw_g_ptr with FUSED_FB, fa_ptr and fbw_ptr
without). Padding rows (slot < 0 or slot >= num_slots) write zeros to out[n, h] and read or
write no cache. Slot offsets are 64-bit, so caches beyond 4 GiB work. Float parameters
(lower_bound, norm_eps) are runtime arguments: they never multiply compiled kernels. The conv
cache is addressed through strides (slot, channel, tap), so a channel-major [slots, C, 3] cache
and a width-major [slots, 3, C] storage seen transposed both work.

Constexprs every kernel takes:
  H, D             heads and head dim (K = V = D).
  STATE_KV         False: state[slot, h] is [V, K] (K contiguous); True: [K, V].
  USE_LOWER_BOUND  True: g = lower_bound * sigmoid(exp(A_log) * (raw_g + dt_bias));
                   False: g = -exp(A_log) * softplus(raw_g + dt_bias).
  HAS_CONV_BIAS    whether conv_b_ptr holds a bias per channel.
  FUSED_FB         True: raw_g = bf16(f_b_weight[h] @ f_a[n]) is computed in the kernel from
                   fa_ptr [B, D] and fbw_ptr [H*D, D]; raw_g_ptr is unused.

kda_decode loads the operands that do not depend on the slot before reading the slot index, so
those loads overlap it (all but FUSED_FB's f_a and [D, D] weight block, which would hold many
registers), then the [D, D] state block, whose latency overlaps the conv, norms and gate.
"""

import kdatile as kt
from gates import activated_log_decay


@kt.jit
def conv_operands(x_row, conv_w, conv_b, chan, HAS_CONV_BIAS: kt.constexpr):
    """The slot-independent operands of channels `chan`'s convolution: the new input x, the
    4 taps' weights and the bias (x again, unused, without one)."""
    x = kt.load(x_row + chan)
    w = conv_w + chan * 4
    bias = x
    if HAS_CONV_BIAS:
        bias = kt.load(conv_b + chan)
    return x, kt.load(w), kt.load(w + 1), kt.load(w + 2), kt.load(w + 3), bias


@kt.jit
def head_operands(x_row, conv_w, conv_b, A_log_ptr, dt_bias_ptr, raw_beta_ptr, n, h, offs,
                  H: kt.constexpr, D: kt.constexpr, HAS_CONV_BIAS: kt.constexpr):
    """The slot-independent operands of head h of row n: its q and k convolutions'
    (conv_operands) and its gate_operands; loaded before the slot index is known, so their
    latency overlaps its load."""
    q_ops = conv_operands(x_row, conv_w, conv_b, h * D + offs, HAS_CONV_BIAS)
    k_ops = conv_operands(x_row, conv_w, conv_b, (H + h) * D + offs, HAS_CONV_BIAS)
    A_log_h, dt_bias, raw_beta = gate_operands(A_log_ptr, dt_bias_ptr, raw_beta_ptr, n, h, offs,
                                               H, D)
    return q_ops, k_ops, A_log_h, dt_bias, raw_beta


@kt.jit
def gate_operands(A_log_ptr, dt_bias_ptr, raw_beta_ptr, n, h, offs, H: kt.constexpr,
                  D: kt.constexpr):
    """Head h's A_log and dt_bias and row n's raw beta of head h."""
    return (kt.load(A_log_ptr + h), kt.load(dt_bias_ptr + h * D + offs),
            kt.load(raw_beta_ptr + n * H + h))


@kt.jit
def conv_taps(cs_slot, chan, stride_c, stride_w):
    """The slot's cached inputs (s0, s1, s2) of channels `chan`, and their addresses."""
    cs = cs_slot + chan.to(kt.int64) * stride_c
    return cs, kt.load(cs), kt.load(cs + stride_w), kt.load(cs + 2 * stride_w)


@kt.jit
def conv_silu(ops, taps, HAS_CONV_BIAS: kt.constexpr):
    """SiLU of the causal width-4 convolution (ops from conv_operands, taps from conv_taps),
    rounded to bf16 (the model's boundary) and widened to fp32."""
    x, w0, w1, w2, w3, bias = ops
    cs, s0, s1, s2 = taps
    y = (w0.to(kt.float32) * s0.to(kt.float32) + w1.to(kt.float32) * s1.to(kt.float32)
         + w2.to(kt.float32) * s2.to(kt.float32) + w3.to(kt.float32) * x.to(kt.float32))
    if HAS_CONV_BIAS:
        y = y + bias.to(kt.float32)
    return kt.silu(y).to(kt.bfloat16).to(kt.float32)


@kt.jit
def shift_conv_cache(ops, taps, stride_w):
    """The cache keeps the raw inputs: (s0, s1, s2) becomes (s1, s2, x)."""
    cs, s0, s1, s2 = taps
    kt.store(cs, s1)
    kt.store(cs + stride_w, s2)
    kt.store(cs + 2 * stride_w, ops[0])


@kt.jit
def load_conv_silu(x_row, conv_w, conv_b, cs_slot, chan, stride_c, stride_w,
                   HAS_CONV_BIAS: kt.constexpr):
    """conv_silu of channels `chan` with its operands loaded here, and the shift of their
    cache: what a program of several steps runs per step. It repeats conv_silu's
    formula with each weight loaded where it is used: the same code through conv_operands
    costs 16 more registers per thread at 32-row steps (96 instead of 80, 5% slower at
    H = 12, B = 128 on the H200)."""
    x = kt.load(x_row + chan)
    cs = cs_slot + chan.to(kt.int64) * stride_c
    s0 = kt.load(cs)
    s1 = kt.load(cs + stride_w)
    s2 = kt.load(cs + 2 * stride_w)
    w = conv_w + chan * 4
    y = (kt.load(w).to(kt.float32) * s0.to(kt.float32)
         + kt.load(w + 1).to(kt.float32) * s1.to(kt.float32)
         + kt.load(w + 2).to(kt.float32) * s2.to(kt.float32)
         + kt.load(w + 3).to(kt.float32) * x.to(kt.float32))
    if HAS_CONV_BIAS:
        y = y + kt.load(conv_b + chan).to(kt.float32)
    kt.store(cs, s1)
    kt.store(cs + stride_w, s2)
    kt.store(cs + 2 * stride_w, x)
    return kt.silu(y).to(kt.bfloat16).to(kt.float32)


@kt.jit
def f_b_projection(fa_ptr, fbw_ptr, n, h, D: kt.constexpr):
    """raw_g of head h = bf16(f_b_weight[h*D:(h+1)*D] @ f_a[n]), fp32 accumulation."""
    offs = kt.arange(0, D)
    fa = kt.load(fa_ptr + n * D + offs).to(kt.float32)
    w = kt.load(fbw_ptr + (h * D + offs)[:, None] * D + offs[None, :])
    return kt.sum(w.to(kt.float32) * fa[None, :], 1).to(kt.bfloat16)


@kt.jit
def kda_gate(raw_g, A_log_h, dt_bias, lower_bound, USE_LOWER_BOUND: kt.constexpr):
    """The per-channel log decay g (fp32) of one head."""
    return activated_log_decay(raw_g + dt_bias, kt.exp(A_log_h), lower_bound, USE_LOWER_BOUND)


@kt.jit
def state_block_copy(pool, head, first_row, buf, STATE_KV: kt.constexpr):
    """Starts the copy of value rows first_row.. of head `head` (slot * H + h) of the pool
    descriptor into buf [1, ...]: rows of [V, K] memory, columns of [K, V]."""
    if STATE_KV:
        kt.async_load(pool, (head, 0, first_row), buf)
    else:
        kt.async_load(pool, (head, first_row, 0), buf)


@kt.jit
def gated_rmsnorm(o, sum_sq, gate, norm_w, out_rows, D: kt.constexpr, norm_eps):
    """out_rows = o * rsqrt(sum_sq / D + eps) * norm_w * sigmoid(gate) (all fp32)."""
    y = o * kt.rsqrt(sum_sq / D + norm_eps) * norm_w * kt.sigmoid(gate)
    kt.store(out_rows, y)


@kt.jit
def qk_norms(q, k, D: kt.constexpr):
    """The L2-norms of q (with the D^-0.5 scale) and k."""
    q = q * kt.rsqrt(kt.sum(q * q, 0) + 1e-6) * (D ** -0.5)
    k = k * kt.rsqrt(kt.sum(k * k, 0) + 1e-6)
    return q, k


@kt.jit
def decay_terms(raw_g, A_log_h, dt_bias, raw_beta, q, k, lower_bound,
                USE_LOWER_BOUND: kt.constexpr):
    """(exp(g), exp(g) k, exp(g) q, k . q, beta) of one head: what delta_rule_block takes."""
    g = kda_gate(raw_g.to(kt.float32), A_log_h, dt_bias, lower_bound, USE_LOWER_BOUND)
    beta = kt.sigmoid(raw_beta.to(kt.float32))
    eg = kt.exp(g)
    return eg, eg * k, eg * q, kt.sum(k * q, 0), beta


@kt.jit
def delta_rule_block(S, v, k, terms, STATE_KV: kt.constexpr):
    """The delta rule on a block of value rows (S: [rows, K], or [K, rows] with STATE_KV): with
    the decayed state S_g = S * exp(g), u = S_g k, S' = S_g + delta k^T (delta = beta (v - u))
    and the output o = S' q. Both products are taken from the loaded S, so the two reductions
    are independent: u = S (exp(g) k), o = S (exp(g) q) + delta (k . q). Returns (S', S (exp(g)
    q), delta), which block_output turns into o."""
    eg, egk, egq, kq, beta = terms
    if STATE_KV:
        u = kt.sum(S * egk[:, None], 0)
        o = kt.sum(S * egq[:, None], 0)
        delta = beta * (v - u)
        S = S * eg[:, None] + k[:, None] * delta[None, :]
    else:
        u = kt.sum(S * egk[None, :], 1)
        o = kt.sum(S * egq[None, :], 1)
        delta = beta * (v - u)
        S = S * eg[None, :] + delta[:, None] * k[None, :]
    return S, o, delta


@kt.jit
def block_output(o, delta, terms):
    """A block's output o = S (exp(g) q) + delta (k . q), rounded to bf16 (what the norm
    normalizes) and widened. (Taken after the state's store, which then issues first.)"""
    return (o + delta * terms[3]).to(kt.bfloat16).to(kt.float32)


@kt.jit
def state_block(state_ptr, slot64, h, rows, offs, H: kt.constexpr, D: kt.constexpr,
                STATE_KV: kt.constexpr):
    """Pointers to the value rows `rows` of the slot's head state: a [rows, K] block of [V, K]
    memory, or [K, rows] of [K, V] memory, so loads stay contiguous."""
    s_base = state_ptr + (slot64 * H + h) * (D * D)
    if STATE_KV:
        return s_base + offs[:, None] * D + rows[None, :]
    return s_base + rows[:, None] * D + offs[None, :]


# num_slots only bounds the slot indices: pools of 16 or 17 slots share one compiled kernel.
@kt.jit(do_not_specialize=("num_slots",))
def kda_decode(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr, fbw_ptr,
               raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr, gate_ptr,
               norm_w_ptr, out_ptr, ticket_ptr, partial_ptr,
               num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
               lower_bound, norm_eps,
               H: kt.constexpr, D: kt.constexpr, STATE_KV: kt.constexpr,
               USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
               FUSED_FB: kt.constexpr):
    n = kt.program_id(0)
    h = kt.program_id(1)
    offs = kt.arange(0, D)
    head_row = (n * H + h) * D
    kt.wait_prior_launches()  # launched early: the previous kernel's writes land here
    slot = kt.load(state_idx_ptr + n)
    x_row = x_ptr + n.to(kt.int64) * stride_x
    q_ops, k_ops, A_log_h, dt_bias, raw_beta = head_operands(
        x_row, conv_w_ptr, conv_b_ptr, A_log_ptr, dt_bias_ptr, raw_beta_ptr, n, h, offs, H, D,
        HAS_CONV_BIAS)
    if not FUSED_FB:
        raw_g = kt.load(raw_g_ptr + head_row + offs)
    v_chan = (2 * H + h) * D + offs
    v_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, v_chan, HAS_CONV_BIAS)
    gate = kt.load(gate_ptr + (head_row + offs)).to(kt.float32)
    norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        s_block = state_block(state_ptr, slot64, h, offs, offs, H, D, STATE_KV)
        S = kt.load(s_block).to(kt.float32)
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        q_taps = conv_taps(cs_slot, h * D + offs, stride_cs_c, stride_cs_w)
        shift_conv_cache(q_ops, q_taps, stride_cs_w)
        q = conv_silu(q_ops, q_taps, HAS_CONV_BIAS)
        k_taps = conv_taps(cs_slot, (H + h) * D + offs, stride_cs_c, stride_cs_w)
        shift_conv_cache(k_ops, k_taps, stride_cs_w)
        k = conv_silu(k_ops, k_taps, HAS_CONV_BIAS)
        v_taps = conv_taps(cs_slot, v_chan, stride_cs_c, stride_cs_w)
        q, k = qk_norms(q, k, D)
        if FUSED_FB:
            raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
        terms = decay_terms(raw_g, A_log_h, dt_bias, raw_beta, q, k, lower_bound,
                            USE_LOWER_BOUND)
        shift_conv_cache(v_ops, v_taps, stride_cs_w)
        v = conv_silu(v_ops, v_taps, HAS_CONV_BIAS)
        S, o, delta = delta_rule_block(S, v, k, terms, STATE_KV)
        kt.store(s_block, S)
        o = block_output(o, delta, terms)
        gated_rmsnorm(o, kt.sum(o * o, 0), gate, norm_w, out_ptr + (head_row + offs), D,
                      norm_eps)
    else:
        kt.store(out_ptr + head_row + offs, kt.zeros((D,), kt.float32))
