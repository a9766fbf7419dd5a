"""Kimi Delta Attention: one fused decode step (docs/kda.md, "Decode step").

Grid (B, H, D // BV): one program per (batch row n, head h, block of BV value rows). In one
launch it runs the causal width-4 short convolution of the head's q, k and v channels with its
cache and SiLU, the q/k L2-norm, the gate (lower-bound or softplus form), the beta sigmoid, the
delta-rule state update and output, and the sigmoid-gated RMSNorm.

A program walks its BV value rows BLK at a time (load a [BLK, D] state block, update it, store
it), leaving each block's bf16 outputs in out and summing their squares. The RMSNorm needs all D
outputs of a head. With BV = D the program finishes the norm (rereading them from out after
several steps). With BV < D
(more programs, for small batches) each program leaves its sum of squares in partial_ptr
[B*H*NV] fp32, then takes a ticket from ticket_ptr [B*H] int32 (an acq_rel atomic); the program
holding the last ticket finishes the norm for the head, shifts the head's q/k conv cache (which
every program read) and resets the ticket to 0, so the workspace (zeros when allocated) needs
no reset between launches. Launches sharing a workspace must not run concurrently. With
CLUSTER the D // BV programs of a head run as one cluster instead (kt.cluster_sum: a
thread-block cluster on sm_90a): they exchange their sums of squares directly, each
normalizes its own rows, the first shifts the q/k cache, and no workspace is used.

A one-step program (BLK = BV: small batches, where the chain of memory round trips is the time)
loads the operands that do not depend on the slot before reading the slot index, so those loads
overlap it (all but FUSED_FB's f_a and [D, D] weight block, which would hold many registers,
except in decode_rows_in_cluster, which reduces them to raw_g before the test); a program of
several steps loads each operand where it uses it (registers), except FUSED_FB's projection,
which a pipelined [V, K] program (STAGES with several steps) also reduces to raw_g before the
test.

Padding rows (slot < 0 or slot >= num_slots) write zeros to out[n, h] and read or write no cache
(a pipelined [V, K] FUSED_FB program has computed raw_g from f_a[n] and the head's weights by
then).
Slot offsets are 64-bit, so caches beyond 4 GiB work. Float parameters (lower_bound, norm_eps)
are runtime arguments: they never multiply compiled kernels.

Layout constexprs:
  BV            value rows per program; D // BV must be a power of two.
  BLK           value rows per step (divides BV; 0, the default: BV, one step): registers per
                thread vs. steps.
  STAGES        0 (the default): each step loads its state block into registers. 2 or more,
                with several steps: blocks stream through a ring of STAGES shared-memory
                buffers by tensor-descriptor block copies (TMA on sm_90a, the Tensor Data
                Mover on gfx1250, buffer loads into LDS on gfx950), the first STAGES - 1 started
                before the conv, and each next one while a block is updated.
  STATE_KV      False: state[slot, h] is [V, K] (K contiguous); True: [K, V].
  CLUSTER       with BV < D: the head's programs sum over a cluster (targets with clusters
                and the host) instead of the ticket; ticket_ptr and partial_ptr are unused.
                A one-step [V, K] program in a cluster is decode_rows_in_cluster, whose
                layouts are written out for 32-lane warps (sm_90a).
  num_warps     the program's warps (the launch's): decode_rows_in_cluster's layouts span
                them.
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
    a = raw_g + dt_bias
    if USE_LOWER_BOUND:
        g = lower_bound * kt.sigmoid(kt.exp(A_log_h) * a)
    else:
        g = -kt.exp(A_log_h) * kt.softplus(a)
    return g


@kt.jit
def state_block_copy(pool, head, first_row, buf, STATE_KV: kt.constexpr):
    """Starts the copy of value rows first_row.. of head `head` (slot * H + h) of the pool
    descriptor into buf [1, ...]: rows of [V, K] memory, columns of [K, V]."""
    if STATE_KV:
        kt.async_load(pool, (head, 0, first_row), buf)
    else:
        kt.async_load(pool, (head, first_row, 0), buf)


# num_slots only bounds the slot indices: pools of 16 or 17 slots share one compiled kernel.
@kt.jit(do_not_specialize=("num_slots",))
def kda_decode(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr, fbw_ptr,
               raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr, gate_ptr,
               norm_w_ptr, out_ptr, ticket_ptr, partial_ptr,
               num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
               lower_bound, norm_eps,
               H: kt.constexpr, D: kt.constexpr, BV: kt.constexpr, STATE_KV: kt.constexpr,
               USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
               FUSED_FB: kt.constexpr, BLK: kt.constexpr = 0, STAGES: kt.constexpr = 0,
               CLUSTER: kt.constexpr = False, num_warps: kt.constexpr = 4):
    NV = D // BV
    kt.static_assert(NV * BV == D and (NV & (NV - 1)) == 0,
                     "BV must divide D into a power-of-two number of blocks")
    if BLK == 0:
        ROWS = BV  # one step
    else:
        ROWS = BLK
    kt.static_assert(ROWS <= BV and BV % ROWS == 0, "BLK must divide BV")
    NB = BV // ROWS
    kt.static_assert(STAGES == 0 or STAGES >= 2, "STAGES must be 0 or at least 2")
    kt.static_assert(not CLUSTER or NV <= 8, "CLUSTER needs at most 8 programs per head")
    # A split head's programs sum their squares in a cluster instead of taking tickets.
    CLUSTERED = CLUSTER and NV > 1
    if CLUSTERED and NB == 1 and not STATE_KV:
        decode_rows_in_cluster(
            x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr, fbw_ptr,
            raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr, state_idx_ptr, gate_ptr,
            norm_w_ptr, out_ptr, num_slots, stride_x, stride_cs_slot, stride_cs_c, stride_cs_w,
            lower_bound, norm_eps, H, D, BV, USE_LOWER_BOUND, HAS_CONV_BIAS, FUSED_FB, num_warps)
        return
    PIPELINED = STAGES > 0 and NB > 1
    if PIPELINED:
        # Each slot of the ring holds one block of the pool seen as [slots * H, rows, cols].
        if STATE_KV:
            s_ring = kt.alloc_shared((STAGES, 1, D, ROWS), state_ptr.dtype.element_ty)
        else:
            s_ring = kt.alloc_shared((STAGES, 1, ROWS, D), state_ptr.dtype.element_ty)
    n = kt.program_id(0)
    h = kt.program_id(1)
    if NV == 1:
        vb = 0  # a constant lets the block offsets fold (16 registers per thread fewer)
    else:
        vb = kt.program_id(2)
    offs = kt.arange(0, D)
    rows = kt.arange(0, ROWS)
    head = n * H + h
    head_row = head * D
    ONE_STEP = NB == 1
    slot = kt.load(state_idx_ptr + n)
    x_row = x_ptr + n.to(kt.int64) * stride_x
    if ONE_STEP:
        # Small batches, where the chain of memory round trips is the time: everything that
        # does not depend on the slot is loaded before its test, so these loads overlap the
        # slot's. (With several steps, registers held through the steps would cost programs
        # per multiprocessor: those operands are loaded where they are used.)
        q_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, h * D + offs, HAS_CONV_BIAS)
        k_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, (H + h) * D + offs, HAS_CONV_BIAS)
        if not FUSED_FB:
            raw_g = kt.load(raw_g_ptr + head_row + offs)
        A_log_h = kt.load(A_log_ptr + h)
        dt_bias = kt.load(dt_bias_ptr + h * D + offs)
        raw_beta = kt.load(raw_beta_ptr + n * H + h)
        v_chan = (2 * H + h) * D + vb * BV + rows
        v_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, v_chan, HAS_CONV_BIAS)
        if CLUSTERED:
            # Each program normalizes its own rows.
            gate = kt.load(gate_ptr + (head_row + vb * BV + rows)).to(kt.float32)
            norm_w = kt.load(norm_w_ptr + vb * BV + rows).to(kt.float32)
        else:
            # The norm's operands for the whole head: a split head's last program needs them
            # all, and loading them in every program (a few registers) beats a round trip
            # after the ticket.
            gate = kt.load(gate_ptr + (head_row + offs)).to(kt.float32)
            norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
    EARLY_PROJECTION = FUSED_FB and PIPELINED and not STATE_KV
    if EARLY_PROJECTION:
        # The projection does not depend on the slot: ahead of the slot's test its weight
        # loads overlap the slot's, and its registers are free again before the conv (1-2%
        # faster on the H200 than after the norms with a [V, K] state; slower without the
        # stages; not measured with a [K, V] state).
        raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
    if (slot >= 0) & (slot < num_slots):
        slot64 = slot.to(kt.int64)
        s_base = state_ptr + (slot64 * H + h) * (D * D)
        # The program's value rows are processed ROWS at a time: a [ROWS, D] state block in
        # flight costs ROWS * D / threads registers, so more programs fit on a multiprocessor
        # than with the whole [BV, D] block held at once.
        if STATE_KV:
            # Memory is [K, V]: hold a block as [K, ROWS] too, so loads stay contiguous.
            s_block = s_base + offs[:, None] * D + (vb * BV + rows)[None, :]
            s_step = ROWS
        else:
            s_block = s_base + (vb * BV + rows)[:, None] * D + offs[None, :]
            s_step = ROWS * D
        if ONE_STEP:
            # One step: its load goes first, so its latency overlaps the conv, norms and gate.
            # (With several steps this would keep a block of registers live through them,
            # and fewer programs would fit on a multiprocessor.)
            S = kt.load(s_block).to(kt.float32)
        if PIPELINED:
            # The first blocks arrive in shared memory while the conv, norms and gate are
            # computed, without holding registers. The pool as [slots * H, D, D]: the slot
            # passed its test, so the offsets are not negative (the Tensor Data Mover's
            # condition).
            pool = kt.make_tensor_descriptor(state_ptr, (num_slots * H, D, D), (D * D, D, 1),
                                             (1, D, ROWS) if STATE_KV else (1, ROWS, D))
            for b in kt.static_range(min(STAGES - 1, NB)):
                state_block_copy(pool, slot * H + h, vb * BV + b * ROWS, s_ring.index(b),
                                 STATE_KV)
        # Short convolution of the head's q and k channels (all of them: every program needs
        # the full norms). With several programs per head, the q/k cache is shifted by the
        # last one, once every program has read it. A program of several steps loads each
        # operand here, where it is used.
        cs_slot = conv_state_ptr + slot64 * stride_cs_slot
        if not ONE_STEP:
            q_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, h * D + offs, HAS_CONV_BIAS)
        q_taps = conv_taps(cs_slot, h * D + offs, stride_cs_c, stride_cs_w)
        if NV == 1:
            shift_conv_cache(q_ops, q_taps, stride_cs_w)
        q = conv_silu(q_ops, q_taps, HAS_CONV_BIAS)
        if not ONE_STEP:
            k_ops = conv_operands(x_row, conv_w_ptr, conv_b_ptr, (H + h) * D + offs,
                                  HAS_CONV_BIAS)
        k_taps = conv_taps(cs_slot, (H + h) * D + offs, stride_cs_c, stride_cs_w)
        if NV == 1:
            shift_conv_cache(k_ops, k_taps, stride_cs_w)
        k = conv_silu(k_ops, k_taps, HAS_CONV_BIAS)
        if ONE_STEP:
            v_taps = conv_taps(cs_slot, v_chan, stride_cs_c, stride_cs_w)
        # L2-norm of q (with the D^-0.5 scale) and k.
        q = q * kt.rsqrt(kt.sum(q * q, 0) + 1e-6) * (D ** -0.5)
        k = k * kt.rsqrt(kt.sum(k * k, 0) + 1e-6)
        # Gate and beta.
        if not ONE_STEP:
            if not FUSED_FB:
                raw_g = kt.load(raw_g_ptr + head_row + offs)
            A_log_h = kt.load(A_log_ptr + h)
            dt_bias = kt.load(dt_bias_ptr + h * D + offs)
            raw_beta = kt.load(raw_beta_ptr + n * H + h)
        if FUSED_FB and not EARLY_PROJECTION:
            raw_g = f_b_projection(fa_ptr, fbw_ptr, n, h, D)
        g = kda_gate(raw_g.to(kt.float32), A_log_h, dt_bias, lower_bound, USE_LOWER_BOUND)
        beta = kt.sigmoid(raw_beta.to(kt.float32))
        # Delta rule on the value rows of the [V, K] state: with the decayed state
        # S_g = S * exp(g), u = S_g k, S' = S_g + delta k^T (delta = beta (v - u)) and the
        # output o = S' q. Both products are taken from the loaded S, so the two reductions
        # are independent: u = S (exp(g) k), o = S (exp(g) q) + delta (k . q).
        eg = kt.exp(g)
        egk = eg * k
        egq = eg * q
        kq = kt.sum(k * q, 0)
        sum_sq = kt.zeros((ROWS,), kt.float32)
        for b in kt.static_range(NB):
            if PIPELINED:
                # Block b is in; the buffer refilled next was read in step b - 1, before
                # the wait's barrier.
                kt.async_wait(min(b + STAGES - 1, NB) - b - 1)
                if b + STAGES - 1 < NB:
                    state_block_copy(pool, slot * H + h, vb * BV + (b + STAGES - 1) * ROWS,
                                     s_ring.index((b + STAGES - 1) % STAGES), STATE_KV)
                S = s_ring.index(b % STAGES).index(0).load().to(kt.float32)
            elif not ONE_STEP:
                S = kt.load(s_block + b * s_step).to(kt.float32)
            v_rows = vb * BV + b * ROWS + rows
            if ONE_STEP:
                shift_conv_cache(v_ops, v_taps, stride_cs_w)
                v = conv_silu(v_ops, v_taps, HAS_CONV_BIAS)
            else:
                v = load_conv_silu(x_row, conv_w_ptr, conv_b_ptr, cs_slot,
                                   (2 * H + h) * D + v_rows, stride_cs_c, stride_cs_w,
                                   HAS_CONV_BIAS)
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
            if NV == 1 or not ONE_STEP or CLUSTERED:
                kt.store(s_block + b * s_step, S)
            o = (o + delta * kq).to(kt.bfloat16).to(kt.float32)
            sum_sq = sum_sq + o * o
            if not ONE_STEP or (NV > 1 and not CLUSTERED):
                # The bf16-rounded output (what the norm normalizes) waits in out, exactly.
                kt.store(out_ptr + head_row + v_rows, o)
        # Sigmoid-gated RMSNorm over all D outputs of the head.
        if NV == 1 and not ONE_STEP:
            o = kt.load(out_ptr + head_row + offs).to(kt.float32)
        # (The gate and norm weight are loaded after the sum's cross-warp reduction: ahead of
        # it, they cost 16 more registers per thread at 32-row steps.)
        head_sq = kt.sum(sum_sq, 0)
        if NV == 1:
            if not ONE_STEP:
                gate = kt.load(gate_ptr + (head_row + offs)).to(kt.float32)
                norm_w = kt.load(norm_w_ptr + offs).to(kt.float32)
            gated_rmsnorm(o, head_sq, gate, norm_w, out_ptr + (head_row + offs), D, norm_eps)
        elif CLUSTERED:
            # The head's programs run as one cluster: each gets the head's sum of squares
            # (added in program order) and normalizes its own rows; the first shifts the q/k
            # conv cache, which every program has read before the sum.
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
            # Each program leaves its sum of squares in the workspace and takes a ticket;
            # the last program of the head finishes the norm.
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


@kt.jit
def gated_rmsnorm(o, sum_sq, gate, norm_w, out_rows, D: kt.constexpr, norm_eps):
    """out_rows = o * rsqrt(sum_sq / D + eps) * norm_w * sigmoid(gate) (all fp32)."""
    y = o * kt.rsqrt(sum_sq / D + norm_eps) * norm_w * kt.sigmoid(gate)
    kt.store(out_rows, y)


@kt.jit
def decode_rows_in_cluster(x_ptr, conv_w_ptr, conv_b_ptr, conv_state_ptr, raw_g_ptr, fa_ptr,
                           fbw_ptr, raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr,
                           state_idx_ptr, gate_ptr, norm_w_ptr, out_ptr, num_slots, stride_x,
                           stride_cs_slot, stride_cs_c, stride_cs_w, lower_bound, norm_eps,
                           H: kt.constexpr, D: kt.constexpr, BV: kt.constexpr,
                           USE_LOWER_BOUND: kt.constexpr, HAS_CONV_BIAS: kt.constexpr,
                           FUSED_FB: kt.constexpr, num_warps: kt.constexpr):
    """The one-step program of a head split over a cluster ([V, K] state), with its layouts
    written out (32 lanes: clusters exist on sm_90a only). Its chain from the slot to the
    output is the time, so it is laid out for few shared-memory exchanges: the [BV, D] state
    block has a row per warp at a time and D across lanes (STATE), K-vectors (q, k, the gate)
    live in its column slice, replicated over warps (KVEC), so their norms and the row
    reductions need lane shuffles only, and value rows in its row slice (VROW). The q/k/v
    convolutions run one channel per thread (CHAN) and each crosses to its slice once; the
    outputs cross back for the norm. Against the layouts the pass chooses (which reduce the
    norms across warps and move the vectors between slices several times: 21 barriers
    instead of 9), one H200 run gave 3.52 against 3.71 us at H = 12, B = 1 with 16 rows
    (docs/performance.md)."""
    STATE = kt.BlockedLayout([1, 4], [1, 32], [num_warps, 1], [1, 0])
    KVEC = kt.SliceLayout(0, STATE)
    VROW = kt.SliceLayout(1, STATE)
    CHAN = kt.BlockedLayout([1], [32], [num_warps], [0])
    NV = D // BV
    n = kt.program_id(0)
    h = kt.program_id(1)
    vb = kt.program_id(2)
    chan = kt.arange(0, D, layout=CHAN)
    col = kt.arange(0, D, layout=KVEC)
    own = vb * BV + kt.arange(0, BV, layout=CHAN)
    head_row = (n * H + h) * D
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
