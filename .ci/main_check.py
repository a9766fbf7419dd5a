"""Runs the shipped delta-rule step kernel on the CPU and checks it against fp64 NumPy."""

import sys
import time

import numpy as np

sys.path.insert(0, "kernels")
from delta_rule_step import delta_rule_step  # noqa: E402


def reference(q, k, v, g, beta, state):
    s = state.astype(np.float64) * np.exp(g.astype(np.float64))[:, None, :]
    u = np.einsum("hvk,hk->hv", s, k)
    s = s + (beta[:, None] * (v - u))[:, :, None] * k[:, None, :]
    return np.einsum("hvk,hk->hv", s, q), s


def main():
    rng = np.random.default_rng(0)
    H, V, K = 12, 128, 128
    q, k, g = (rng.standard_normal((H, K)).astype(np.float32) for _ in range(3))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    g = -np.abs(g) * 0.1
    v = rng.standard_normal((H, V)).astype(np.float32)
    beta = rng.uniform(0, 1, H).astype(np.float32)
    state = rng.standard_normal((H, V, K)).astype(np.float32)
    o_ref, s_ref = reference(q, k, v, g, beta, state)

    o = np.empty((H, V), np.float32)
    start = time.perf_counter()
    delta_rule_step[(H,)](q, k, v, g, beta, state, o, V=V, K=K)
    print(f"first launch (compile or cache load + run): {time.perf_counter() - start:.3f} s")

    def rel(a, b):
        return float(np.sqrt(np.mean((a - b) ** 2)) / np.sqrt(np.mean(b**2)))

    err_o, err_s = rel(o, o_ref), rel(state, s_ref)
    print(f"H={H} V={V} K={K}: output rel RMS error {err_o:.2e}, state {err_s:.2e} (limit 1e-5)")
    if not (err_o <= 1e-5 and err_s <= 1e-5):
        print("FAILED")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
