"""Kimi Delta Attention: the fused decode step with a head's value rows split over D // BV
programs, which meet to finish the norm (the strategies and shared arguments: kda_decode.py).

Grid (B, H, D // BV): more programs than heads, for small batches. Every program of a head
runs the q/k convolutions and norms of the whole head (each needs them) and updates its BV
value rows of the state, BLK rows at a time, summing the squares of its bf16 outputs. The
sigmoid-gated RMSNorm needs all D outputs of the head; the programs meet one of two ways:

  tickets (CLUSTER False): each program leaves its outputs in out and its sum of squares in
      partial_ptr [B*H*NV] fp32, then takes a ticket from ticket_ptr [B*H] int32 (an acq_rel
      atomic); the program holding the last ticket finishes the norm for the head, shifts the
      head's q/k conv cache (which every program read) and resets the ticket to 0, so the
      workspace (zeros when allocated) needs no reset between launches. Launches sharing a
      workspace must not run concurrently.
  cluster (CLUSTER True): the head's programs run as one cluster (kt.cluster_sum: a
      thread-block cluster on sm_90a, at most 8 programs): they exchange their sums of squares
      directly, each normalizes its own rows, the first shifts the q/k cache, and no workspace
      is used. (A one-step [V, K] head in a cluster is kda_decode_cluster.py's.)

A one-step program (BLK = BV) loads the operands that do not depend on the slot before
reading the slot index, so those loads overlap it (all but FUSED_FB's f_a and [D, D] weight
block, which would hold many registers), then its state block, whose latency overlaps the
conv, norms and gate; a program of several steps loads each operand where it uses it, so no
register stays live through the steps.

Constexprs (beyond kda_decode's):
  BV       value rows per program; D // BV must be a power of two, at least 2.
  BLK      value rows per step (divides BV; BV: one step).
  STAGES   with several steps, 0: each block is loaded into registers; 2 or more: blocks
           stream through a ring of shared-memory buffers (as in kda_decode_steps.py).
  CLUSTER  how the head's programs meet (above).
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
    head_operands,
    load_conv_silu,
    qk_norms,
    shift_conv_cache,
    state_block,
    state_block_copy,
)


# num_slots only bounds the slot indices: pools of 16 or 17 slots share one compiled kernel.
@kt.jit(do_not_specialize=("num_slots",))
def kda_decode_split(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr, fbw_ptr,
                     raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr, gate_ptr,
                     norm_w_ptr, out_ptr, ticket_ptr, partial_ptr,
                     num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
                     lower_bound, norm_eps,
                     H: kt.constexpr, D: kt.constexpr, STATE_KV: kt.constexpr,
                     USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
                     FUSED_FB: kt.constexpr, BV: kt.constexpr, BLK: kt.constexpr,
                     STAGES: kt.constexpr = 0, CLUSTER: kt.constexpr = False):
    NV = D // BV
    kt.static_assert(NV * BV == D and NV > 1 and (NV & (NV - 1)) == 0,
                     "BV must split D into a power-of-two number of blocks, at least 2")
    kt.static_assert(BLK <= BV and BV % BLK == 0, "BLK must divide BV")
    NB = BV // BLK
    kt.static_assert(STAGES == 0 or STAGES >= 2, "STAGES must be 0 or at least 2")
    kt.static_assert(not CLUSTER or NV <= 8, "CLUSTER needs at most 8 programs per head")
    ONE_STEP = NB == 1
    RING = STAGES > 0 and not ONE_STEP
    if RING:
        # Each buffer of the ring holds one block of the pool seen as [slots * H, rows, cols].
        if STATE_KV:
            s_ring = kt.alloc_shared((STAGES, 1, D, BLK), state_ptr.dtype.element_ty)
        else:
            s_ring = kt.alloc_shared((STAGES, 1, BLK, D), state_ptr.dtype.element_ty)
    n = kt.program_id(0)
    h = kt.program_id(1)
    vb = kt.program_id(2)
    offs = kt.arange(0, D)
    rows = kt.arange(0, BLK)
    head = n * H + h
    head_row = head * D
    kt.wait_prior_launches()  # launched early: the previous kernel's writes land here
    slot = kt.load(state_idx_ptr + n)
    x_row = x_ptr + n.to(kt.int64) * stride_x
    if ONE_STEP:
        q_ops, k_ops, A_log_h, dt_bias, raw_beta = head_operands(
            x_row, conv_w_ptr, conv_b_ptr, A_log_ptr, dt_bias_ptr, raw_beta_ptr, n, h, offs, H,
            D, HAS_CONV_BIAS)
        if not FUSED_FB:
            raw_g = kt.load(raw_g_ptr + head_row + offs)
        v_chan = (2 * H + h) * D + vb * BV + rows
        v_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, v_chan, HAS_CONV_BIAS)
        if CLUSTER:
            # Each program normalizes its own rows.
            gate = kt.load(gate_ptr + (head_row + vb * BV + rows)).to(kt.float32)
            norm_w = kt.load(norm_w_ptr + vb * BV + rows).to(kt.float32)
        else:
            # The norm's operands for the whole head: the last program needs them all, and
            # loading them in every program (a few registers) beats a round trip after the
            # ticket.
            gate = kt.load(gate_ptr + (head_row + offs)).to(kt.float32)
            norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
    # As in kda_decode_steps.py: with a ring over a [V, K] state the projection runs first.
    EARLY_PROJECTION = FUSED_FB and RING and not STATE_KV
    if EARLY_PROJECTION:
        raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        s_block = state_block(state_ptr, slot64, h, vb * BV + rows, offs, H, D, STATE_KV)
        s_step = BLK if STATE_KV else BLK * D
        if ONE_STEP:
            S = kt.load(s_block).to(kt.float32)
        if RING:
            pool = kt.make_tensor_descriptor(state_ptr, (num_slots * H, D, D), (D * D, D, 1),
                                             (1, D, BLK) if STATE_KV else (1, BLK, D))
            for b in kt.static_range(min(STAGES - 1, NB)):
                state_block_copy(pool, slot * H + h, vb * BV + b * BLK, s_ring.index(b),
                                 STATE_KV)
        # The q/k conv caches are shifted once every program has read them (below).
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        if not ONE_STEP:
            q_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, h * D + offs, HAS_CONV_BIAS)
        q_taps = conv_taps(cs_slot, h * D + offs, stride_cs_c, stride_cs_w)
        q = conv_silu(q_ops, q_taps, HAS_CONV_BIAS)
        if not ONE_STEP:
            k_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, (H + h) * D + offs,
                                  HAS_CONV_BIAS)
        k_taps = conv_taps(cs_slot, (H + h) * D + offs, stride_cs_c, stride_cs_w)
        k = conv_silu(k_ops, k_taps, HAS_CONV_BIAS)
        if ONE_STEP:
            v_taps = conv_taps(cs_slot, v_chan, stride_cs_c, stride_cs_w)
        q, k = qk_norms(q, k, D)
        if not ONE_STEP:
            if not FUSED_FB:
                raw_g = kt.load(raw_g_ptr + head_row + offs)
            A_log_h, dt_bias, raw_beta = gate_operands(A_log_ptr, dt_bias_ptr, raw_beta_ptr, n,
                                                       h, offs, H, D)
        if FUSED_FB and not EARLY_PROJECTION:
            raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
        terms = decay_terms(raw_g, A_log_h, dt_bias, raw_beta, q, k, lower_bound,
                            USE_LOWER_BOUND)
        sum_sq = kt.zeros((BLK,), kt.float32)
        for b in kt.static_range(NB):
            if RING:
                kt.async_wait(min(b + STAGES - 1, NB) - b - 1)
                if b + STAGES - 1 < NB:
                    state_block_copy(pool, slot * H + h, vb * BV + (b + STAGES - 1) * BLK,
                                     s_ring.index((b + STAGES - 1) % STAGES), STATE_KV)
                S = s_ring.index(b % STAGES).index(0).load().to(kt.float32)
            elif not ONE_STEP:
                S = kt.load(s_block + b * s_step).to(kt.float32)
            v_rows = vb * BV + b * BLK + rows
            if ONE_STEP:
                shift_conv_cache(v_ops, v_taps, stride_cs_w)
                v = conv_silu(v_ops, v_taps, HAS_CONV_BIAS)
            else:
                v = load_conv_silu(x_row, conv_w_ptr, conv_b_ptr, cs_slot,
                                   (2 * H + h) * D + v_rows, stride_cs_c, stride_cs_w,
                                   HAS_CONV_BIAS)
            S, o, delta = delta_rule_block(S, v, k, terms, STATE_KV)
            if not ONE_STEP or CLUSTER:
                kt.store(s_block + b * s_step, S)
            o = block_output(o, delta, terms)
            sum_sq = sum_sq + o * o
            if not ONE_STEP or not CLUSTER:
                # The bf16-rounded output (what the norm normalizes) waits in out, exactly.
                kt.store(out_ptr + head_row + v_rows, o)
        head_sq = kt.sum(sum_sq, 0)
        if CLUSTER:
            # Each program gets the head's sum of squares (added in program order) and
            # normalizes its own rows; the first shifts the q/k conv cache, which every
            # program has read before the sum.
            sum_all = kt.cluster_sum(head_sq, 2, NV)
            if vb == 0:
                shift_conv_cache(q_ops, q_taps, stride_cs_w)
                shift_conv_cache(k_ops, k_taps, stride_cs_w)
            own = vb * BV + kt.arange(0, BV)
            if not ONE_STEP:
                o = kt.load(out_ptr + head_row + own).to(kt.float32)
                gate = kt.load(gate_ptr + (head_row + own)).to(kt.float32)
                norm_w = kt.load(norm_w_ptr + own).to(kt.float32)
            gated_rmsnorm(o, sum_all, gate, norm_w, out_ptr + (head_row + own), D, norm_eps)
        else:
            kt.store(partial_ptr + head * NV + vb, head_sq)
            ticket = kt.atomic_add(ticket_ptr + head, 1)
            if ticket == NV - 1:
                kt.store(ticket_ptr + head, 0)  # ready for the next launch
                shift_conv_cache(q_ops, q_taps, stride_cs_w)
                shift_conv_cache(k_ops, k_taps, stride_cs_w)
                sum_all = kt.sum(kt.load(partial_ptr + head * NV + kt.arange(0, NV)), 0)
                o_all = kt.load(out_ptr + head_row + offs).to(kt.float32)
                if not ONE_STEP:
                    gate = kt.load(gate_ptr + (head_row + offs)).to(kt.float32)
                    norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
                gated_rmsnorm(o_all, sum_all, gate, norm_w, out_ptr + (head_row + offs), D,
                              norm_eps)
            if ONE_STEP:
                # The program's own state block, held since its one step: storing it after the
                # ticket keeps its writes out of what the release must wait for.
                kt.store(s_block, S)
    else:
        kt.store(out_ptr + head_row + vb * BV + kt.arange(0, BV), kt.zeros((BV,), kt.float32))
