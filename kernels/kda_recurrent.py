"""Kimi Delta Attention: the multi-token recurrent core (FLA `fused_recurrent_kda_fwd`).

Speculative decoding / several tokens per sequence (docs/kda.md), on inputs
taken after the short convolution. One program per (sequence n, head h), grid (N, H, 1): it
loads the starting state once, runs the gated delta rule over the sequence's tokens with the
state held in registers (fp32), writes the state after every token to that token's slot and
the output o[t] = S_t q_t.

Per token t of sequence n (fp32):
    q, k   <- l2norm(q), l2norm(k) (eps 1e-6)            if USE_QK_L2NORM
    q      <- q * scale                                  (always, as FLA)
    g      <- lower_bound * sigmoid(exp(A_log[h]) * (g + dt_bias[h]))    if USE_GATE and
                                                                            USE_LOWER_BOUND
              -exp(A_log[h]) * softplus(g + dt_bias[h])                   if USE_GATE only
              g itself (already the log decay)                            otherwise
    beta   <- sigmoid(beta) if USE_BETA_SIGMOID (2 sigmoid(beta) with ALLOW_NEG_EIGVAL)
              else beta (already in (0, 1)); one per value row with BETA_PER_VALUE
    S[v,k] <- S[v,k] * exp(g[k])            (decay first)
    S[v,k] <- S[v,k] * exp(gk[k])           if GATE_KEY (per-key log decays beside a
                                            per-head g, never activated in the kernel)
    S[v,k] <- S[v,k] * exp(gv[v])           if GATE_VALUE (per-value log decays, never
                                            activated in the kernel)
    u      =  S k ;  S <- S + (beta * (v - u)) k^T
    o[t]   =  S q                           (the updated state), stored in o's dtype (bf16)
    (DELTA_RULE=False, gated linear attention: S <- S + v k^T after the decay, no beta)
    state[state_indices[n, t], h] <- S      (rounded to the pool's dtype; S stays fp32)

Tokens. Not varlen: q, k, v, g, beta are [N, T, H, *] (token n*T + t). IS_VARLEN: they are
[1, T_total, H, *] and sequence n holds tokens cu_seqlens[n] .. cu_seqlens[n+1]-1. H counts the
value heads (v, g, beta, the state, o); q and k have QK_H heads, H a multiple of them (GVA:
value head h reads q/k head h // (H // QK_H); QK_H = 0: H). q, k, v, g
and beta are addressed through a token stride each (elements; heads contiguous inside a token),
so splits of a packed [T, 3*H*D] tensor work. o is contiguous [tokens, H, V]. Token offsets are
64-bit.

Slots. state_indices is [N, T] (element strides stride_si_n, stride_si_t), T being the number of
columns (the tokens per sequence; with IS_VARLEN the maximum). A slot s is live when
0 <= s < num_slots; any other value is padding. Slot offsets are 64-bit
(stride_state_slot elements per slot), so pools beyond 4 GiB work.
  * Starting state: slot state_indices[n, a - 1] with a = num_accepted_tokens[n] when
    HAS_NUM_ACCEPTED, else a = 1. `a` is clamped to [1, T], so the kernel never reads outside
    the row (the host rejects values outside [1, T]).
  * Padding sequence: if the starting slot is padding, every output of the sequence is zero and
    no state is read or written (docs/kda.md, "Bad inputs": a padding row).
  * Padding token: if state_indices[n, t] is padding (or t >= T, possible only with IS_VARLEN
    when a sequence is longer than the table), the token's output is zero, no state is written
    for it and the token leaves the carried state unchanged (it acts as g = 0, beta = 0); later
    tokens of the sequence continue from the state before it.
  * Duplicate live slots are undefined (the host may check).

Runtime floats scale and lower_bound never multiply compiled kernels (lower_bound is unused
unless USE_GATE and USE_LOWER_BOUND). Pointers a variant does not read (A_log, dt_bias without
USE_GATE; num_accepted_tokens without HAS_NUM_ACCEPTED; cu_seqlens without IS_VARLEN) may be any
array.

Constexprs:
  H, K, V           heads, key and value head dims (any sizes; KDA: K = V = 128).
  BK                the key axis's width in registers, a power of two >= K, when K is not
                    one (0: K); the padding columns are masked.
  STATE_KV          False: state[slot, h] is [V, K] (K contiguous); True: [K, V].
  IS_VARLEN, HAS_NUM_ACCEPTED, USE_QK_L2NORM, USE_GATE, USE_LOWER_BOUND, USE_BETA_SIGMOID.
  BV                value rows per program (a power of two): grid (N, H, cdiv(V, BV)), the
                    rows past V masked.
                    BV = V is one program per (sequence, head); the rows of S are independent,
                    so smaller blocks only repeat the q/k norms and the gate. On the H200
                    (bench/bench_kda_recurrent.py) BV = 32 is fastest, with 4 warps at one
                    token per sequence and 2 with several; BV = V needs 8 warps on sm_90a (4
                    spill).
  PREFETCH_STATE    the starting state goes through shared memory with an asynchronous copy
                    issued before the first token's loads and math and waited for just before
                    its delta rule (on sm_90a ptxas otherwise issues most of the state's loads
                    after the norms and the gate). On the H200 10-12% faster at one token per
                    sequence and small batch, mostly slower with several tokens (the
                    first-token test and the wait stay in the loop); kdatile.ops sets it
                    where a copy engine does the copy (every GPU) when the sequences
                    average at most one token. The copy is a tensor-descriptor block load:
                    TMA on sm_90a, the Tensor Data Mover on gfx1250, buffer loads into LDS
                    on gfx950 (the state reaches LDS without VGPRs).
  READ_STATE_FIRST  with PREFETCH_STATE, the first live token reads the prefetched state
                    before its own loads rather than just before its delta rule: less of
                    the copy overlaps, and the token's q, k, v and gate are not live beside
                    the state as it lands (gfx1250 at H = 24, BV = 32, 4 warps, varlen: 81
                    VGPRs, occupancy 10, against 99 and 9). kdatile.ops sets it on gfx1250
                    only: gfx950's T = 1 program takes 61 VGPRs with it, 51 without, and on
                    the H200 the later read measured faster.
  ELEMENT_COPIES    with PREFETCH_STATE, the copy by the program's lanes (cp.async on sm_90a)
                    rather than a copy engine; kdatile.ops sets it on sm_90a for batches of
                    at most 8 sequences, where it measured faster than TMA.
  GATE_PER_HEAD     g is one log decay per token and head ([.., H], Gated DeltaNet), decaying
                    every key channel alike. With USE_GATE it is the raw gate of the softplus
                    form, -exp(A_log[h]) softplus(g + dt_bias[h]) with dt_bias [H] (not with
                    USE_LOWER_BOUND).
  HAS_DT_BIAS       with USE_GATE: dt_bias is added to the raw gate (False: no bias, the
                    pointer is not read).
  HAS_A_LOG         with USE_GATE: the gate's rate is exp(A_log[h]) (False: 1, the pointer is
                    not read).
  ALLOW_NEG_EIGVAL  with USE_BETA_SIGMOID: beta = 2 sigmoid(beta), in (0, 2), so that I - beta
                    k k^T may have negative eigenvalues (FLA's allow_neg_eigval).
  SEQUENCE_SLOTS    slot n holds sequence n's state: state_indices is not read (FLA's
                    fused_recurrent calls, one dense state per sequence, need no slot table
                    and so no kernel to build one); not with HAS_NUM_ACCEPTED or
                    STATE_RECORDS.
  ZERO_START        every sequence starts from the zero state: the pool is not read (FLA's
                    calls without an initial state, which then need no zero-filled pool);
                    with SEQUENCE_SLOTS and FINAL_STATE_OUT or OUTPUTS_ONLY, not with
                    PREFETCH_STATE.
  FINAL_STATE_ONLY  every token's output, but only the state after the sequence's last live
                    token is written, to that token's slot (the state every-token writing
                    leaves there); the other tokens' slots are not touched: one state write
                    per sequence instead of one per token.
  FINAL_STATE_OUT   with FINAL_STATE_ONLY: the state after sequence n's tokens (its starting
                    state when none ran) goes to final_ptr [N, H, *, *] (dense, the pool's
                    layout, final_ptr's dtype) instead of the pool, which is then only read:
                    FLA's initial_state -> final_state without copying the initial states.
  OUTPUTS_ONLY      with FINAL_STATE_ONLY, not with FINAL_STATE_OUT: no state is written at
                    all, the pool is only read (FLA's calls without output_final_state).
  HAS_G             False: no decay from g (FLA's g=None / gk=None): g is not read, not with
                    USE_GATE.
  UNIT_BETA         beta = 1 (FLA's Gated DeltaNet beta=None): beta is not read; not with
                    BETA_PER_VALUE or USE_BETA_SIGMOID.
  GATE_KEY          gk [.., H, K] (token stride stride_gk): a log decay per key column as
                    well, applied after g's (FLA's Gated DeltaNet gk beside its per-head g,
                    which USE_GATE may activate); not with STATE_RECORDS.
  GATE_VALUE        gv [.., H, V] (token stride stride_gv): a log decay per value row as
                    well, applied after g's and gk's (FLA's gv); not with STATE_RECORDS.
  BETA_PER_VALUE    beta is [.., H, V] (stride_beta per token): one beta per value row.
  REVERSE           the tokens of each sequence run from last to first (FLA's reverse=True):
                    the final state is the one after the sequence's first token. Only with
                    SEQUENCE_SLOTS (no slot table to read in token order).
  DELTA_RULE        False: gated linear attention (GLA), S <- S * exp(g) + v k^T with no
                    beta and no correction by S k (beta is not read).
  STATE_RECORDS     speculative state as per-token records instead of per-token states.
                    Token t's update is S <- S * e + d k^T with e = exp(g) [K], k the
                    (normalized) key [K] and d [V] the delta rule's error term beta (v - S k)
                    (v itself without DELTA_RULE), so a record r = (e, k, d), 2K + V fp32
                    values, holds what a [V, K] state would. The state table is one slot per
                    sequence (stride_si_t = 0), the committed state; record pools are
                    [num_slots, TR, H, 2K + V] fp32 (stride_rec_slot elements per slot).
                    The program first replays records 0 .. a-1 of its slot from rec_in
                    (a = num_accepted_tokens[n] clamped to [0, TR]: the tokens of the previous
                    step that were accepted) onto the committed state and writes the result
                    back to the slot when a > 0; then it runs its tokens, writing token t's
                    record to rec_out[slot, t] (t < TR) and no state. rec_in and rec_out are
                    distinct pools (the caller alternates them): the programs of one head
                    share the e and k of a record, which value block 0 writes.
"""

import kdatile as kt
from gates import activated_log_decay


@kt.jit
def prefetched_state(s_buf):
    """The starting state, once its block copy into s_buf [1, ...] has landed (fp32)."""
    kt.async_wait(0)
    return s_buf.index(0).load().to(kt.float32)


@kt.jit
def decay_keys(S, e, STATE_KV: kt.constexpr):
    """S scaled along its key axis by e [KP] (the axis of K: rows with STATE_KV)."""
    if STATE_KV:
        return S * e[:, None]
    return S * e[None, :]


@kt.jit
def decay_values(S, e, STATE_KV: kt.constexpr):
    """S scaled along its value axis by e [BV]."""
    if STATE_KV:
        return S * e[None, :]
    return S * e[:, None]


@kt.jit
def kda_recurrent(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, A_log_ptr, dt_bias_ptr,
                  state_ptr, state_idx_ptr, num_accepted_ptr, cu_seqlens_ptr, o_ptr,
                  rec_in_ptr, rec_out_ptr, final_ptr, gk_ptr, gv_ptr,
                  T, num_slots, stride_q, stride_k, stride_v, stride_g, stride_beta,
                  stride_state_slot, stride_si_n, stride_si_t, TR, stride_rec_slot, stride_gk,
                  stride_gv, scale, lower_bound,
                  H: kt.constexpr, K: kt.constexpr, V: kt.constexpr,
                  STATE_KV: kt.constexpr, IS_VARLEN: kt.constexpr,
                  HAS_NUM_ACCEPTED: kt.constexpr, USE_QK_L2NORM: kt.constexpr,
                  USE_GATE: kt.constexpr, USE_LOWER_BOUND: kt.constexpr,
                  USE_BETA_SIGMOID: kt.constexpr, BV: kt.constexpr,
                  PREFETCH_STATE: kt.constexpr = False, FINAL_STATE_ONLY: kt.constexpr = False,
                  QK_H: kt.constexpr = 0, GATE_PER_HEAD: kt.constexpr = False,
                  DELTA_RULE: kt.constexpr = True, STATE_RECORDS: kt.constexpr = False,
                  FINAL_STATE_OUT: kt.constexpr = False,
                  READ_STATE_FIRST: kt.constexpr = False,
                  ELEMENT_COPIES: kt.constexpr = False,
                  SEQUENCE_SLOTS: kt.constexpr = False, ZERO_START: kt.constexpr = False,
                  OUTPUTS_ONLY: kt.constexpr = False, ALLOW_NEG_EIGVAL: kt.constexpr = False,
                  HAS_DT_BIAS: kt.constexpr = True, HAS_A_LOG: kt.constexpr = True,
                  BK: kt.constexpr = 0, HAS_G: kt.constexpr = True,
                  UNIT_BETA: kt.constexpr = False, GATE_KEY: kt.constexpr = False,
                  GATE_VALUE: kt.constexpr = False,
                  BETA_PER_VALUE: kt.constexpr = False, REVERSE: kt.constexpr = False):
    # Head dims of any size: the key axis is held as KP columns (BK, a power of two, when K
    # is not one) and the value tiles as BV rows, the padding masked.
    KP: kt.constexpr = max(BK, K)
    MASK_K: kt.constexpr = KP != K
    MASK_V: kt.constexpr = V % BV != 0
    kt.static_assert(KP > 0 and (KP & (KP - 1)) == 0 and KP >= K,
                     "K must be a power of two, or BK one above it")
    kt.static_assert(BV > 0 and (BV & (BV - 1)) == 0, "BV must be a power of two")
    kt.static_assert(not (PREFETCH_STATE and (MASK_K or MASK_V)),
                     "the state's block copy needs K a power of two and BV dividing V")
    kt.static_assert(QK_H == 0 or H % QK_H == 0, "H must be a multiple of QK_H")
    kt.static_assert(not (GATE_PER_HEAD and USE_LOWER_BOUND),
                     "a per-head gate (GATE_PER_HEAD) takes the softplus form")
    kt.static_assert(not (STATE_RECORDS and (PREFETCH_STATE or FINAL_STATE_ONLY)),
                     "STATE_RECORDS writes records, not states")
    kt.static_assert(FINAL_STATE_ONLY or not FINAL_STATE_OUT,
                     "FINAL_STATE_OUT needs FINAL_STATE_ONLY")
    kt.static_assert(not (SEQUENCE_SLOTS and (HAS_NUM_ACCEPTED or STATE_RECORDS)),
                     "SEQUENCE_SLOTS reads no slot table")
    kt.static_assert(not OUTPUTS_ONLY or (FINAL_STATE_ONLY and not FINAL_STATE_OUT),
                     "OUTPUTS_ONLY is a FINAL_STATE_ONLY launch without FINAL_STATE_OUT")
    kt.static_assert(HAS_G or not USE_GATE, "the in-kernel gate (USE_GATE) activates g")
    kt.static_assert(not UNIT_BETA or not (BETA_PER_VALUE or USE_BETA_SIGMOID),
                     "UNIT_BETA reads no beta")
    kt.static_assert(not ((GATE_KEY or GATE_VALUE) and STATE_RECORDS),
                     "a record holds g's decays only (no GATE_KEY or GATE_VALUE)")
    kt.static_assert(not REVERSE or SEQUENCE_SLOTS,
                     "REVERSE runs one state per sequence (SEQUENCE_SLOTS)")
    kt.static_assert(not ZERO_START or (SEQUENCE_SLOTS and (FINAL_STATE_OUT or OUTPUTS_ONLY)
                                        and not PREFETCH_STATE),
                     "ZERO_START reads no pool, so it writes final_ptr or no state")
    n = kt.program_id(0)
    h = kt.program_id(1)
    h_qk = h if QK_H == 0 else h // (H // QK_H)
    if PREFETCH_STATE:
        s_buf = kt.alloc_shared((1, K, BV) if STATE_KV else (1, BV, K),
                                state_ptr.dtype.element_ty)
    offs_k = kt.arange(0, KP)
    offs_v = kt.program_id(2) * BV + kt.arange(0, BV)
    kmask = True
    vmask = True
    if MASK_K:
        kmask = offs_k < K
    if MASK_V:
        vmask = offs_v < V
    kt.wait_prior_launches()  # launched early: the previous kernel's writes land here
    if IS_VARLEN:
        bos = kt.load(cu_seqlens_ptr + n).to(kt.int64)
        seq_len = kt.load(cu_seqlens_ptr + n + 1) - kt.load(cu_seqlens_ptr + n)
    else:
        bos = n.to(kt.int64) * T
        seq_len = T
    si_row = state_idx_ptr + n.to(kt.int64) * stride_si_n
    if HAS_NUM_ACCEPTED and not STATE_RECORDS:
        first = kt.maximum(kt.minimum(kt.load(num_accepted_ptr + n), T), 1) - 1
    else:
        first = 0
    if SEQUENCE_SLOTS:
        slot0 = n
    else:
        slot0 = kt.load(si_row + first * stride_si_t)
    if (slot0 >= 0) & (slot0 < num_slots):
        if USE_GATE:
            if HAS_A_LOG:
                A = kt.exp(kt.load(A_log_ptr + h).to(kt.float32))
            else:
                A = 1.0
        s_head = state_ptr + h * (K * V)
        if STATE_KV:
            # Memory is [K, V]: hold the tile as [K, V] too, so loads stay contiguous.
            s_offs = offs_k[:, None] * V + offs_v[None, :]
        else:
            s_offs = offs_v[:, None] * K + offs_k[None, :]
        smask = True
        if MASK_K or MASK_V:
            if STATE_KV:
                smask = (offs_k < K)[:, None] & (offs_v < V)[None, :]
            else:
                smask = (offs_v < V)[:, None] & (offs_k < K)[None, :]
        if ZERO_START:
            S = kt.zeros((KP, BV) if STATE_KV else (BV, KP), kt.float32)
        elif PREFETCH_STATE:
            # The starting state is read into registers at the first token, after its
            # loads, norms and gate: its block copy is in flight meanwhile. The pool as
            # [slots, H * rows, columns]: slot0 passed its test, so the offsets are
            # non-negative and gfx1250's Tensor Data Mover takes the copy.
            COPIES: kt.constexpr = "elements" if ELEMENT_COPIES else "engine"
            if STATE_KV:
                pool = kt.make_tensor_descriptor(state_ptr, (num_slots, H * K, V),
                                                 (stride_state_slot, V, 1), (1, K, BV),
                                                 copies=COPIES)
                kt.async_load(pool, (slot0, h * K, kt.program_id(2) * BV), s_buf)
            else:
                pool = kt.make_tensor_descriptor(state_ptr, (num_slots, H * V, K),
                                                 (stride_state_slot, K, 1), (1, BV, K),
                                                 copies=COPIES)
                kt.async_load(pool, (slot0, h * V + kt.program_id(2) * BV, 0), s_buf)
            S = kt.zeros((KP, BV) if STATE_KV else (BV, KP), kt.float32)
            # Padding tokens leave the state alone: the first real token reads it, from one
            # place (one set of registers for the carried state).
            copy_pending = 1
        else:
            S = kt.load(s_head + slot0.to(kt.int64) * stride_state_slot + s_offs, mask=smask,
                        other=0.0).to(kt.float32)
        if STATE_RECORDS:
            rec_row = H * (2 * K + V)  # one token's records, all heads
            rec_slot = slot0.to(kt.int64) * stride_rec_slot + h * (2 * K + V)
            if HAS_NUM_ACCEPTED:
                replayed = kt.maximum(kt.minimum(kt.load(num_accepted_ptr + n), TR), 0)
            else:
                replayed = 0
            for r in range(0, replayed):
                rec = rec_in_ptr + rec_slot + r * rec_row
                e = kt.load(rec + offs_k, mask=kmask, other=0.0)
                kr = kt.load(rec + K + offs_k, mask=kmask, other=0.0)
                d = kt.load(rec + 2 * K + offs_v, mask=vmask, other=0.0)
                if STATE_KV:
                    S = S * e[:, None] + kr[:, None] * d[None, :]
                else:
                    S = S * e[None, :] + d[:, None] * kr[None, :]
            if replayed > 0:
                kt.store(s_head + slot0.to(kt.int64) * stride_state_slot + s_offs,
                         S.to(state_ptr.dtype.element_ty), mask=smask)
        last_slot = -1  # FINAL_STATE_ONLY: the slot of the last live token
        for t in range(0, seq_len):
            if REVERSE:
                tok = bos + (seq_len - 1 - t)
            else:
                tok = bos + t
            o_ptrs = o_ptr + (tok * H + h) * V + offs_v
            if SEQUENCE_SLOTS:
                slot = n
            else:
                slot = kt.load(si_row + t * stride_si_t, mask=t < T, other=-1)
            if (slot >= 0) & (slot < num_slots):
                if PREFETCH_STATE and READ_STATE_FIRST:
                    if copy_pending == 1:
                        S = prefetched_state(s_buf)
                        copy_pending = 0
                q = kt.load(q_ptr + tok * stride_q + h_qk * K + offs_k, mask=kmask,
                            other=0.0).to(kt.float32)
                k = kt.load(k_ptr + tok * stride_k + h_qk * K + offs_k, mask=kmask,
                            other=0.0).to(kt.float32)
                v = kt.load(v_ptr + tok * stride_v + h * V + offs_v, mask=vmask,
                            other=0.0).to(kt.float32)
                if HAS_G and GATE_PER_HEAD:
                    g = kt.load(g_ptr + tok * stride_g + h).to(kt.float32)
                elif HAS_G:
                    g = kt.load(g_ptr + tok * stride_g + h * K + offs_k, mask=kmask,
                                other=0.0).to(kt.float32)
                if DELTA_RULE:
                    if UNIT_BETA:
                        beta = 1.0
                    elif BETA_PER_VALUE:
                        beta = kt.load(beta_ptr + tok * stride_beta + h * V + offs_v,
                                       mask=vmask, other=0.0).to(kt.float32)
                    else:
                        beta = kt.load(beta_ptr + tok * stride_beta + h).to(kt.float32)
                    if USE_BETA_SIGMOID:
                        beta = kt.sigmoid(beta)
                        if ALLOW_NEG_EIGVAL:
                            beta = 2.0 * beta
                if USE_QK_L2NORM:
                    q = q * kt.rsqrt(kt.sum(q * q, 0) + 1e-6)
                    k = k * kt.rsqrt(kt.sum(k * k, 0) + 1e-6)
                q = q * scale
                if USE_GATE:
                    # dt_bias reloaded per token (an L1 hit): held across the token loop,
                    # AMD's register allocation kept 16 more VGPRs live (gfx1250: 96 -> 80).
                    if not HAS_DT_BIAS:
                        a = g
                    elif GATE_PER_HEAD:
                        a = g + kt.load(dt_bias_ptr + h).to(kt.float32)
                    else:
                        a = g + kt.load(dt_bias_ptr + h * K + offs_k, mask=kmask,
                                        other=0.0).to(kt.float32)
                    g = activated_log_decay(a, A, lower_bound, USE_LOWER_BOUND)
                if PREFETCH_STATE and not READ_STATE_FIRST:
                    if copy_pending == 1:
                        S = prefetched_state(s_buf)
                        copy_pending = 0
                # Decay first; the output uses the updated state.
                if not HAS_G:
                    e = 1.0
                elif GATE_PER_HEAD:
                    e = kt.exp(g)
                    S = S * e
                else:
                    e = kt.exp(g)
                    S = decay_keys(S, e, STATE_KV)
                if GATE_KEY:
                    S = decay_keys(S, kt.exp(kt.load(gk_ptr + tok * stride_gk + h * K + offs_k,
                                                     mask=kmask, other=0.0).to(kt.float32)),
                                   STATE_KV)
                if GATE_VALUE:
                    S = decay_values(S, kt.exp(kt.load(gv_ptr + tok * stride_gv + h * V + offs_v,
                                                       mask=vmask, other=0.0).to(kt.float32)),
                                     STATE_KV)
                if DELTA_RULE:
                    if STATE_KV:
                        v = beta * (v - kt.sum(S * k[:, None], 0))
                    else:
                        v = beta * (v - kt.sum(S * k[None, :], 1))
                if STATE_KV:
                    S = S + k[:, None] * v[None, :]
                    o = kt.sum(S * q[:, None], 0)
                else:
                    S = S + v[:, None] * k[None, :]
                    o = kt.sum(S * q[None, :], 1)
                if STATE_RECORDS:
                    if t < TR:
                        rec = rec_out_ptr + rec_slot + t * rec_row
                        if kt.program_id(2) == 0:
                            # + zeros: a per-head decay (GATE_PER_HEAD, or none) stored per
                            # key.
                            kt.store(rec + offs_k, e + kt.zeros((KP,), kt.float32),
                                     mask=kmask)
                            kt.store(rec + K + offs_k, k, mask=kmask)
                        kt.store(rec + 2 * K + offs_v, v, mask=vmask)
                elif FINAL_STATE_ONLY:
                    last_slot = slot
                else:
                    kt.store(s_head + slot.to(kt.int64) * stride_state_slot + s_offs,
                             S.to(state_ptr.dtype.element_ty), mask=smask)
                kt.store(o_ptrs, o.to(o_ptr.dtype.element_ty), mask=vmask)
            else:
                kt.store(o_ptrs, kt.zeros((BV,), o_ptr.dtype.element_ty), mask=vmask)
        if FINAL_STATE_OUT:
            # Written even when no token ran: the starting state is then the final one.
            if PREFETCH_STATE:
                if copy_pending == 1:
                    S = prefetched_state(s_buf)
                    copy_pending = 0
            kt.store(final_ptr + (n.to(kt.int64) * H + h) * (K * V) + s_offs,
                     S.to(final_ptr.dtype.element_ty), mask=smask)
        elif FINAL_STATE_ONLY and not OUTPUTS_ONLY:
            if last_slot >= 0:
                kt.store(s_head + last_slot.to(kt.int64) * stride_state_slot + s_offs,
                         S.to(state_ptr.dtype.element_ty), mask=smask)
        if PREFETCH_STATE:
            if copy_pending == 1:
                # No token read the copy (only padding, no tokens, or negative lengths:
                # unchecked offsets under capture): let it land before exiting.
                kt.async_wait(0)
    else:
        for t in range(0, seq_len):
            tok = bos + t
            kt.store(o_ptr + (tok * H + h) * V + offs_v, kt.zeros((BV,), o_ptr.dtype.element_ty),
                     mask=vmask)
