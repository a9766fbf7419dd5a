"""Kimi Delta Attention over segments of a sequence: the kernels that join segments' affine
maps, for the context-parallel prefill (over ranks) and the split scan (over programs).

The math is docs/kda.md, "Context-parallel prefill". In the [V, K] form a token maps the
state affinely, S <- S diag(exp(g)) (I - beta k k^T) + beta v k^T, so a rank's segment of a
sequence maps the state S0 it starts from to S0 P + Q, with P [K, K] the product of the
tokens' maps and Q the segment's final state from zeros; its outputs are o_t = o_t(0) + S0 c_t
with c_t = P_t q_t (P_t: the product up to token t, q_t scaled and normalized as the output
uses it). kdatile.ops gets P and c_t from chunk_kda itself (v = 0 and the identity as the
initial state), Q and o_t(0) from the segment's own call, then finishes with:

1. `kda_cp_compose`, grid (cdiv(K, BV), HV, cdiv(K, BN)): out[h] = S[h] P[h] + Q[h], what a
   segment makes of the state before it (the exclusive scan over ranks, and a sequence's
   final state); a [BV, BN] block per program.
2. `kda_cp_correct`, grid (cdiv(T1, BT), HV, cdiv(K, BV)): o[t, h] += S[h] c[t, h] for the
   first T1 tokens, the part of their outputs the state before the segment contributes.

On one GPU a long sequence is split instead (kdatile.ops.chunk_kda with few programs for
the multiprocessors): the scan kernel's SUMMARY pass writes every segment's (P, Q) in one
launch, `kda_segment_starts` chains them into each segment's starting state, and the scan
proper runs all segments at once from those.

States (S, Q, out) are [HV, V, K] (STATE_VK) or [HV, K, V] fp32, V = K; P is [HV, K, K]
fp32 with P[h, j, k] row j (the [V, K] form of chunk_kda's state_v_first). o is [T, HV, K]
contiguous in its own dtype, c [T1, HV, K] contiguous. K is any size up to BK (a power of
two; padding columns masked). The products run in DOT (fp32 accumulation): kt.bfloat16 on the
matrix instructions, kt.float32 as exact fused multiply-adds, as the chunked prefill picks for
its inputs' dtype.
"""

import kdatile as kt
from kda_chunk import pair_product, sequence_bounds


@kt.jit
def state_offsets(rows, cols, K, STATE_VK: kt.constexpr):
    """Element offsets of S[rows, cols] ([V, K] indices, broadcast) in a state stored [V, K]
    (STATE_VK) or [K, V]."""
    if STATE_VK:
        return rows * K + cols
    return cols * K + rows


@kt.jit
def affine_block(s_ptr, p_ptr, acc, offs_v, offs_n, K: kt.constexpr, BK: kt.constexpr,
                 BJ: kt.constexpr, STATE_VK: kt.constexpr, DOT: kt.constexpr,
                 BF16X3: kt.constexpr = False):
    """acc + S[offs_v, :] P[:, offs_n] for a state S at s_ptr (STATE_VK or [K, V]) and a
    transition P [K, K] (rows) at p_ptr, BJ of the reduction at a time, with operands in DOT;
    BF16X3: through kda_chunk.pair_product instead (DOT bf16: three bf16 products of the fp32
    factors' high and low parts, about 16 bits; DOT fp32: exact)."""
    for j0 in kt.static_range(0, BK, BJ):
        offs_j = j0 + kt.arange(0, BJ)
        s = kt.load(s_ptr + state_offsets(offs_v[:, None], offs_j[None, :], K, STATE_VK),
                    mask=(offs_v[:, None] < K) & (offs_j[None, :] < K), other=0.0)
        p = kt.load(p_ptr + offs_j[:, None] * K + offs_n[None, :],
                    mask=(offs_j[:, None] < K) & (offs_n[None, :] < K), other=0.0)
        if BF16X3:
            acc = pair_product(s, p, acc, DOT, True)
        else:
            acc = kt.dot(s.to(DOT), p.to(DOT), acc)
    return acc


@kt.jit
def kda_cp_compose(s_ptr, p_ptr, q_ptr, out_ptr, K: kt.constexpr, BK: kt.constexpr,
                   BV: kt.constexpr, BN: kt.constexpr, BJ: kt.constexpr,
                   STATE_VK: kt.constexpr, DOT: kt.constexpr):
    h = kt.program_id(1)
    head = h.to(kt.int64) * (K * K)
    offs_v = kt.program_id(0) * BV + kt.arange(0, BV)
    offs_n = kt.program_id(2) * BN + kt.arange(0, BN)
    tile = state_offsets(offs_v[:, None], offs_n[None, :], K, STATE_VK)
    inside = (offs_v[:, None] < K) & (offs_n[None, :] < K)
    acc = kt.load(q_ptr + head + tile, mask=inside, other=0.0)
    acc = affine_block(s_ptr + head, p_ptr + head, acc, offs_v, offs_n, K, BK, BJ, STATE_VK,
                       DOT)
    kt.store(out_ptr + head + tile, acc, mask=inside)


@kt.jit
def kda_segment_starts(h0_ptr, summary_ptr, cu_seqlens_ptr, starts_ptr, T_total, SEG,
                       HV: kt.constexpr, K: kt.constexpr, BK: kt.constexpr, BV: kt.constexpr,
                       BN: kt.constexpr, BJ: kt.constexpr, HAS_INITIAL: kt.constexpr,
                       STATE_VK: kt.constexpr, DOT: kt.constexpr):
    """The state before each segment of a sequence split for the scan (kda_chunk_scan with
    SEG <= T_total), from the segments' summaries: starts[slot 0] = h0[n] (or zeros),
    starts[slot j + 1] = starts[slot j] P_j + Q_j, for sequence n's segments j at slots
    cu_seqlens[n] // SEG + n + j. Grid (cdiv(K, BV), N, HV): BV rows of the state, all of
    its columns, segment after segment. summary [slots, HV, 2K, K] fp32 as the SUMMARY scan
    writes it (Q_j rows 0..K-1, already from h0 for j = 0; P_j rows K..2K-1); h0 and starts
    in the state's layout. The products are exact fused multiply-adds with DOT fp32, else
    three bf16 matrix products of split factors (about 16 bits: the errors of the chain add
    up, so not the scan's bf16 alone)."""
    n = kt.program_id(1)
    hv = kt.program_id(2)
    bos, eos = sequence_bounds(cu_seqlens_ptr, n, T_total)
    slot0 = bos // SEG + n
    offs_v = kt.program_id(0) * BV + kt.arange(0, BV)
    for n0 in kt.static_range(0, BK, BN):
        offs_n = n0 + kt.arange(0, BN)
        tile = state_offsets(offs_v[:, None], offs_n[None, :], K, STATE_VK)
        inside = (offs_v[:, None] < K) & (offs_n[None, :] < K)
        if HAS_INITIAL:
            s = kt.load(h0_ptr + (n.to(kt.int64) * HV + hv) * (K * K) + tile, mask=inside,
                        other=0.0)
        else:
            s = kt.zeros((BV, BN), kt.float32)
        kt.store(starts_ptr + (slot0.to(kt.int64) * HV + hv) * (K * K) + tile, s, mask=inside)
    for j in range(0, (eos - bos + SEG - 1) // SEG - 1):
        kt.barrier()  # segment j's start, stored by every thread, is read whole below
        blk = (slot0 + j).to(kt.int64) * HV + hv
        summary = summary_ptr + blk * (2 * K * K)
        for n0 in kt.static_range(0, BK, BN):
            offs_n = n0 + kt.arange(0, BN)
            inside = (offs_v[:, None] < K) & (offs_n[None, :] < K)
            acc = kt.load(summary + offs_v[:, None] * K + offs_n[None, :], mask=inside,
                          other=0.0)
            if j > 0:  # the first segment's summary already started from h0
                acc = affine_block(starts_ptr + blk * (K * K), summary + K * K, acc, offs_v,
                                   offs_n, K, BK, BJ, STATE_VK, DOT, True)
            kt.store(starts_ptr + (blk + HV) * (K * K)
                     + state_offsets(offs_v[:, None], offs_n[None, :], K, STATE_VK), acc,
                     mask=inside)


@kt.jit
def kda_cp_correct(o_ptr, c_ptr, s_ptr, T1, HV: kt.constexpr, K: kt.constexpr,
                   BK: kt.constexpr, BT: kt.constexpr, BV: kt.constexpr, BJ: kt.constexpr,
                   STATE_VK: kt.constexpr, DOT: kt.constexpr):
    h = kt.program_id(1)
    head = h.to(kt.int64) * (K * K)
    offs_t = kt.program_id(0) * BT + kt.arange(0, BT)
    offs_v = kt.program_id(2) * BV + kt.arange(0, BV)
    rows = (offs_t.to(kt.int64) * HV + h) * K
    live = offs_t < T1
    o_ptrs = o_ptr + rows[:, None] + offs_v[None, :]
    o_mask = live[:, None] & (offs_v[None, :] < K)
    acc = kt.load(o_ptrs, mask=o_mask, other=0.0).to(kt.float32)
    for j0 in kt.static_range(0, BK, BJ):
        offs_j = j0 + kt.arange(0, BJ)
        c = kt.load(c_ptr + rows[:, None] + offs_j[None, :],
                    mask=live[:, None] & (offs_j[None, :] < K), other=0.0)
        # S^T as [BJ, BV]: element (j, v) is S[v, j].
        s_t = kt.load(s_ptr + head + state_offsets(offs_v[None, :], offs_j[:, None], K,
                                                   STATE_VK),
                      mask=(offs_j[:, None] < K) & (offs_v[None, :] < K), other=0.0)
        acc = kt.dot(c.to(DOT), s_t.to(DOT), acc)
    kt.store(o_ptrs, acc.to(o_ptr.dtype.element_ty), mask=o_mask)
