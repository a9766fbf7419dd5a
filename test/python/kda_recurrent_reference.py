"""fp64 reference of the KDA multi-token recurrent core (FLA `fused_recurrent_kda_fwd`), written
from docs/kda.md ("Several tokens per sequence") and the padding rules of its "Bad inputs",
independently of kernels/kda_recurrent.py.

Inputs are the values the kernel sees, already widened to floats (bf16 bit patterns go through
kda_reference.bf16_to_f32 first). The recurrent state is carried in fp64; what is written to
the pool is rounded to the pool's dtype when it is bf16. The output is returned unrounded.
"""

import numpy as np

from kda_reference import f32_to_bf16, round_bf16, sigmoid, softplus


def kda_recurrent_reference(q, k, v, g, beta, state, state_indices, *, scale,
                            cu_seqlens=None, num_accepted=None, A_log=None, dt_bias=None,
                            lower_bound=None, use_qk_l2norm=True, use_gate=True,
                            use_beta_sigmoid=True, state_layout="vk", state_bf16=False,
                            records=None):
    """Returns (o [tokens, H, V] fp64, new pool fp64).

    q, k, g: [N, T, H, K] or [1, T_total, H, K] (with cu_seqlens [N+1]); v: [.., H, V];
    beta: [.., H] or [.., H, V]; state: the pool [slots, H, V, K] ("vk") or [slots, H, K, V] ("kv");
    state_indices [N, Tcols]; num_accepted [N] or None; A_log [H], dt_bias [H*K].
    use_gate: g is the raw gate; lower_bound None selects the softplus form.
    records: None, or an fp64 array [tokens, H, 2K + V] that receives each live token's record
    (exp(g), the normalized k, the delta term beta (v - S k) of the decayed S): what
    kda_recurrent_records stores for it.
    """
    q = np.asarray(q, np.float64).reshape(-1, q.shape[-2], q.shape[-1])
    k = np.asarray(k, np.float64).reshape(-1, k.shape[-2], k.shape[-1])
    v = np.asarray(v, np.float64).reshape(-1, v.shape[-2], v.shape[-1])
    g = np.asarray(g, np.float64).reshape(-1, g.shape[-2], g.shape[-1])
    tokens, H, K = q.shape
    V = v.shape[-1]
    # beta [.., H] or one per value channel [.., H, V]: [tokens, H, 1 or V] either way.
    beta = np.asarray(beta, np.float64)
    beta = beta.reshape(tokens, H, -1)
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
                if records is not None:
                    records[i, h] = np.concatenate([np.exp(gt) * np.ones(K), kt_, delta])
                o[i, h] = S @ qt
                written = round_bf16(S) if state_bf16 else S
                pool[slot, h] = written if state_layout == "vk" else written.T
    return o, pool


def make_inputs(rng, tokens, H, slots, *, K=128, V=128, lead=None, unit_qk=False,
                use_gate=True, use_beta_sigmoid=True, g_bf16=False, beta_bf16=True,
                state_bf16=False, state_layout="vk", packed_qkv=False):
    """Random inputs in the kernel's dtypes (bf16 as uint16 bit patterns).

    lead: the leading shape of the token dims ((N, T), or (1, tokens) when None)."""
    lead = (1, tokens) if lead is None else lead

    def bf(a):
        return f32_to_bf16(np.asarray(a, np.float32))

    def qk():
        x = rng.standard_normal((tokens, H, K))
        if unit_qk:  # already normalised (USE_QK_L2NORM off)
            x = x / np.linalg.norm(x, axis=-1, keepdims=True)
        return x

    q, k, v = qk(), qk(), rng.standard_normal((tokens, H, V))
    if packed_qkv:
        # Splits of one packed [tokens, H*(2K+V)] tensor: non-contiguous token strides.
        packed = bf(np.concatenate([q.reshape(tokens, -1), k.reshape(tokens, -1),
                                    v.reshape(tokens, -1)], axis=1))
        q = packed[:, :H * K].reshape(*lead, H, K)
        k = packed[:, H * K:2 * H * K].reshape(*lead, H, K)
        v = packed[:, 2 * H * K:].reshape(*lead, H, V)
    else:
        q, k, v = bf(q).reshape(*lead, H, K), bf(k).reshape(*lead, H, K), bf(v).reshape(*lead, H, V)
    if use_gate:
        g = rng.standard_normal((*lead, H, K)).astype(np.float32)
    else:  # already the log decay
        g = -rng.uniform(0.01, 1.0, (*lead, H, K)).astype(np.float32)
    if g_bf16:
        g = bf(g)
    if use_beta_sigmoid:
        beta = rng.standard_normal((*lead, H)).astype(np.float32)
    else:  # already in (0, 1)
        beta = rng.uniform(0.05, 0.95, (*lead, H)).astype(np.float32)
    if beta_bf16:
        beta = bf(beta)
    state = (rng.standard_normal((slots, H, V, K) if state_layout == "vk"
                                 else (slots, H, K, V)) * 0.1).astype(np.float32)
    if state_bf16:
        state = bf(state)
    return {
        "q": q, "k": k, "v": v, "g": g, "beta": beta,
        "A_log": rng.uniform(-1.0, 1.0, H).astype(np.float32),
        "dt_bias": (rng.standard_normal(H * K) * 0.5).astype(np.float32),
        "state": state,
    }


def token_stride(a):
    return a.strides[-3] // a.itemsize


def recurrent_launch(inp, state_indices, *, cu_seqlens=None, num_accepted=None, scale=None,
                     lower_bound=-5.0, use_qk_l2norm=True, use_gate=True,
                     use_beta_sigmoid=True, state_layout="vk", BV=None, prefetch_state=False,
                     num_warps=None, target="cpu"):
    """The kdatile.ops Launch (kernel, args, constexprs, grid, num_warps) of
    kernels/kda_recurrent.py for these inputs at a given configuration (BV: value rows per
    program, None: all V; prefetch_state: PREFETCH_STATE; num_warps: a GPU launch's),
    prepared by the op (kdatile.ops.recurrent.recurrent_launch with `config`) for `target`.
    Its o_ptr argument has v's shape, bf16 NaN everywhere so that every output must be
    written. num_accepted is passed to the kernel as given, also outside [1, T], which the op
    rejects and the kernel clamps."""
    from kdatile.ops.recurrent import recurrent_launch as op_launch

    v = inp["v"]
    Tcols = state_indices.shape[1]
    accepted = None if num_accepted is None else np.clip(num_accepted, 1, Tcols).astype(
        num_accepted.dtype)
    gate = dict(A_log=inp["A_log"], dt_bias=inp["dt_bias"], lower_bound=lower_bound)
    _, launch = op_launch(
        inp["q"], inp["k"], v, inp["g"], inp["beta"], **(gate if use_gate else {}),
        scale=scale, initial_state=inp["state"], state_indices=state_indices,
        cu_seqlens=cu_seqlens, num_accepted_tokens=accepted, use_qk_l2norm=use_qk_l2norm,
        use_gate=use_gate, use_beta_sigmoid=use_beta_sigmoid, state_layout=state_layout,
        out=np.full(v.shape, 0x7FC0, np.uint16), target=target,
        config=(v.shape[-1] if BV is None else BV, num_warps, prefetch_state))
    if num_accepted is not None:
        args = list(launch.args)
        args[launch.kernel.arg_names.index("num_accepted_ptr")] = num_accepted
        launch = launch._replace(args=tuple(args))
    return launch
