"""Kimi Delta Attention: the fused decode step of a [V, K] head split over a thread-block
cluster in one step, with its layouts written out (the strategies and shared arguments:
kda_decode.py).

Grid (B, H, D // BV), the head's programs one cluster (sm_90a; at most 8). This is the
launch of kda_decode_split.py with CLUSTER and one step, laid out by hand: its chain from the
slot to the output is the time, so it is laid out for few shared-memory exchanges. The
[BV, D] state block has a row per warp at a time and D across lanes (STATE), K-vectors (q, k,
the gate) live in its column slice, replicated over warps (KVEC), so their norms and the row
reductions need lane shuffles only, and value rows in its row slice (VROW). The q/k/v
convolutions run one channel per thread (CHAN) and each crosses to its slice once; the outputs
cross back for the norm. Against the layouts the pass chooses (which reduce the norms across
warps and move the vectors between slices several times: 21 barriers instead of 9), one H200
run gave 3.52 against 3.71 us at H = 12, B = 1 with 16 rows (docs/performance.md). Every
operand that does not depend on the slot, FUSED_FB's projection included, is loaded before
the slot's test, and the gate math runs while it is in flight.

Constexprs (beyond kda_decode's; STATE_KV must be False):
  BV         value rows per program; D // BV must be a power of two from 2 to 8.
  num_warps  the program's warps (the launch's): the layouts span them (32 lanes each).
"""

import kdatile as kt
from kda_decode import (
    conv_operands,
    conv_silu,
    conv_taps,
    f_b_projection,
    gated_rmsnorm,
    kda_gate,
    shift_conv_cache,
)


# num_slots only bounds the slot indices: pools of 16 or 17 slots share one compiled kernel.
@kt.jit(do_not_specialize=("num_slots",))
def kda_decode_cluster(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr,
                       fbw_ptr, raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr,
                       gate_ptr, norm_w_ptr, out_ptr, ticket_ptr, partial_ptr,
                       num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
                       lower_bound, norm_eps,
                       H: kt.constexpr, D: kt.constexpr, STATE_KV: kt.constexpr,
                       USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
                       FUSED_FB: kt.constexpr, BV: kt.constexpr, num_warps: kt.constexpr = 4):
    kt.static_assert(not STATE_KV, "kda_decode_cluster holds a [V, K] state")
    STATE = kt.BlockedLayout([1, 4], [1, 32], [num_warps, 1], [1, 0])
    KVEC = kt.SliceLayout(0, STATE)
    VROW = kt.SliceLayout(1, STATE)
    CHAN = kt.BlockedLayout([1], [32], [num_warps], [0])
    NV = D // BV
    kt.static_assert(NV * BV == D and 2 <= NV <= 8 and (NV & (NV - 1)) == 0,
                     "BV must split D into 2, 4 or 8 blocks")
    n = kt.program_id(0)
    h = kt.program_id(1)
    vb = kt.program_id(2)
    chan = kt.arange(0, D, layout=CHAN)
    col = kt.arange(0, D, layout=KVEC)
    own = vb * BV + kt.arange(0, BV, layout=CHAN)
    head_row = (n * H + h) * D
    kt.wait_prior_launches()  # launched early: the previous kernel's writes land here
    # Everything that does not depend on the slot is loaded before its test (their loads
    # overlap the slot's), and the gate math runs while it is in flight.
    slot = kt.load(state_idx_ptr + n)
    x_row = x_ptr + n.to(kt.int64) * stride_x
    q_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, h * D + chan, HAS_CONV_BIAS)
    k_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, (H + h) * D + chan, HAS_CONV_BIAS)
    v_chan = (2 * H + h) * D + own
    v_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, v_chan, HAS_CONV_BIAS)
    gate = kt.load(gate_ptr + (head_row + own)).to(kt.float32)
    norm_w = kt.load(norm_w_ptr + own).to(kt.float32)
    if FUSED_FB:
        raw_g = kt.convert_layout(f_b_projection(fa_ptr, fbw_ptr, n, h, D), KVEC)
    else:
        raw_g = kt.load(raw_g_ptr + head_row + col)
    g = kda_gate(raw_g.to(kt.float32), kt.load(A_log_ptr + h), kt.load(dt_bias_ptr + h * D + col),
                 lower_bound, USE_LOWER_BOUND)
    eg = kt.exp(g)
    beta = kt.sigmoid(kt.load(raw_beta_ptr + n * H + h).to(kt.float32))
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        rows = vb * BV + kt.arange(0, BV, layout=VROW)
        s_block = state_ptr + (slot64 * H + h) * (D * D) + rows[:, None] * D + col[None, :]
        S = kt.load(s_block).to(kt.float32)
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        q_taps = conv_taps(cs_slot, h * D + chan, stride_cs_c, stride_cs_w)
        k_taps = conv_taps(cs_slot, (H + h) * D + chan, stride_cs_c, stride_cs_w)
        v_taps = conv_taps(cs_slot, v_chan, stride_cs_c, stride_cs_w)
        q = kt.convert_layout(conv_silu(q_ops, q_taps, HAS_CONV_BIAS), KVEC)
        k = kt.convert_layout(conv_silu(k_ops, k_taps, HAS_CONV_BIAS), KVEC)
        v = kt.convert_layout(conv_silu(v_ops, v_taps, HAS_CONV_BIAS), VROW)
        shift_conv_cache(v_ops, v_taps, stride_cs_w)
        # The L2 norms scale the products (u = S (eg k) / |k|, ...), as normalizing q and k
        # first would.
        rq = kt.rsqrt(kt.sum(q * q, 0) + 1e-6) * (D ** -0.5)
        rk = kt.rsqrt(kt.sum(k * k, 0) + 1e-6)
        kq = kt.sum(k * q, 0) * (rq * rk)
        u = kt.sum(S * (eg * k)[None, :], 1) * rk
        o = kt.sum(S * (eg * q)[None, :], 1) * rq
        delta = beta * (v - u)
        S = S * eg[None, :] + delta[:, None] * (k * rk)[None, :]
        kt.store(s_block, S)
        o = kt.convert_layout((o + delta * kq).to(kt.bfloat16).to(kt.float32), CHAN)
        # The head's programs sum their squares in the cluster; the first then shifts the q/k
        # conv cache, which every program has read before the sum.
        sum_all = kt.cluster_sum(kt.sum(o * o, 0), 2, NV)
        if vb == 0:
            shift_conv_cache(q_ops, q_taps, stride_cs_w)
            shift_conv_cache(k_ops, k_taps, stride_cs_w)
        gated_rmsnorm(o, sum_all, gate, norm_w, out_ptr + (head_row + own), D, norm_eps)
    else:
        kt.store(out_ptr + head_row + own, kt.zeros((BV,), kt.float32, layout=CHAN))
