"""Gated DeltaNet (Qwen3-Next, Qwen3.5): one fused decode step (docs/ops.md, "gdn_decode").

Grid (B, H, NV): per batch row n and q/k head h, NV programs (one by default) share the value
rows of the G = HV // H value heads that use its q and k (grouped value attention), V // NV
rows each. In one launch it runs the causal
width-4 short convolution of the row's q, k and v channels with their cache and SiLU, the q/k
L2-norm (q scaled by `scale`), the per-head gate g = -exp(A_log) * softplus(a + dt_bias) and
beta = sigmoid(b), the delta-rule update of each value head's state and its output, and the
SiLU-gated RMSNorm out = rmsnorm(o) * norm_w * silu(z). A single program is the only reader of
its q/k channels' cache, so it shifts that cache itself once it has read it. With NV > 1 (small
batches, where one program per row and head leaves most of the GPU idle) the NV programs run as
one thread-block cluster (kt.cluster_sum; the host runs clusters too): they add their rows'
sums of squares for the norm through it, and the first shifts the q/k cache after the first
such sum, which every program reaches only once it has read that cache.

x [B, C] holds the channels q heads (H*K) | k heads (H*K) | v heads (HV*V); the conv cache
[slots, C, 3] is addressed through strides (slot, channel, tap), so a channel-major cache and a
width-major [slots, 3, C] storage seen transposed both work. A value head's state is [V, K] (K
contiguous) or, with STATE_KV, [K, V]; fp32 or bf16 (computed in fp32). The core's output is
rounded to bf16 before the norm, as the model's attention output is. Padding rows (slot < 0 or
slot >= num_slots) write zeros and read or write no cache. Slot offsets are 64-bit. scale and
norm_eps are runtime arguments: they never multiply compiled kernels.
"""

import kdatile as kt
from gates import activated_log_decay
from kda_decode import conv_operands, conv_silu, conv_taps, shift_conv_cache


@kt.jit
def silu_gated_rmsnorm(o, sum_sq, gate, norm_w, out_rows, V: kt.constexpr, norm_eps):
    """out_rows = o * rsqrt(sum_sq / V + eps) * norm_w * silu(gate) (fp32 operands; sum_sq is
    the sum of squares over all V outputs of the value head)."""
    y = o * kt.rsqrt(sum_sq / V + norm_eps) * norm_w * kt.silu(gate)
    kt.store(out_rows, y)


@kt.jit
def state_rows(state_ptr, slot64, hv, vs, HV: kt.constexpr, K: kt.constexpr, V: kt.constexpr,
               STATE_KV: kt.constexpr):
    """The addresses of value rows vs of value head hv's state in slot64, as a [rows, K] tile
    either way ([K, V] memory is read down its columns)."""
    ks = kt.arange(0, K)
    s_base = state_ptr + (slot64 * HV + hv) * (K * V)
    if STATE_KV:
        return s_base + ks[None, :] * V + vs[:, None]
    return s_base + vs[:, None] * K + ks[None, :]


@kt.jit
def value_head_inputs(x_row, conv_w_ptr, conv_b_ptr, cs_slot, a_ptr, b_ptr, z_ptr, row, hv, vs,
                      stride_cs_c, stride_cs_w, H: kt.constexpr, K: kt.constexpr,
                      V: kt.constexpr, HAS_CONV_BIAS: kt.constexpr):
    """Value head hv's loads of row `row` that its state update waits on, besides the state:
    its v channels' conv operands and cached taps, the gate's and beta's inputs and the
    norm's gate z (raw, converted where used)."""
    v_chan = 2 * H * K + hv * V + vs
    v_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, v_chan, HAS_CONV_BIAS)
    v_taps = conv_taps(cs_slot, v_chan, stride_cs_c, stride_cs_w)
    return (v_ops, v_taps, kt.load(a_ptr + row), kt.load(b_ptr + row),
            kt.load(z_ptr + row * V + vs))


# num_slots only bounds the slot indices: pools of 16 or 17 slots share one compiled kernel.
@kt.jit(do_not_specialize=("num_slots",))
def gdn_decode(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, a_ptr, b_ptr, A_log_ptr,
               dt_bias_ptr, state_ptr, state_idx_ptr, z_ptr, norm_w_ptr, out_ptr,
               num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w, scale, norm_eps,
               H: kt.constexpr, HV: kt.constexpr, K: kt.constexpr, V: kt.constexpr,
               STATE_KV: kt.constexpr, HAS_CONV_BIAS: kt.constexpr, NV: kt.constexpr = 1):
    G = HV // H
    kt.static_assert(G * H == HV, "HV must be a multiple of H")
    BV = V // NV
    kt.static_assert(BV * NV == V and NV <= 8, "NV must divide V, at most 8 programs")
    n = kt.program_id(0)
    h = kt.program_id(1)
    ks = kt.arange(0, K)
    if NV == 1:
        vb = 0
        vs = kt.arange(0, V)
    else:
        vb = kt.program_id(2)
        vs = vb * BV + kt.arange(0, BV)
    kt.wait_prior_launches()  # launched early: the previous kernel's writes land here
    slot = kt.load(state_idx_ptr + n)
    x_row = x_ptr + n.to(kt.int64) * stride_x
    # The operands that do not depend on the slot load before its test, overlapping it.
    q_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, h * K + ks, HAS_CONV_BIAS)
    k_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, (H + h) * K + ks, HAS_CONV_BIAS)
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        # The first value head's state and inputs load first, so their latency overlaps the
        # q/k conv and norms; each next head's load while this one's update runs. Split
        # heads (NV > 1, small batches, where the time is the chain of memory round trips:
        # 157 registers on sm_90a at 4 warps) also fetch the next head's state ahead; a whole
        # head's (NV = 1, 128 registers at 8 warps) would halve the programs a multiprocessor
        # holds.
        S_next = kt.load(state_rows(state_ptr, slot64, h * G, vs, HV, K, V, STATE_KV))
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        inputs_next = value_head_inputs(x_row, conv_w_ptr, conv_b_ptr, cs_slot, a_ptr, b_ptr,
                                        z_ptr, n * HV + h * G, h * G, vs, stride_cs_c,
                                        stride_cs_w, H, K, V, HAS_CONV_BIAS)
        q_taps = conv_taps(cs_slot, h * K + ks, stride_cs_c, stride_cs_w)
        k_taps = conv_taps(cs_slot, (H + h) * K + ks, stride_cs_c, stride_cs_w)
        if NV == 1:
            shift_conv_cache(q_ops, q_taps, stride_cs_w)
            shift_conv_cache(k_ops, k_taps, stride_cs_w)
        q = conv_silu(q_ops, q_taps, HAS_CONV_BIAS)
        k = conv_silu(k_ops, k_taps, HAS_CONV_BIAS)
        q = q * kt.rsqrt(kt.sum(q * q, 0) + 1e-6) * scale
        k = k * kt.rsqrt(kt.sum(k * k, 0) + 1e-6)
        for j in kt.static_range(G):
            hv = h * G + j
            row = n * HV + hv
            s_ptrs = state_rows(state_ptr, slot64, hv, vs, HV, K, V, STATE_KV)
            if j == 0 or NV > 1:
                S = S_next.to(kt.float32)
            else:
                S = kt.load(s_ptrs).to(kt.float32)
            v_ops, v_taps, raw_a, raw_b, z = inputs_next
            if j + 1 < G:
                if NV > 1:
                    S_next = kt.load(state_rows(state_ptr, slot64, hv + 1, vs, HV, K, V,
                                                STATE_KV))
                inputs_next = value_head_inputs(x_row, conv_w_ptr, conv_b_ptr, cs_slot, a_ptr,
                                                b_ptr, z_ptr, row + 1, hv + 1, vs,
                                                stride_cs_c, stride_cs_w, H, K, V,
                                                HAS_CONV_BIAS)
            shift_conv_cache(v_ops, v_taps, stride_cs_w)
            v = conv_silu(v_ops, v_taps, HAS_CONV_BIAS)
            rate = kt.exp(kt.load(A_log_ptr + hv))
            g = activated_log_decay(raw_a.to(kt.float32) + kt.load(dt_bias_ptr + hv), rate,
                                    0.0, False)
            beta = kt.sigmoid(raw_b.to(kt.float32))
            # S_g = S exp(g); delta = beta (v - S_g k); S' = S_g + delta k^T; o = S' q.
            S = S * kt.exp(g)
            delta = beta * (v - kt.sum(S * k[None, :], 1))
            S = S + delta[:, None] * k[None, :]
            kt.store(s_ptrs, S)
            o = kt.sum(S * q[None, :], 1).to(kt.bfloat16).to(kt.float32)
            sum_sq = kt.sum(o * o, 0)
            if NV > 1:
                sum_sq = kt.cluster_sum(sum_sq, 2, NV)
                if j == 0 and vb == 0:
                    # Every program of the cluster has read the q/k cache by now.
                    shift_conv_cache(q_ops, q_taps, stride_cs_w)
                    shift_conv_cache(k_ops, k_taps, stride_cs_w)
            norm_w = kt.load(norm_w_ptr + vs).to(kt.float32)
            silu_gated_rmsnorm(o, sum_sq, z.to(kt.float32), norm_w, out_ptr + row * V + vs, V,
                               norm_eps)
    else:
        for j in kt.static_range(G):
            kt.store(out_ptr + (n * HV + h * G + j) * V + vs, kt.zeros((BV,), kt.float32))
