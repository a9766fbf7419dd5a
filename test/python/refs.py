"""fp64 NumPy references written from the math (not from the kernels)."""

import numpy as np

from kda_reference import bf16_to_f32, f32_to_bf16


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


def round_to_tf32(x):
    """fp32 values rounded to tf32 (10 mantissa bits, to nearest, ties away from zero),
    as fp32; NaNs kept."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    rounded = ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)
    return np.where(np.isnan(x), x, rounded)


def matmul_inputs(rng, M, N, K, dtype):
    """a, b in `dtype` (bf16 as its uint16 bit patterns) and an fp32 c, with their fp64
    values."""
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    if dtype == "bf16":
        a, b = f32_to_bf16(a), f32_to_bf16(b)
        exact = bf16_to_f32(a), bf16_to_f32(b)
    else:
        a, b = a.astype(dtype), b.astype(dtype)
        exact = a, b
    return a, b, c, [x.astype(np.float64) for x in exact]


def scans(x, i, reverse):
    """fp64 / int64 inclusive scans: cumsum down the rows, cummax and cummin along them;
    suffix scans when `reverse`."""
    def scan(fn, a, axis):
        a = np.flip(a, axis) if reverse else a
        out = fn(a, axis=axis)
        return np.flip(out, axis) if reverse else out

    x64 = x.astype(np.float64)
    return (scan(np.cumsum, x64, 0), scan(np.maximum.accumulate, x64, 1),
            scan(np.minimum.accumulate, x64, 1), scan(np.cumsum, i.astype(np.int64), 0))


def recurrences(a, b, reverse):
    """fp64 running products of `a` along the rows and h[t] = a[t] h[t -/+ 1] + b[t]
    down them, step by step (suffix order when `reverse`)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    order = range(a.shape[0] - 1, -1, -1) if reverse else range(a.shape[0])
    h = np.zeros_like(a64)
    prev = np.zeros(a.shape[1])
    for t in order:
        prev = a64[t] * prev + b64[t]
        h[t] = prev
    prod = np.flip(np.cumprod(np.flip(a64, 1), 1), 1) if reverse else np.cumprod(a64, 1)
    return prod, h


def recurrence_inputs(rng, M, N):
    """Decays in (0.5, 1) and normal inputs: products and states stay in range."""
    return (rng.uniform(0.5, 1.0, (M, N)).astype(np.float32),
            rng.standard_normal((M, N)).astype(np.float32))


def scan_inputs(rng, M, N):
    return (rng.standard_normal((M, N)).astype(np.float32),
            rng.integers(-1000, 1000, (M, N)).astype(np.int32))

