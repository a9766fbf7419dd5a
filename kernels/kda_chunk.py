"""Kimi Delta Attention: the chunked prefill (FLA `chunk_kda`), in two launches.

The math is docs/kda.md, "Chunked prefill". Sequences (tokens cu_seqlens[n] ..
cu_seqlens[n+1]-1 of the packed inputs) are cut into chunks of C tokens from their first token;
a chunk never holds tokens of two sequences. Chunk m of sequence n has the chunk slot
`cu_seqlens[n] // C + n + m`: slots grow with (n, m) and are distinct, so per-chunk arrays
of `T_total // C + N` slots hold every chunk without reading the lengths on the host (a slot
no chunk maps to is left alone).

1. `kda_chunk_prep`, grid (T_total // C + N, HV): one program per chunk slot and value head,
   all in parallel. It fuses the q/k L2 norm, the gate and the beta sigmoid, and writes the
   chunk's WY form as one block per slot and value head, in w's dtype (gend fp32; g below is
   the log decay, gamma its chunk-local running sum, gamma_C the chunk's last):
       w   = A (k * exp(gamma))          u  = A v                  w, qg [slots, HV, K, C]
       qg  = q * exp(gamma)              kd = k * exp(gamma_C - gamma)    kd [slots, HV, C, K]
       aqk = [i >= j] sum_d q_i k_j exp(gamma_i - gamma_j)   u [slots, HV, V, C], aqk [.., C, C]
       gend[slot] = exp(gamma_C)                                    [slots, HV, K]
   w, qg and u are stored transposed (token index last) and aqk as aqk^T, so that each is the
   scan's B operand as it lies; rows past a sequence's end are zeros (their inputs read as 0).
   with A = (I + L)^-1 diag(beta) and L[i, j] = [i > j] beta_i sum_d k_i k_j exp(gamma_i -
   gamma_j), solved by forward substitution. The pairs are two matrix products referred to
   the chunk's middle row (ANCHORED), q k^T and k k^T times the rows' decays
   (GATE_PER_HEAD), or else, for each KS-column slice, those anchored products where the
   slice's log decays sum to at most MILD_DECAY nats over the chunk and its q and k entries
   are at most MAX_OPERAND (mild_slice), and pairs taken one key at a time with every
   exponent <= 0 (clamped at 0 against rounding) elsewhere; the causal masks are selects, so
   no gate overflows or makes a NaN. k k^T only with the delta rule. aqk, GLA's u and
   Gated DeltaNet's and GLA's qg leave through store_token_last (16-byte stores of token
   runs); the delta rule's w and u, and KDA's qg (QG_RUNS), straight from their computing
   layout (a conversion there holds both copies: 21-26 more registers, 6 programs a
   multiprocessor instead of 8 on sm_90a).
2. `kda_chunk_scan`, grid (cdiv(V, BV), segment slots, HV): one program per value tile,
   segment (a whole sequence, or SEG of its tokens) and value head carries the state over the
   segment's chunks, transposed (S^T [BV, K], fp32, in registers):
       delta^T = u^T - S^T w^T      o^T = S^T qg^T + delta^T aqk^T      S^T <- S^T gend + delta^T kd
   four matrix products per chunk whose A operands (S^T, delta^T) are the previous products'
   accumulators, the blocks of the next STAGES - 1 chunks copied into shared memory while they
   run. It writes
   o, the final state and, when asked, the state before every chunk (what prefix caching
   keeps). Its SUMMARY pass writes each segment's affine map of the state instead, which
   kda_cp.kda_segment_starts chains into the state before each segment (docs/kda.md, "Long
   sequences on few heads").

Rows past a sequence's end read as q = k = v = 0, g = 0, beta = 0; o is not written there.
Each token's log decay is raised to at least LOG_DECAY_FLOOR (-200: exp of either is 0 in
fp32), so a chunk's running sums stay finite and exact enough at any input (-3e38 would sum
to -inf, and -inf - -inf is NaN).
q and k are [tokens, H, K] and v, g [tokens, HV, *] with HV a multiple of H (value head hv
reads q/k head hv // (HV // H)), each through a token stride (elements; heads contiguous
inside a token). K and V are any sizes up to BK and BV_ALL (powers of two; the padding
columns are masked). Token offsets are 64-bit.

Gate (USE_GATE, with g the raw input): lower_bound * sigmoid(a * (g + dt_bias)) when
USE_LOWER_BOUND, else -a * softplus(g + dt_bias); a = exp(A_log[hv]), or 1 without HAS_A_LOG;
dt_bias [HV * K] is optional (HAS_DT_BIAS). Without USE_GATE g is the log decay itself. beta:
beta_scale * sigmoid(beta) with USE_BETA_SIGMOID (beta_scale 2 allows negative eigenvalues),
else beta itself. scale, lower_bound and beta_scale are runtime floats.

DOT is the operand type of the matrix products (fp32 accumulation) and of w, u, qg and kd:
kt.float32 keeps them exact fused multiply-adds; kt.bfloat16 runs them on the matrix instructions
(the prep's anchored pairs on tf32 ones, or with PAIRS_BF16X3 as three bf16 products of split
factors: gfx1250 has no tf32 instruction). ANCHORED (no run-time test: the caller bounds the log
decays and the q and k entries): the pairs as two products referred to the chunk's middle row
(every log decay >= -10). LANES: the target's warp (wave) size, over which the prep's solve lays a
chunk's rows. GATE_PER_HEAD: g is one log decay per token and value head ([T_total, HV], Gated
DeltaNet; with USE_GATE the raw gate of the softplus form, dt_bias [HV]); the pairs are then
q k^T and k k^T times the rows' decays, on the matrix instructions (tf32 with bf16 inputs).
DELTA_RULE=False: gated linear attention (GLA, S <- gend * S + kd^T v): no solve, u = v, no w
(beta is loaded, not used), and the scan's delta is u.
"""

import kdatile as kt
from gates import activated_log_decay

LOG_DECAY_FLOOR = -200.0
# A slice of the pairs whose log decays sum to at most MILD_DECAY nats over a chunk, and whose
# q and k entries are at most MAX_OPERAND, takes the anchored products (mild_slice); others go
# pair by pair.
MILD_DECAY = 40.0
MAX_OPERAND = 1e20


@kt.jit
def sequence_bounds(cu_seqlens_ptr, n, T_total):
    """(bos, eos) of sequence n, clamped to 0 <= bos <= eos <= T_total: bounds the host did
    not check (under CUDA-graph capture) never move a token out of the arrays."""
    bos = kt.minimum(kt.maximum(kt.load(cu_seqlens_ptr + n), 0), T_total)
    eos = kt.minimum(kt.maximum(kt.load(cu_seqlens_ptr + n + 1), bos), T_total)
    return bos, eos


@kt.jit
def span_of_slot(cu_seqlens_ptr, N, T_total, slot, span):
    """(n, bos, eos, start) of the span of `span` tokens at `slot` (a chunk, or a segment of
    the scan): its sequence n, that sequence's first and past-the-end tokens and the span's
    own first token (start >= eos: no span has this slot). Span m of sequence n has slot
    cu_seqlens[n] // span + n + m, so n is the last with cu_seqlens[n] // span + n <= slot
    (a binary search over cu_seqlens)."""
    lo = 0
    hi = N
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if kt.load(cu_seqlens_ptr + mid) // span + mid <= slot:
            lo = mid
        else:
            hi = mid
    bos, eos = sequence_bounds(cu_seqlens_ptr, lo, T_total)
    return lo, bos, eos, bos + (slot - bos // span - lo) * span


@kt.jit
def log_decay(g, A_log_ptr, dt_bias_ptr, hv, lower_bound, cols, K: kt.constexpr,
              USE_GATE: kt.constexpr, USE_LOWER_BOUND: kt.constexpr,
              HAS_A_LOG: kt.constexpr, HAS_DT_BIAS: kt.constexpr):
    """The per-key log decay of raw gate rows g [rows, BK] (fp32) of value head hv."""
    if USE_GATE:
        if HAS_DT_BIAS:
            g = g + kt.load(dt_bias_ptr + hv * K + cols, mask=cols < K, other=0.0)[None, :]
        if HAS_A_LOG:
            a = kt.exp(kt.load(A_log_ptr + hv).to(kt.float32))
        else:
            a = 1.0
        g = activated_log_decay(g, a, lower_bound, USE_LOWER_BOUND)
    return g


@kt.jit
def pair_product(a, b, acc, DOT: kt.constexpr, BF16X3: kt.constexpr):
    """acc + a b for the intra-chunk pairs (fp32 a, b), which feed the solve: exact fused
    multiply-adds with fp32 products (DOT); else tf32 operands (10 mantissa bits) on the
    matrix instructions, or with BF16X3 (targets without a tf32 instruction: gfx1250) three
    bf16 products of each factor's high and low bf16 parts (about 16 bits; the low-by-low
    product dropped)."""
    if DOT == kt.float32:
        return kt.dot(a, b, acc)
    if BF16X3:
        a_hi = a.to(kt.bfloat16)
        b_hi = b.to(kt.bfloat16)
        acc = kt.dot(a_hi, (b - b_hi.to(kt.float32)).to(kt.bfloat16), acc)
        acc = kt.dot((a - a_hi.to(kt.float32)).to(kt.bfloat16), b_hi, acc)
        return kt.dot(a_hi, b_hi, acc)
    return kt.dot(a, b, acc, input_precision="tf32")


@kt.jit
def mild_slice(q, k, g):
    """Whether a [C, KS] slice's pairs may be anchored products: its log decays g sum to at
    most MILD_DECAY nats over the chunk, so every anchored factor lies within exp(+-40), and
    no q or k entry passes MAX_OPERAND, so no operand times its factor passes 2.4e37 (fp32
    stops at 3.4e38). An infinite entry fails the test: that slice goes pair by pair."""
    spread = kt.max(kt.sum(kt.abs(g), 0))
    largest = kt.maximum(kt.max(kt.max(kt.abs(q), 0)), kt.max(kt.max(kt.abs(k), 0)))
    return (spread <= MILD_DECAY) & (largest <= MAX_OPERAND)


@kt.jit
def anchored_pairs(q, k, g, gamma, rows, qk, kk, C: kt.constexpr, DOT: kt.constexpr,
                   DELTA_RULE: kt.constexpr, BF16X3: kt.constexpr):
    """qk + q k^T and kk + k k^T (kk only for the delta rule) of a [C, KS] slice with its pair
    decays exp(gamma_i - gamma_j), both factors referred to the chunk's middle row r:
    exp(gamma_i - gamma_r) exp(gamma_r - gamma_j), each within the half chunk's decay, so the
    pairs are two matrix products (the masked upper halves grow past 1; selects drop them)."""
    anchor = kt.sum(kt.where(rows[:, None] < C // 2, g, 0.0), 0)[None, :]
    toward = kt.exp(gamma - anchor)
    back = kt.trans(k * kt.exp(anchor - gamma))
    qk = pair_product(q * toward, back, qk, DOT, BF16X3)
    if DELTA_RULE:
        kk = pair_product(k * toward, back, kk, DOT, BF16X3)
    return qk, kk


@kt.jit
def store_token_last(ptr, block, first_col, tile, ncols, C: kt.constexpr, COLS: kt.constexpr,
                     LANES: kt.constexpr, num_warps: kt.constexpr):
    """Stores tile [C, COLS] (token, column) as columns first_col.. of block `block` of a
    [.., ncols, C] array (token index last), columns >= ncols left out. Each thread takes a
    run of consecutive tokens of one column, so the stores are 16-byte vectors rather than
    one 2-byte store per element from the tile's computing layout."""
    RUN: kt.constexpr = 8 if C >= 8 else C
    RUNS = kt.BlockedLayout([RUN, 1], [C // RUN, LANES // (C // RUN)], [1, num_warps], [0, 1])
    tok = kt.arange(0, C, layout=kt.SliceLayout(1, RUNS))
    col = first_col + kt.arange(0, COLS, layout=kt.SliceLayout(0, RUNS))
    kt.store(ptr + (block * ncols + col[None, :]) * C + tok[:, None],
             kt.convert_layout(tile, RUNS), mask=col[None, :] < ncols)


@kt.jit
def kda_chunk_prep(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, A_log_ptr, dt_bias_ptr, cu_seqlens_ptr,
                   w_ptr, u_ptr, qg_ptr, kd_ptr, aqk_ptr, gend_ptr, N, T_total, stride_q, stride_k,
                   stride_v, stride_g, stride_beta, scale, lower_bound, beta_scale,
                   H: kt.constexpr, HV: kt.constexpr, K: kt.constexpr, V: kt.constexpr,
                   BK: kt.constexpr, BV_ALL: kt.constexpr, C: kt.constexpr,
                   USE_QK_L2NORM: kt.constexpr, USE_GATE: kt.constexpr,
                   USE_LOWER_BOUND: kt.constexpr, HAS_A_LOG: kt.constexpr,
                   HAS_DT_BIAS: kt.constexpr, USE_BETA_SIGMOID: kt.constexpr,
                   ANCHORED: kt.constexpr = False, DOT: kt.constexpr = kt.float32,
                   LANES: kt.constexpr = 32, GATE_PER_HEAD: kt.constexpr = False,
                   DELTA_RULE: kt.constexpr = True, KS: kt.constexpr = 32,
                   PAIRS_BF16X3: kt.constexpr = False, num_warps: kt.constexpr = 4):
    kt.static_assert(HV % H == 0, "HV must be a multiple of H")
    kt.static_assert(not (GATE_PER_HEAD and (USE_LOWER_BOUND or ANCHORED)),
                     "GATE_PER_HEAD takes the softplus gate, pair by pair")
    kt.static_assert(K <= BK and V <= BV_ALL, "BK and BV_ALL must cover K and V")
    kt.static_assert(BK % KS == 0 and BV_ALL % KS == 0, "KS must divide BK and BV_ALL")
    slot = kt.program_id(0)
    hv = kt.program_id(1)
    h = hv // (HV // H)
    PAIRWISE = not ANCHORED and not GATE_PER_HEAD
    # qg leaves as token runs except in KDA's prep (the delta rule with a decay per key),
    # where holding the [C, KS] tile in both layouts costs 21-26 registers on sm_90a (128 ->
    # 149 anchored: 8 programs a multiprocessor -> 6); Gated DeltaNet's and GLA's occupancy
    # does not change.
    QG_RUNS: kt.constexpr = GATE_PER_HEAD or not DELTA_RULE
    if PAIRWISE:  # a slice's keys and log decays, one row per pair column
        keys = kt.alloc_shared((C, KS), kt.float32)
        gammas = kt.alloc_shared((C, KS), kt.float32)
    if DELTA_RULE:
        lower = kt.alloc_shared((C, C), kt.float32)
        kdec = kt.alloc_shared((BK // KS, C, KS), DOT)  # k exp(gamma), slice by slice
    _, bos, eos, start = span_of_slot(cu_seqlens_ptr, N, T_total, slot, C)
    if start < eos:
        rows = kt.arange(0, C)
        cc = kt.arange(0, C)
        tok = start.to(kt.int64) + rows
        live = tok < eos
        out_ty = w_ptr.dtype.element_ty
        q_rows = q_ptr + tok[:, None] * stride_q + h * K
        k_rows = k_ptr + tok[:, None] * stride_k + h * K
        g_rows = g_ptr + tok[:, None] * stride_g + hv * K
        # This chunk's block of each [slots, HV, *, C] / [slots, HV, C, *] array.
        blk = slot.to(kt.int64) * HV + hv
        if GATE_PER_HEAD:
            g_head = kt.load(g_ptr + tok * stride_g + hv, mask=live, other=0.0).to(kt.float32)
            if USE_GATE:  # the softplus form with the head's bias; rows past the end stay 0
                if HAS_DT_BIAS:
                    g_head = g_head + kt.load(dt_bias_ptr + hv).to(kt.float32)
                if HAS_A_LOG:
                    rate = kt.exp(kt.load(A_log_ptr + hv).to(kt.float32))
                else:
                    rate = 1.0
                g_head = activated_log_decay(g_head, rate, lower_bound, False)
                g_head = kt.where(live, g_head, 0.0)
            g_head = kt.cumsum(kt.maximum(g_head, LOG_DECAY_FLOOR), 0)  # past the end: 0
        # The columns go KS at a time, so no [C, BK] tile (and no [C, BK] matrix operand,
        # which every warp would hold whole: C rows are one matrix-instruction tile) is live.
        q_scale = scale
        k_scale = 1.0
        if USE_QK_L2NORM:  # the rows' norms first (kt.l2norm_rows' form and eps)
            q_sq = kt.zeros((C,), kt.float32)
            k_sq = kt.zeros((C,), kt.float32)
            for kb in range(BK // KS):
                cols = kb * KS + kt.arange(0, KS)
                kmask = live[:, None] & (cols[None, :] < K)
                q = kt.load(q_rows + cols[None, :], mask=kmask, other=0.0).to(kt.float32)
                k = kt.load(k_rows + cols[None, :], mask=kmask, other=0.0).to(kt.float32)
                q_sq += kt.sum(q * q, 1)
                k_sq += kt.sum(k * k, 1)
            q_scale = scale * kt.rsqrt(q_sq + 1e-6)[:, None]
            k_scale = kt.rsqrt(k_sq + 1e-6)[:, None]
        kk = kt.zeros((C, C), kt.float32)
        qk = kt.zeros((C, C), kt.float32)
        for kb in range(BK // KS):
            cols = kb * KS + kt.arange(0, KS)
            kmask = live[:, None] & (cols[None, :] < K)
            q = kt.load(q_rows + cols[None, :], mask=kmask, other=0.0).to(kt.float32) * q_scale
            k = kt.load(k_rows + cols[None, :], mask=kmask, other=0.0).to(kt.float32) * k_scale
            if GATE_PER_HEAD:
                gamma = g_head[:, None] + kt.zeros((C, KS), kt.float32)
                gamma_end = kt.sum(kt.where(rows[:, None] == C - 1, gamma, 0.0), 0)
            else:
                g = kt.load(g_rows + cols[None, :], mask=kmask, other=0.0).to(kt.float32)
                g = kt.where(kmask, kt.maximum(
                    log_decay(g, A_log_ptr, dt_bias_ptr, hv, lower_bound, cols, K, USE_GATE,
                              USE_LOWER_BOUND, HAS_A_LOG, HAS_DT_BIAS), LOG_DECAY_FLOOR), 0.0)
                gamma = kt.cumsum(g, 0)
                gamma_end = kt.sum(g, 0)
            decayed = kt.exp(gamma)
            kcols = cols[None, :] < K
            if QG_RUNS:
                store_token_last(qg_ptr, blk, kb * KS, (q * decayed).to(out_ty), K, C, KS, LANES,
                                 num_warps)
            else:
                kt.store(qg_ptr + (blk * K + cols[None, :]) * C + rows[:, None],
                         (q * decayed).to(out_ty), mask=kcols)
            kt.store(kd_ptr + (blk * C + rows[:, None]) * K + cols[None, :],
                     (k * kt.exp(kt.minimum(gamma_end[None, :] - gamma, 0.0))).to(out_ty),
                     mask=kcols)
            kt.store(gend_ptr + (slot.to(kt.int64) * HV + hv) * K + cols, kt.exp(gamma_end),
                     mask=cols < K)
            if DELTA_RULE:
                kdec.index(kb).store((k * decayed).to(DOT))
            # k k^T only feeds the delta rule's solve.
            if GATE_PER_HEAD:
                if DELTA_RULE:
                    kk = pair_product(k, kt.trans(k), kk, DOT, PAIRS_BF16X3)
                qk = pair_product(q, kt.trans(k), qk, DOT, PAIRS_BF16X3)
            elif ANCHORED or mild_slice(q, k, g):
                qk, kk = anchored_pairs(q, k, g, gamma, rows, qk, kk, C, DOT, DELTA_RULE,
                                        PAIRS_BF16X3)
            else:
                # Pairs one key j at a time: both products share exp(gamma_i - gamma_j).
                keys.store(k)
                gammas.store(gamma)
                for j in range(C):
                    kd_j = keys.index(j).load()[None, :] * kt.exp(
                        kt.minimum(gamma - gammas.index(j).load()[None, :], 0.0))
                    column = cc[None, :] == j
                    if DELTA_RULE:
                        kk = kt.where(column, kk + kt.sum(k * kd_j, 1)[:, None], kk)
                    qk = kt.where(column, qk + kt.sum(q * kd_j, 1)[:, None], qk)
        if GATE_PER_HEAD:
            # One decay per row: the pairs are q k^T and k k^T times exp(gamma_i - gamma_j).
            decay = kt.exp(kt.minimum(g_head[:, None] - g_head[None, :], 0.0))
            kk = kk * decay
            qk = qk * decay
        kk = kt.where(rows[:, None] > cc[None, :], kk, 0.0)
        qk = kt.where(rows[:, None] >= cc[None, :], qk, 0.0)
        store_token_last(aqk_ptr, blk, 0, qk.to(out_ty), C, C, C, LANES, num_warps)
        if DELTA_RULE:
            beta = kt.load(beta_ptr + tok * stride_beta + hv, mask=live, other=0.0).to(kt.float32)
            if USE_BETA_SIGMOID:
                beta = beta_scale * kt.sigmoid(beta)
            beta = kt.where(live, beta, 0.0)
            lower.store(kk * beta[:, None])
            # (I + L)^-1 by forward substitution: row i = e_i - sum_{j < i} L[i, j] row j (on
            # the H200 10% faster than the product (I - L)(I + L^2)(I + L^4)(I + L^8)).
            # Each thread holds whole columns and every thread row i of L (a broadcast read of
            # shared memory), so a row's sum is the thread's own multiply-adds: no shuffle,
            # no barrier on the serial chain.
            SOLVE = kt.BlockedLayout([C, 1], [1, LANES], [1, num_warps], [0, 1])
            inverse = kt.zeros((C, C), kt.float32, layout=SOLVE)
            solve_rows = kt.arange(0, C, layout=kt.SliceLayout(1, SOLVE))
            solve_cols = kt.arange(0, C, layout=kt.SliceLayout(0, SOLVE))
            for i in kt.static_range(C):
                l_i = lower.index(i).load(layout=kt.SliceLayout(1, SOLVE))
                row = kt.where(solve_cols == i, 1.0, 0.0) - kt.sum(l_i[:, None] * inverse, 0)
                inverse = kt.where(solve_rows[:, None] == i, row[None, :], inverse)
            a = (inverse * beta[None, :]).to(DOT)
            for kb in range(BK // KS):
                cols = kb * KS + kt.arange(0, KS)
                w = kt.dot(a, kdec.index(kb).load())
                kt.store(w_ptr + (blk * K + cols[None, :]) * C + rows[:, None], w.to(out_ty),
                         mask=cols[None, :] < K)
        for vb in range(BV_ALL // KS):
            cols = vb * KS + kt.arange(0, KS)
            vmask = live[:, None] & (cols[None, :] < V)
            v = kt.load(v_ptr + tok[:, None] * stride_v + hv * V + cols[None, :], mask=vmask,
                        other=0.0)
            if DELTA_RULE:
                u = kt.dot(a, v.to(DOT))
                kt.store(u_ptr + (blk * V + cols[None, :]) * C + rows[:, None], u.to(out_ty),
                         mask=cols[None, :] < V)
            else:  # gated linear attention: delta = v, no w
                store_token_last(u_ptr, blk, vb * KS, v.to(out_ty), V, C, KS, LANES, num_warps)


@kt.jit
def scan_copy(ring_w, ring_qg, ring_kd, ring_u, ring_aqk, ring_gend, w_ptr, u_ptr, qg_ptr,
              kd_ptr, aqk_ptr, gend_ptr, slot_blk, more, cv, slot, HV: kt.constexpr,
              K: kt.constexpr, V: kt.constexpr, BK: kt.constexpr, C: kt.constexpr,
              DELTA_RULE: kt.constexpr):
    """Starts copying the chunk block `slot_blk` (slot * HV + value head) of w, qg, kd, gend,
    u and aqk, for the scan's value columns cv, into ring slot `slot`; zeros unless `more`."""
    cc = kt.arange(0, C)
    ck = kt.arange(0, BK)
    kmask = (ck < K)[:, None] & more
    # Each block's scalar start, then the threads' 32-bit offsets inside it (the same every
    # chunk), so a copy's address is one 64-bit add per element.
    kc_offs = ck[:, None] * C + cc[None, :]
    if DELTA_RULE:
        kt.async_copy(ring_w.index(slot), (w_ptr + slot_blk * (K * C)) + kc_offs, mask=kmask)
    kt.async_copy(ring_qg.index(slot), (qg_ptr + slot_blk * (K * C)) + kc_offs, mask=kmask)
    kt.async_copy(ring_kd.index(slot), (kd_ptr + slot_blk * (C * K)) + (cc[:, None] * K
                  + ck[None, :]), mask=(ck < K)[None, :] & more)
    kt.async_copy(ring_gend.index(slot), (gend_ptr + slot_blk * K) + ck, mask=(ck < K) & more)
    kt.async_copy(ring_u.index(slot), (u_ptr + slot_blk * (V * C)) + (cv[:, None] * C
                  + cc[None, :]), mask=(cv < V)[:, None] & more)
    kt.async_copy(ring_aqk.index(slot), (aqk_ptr + slot_blk * (C * C)) + (cc[:, None] * C
                  + cc[None, :]), mask=more)


@kt.jit
def kda_chunk_scan(w_ptr, u_ptr, qg_ptr, kd_ptr, aqk_ptr, gend_ptr, h0_ptr, cu_seqlens_ptr,
                   chunk_offsets_ptr, o_ptr, ht_ptr, states_ptr, N, T_total, SEG,
                   HV: kt.constexpr, K: kt.constexpr, V: kt.constexpr, BK: kt.constexpr,
                   BV: kt.constexpr, C: kt.constexpr, STATE_VK: kt.constexpr,
                   HAS_INITIAL: kt.constexpr, STORE_FINAL: kt.constexpr,
                   STORE_STATES: kt.constexpr, STATES_EVERY: kt.constexpr = 4,
                   DOT: kt.constexpr = kt.float32, DELTA_RULE: kt.constexpr = True,
                   STAGES: kt.constexpr = 3, SUMMARY: kt.constexpr = False):
    """Program (value tile, value head, segment slot): slots vary slowest, so where a launch
    has more programs than multiprocessors, those that wait for one are the last slots (the
    last sequences' last segments, rarely full ones). A sequence's segments are its spans
    of SEG tokens (a multiple of C * STATES_EVERY), at slots cu_seqlens[n] // SEG + n + j;
    SEG > T_total: one segment a sequence, at slot n. States are [K, V] per (sequence, value
    head), or [V, K] with STATE_VK, fp32: h0 holds the state before each segment ([slots,
    HV, *]: the initial states when SEG > T_total), ht [N, HV, *] gets each sequence's final
    state from its last segment; with STORE_STATES the state before every STATES_EVERY-th
    chunk m of sequence n goes to states[chunk_offsets[n] + m // STATES_EVERY] ([.., HV, *],
    in states' dtype). STAGES: chunks in the shared-memory ring (at least 2).

    SUMMARY: what each segment but a sequence's last makes of the state, written to ht
    [slots, HV, V + K, K] fp32 ([V, K] rows) and nothing else: rows < V the state after the
    segment from zeros (from the sequence's h0 [N, HV, *] for its first segment), rows V + r
    row r of the segment's transition P (S0 -> S0 P + those rows), carried by the programs
    after the value tiles (grid cdiv(V, BV) + cdiv(K, BV)) from the identity with v = 0."""
    kt.static_assert(K <= BK, "BK must cover K")
    kt.static_assert(STAGES >= 2, "the ring needs a slot to fill while another is read")
    kt.static_assert(not (SUMMARY and STORE_STATES), "a summary stores no boundary states")
    hv = kt.program_id(1)
    seg = kt.program_id(2)
    rows = kt.arange(0, C)
    ck = kt.arange(0, BK)
    cv = kt.program_id(0) * BV + kt.arange(0, BV)
    kcol = ck < K
    vcol = cv < V
    op_ty = w_ptr.dtype.element_ty
    # The state is held transposed, St = S^T [BV, BK]: each product's accumulator is then the
    # A operand of the next (registers only), and the chunk blocks are B operands read from
    # shared memory in place (ldmatrix). The blocks of the next STAGES - 1 chunks land in a
    # ring while this chunk's products run (cp.async, no registers held); rows padded by 16
    # bytes so the matrix loads' rows fall on distinct banks.
    PAD_C = kt.PaddedSharedLayout(C, 8, [1, 0])
    COPIES: kt.constexpr = 6 if DELTA_RULE else 5  # scan_copy's kt.async_copy calls
    ring_w = kt.alloc_shared((STAGES, BK, C), op_ty, layout=PAD_C)
    ring_qg = kt.alloc_shared((STAGES, BK, C), op_ty, layout=PAD_C)
    ring_kd = kt.alloc_shared((STAGES, C, BK), op_ty, layout=kt.PaddedSharedLayout(BK, 8, [1, 0]))
    ring_gend = kt.alloc_shared((STAGES, BK), kt.float32)
    ring_u = kt.alloc_shared((STAGES, BV, C), op_ty, layout=PAD_C)
    ring_aqk = kt.alloc_shared((STAGES, C, C), op_ty, layout=PAD_C)
    if STATE_VK:
        s_offs = cv[:, None] * K + ck[None, :]
    else:
        s_offs = ck[None, :] * V + cv[:, None]
    smask = vcol[:, None] & kcol[None, :]
    n, bos, eos, start = span_of_slot(cu_seqlens_ptr, N, T_total, seg, SEG)
    end = kt.minimum(start + SEG, eos)
    live = start < eos
    if SUMMARY:
        # Transition rows r = cv - VT * BV (negative in the value tiles), which start as the
        # identity and take v = 0 (cv >= V: the u copies are zeros). A sequence's last
        # segment needs no summary, its first no transition (its summary starts from h0).
        tr = cv - ((V + BV - 1) // BV) * BV
        value_tile = kt.program_id(0) * BV < V
        live = live & (end < eos) & ((start > bos) | value_tile)
        h0_mask = smask & (start == bos)
        h0_head = (n.to(kt.int64) * HV + hv) * (K * V)
    else:
        h0_mask = smask
        h0_head = (seg.to(kt.int64) * HV + hv) * (K * V)
    if HAS_INITIAL:
        St = kt.load(h0_ptr + h0_head + s_offs, mask=h0_mask, other=0.0).to(kt.float32)
    else:
        St = kt.zeros((BV, BK), kt.float32)
    if SUMMARY:
        St = kt.where(tr[:, None] == ck[None, :], 1.0, St)
    # This segment's first chunk block (chunk slots count from the sequence's first token).
    first_blk = (bos // C + n + (start - bos) // C).to(kt.int64) * HV + hv
    first_chunk = (start - bos) // C  # the segment's first chunk within its sequence
    if STORE_STATES:
        first_state = kt.load(chunk_offsets_ptr + n).to(kt.int64)
    chunks = kt.where(live, (end - start + C - 1) // C, 0)
    for m in kt.static_range(STAGES - 1):
        scan_copy(ring_w, ring_qg, ring_kd, ring_u, ring_aqk, ring_gend, w_ptr, u_ptr, qg_ptr,
                  kd_ptr, aqk_ptr, gend_ptr, first_blk + m * HV, m < chunks, cv, m, HV, K, V,
                  BK, C, DELTA_RULE)
    for m in range(0, chunks):
        # Chunk m landed (the copies of the STAGES - 2 chunks after it may still run), and
        # every thread is done with chunk m - 1's slot, which this step's copy refills.
        kt.async_wait((STAGES - 2) * COPIES)
        slot = m % STAGES
        if STORE_STATES:
            mm = first_chunk + m
            kt.store(states_ptr + ((first_state + mm // STATES_EVERY) * HV + hv) * (K * V)
                     + s_offs, St.to(states_ptr.dtype.element_ty),
                     mask=smask & (mm % STATES_EVERY == 0))
        s_dot = St.to(DOT)
        # delta^T = u^T - St w^T;  o^T = St qg^T + delta^T aqk^T;  St <- St gend + delta^T kd
        delta = ring_u.index(slot).load().to(kt.float32)
        if DELTA_RULE:
            delta = delta - kt.dot(s_dot, ring_w.index(slot).load().to(DOT))
        delta_dot = delta.to(DOT)
        if not SUMMARY:
            o = kt.dot(delta_dot, ring_aqk.index(slot).load().to(DOT),
                       kt.dot(s_dot, ring_qg.index(slot).load().to(DOT)))
            first_tok = (start + m * C).to(kt.int64)
            kt.store((o_ptr + (first_tok * HV + hv) * V) + (rows[None, :] * (HV * V)
                     + cv[:, None]), o.to(o_ptr.dtype.element_ty),
                     mask=(first_tok + rows < end)[None, :] & vcol[:, None])
        St = kt.dot(delta_dot, ring_kd.index(slot).load().to(DOT),
                    St * ring_gend.index(slot).load()[None, :])
        # The next copy goes last: issued first, its cp.async instructions queued ahead of
        # the matrix loads that start this step's chain of dependent products.
        ahead = m + STAGES - 1
        scan_copy(ring_w, ring_qg, ring_kd, ring_u, ring_aqk, ring_gend, w_ptr, u_ptr, qg_ptr,
                  kd_ptr, aqk_ptr, gend_ptr, first_blk + ahead * HV, ahead < chunks, cv,
                  ahead % STAGES, HV, K, V, BK, C, DELTA_RULE)
    if SUMMARY:
        srow = kt.where(tr >= 0, V + tr, cv)
        srow_mask = kt.where(tr >= 0, tr < K, vcol)
        kt.store(ht_ptr + ((seg.to(kt.int64) * HV + hv) * (V + K) + srow[:, None]) * K
                 + ck[None, :], St, mask=srow_mask[:, None] & kcol[None, :] & live)
    elif STORE_FINAL:
        # The sequence's last segment (an empty sequence: its only slot) holds its final state.
        last = (end >= eos) & (live | (start == bos))
        kt.store(ht_ptr + (n.to(kt.int64) * HV + hv) * (K * V) + s_offs, St,
                 mask=smask & last)
