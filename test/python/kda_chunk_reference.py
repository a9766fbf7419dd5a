"""fp64 reference of the KDA prefill (FLA `chunk_kda` semantics), written from docs/kda.md as
the token-by-token recurrence, independently of the chunked kernels (kernels/kda_chunk.py):
per sequence and value head, S [K, V] decays by exp(g_t) along K, then
S <- S + k_t (beta_t (v_t - S^T k_t))^T and o_t = S^T (scale q_t).

Inputs are the values the kernels see, already widened to floats (bf16 bit patterns go through
kda_reference.bf16_to_f32 first).
"""

import numpy as np

from kda_reference import f32_to_bf16, sigmoid, softplus


def log_decay(g, A_log, dt_bias, lower_bound):
    """The in-kernel gate of g [T, HV, K] (FLA's `kda_gate`): lower_bound * sigmoid(a x) with
    a lower bound, else -a softplus(x); x = g + dt_bias, a = exp(A_log) (1 when A_log is
    None)."""
    HV, K = g.shape[-2:]
    x = g + (0.0 if dt_bias is None else np.asarray(dt_bias, np.float64).reshape(HV, K))
    a = 1.0 if A_log is None else np.exp(np.asarray(A_log, np.float64))[:, None]
    return lower_bound * sigmoid(a * x) if lower_bound is not None else -a * softplus(x)


def sequence_bounds(B, T, cu_seqlens):
    """[(bos, eos)] of each sequence in the packed tokens: B rows of T, or cu_seqlens'."""
    if cu_seqlens is None:
        return [(b * T, (b + 1) * T) for b in range(B)]
    cu = [int(x) for x in cu_seqlens]
    return list(zip(cu[:-1], cu[1:]))


def kda_prefill_reference(q, k, v, g, beta, *, scale=None, initial_state=None,
                          cu_seqlens=None, use_qk_l2norm=False, use_gate=False,
                          use_beta_sigmoid=False, allow_neg_eigval=False, A_log=None,
                          dt_bias=None, lower_bound=None, state_v_first=False, gv=None):
    """Returns (o [B, T, HV, V], final states [N, HV, K, V] ([N, HV, V, K] with
    state_v_first), states before every chunk for a chunk size given later: see
    `chunk_states`), all fp64. q, k [B, T, H, K]; v [B, T, HV, V]; g [B, T, HV, K];
    beta [B, T, HV] or one per value channel [B, T, HV, V]; gv None or log decays per value
    channel [B, T, HV, V], applied after g's; with cu_seqlens [N+1], B = 1."""
    q, k, v, g, beta = (np.asarray(x, np.float64) for x in (q, k, v, g, beta))
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    scale = K ** -0.5 if scale is None else scale
    bounds = sequence_bounds(B, T, cu_seqlens)
    q, k = q.reshape(B * T, H, K), k.reshape(B * T, H, K)
    v, g, beta = v.reshape(B * T, HV, V), g.reshape(B * T, HV, K), beta.reshape(B * T, HV, -1)
    value_decay = (np.ones((B * T, HV, V)) if gv is None
                   else np.exp(np.asarray(gv, np.float64).reshape(B * T, HV, V)))
    if use_qk_l2norm:
        q = q / np.sqrt((q * q).sum(-1, keepdims=True) + 1e-6)
        k = k / np.sqrt((k * k).sum(-1, keepdims=True) + 1e-6)
    q = q * scale
    if use_gate:
        g = log_decay(g, A_log, dt_bias, lower_bound)
    if use_beta_sigmoid:
        beta = sigmoid(beta) * (2.0 if allow_neg_eigval else 1.0)
    group = HV // H
    o = np.zeros((B * T, HV, V))
    final = np.zeros((len(bounds), HV, K, V))
    trace = []  # (sequence, token index within it, state before that token) per value head
    for n, (bos, eos) in enumerate(bounds):
        if initial_state is None:
            S = np.zeros((HV, K, V))
        else:
            S = np.asarray(initial_state, np.float64)[n].copy()
            if state_v_first:
                S = S.transpose(0, 2, 1).copy()
        states = []
        for t in range(bos, eos):
            states.append(S.copy())
            for hv in range(HV):
                h = hv // group
                s = S[hv] * np.exp(g[t, hv])[:, None] * value_decay[t, hv][None, :]
                delta = beta[t, hv] * (v[t, hv] - s.T @ k[t, h])
                s = s + np.outer(k[t, h], delta)
                o[t, hv] = s.T @ q[t, h]
                S[hv] = s
        trace.append(states)
        final[n] = S
    if state_v_first:
        final = final.transpose(0, 1, 3, 2)
    return o.reshape(B, T, HV, V), final, trace


def chunk_states(trace, chunk, state_v_first=False):
    """The states before every chunk of `chunk` tokens (sequence by sequence, chunk by chunk):
    [chunks, HV, K, V] (or [.., V, K]) from kda_prefill_reference's trace."""
    out = [states[m] for states in trace for m in range(0, len(states), chunk)]
    if not out:
        return np.zeros((0,))
    stacked = np.stack(out)
    return stacked.transpose(0, 1, 3, 2) if state_v_first else stacked


def prefill_inputs(rng, B, T, H, HV, K, V, *, dtype="bf16", use_gate=True, gate_low=-1.0,
                   use_beta_sigmoid=True):
    """Random inputs: q, k, v (bf16 bit patterns, float16 or float32 by `dtype`), g (raw gate
    inputs with use_gate, else log decays uniform in [gate_low, 0]), beta (logits, or values
    in (0, 1))."""
    def cast(x):
        x = np.asarray(x, np.float32)
        return {"bf16": f32_to_bf16, "f16": lambda a: a.astype(np.float16)}.get(
            dtype, lambda a: a)(x)

    q = cast(rng.standard_normal((B, T, H, K)))
    k = cast(rng.standard_normal((B, T, H, K)))
    v = cast(rng.standard_normal((B, T, HV, V)))
    if use_gate:
        g = rng.standard_normal((B, T, HV, K)).astype(np.float32)
    else:
        g = rng.uniform(gate_low, 0.0, (B, T, HV, K)).astype(np.float32)
    if use_beta_sigmoid:
        beta = rng.standard_normal((B, T, HV)).astype(np.float32)
    else:
        beta = rng.uniform(0.05, 0.95, (B, T, HV)).astype(np.float32)
    return q, k, v, g, beta
