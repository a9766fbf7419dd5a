"""fp64 reference of the KDA chunked prefill's intra-chunk products, written from the math
(docs/kda.md, "Chunked prefill"): per chunk of C tokens, gamma = the running sum of g from
the chunk's first token, and A[i, j] = scale * sum_d q_i[d] k_j[d] exp(gamma_i[d] -
gamma_j[d]) for j <= i."""

import numpy as np


def chunk_aqk_reference(q, k, g, scale, C):
    """q, k, g: [T, H, D] float arrays (exact values). Returns gamma [T, H, D] and
    A [T, H, C] in fp64."""
    q, k, g = (np.asarray(x, np.float64) for x in (q, k, g))
    T, H, D = q.shape
    gamma = np.empty((T, H, D))
    A = np.zeros((T, H, C))
    for c0 in range(0, T, C):
        n = min(C, T - c0)
        gam = np.cumsum(g[c0:c0 + n], axis=0)                      # [n, H, D]
        gamma[c0:c0 + n] = gam
        lower = np.tril(np.ones((n, n), bool))
        diff = gam[:, None] - gam[None, :]                         # [i, j, H, D]
        decay = np.exp(np.where(lower[:, :, None, None], diff, -np.inf))
        prod = np.einsum("ihd,jhd,ijhd->ihj", q[c0:c0 + n], k[c0:c0 + n], decay)
        A[c0:c0 + n, :, :n] = scale * prod
    return gamma, A


def chunk_inputs(rng, T, H, D, gate_low):
    """L2-normalized q, k and log decays uniform in [gate_low, 0]."""
    q = rng.standard_normal((T, H, D))
    k = rng.standard_normal((T, H, D))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    g = rng.uniform(gate_low, 0.0, (T, H, D))
    return q.astype(np.float32), k.astype(np.float32), g.astype(np.float32)
