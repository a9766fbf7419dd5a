"""fp64 NumPy references written from the math (not from the kernels)."""

import numpy as np


def rel_rms(ref, out) -> float:
    ref = np.asarray(ref, np.float64)
    out = np.asarray(out, np.float64)
    denom = np.sqrt(np.mean(ref * ref)) if ref.size else 1.0
    return float(np.sqrt(np.mean((ref - out) ** 2)) / max(denom, 1e-300)) if ref.size else 0.0


def l2norm_rows(x, eps):
    x = np.asarray(x, np.float64)
    return x / np.sqrt(np.sum(x * x, axis=1, keepdims=True) + eps)


def delta_rule_step(q, k, v, g, beta, state):
    """Returns (o, new_state) for q,k,g [H,K], v [H,V], beta [H], state [H,V,K]."""
    q, k, v, g, beta, state = (np.asarray(a, np.float64) for a in (q, k, v, g, beta, state))
    H, V, K = state.shape
    o = np.empty((H, V))
    new = np.empty_like(state)
    for h in range(H):
        S = state[h] * np.exp(g[h])[None, :]
        u = S @ k[h]
        S = S + np.outer(beta[h] * (v[h] - u), k[h])
        o[h] = S @ q[h]
        new[h] = S
    return o, new


def delta_inputs(rng, H, V, K):
    q = rng.standard_normal((H, K)).astype(np.float32)
    k = rng.standard_normal((H, K)).astype(np.float32)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    v = rng.standard_normal((H, V)).astype(np.float32)
    g = (-np.abs(rng.standard_normal((H, K))) * 0.5).astype(np.float32)
    beta = rng.uniform(0.1, 0.9, H).astype(np.float32)
    state = rng.standard_normal((H, V, K)).astype(np.float32)
    return q, k, v, g, beta, state
