"""Kimi Delta Attention over several ranks: the two kernels of the context-parallel prefill.

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

States (S, Q, out) are [HV, V, K] (STATE_VK) or [HV, K, V] fp32, V = K; P is [HV, K, K]
fp32 with P[h, j, k] row j (the [V, K] form of chunk_kda's state_v_first). o is [T, HV, K]
contiguous in its own dtype, c [T1, HV, K] contiguous. K is any size up to BK (a power of
two; padding columns masked). The products run in DOT (fp32 accumulation): kt.bfloat16 on the
matrix instructions, kt.float32 as exact fused multiply-adds, as the chunked prefill picks for
its inputs' dtype.
"""

import kdatile as kt


@kt.jit
def state_offsets(rows, cols, K, STATE_VK: kt.constexpr):
    """Element offsets of S[rows, cols] ([V, K] indices, broadcast) in a state stored [V, K]
    (STATE_VK) or [K, V]."""
    if STATE_VK:
        return rows * K + cols
    return cols * K + rows


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
    for j0 in kt.static_range(0, BK, BJ):
        offs_j = j0 + kt.arange(0, BJ)
        s = kt.load(s_ptr + head + state_offsets(offs_v[:, None], offs_j[None, :], K, STATE_VK),
                    mask=(offs_v[:, None] < K) & (offs_j[None, :] < K), other=0.0)
        p = kt.load(p_ptr + head + offs_j[:, None] * K + offs_n[None, :],
                    mask=(offs_j[:, None] < K) & (offs_n[None, :] < K), other=0.0)
        acc = kt.dot(s.to(DOT), p.to(DOT), acc)
    kt.store(out_ptr + head + tile, acc, mask=inside)


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
