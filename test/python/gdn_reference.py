"""fp64 reference of the Gated DeltaNet decode step (kdatile.ops.gdn_decode), written from the
model's math (Qwen3-Next's gated delta net decode), not from the kernel."""

import numpy as np

from kda_reference import bf16_to_f32, conv_silu_step, f32_to_bf16, round_bf16, sigmoid, softplus


def gdn_decode_reference(x, conv_w, conv_state, a, b, A_log, dt_bias, state, state_indices, z,
                         norm_weight, *, H, scale=None, norm_eps=1e-6, conv_bias=None,
                         state_layout="vk"):
    """Returns (out [B, HV, V] fp64, new conv_state (bf16 bits), new state (fp64)).

    x [B, 2HK + HV V] bf16 bits (q heads | k heads | v heads); conv_w [C, 4] bf16 bits;
    conv_state [slots, C, 3] bf16 bits; a, b [B, HV] bf16 bits; A_log, dt_bias [HV] fp32;
    state [slots, HV, V, K] ([K, V] for "kv") fp32; state_indices [B]; z [B, HV, V] bf16 bits;
    norm_weight [V] bf16 or fp32. H: the q/k heads; value head hv reads q/k head hv // (HV/H).
    """
    B = x.shape[0]
    slots, HV = state.shape[0], state.shape[1]
    V = z.shape[2]
    K = (x.shape[1] - HV * V) // (2 * H)
    scale = K ** -0.5 if scale is None else scale
    cs = conv_state.copy()
    S_all = state.astype(np.float64).copy()
    out = np.zeros((B, HV, V))
    wf = bf16_to_f32(conv_w).astype(np.float64)
    bias = None if conv_bias is None else bf16_to_f32(conv_bias).astype(np.float64)
    w_norm = (bf16_to_f32(norm_weight) if norm_weight.dtype == np.uint16 else norm_weight)
    w_norm = w_norm.astype(np.float64)
    for n in range(B):
        slot = int(state_indices[n])
        if slot < 0 or slot >= slots:
            continue  # padding: zero output, no cache touched
        qkv = conv_silu_step(cs, slot, x[n], wf, bias)
        for hv in range(HV):
            h = hv // (HV // H)
            q = qkv[h * K:(h + 1) * K]
            k = qkv[(H + h) * K:(H + h + 1) * K]
            v = qkv[2 * H * K + hv * V:2 * H * K + (hv + 1) * V]
            q = q / np.sqrt((q * q).sum() + 1e-6) * scale
            k = k / np.sqrt((k * k).sum() + 1e-6)
            g = -np.exp(float(A_log[hv])) * softplus(
                float(bf16_to_f32(a[n, hv])) + float(dt_bias[hv]))
            beta = sigmoid(float(bf16_to_f32(b[n, hv])))
            S = S_all[slot, hv] if state_layout == "vk" else S_all[slot, hv].T  # [V, K]
            S = S * np.exp(g)
            S = S + np.outer(beta * (v - S @ k), k)
            S_all[slot, hv] = S if state_layout == "vk" else S.T
            o = round_bf16(S @ q)
            gate = bf16_to_f32(z[n, hv]).astype(np.float64)
            out[n, hv] = o / np.sqrt((o * o).mean() + norm_eps) * w_norm * gate * sigmoid(gate)
    return out, cs, S_all


def make_gdn_inputs(rng, B, H, HV, slots, *, K=128, V=128, bias=False):
    """Random inputs of one step (bf16 as uint16 bits), at the model's scales."""
    C = 2 * H * K + HV * V
    bf = lambda a: f32_to_bf16(a.astype(np.float32))  # noqa: E731
    return {
        "x": bf(rng.standard_normal((B, C))),
        "conv_w": bf(rng.standard_normal((C, 4)) * 0.5),
        "conv_state": bf(rng.standard_normal((slots, C, 3))),
        "a": bf(rng.standard_normal((B, HV))),
        "b": bf(rng.standard_normal((B, HV))),
        "A_log": rng.uniform(0.0, 1.5, HV).astype(np.float32),
        "dt_bias": rng.standard_normal(HV).astype(np.float32),
        "state": (rng.standard_normal((slots, HV, V, K)) * 0.1).astype(np.float32),
        "z": bf(rng.standard_normal((B, HV, V))),
        "norm_weight": bf(1.0 + 0.1 * rng.standard_normal(V)),
        "conv_bias": bf(rng.standard_normal(C) * 0.1) if bias else None,
    }
