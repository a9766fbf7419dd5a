"""fp64 reference of gated linear attention (GLA), written from its definition: per sequence
and value head, S_t = diag(exp(gk_t)) S_{t-1} diag(exp(gv_t)) + k_t v_t^T and o_t = S_t^T
(scale q_t), with value head hv reading q/k head hv // (HV // H); reversed, the tokens of each
sequence are taken from last to first."""

import numpy as np

from kda_chunk_reference import sequence_bounds


def gla_reference(q, k, v, gk=None, *, gv=None, scale=None, initial_state=None,
                  cu_seqlens=None, reverse=False):
    """(o [B, T, HV, V], final states [N, HV, K, V]) in fp64 of q, k [B, T, H, K], v [B, T,
    HV, V] and log decays gk [B, T, HV, K] and gv [B, T, HV, V] (None: no decay); with
    cu_seqlens [N + 1], B = 1."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    scale = K ** -0.5 if scale is None else scale
    bounds = sequence_bounds(B, T, cu_seqlens)
    q, k, v = q.reshape(B * T, H, K), k.reshape(B * T, H, K), v.reshape(B * T, HV, V)
    decay = None if gk is None else np.exp(np.asarray(gk, np.float64).reshape(B * T, HV, K))
    value_decay = (None if gv is None
                   else np.exp(np.asarray(gv, np.float64).reshape(B * T, HV, V)))
    o = np.zeros((B * T, HV, V))
    final = np.zeros((len(bounds), HV, K, V))
    for n, (bos, eos) in enumerate(bounds):
        for hv in range(HV):
            h = hv // (HV // H)
            S = (np.zeros((K, V)) if initial_state is None
                 else np.asarray(initial_state[n, hv], np.float64).copy())
            for t in (range(eos - 1, bos - 1, -1) if reverse else range(bos, eos)):
                if decay is not None:
                    S = decay[t, hv][:, None] * S
                if value_decay is not None:
                    S = S * value_decay[t, hv][None, :]
                S = S + np.outer(k[t, h], v[t, hv])
                o[t, hv] = (scale * q[t, h]) @ S
            final[n, hv] = S
    return o.reshape(B, T, HV, V), final
