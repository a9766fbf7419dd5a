"""fp64 reference of the KDA multi-token recurrent core (FLA `fused_recurrent_kda_fwd`), written
from ../shared/KDA.md section 1 ("Speculative decoding / several tokens per sequence") and the
padding rules of section 3, independently of kernels/kda_recurrent.py.

Inputs are the values the kernel sees, already widened to floats (bf16 bit patterns go through
kda_reference.bf16_to_f32 first). The recurrent state is carried in fp64; what is written to
the pool is rounded to the pool's dtype when it is bf16. The output is returned unrounded.
"""

import numpy as np

from kda_reference import round_bf16, sigmoid, softplus


def kda_recurrent_reference(q, k, v, g, beta, state, state_indices, *, scale,
                            cu_seqlens=None, num_accepted=None, A_log=None, dt_bias=None,
                            lower_bound=None, use_qk_l2norm=True, use_gate=True,
                            use_beta_sigmoid=True, state_layout="vk", state_bf16=False):
    """Returns (o [tokens, H, V] fp64, new pool fp64).

    q, k, g: [N, T, H, K] or [1, T_total, H, K] (with cu_seqlens [N+1]); v: [.., H, V];
    beta: [.., H]; state: the pool [slots, H, V, K] ("vk") or [slots, H, K, V] ("kv");
    state_indices [N, Tcols]; num_accepted [N] or None; A_log [H], dt_bias [H*K].
    use_gate: g is the raw gate; lower_bound None selects the softplus form.
    """
    q = np.asarray(q, np.float64).reshape(-1, q.shape[-2], q.shape[-1])
    k = np.asarray(k, np.float64).reshape(-1, k.shape[-2], k.shape[-1])
    v = np.asarray(v, np.float64).reshape(-1, v.shape[-2], v.shape[-1])
    g = np.asarray(g, np.float64).reshape(-1, g.shape[-2], g.shape[-1])
    beta = np.asarray(beta, np.float64).reshape(-1, beta.shape[-1])
    tokens, H, K = q.shape
    V = v.shape[-1]
    slots = state.shape[0]
    Tcols = state_indices.shape[1]
    if cu_seqlens is None:
        N = state_indices.shape[0]
        T = tokens // N
        starts = [n * T for n in range(N)]
        lens = [T] * N
    else:
        N = len(cu_seqlens) - 1
        starts = [int(cu_seqlens[n]) for n in range(N)]
        lens = [int(cu_seqlens[n + 1]) - int(cu_seqlens[n]) for n in range(N)]
    pool = np.asarray(state, np.float64).copy()
    o = np.zeros((tokens, H, V))

    def live(s):
        return 0 <= s < slots

    for n in range(N):
        a = 1 if num_accepted is None else min(max(int(num_accepted[n]), 1), Tcols)
        start = int(state_indices[n, a - 1])
        if not live(start):
            continue  # padding sequence: zero outputs, no state read or written
        for h in range(H):
            # Work in [V, K] whatever the pool layout.
            S = pool[start, h].copy() if state_layout == "vk" else pool[start, h].T.copy()
            for t in range(lens[n]):
                slot = int(state_indices[n, t]) if t < Tcols else -1
                if not live(slot):
                    continue  # padding token: zero output, state unchanged, nothing written
                i = starts[n] + t
                qt, kt_, vt = q[i, h], k[i, h], v[i, h]
                if use_qk_l2norm:
                    qt = qt / np.sqrt(np.dot(qt, qt) + 1e-6)
                    kt_ = kt_ / np.sqrt(np.dot(kt_, kt_) + 1e-6)
                qt = qt * scale
                if use_gate:
                    x = g[i, h] + np.asarray(dt_bias, np.float64)[h * K:(h + 1) * K]
                    A = np.exp(float(A_log[h]))
                    gt = (-A * softplus(x) if lower_bound is None
                          else lower_bound * sigmoid(A * x))
                else:
                    gt = g[i, h]
                b = sigmoid(beta[i, h]) if use_beta_sigmoid else beta[i, h]
                S = S * np.exp(gt)[None, :]
                delta = b * (vt - S @ kt_)
                S = S + np.outer(delta, kt_)
                o[i, h] = S @ qt
                written = round_bf16(S) if state_bf16 else S
                pool[slot, h] = written if state_layout == "vk" else written.T
    return o, pool
