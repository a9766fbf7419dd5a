"""The intra-chunk products of the KDA chunked prefill (docs/kda.md), for one head
and one chunk of C tokens per program (grid (cdiv(T, C), H)):

    gamma[t] = sum of g over the chunk's tokens up to t      (chunk-local cumulative decay)
    A[i, j]  = scale * sum_d q_i[d] k_j[d] exp(gamma_i[d] - gamma_j[d])   for j <= i, else 0

q, k [T, H, D] (bf16 or fp32), g [T, H, D] fp32 log decays (<= 0); gamma [T, H, D] fp32 and
A [T, H, C] fp32 (row t holds its chunk's columns). The decay is never split against a far
anchor: with sub-chunks of BC tokens, block (I, J < I) is one matrix product of
q_i exp(gamma_i - gamma_r) and k_j exp(gamma_r - gamma_j), r the first row of block I, so
both exponents are <= 0 (clamped there against rounding); a diagonal block takes every pair
directly, its exponents clamped at 0 and its upper triangle masked by select. Tokens past T
read as q = k = g = 0 and are not written."""

import kdatile as kt


@kt.jit
def _token_offsets(chunk, block, h, T, H: kt.constexpr, D: kt.constexpr, C: kt.constexpr,
                   BC: kt.constexpr):
    """Rows of sub-chunk `block` of `chunk`: their token indices, their element offsets in a
    [T, H, D] tensor and whether they are tokens of the sequence."""
    t = chunk * C + block * BC + kt.arange(0, BC)
    return t, (t[:, None] * H + h) * D + kt.arange(0, D)[None, :], t < T


@kt.jit
def kda_chunk_aqk(q_ptr, k_ptr, g_ptr, gamma_ptr, a_ptr, T, scale, H: kt.constexpr,
                  D: kt.constexpr, C: kt.constexpr = 64, BC: kt.constexpr = 16,
                  DOT: kt.constexpr = kt.bfloat16):
    kt.static_assert(C % BC == 0, "the chunk must be whole sub-chunks")
    chunk = kt.program_id(0)
    h = kt.program_id(1)
    NS = C // BC
    rows = kt.arange(0, BC)
    gammas = kt.alloc_shared((NS, BC, D), kt.float32)
    keys = kt.alloc_shared((NS, BC, D), kt.float32)
    # The chunk-local cumulative decay, one sub-chunk after the other.
    carry = kt.zeros((D,), kt.float32)
    for b in kt.static_range(NS):
        _, offs, live = _token_offsets(chunk, b, h, T, H, D, C, BC)
        g = kt.load(g_ptr + offs, mask=live[:, None], other=0.0)
        gamma = kt.cumsum(g, 0) + carry[None, :]
        carry = carry + kt.sum(g, 0)
        kt.store(gamma_ptr + offs, gamma, mask=live[:, None])
        gammas.index(b).store(gamma)
        keys.index(b).store(kt.load(k_ptr + offs, mask=live[:, None], other=0.0))

    for bi in range(NS):
        t, offs, live = _token_offsets(chunk, bi, h, T, H, D, C, BC)
        out = a_ptr + (t[:, None] * H + h) * C
        q = kt.load(q_ptr + offs, mask=live[:, None], other=0.0).to(kt.float32) * scale
        gamma_i = gammas.index(bi).load()
        anchor = gammas.index(bi).index(0).load()
        q_anchored = (q * kt.exp(kt.minimum(gamma_i - anchor[None, :], 0.0))).to(DOT)
        for bj in range(bi):
            k_anchored = keys.index(bj).load() * kt.exp(
                kt.minimum(anchor[None, :] - gammas.index(bj).load(), 0.0))
            block = kt.dot(q_anchored, kt.trans(k_anchored.to(DOT)))
            kt.store(out + bj * BC + rows[None, :], block, mask=live[:, None])
        # The diagonal block, pair by pair: column j from key j of the block.
        diag = kt.zeros((BC, BC), kt.float32)
        for j in range(BC):
            decay = kt.exp(kt.minimum(gamma_i - gammas.index(bi).index(j).load()[None, :], 0.0))
            col = kt.sum(q * keys.index(bi).index(j).load()[None, :] * decay, 1)
            diag = kt.where((rows[None, :] == j) & (rows[:, None] >= j), col[:, None], diag)
        kt.store(out + bi * BC + rows[None, :], diag, mask=live[:, None])
        for bj in range(bi + 1, NS):
            kt.store(out + bj * BC + rows[None, :], kt.zeros((BC, BC), kt.float32),
                     mask=live[:, None])
