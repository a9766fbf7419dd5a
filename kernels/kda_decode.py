"""Kimi Delta Attention: one fused decode step (../shared/KDA.md section 1).

One program per (batch row n, head h), grid (B, H). In one launch it runs the causal width-4
short convolution of the head's q, k and v channels with its cache and SiLU, the q/k L2-norm,
the gate (lower-bound or softplus form), the beta sigmoid, the delta-rule state update and
output, and the sigmoid-gated RMSNorm.

Padding rows (slot < 0 or slot >= num_slots) write zeros to out[n, h] and read or write no cache.
Slot offsets are 64-bit, so caches beyond 4 GiB work. Float parameters (lower_bound, norm_eps)
are runtime arguments: they never multiply compiled kernels.

Layout constexprs:
  STATE_KV      False: state[slot, h] is [V, K] (K contiguous); True: [K, V].
  USE_LOWER_BOUND  True: g = lower_bound * sigmoid(exp(A_log) * (raw_g + dt_bias));
                   False: g = -exp(A_log) * softplus(raw_g + dt_bias).
  HAS_CONV_BIAS    whether conv_b_ptr holds a bias per channel.
  FUSED_FB         True: raw_g = bf16(f_b_weight[h] @ f_a[n]) is computed here from
                   fa_ptr [B, D] and fbw_ptr [H*D, D]; raw_g_ptr is unused.
The conv cache is addressed through strides (slot, channel, tap), so a channel-major
[slots, C, 3] cache and a width-major [slots, 3, C] storage seen transposed both work.
"""

import kdatile as kt


@kt.jit
def conv_silu(x_row, conv_w, conv_b, cs_slot, chan, stride_c, stride_w,
              HAS_CONV_BIAS: kt.constexpr):
    """SiLU of the causal width-4 convolution of channels `chan`; shifts the cache.

    Returns the activation rounded to bf16 (the model's boundary) and widened to fp32.
    """
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
    # The cache keeps the raw inputs: shift left, append x.
    kt.store(cs, s1)
    kt.store(cs + stride_w, s2)
    kt.store(cs + 2 * stride_w, x)
    return kt.silu(y).to(kt.bfloat16).to(kt.float32)


@kt.jit
def kda_gate(raw_g, A_log_h, dt_bias, lower_bound, USE_LOWER_BOUND: kt.constexpr):
    """The per-channel log decay g (fp32) of one head."""
    a = raw_g + dt_bias
    if USE_LOWER_BOUND:
        g = lower_bound * kt.sigmoid(kt.exp(A_log_h) * a)
    else:
        g = -kt.exp(A_log_h) * kt.softplus(a)
    return g


@kt.jit
def kda_decode(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr, fbw_ptr,
               raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr, gate_ptr,
               norm_w_ptr, out_ptr,
               num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
               lower_bound, norm_eps,
               H: kt.constexpr, D: kt.constexpr, STATE_KV: kt.constexpr,
               USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
               FUSED_FB: kt.constexpr):
    n = kt.program_id(0)
    h = kt.program_id(1)
    offs = kt.arange(0, D)
    head_row = (n * H + h) * D
    slot = kt.load(state_idx_ptr + n)
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        # Short convolution of the head's q, k and v channels.
        x_row = x_ptr + n.to(kt.int64) * stride_x
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        q = conv_silu(x_row, conv_w_ptr, conv_b_ptr, cs_slot, h * D + offs,
                      stride_cs_c, stride_cs_w, HAS_CONV_BIAS)
        k = conv_silu(x_row, conv_w_ptr, conv_b_ptr, cs_slot, (H + h) * D + offs,
                      stride_cs_c, stride_cs_w, HAS_CONV_BIAS)
        v = conv_silu(x_row, conv_w_ptr, conv_b_ptr, cs_slot, (2 * H + h) * D + offs,
                      stride_cs_c, stride_cs_w, HAS_CONV_BIAS)
        # L2-norm of q (with the D^-0.5 scale) and k.
        q = q * kt.rsqrt(kt.sum(q * q, 0) + 1e-6) * (D ** -0.5)
        k = k * kt.rsqrt(kt.sum(k * k, 0) + 1e-6)
        # Gate and beta.
        if FUSED_FB:
            # raw_g = bf16(f_b_weight[h*D:(h+1)*D] @ f_a[n]), fp32 accumulation.
            fa = kt.load(fa_ptr + n * D + offs).to(kt.float32)
            w = kt.load(fbw_ptr + (h * D + offs)[:, None] * D + offs[None, :])
            raw_g = kt.sum(w.to(kt.float32) * fa[None, :], 1).to(kt.bfloat16)
        else:
            raw_g = kt.load(raw_g_ptr + head_row + offs)
        g = kda_gate(raw_g.to(kt.float32), kt.load(A_log_ptr + h),
                     kt.load(dt_bias_ptr + h * D + offs), lower_bound, USE_LOWER_BOUND)
        beta = kt.sigmoid(kt.load(raw_beta_ptr + n * H + h).to(kt.float32))
        # Delta rule on the [V, K] state (decay first; the output uses the new state).
        s_base = state_ptr + (slot64 * H + h) * (D * D)
        if STATE_KV:
            # Memory is [K, V]: hold the tile as [K, V] too, so loads stay contiguous.
            s_ptrs = s_base + offs[:, None] * D + offs[None, :]
            S = kt.load(s_ptrs).to(kt.float32) * kt.exp(g)[:, None]
            u = kt.sum(S * k[:, None], 0)
            S = S + k[:, None] * (beta * (v - u))[None, :]
            o = kt.sum(S * q[:, None], 0)
        else:
            s_ptrs = s_base + offs[:, None] * D + offs[None, :]
            S = kt.load(s_ptrs).to(kt.float32) * kt.exp(g)[None, :]
            u = kt.sum(S * k[None, :], 1)
            S = S + (beta * (v - u))[:, None] * k[None, :]
            o = kt.sum(S * q[None, :], 1)
        kt.store(s_ptrs, S)
        # Sigmoid-gated RMSNorm of the bf16-rounded output.
        o = o.to(kt.bfloat16).to(kt.float32)
        gate = kt.load(gate_ptr + head_row + offs).to(kt.float32)
        norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
        y = o * kt.rsqrt(kt.sum(o * o, 0) / D + norm_eps) * norm_w * kt.sigmoid(gate)
        kt.store(out_ptr + head_row + offs, y)
    else:
        kt.store(out_ptr + head_row + offs, kt.zeros((D,), kt.float32))
