"""Kimi Delta Attention: the fused decode step with a whole head per program, walked in steps
of BLK value rows (the strategies and shared arguments: kda_decode.py).

Grid (B, H). A program updates its head's state a [BLK, D] block at a time (load it, update
it, store it), leaving each block's bf16 outputs in out and summing their squares; after the
last block it rereads the head's D outputs from out for the sigmoid-gated RMSNorm. A block in
flight costs BLK * D / threads registers, not the whole [D, D] head's, so more programs fit on
a multiprocessor: the launch for large batches. Operands are loaded where they are used, so no
register stays live through the steps.

Constexprs (beyond kda_decode's):
  BLK      value rows per step; divides D into at least two steps.
  STAGES   0: each step loads its block into registers. 2 or more: the blocks stream
           through a ring of STAGES shared-memory buffers by tensor-descriptor block copies
           (TMA on sm_90a, the Tensor Data Mover on gfx1250, buffer loads into LDS on
           gfx950): the first STAGES - 1 are started before the conv, and each next one while
           a block is updated.

With FUSED_FB and a ring over a [V, K] state, the f_b projection runs before the slot's test
(its weight loads overlap the slot's, and its registers are free again before the conv: 1-2%
faster on the H200 than after the norms; slower without the ring; not measured with a [K, V]
state), so a padding row has computed raw_g from f_a[n] by then.
"""

import kdatile as kt
from kda_decode import (
    block_output,
    conv_operands,
    conv_silu,
    conv_taps,
    decay_terms,
    delta_rule_block,
    f_b_projection,
    gate_operands,
    gated_rmsnorm,
    load_conv_silu,
    qk_norms,
    shift_conv_cache,
    state_block,
    state_block_copy,
)


# num_slots only bounds the slot indices: pools of 16 or 17 slots share one compiled kernel.
@kt.jit(do_not_specialize=("num_slots",))
def kda_decode_steps(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr, fbw_ptr,
                     raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr, gate_ptr,
                     norm_w_ptr, out_ptr, ticket_ptr, partial_ptr,
                     num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
                     lower_bound, norm_eps,
                     H: kt.constexpr, D: kt.constexpr, STATE_KV: kt.constexpr,
                     USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
                     FUSED_FB: kt.constexpr, BLK: kt.constexpr, STAGES: kt.constexpr = 0):
    NB = D // BLK
    kt.static_assert(NB * BLK == D and NB > 1, "BLK must divide D into at least two steps")
    kt.static_assert(STAGES == 0 or STAGES >= 2, "STAGES must be 0 or at least 2")
    RING = STAGES > 0
    if RING:
        # Each buffer of the ring holds one block of the pool seen as [slots * H, rows, cols].
        if STATE_KV:
            s_ring = kt.alloc_shared((STAGES, 1, D, BLK), state_ptr.dtype.element_ty)
        else:
            s_ring = kt.alloc_shared((STAGES, 1, BLK, D), state_ptr.dtype.element_ty)
    n = kt.program_id(0)
    h = kt.program_id(1)
    offs = kt.arange(0, D)
    rows = kt.arange(0, BLK)
    head_row = (n * H + h) * D
    kt.wait_prior_launches()  # launched early: the previous kernel's writes land here
    slot = kt.load(state_idx_ptr + n)
    x_row = x_ptr + n.to(kt.int64) * stride_x
    EARLY_PROJECTION = FUSED_FB and RING and not STATE_KV
    if EARLY_PROJECTION:
        raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        s_block = state_block(state_ptr, slot64, h, rows, offs, H, D, STATE_KV)
        s_step = BLK if STATE_KV else BLK * D
        if RING:
            # The first blocks arrive in shared memory while the conv, norms and gate are
            # computed, without holding registers. The pool as [slots * H, D, D]: the slot
            # passed its test, so the offsets are not negative (the Tensor Data Mover's
            # condition).
            pool = kt.make_tensor_descriptor(state_ptr, (num_slots * H, D, D), (D * D, D, 1),
                                             (1, D, BLK) if STATE_KV else (1, BLK, D))
            for b in kt.static_range(min(STAGES - 1, NB)):
                state_block_copy(pool, slot * H + h, b * BLK, s_ring.index(b), STATE_KV)
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        q_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, h * D + offs, HAS_CONV_BIAS)
        q_taps = conv_taps(cs_slot, h * D + offs, stride_cs_c, stride_cs_w)
        shift_conv_cache(q_ops, q_taps, stride_cs_w)
        q = conv_silu(q_ops, q_taps, HAS_CONV_BIAS)
        k_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, (H + h) * D + offs, HAS_CONV_BIAS)
        k_taps = conv_taps(cs_slot, (H + h) * D + offs, stride_cs_c, stride_cs_w)
        shift_conv_cache(k_ops, k_taps, stride_cs_w)
        k = conv_silu(k_ops, k_taps, HAS_CONV_BIAS)
        q, k = qk_norms(q, k, D)
        if not FUSED_FB:
            raw_g = kt.load(raw_g_ptr + head_row + offs)
        A_log_h, dt_bias, raw_beta = gate_operands(A_log_ptr, dt_bias_ptr, raw_beta_ptr, n, h,
                                                   offs, H, D)
        if FUSED_FB and not EARLY_PROJECTION:
            raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
        terms = decay_terms(raw_g, A_log_h, dt_bias, raw_beta, q, k, lower_bound,
                            USE_LOWER_BOUND)
        sum_sq = kt.zeros((BLK,), kt.float32)
        for b in kt.static_range(NB):
            if RING:
                # Block b is in; the buffer refilled next was read in step b - 1, before
                # the wait's barrier.
                kt.async_wait(min(b + STAGES - 1, NB) - b - 1)
                if b + STAGES - 1 < NB:
                    state_block_copy(pool, slot * H + h, (b + STAGES - 1) * BLK,
                                     s_ring.index((b + STAGES - 1) % STAGES), STATE_KV)
                S = s_ring.index(b % STAGES).index(0).load().to(kt.float32)
            else:
                S = kt.load(s_block + b * s_step).to(kt.float32)
            v_rows = b * BLK + rows
            v = load_conv_silu(x_row, conv_w_ptr, conv_b_ptr, cs_slot, (2 * H + h) * D + v_rows,
                               stride_cs_c, stride_cs_w, HAS_CONV_BIAS)
            S, o, delta = delta_rule_block(S, v, k, terms, STATE_KV)
            kt.store(s_block + b * s_step, S)
            o = block_output(o, delta, terms)
            sum_sq = sum_sq + o * o
            # The bf16-rounded output (what the norm normalizes) waits in out, exactly.
            kt.store(out_ptr + head_row + v_rows, o)
        # (The gate and norm weight are loaded after the sum's cross-warp reduction: ahead of
        # it, they cost 16 more registers per thread at 32-row steps.)
        o = kt.load(out_ptr + head_row + offs).to(kt.float32)
        head_sq = kt.sum(sum_sq, 0)
        gate = kt.load(gate_ptr + (head_row + offs)).to(kt.float32)
        norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
        gated_rmsnorm(o, head_sq, gate, norm_w, out_ptr + (head_row + offs), D, norm_eps)
    else:
        kt.store(out_ptr + head_row + offs, kt.zeros((D,), kt.float32))
