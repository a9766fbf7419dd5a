"""fp64 reference of the KDA decode step, written from docs/kda.md ("Decode step").

Models the bf16 rounding points of the served model: the conv activation, the recurrent
output o, and the final output (and raw_g when it is computed from f_a and f_b_weight).
Arrays in bf16 are NumPy uint16 bit patterns.
"""

import numpy as np


def bf16_to_f32(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """Round to nearest even, as torch does (NaN kept quiet)."""
    x = np.asarray(x, np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    rounded = np.where(np.isnan(x), 0x7FC0, rounded)
    return rounded.astype(np.uint16)


def round_bf16(x):
    return bf16_to_f32(f32_to_bf16(np.asarray(x, np.float32))).astype(np.float64)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x):
    return np.where(x > 20.0, x, np.log1p(np.exp(np.minimum(x, 20.0))))


def conv_silu_step(cs, slot, x_row, wf, bias):
    """One step of the width-4 causal short convolution and SiLU of a row (x_row bf16 bits)
    with cache slot `slot` of cs [slots, C, 3] (bf16 bits, shifted in place); wf [C, 4] and
    bias [C] (or None) fp64. Returns the bf16-rounded activations (fp64)."""
    c = bf16_to_f32(cs[slot]).astype(np.float64)  # [C, 3]
    y = (wf[:, :3] * c).sum(1) + wf[:, 3] * bf16_to_f32(x_row).astype(np.float64)
    if bias is not None:
        y = y + bias
    cs[slot] = np.concatenate([cs[slot][:, 1:], x_row[:, None]], axis=1)
    return round_bf16(y * sigmoid(y))


def kda_decode_reference(x, conv_w, conv_state, raw_g, raw_beta, A_log, dt_bias, state,
                         state_indices, output_gate, norm_weight, *, lower_bound=-5.0,
                         norm_eps=1e-5, conv_bias=None, state_layout="vk", f_a=None,
                         f_b_weight=None):
    """Returns (out [B, H, D] fp64, new conv_state (bf16 bits), new state (fp64)).

    x [B, 3HD] bf16 bits; conv_w [3HD, 4] bf16 bits; conv_state [slots, 3HD, 3] bf16 bits;
    raw_g [B, H, D] bf16 bits (or None with f_a [B, D], f_b_weight [HD, D] bf16 bits);
    raw_beta [B, H] bf16 bits; A_log [H], dt_bias [H*D] fp32; state [slots, H, D, D] fp32 in
    `state_layout`; state_indices [B]; output_gate [B, H, D] bf16 bits; norm_weight [D] bf16.
    """
    B = x.shape[0]
    slots, H, D = state.shape[0], state.shape[1], state.shape[2]
    cs = conv_state.copy()
    S_all = state.astype(np.float64).copy()
    out = np.zeros((B, H, D))
    wf = bf16_to_f32(conv_w).astype(np.float64)
    bias = None if conv_bias is None else bf16_to_f32(conv_bias).astype(np.float64)
    for n in range(B):
        slot = int(state_indices[n])
        if slot < 0 or slot >= slots:
            continue  # padding: zero output, no cache touched
        qkv = conv_silu_step(cs, slot, x[n], wf, bias)
        if f_a is not None:
            fa = bf16_to_f32(f_a[n]).astype(np.float64)
            fbw = bf16_to_f32(f_b_weight).astype(np.float64)
            rg = round_bf16(fbw @ fa).reshape(H, D)
        else:
            rg = bf16_to_f32(raw_g[n]).astype(np.float64)
        for h in range(H):
            q = qkv[h * D:(h + 1) * D]
            k = qkv[(H + h) * D:(H + h + 1) * D]
            v = qkv[(2 * H + h) * D:(2 * H + h + 1) * D]
            q = q / np.sqrt((q * q).sum() + 1e-6) * D ** -0.5
            k = k / np.sqrt((k * k).sum() + 1e-6)
            a = rg[h] + dt_bias[h * D:(h + 1) * D].astype(np.float64)
            if lower_bound is None:
                g = -np.exp(float(A_log[h])) * softplus(a)
            else:
                g = lower_bound * sigmoid(np.exp(float(A_log[h])) * a)
            beta = sigmoid(float(bf16_to_f32(raw_beta[n, h])))
            S = S_all[slot, h] if state_layout == "vk" else S_all[slot, h].T
            S = S * np.exp(g)[None, :]
            u = S @ k
            S = S + np.outer(beta * (v - u), k)
            o = S @ q
            S_all[slot, h] = S if state_layout == "vk" else S.T
            o = round_bf16(o)
            gate = bf16_to_f32(output_gate[n, h]).astype(np.float64)
            w = bf16_to_f32(norm_weight).astype(np.float64)
            out[n, h] = o / np.sqrt((o * o).mean() + norm_eps) * w * sigmoid(gate)
    return out, cs, S_all


def rel_rms(ref, got):
    ref = np.asarray(ref, np.float64)
    got = np.asarray(got, np.float64)
    return float(np.sqrt(np.mean((ref - got) ** 2)) / max(np.sqrt(np.mean(ref ** 2)), 1e-30))


def make_decode_inputs(rng, B, H, slots, *, D=128, bias=False, fused=False):
    """Random decode-step inputs in the dtypes the kernel takes (bf16 as bit patterns)."""
    C = 3 * H * D

    def bf(a):
        return f32_to_bf16(np.asarray(a, np.float32))

    inputs = {
        "x": bf(rng.standard_normal((B, C))),
        "conv_w": bf(rng.standard_normal((C, 4)) * 0.5),
        "conv_state": bf(rng.standard_normal((slots, C, 3))),
        "raw_g": bf(rng.standard_normal((B, H, D))),
        "raw_beta": bf(rng.standard_normal((B, H))),
        "A_log": rng.uniform(-1.0, 1.0, H).astype(np.float32),
        "dt_bias": (rng.standard_normal(H * D) * 0.5).astype(np.float32),
        "state": (rng.standard_normal((slots, H, D, D)) * 0.1).astype(np.float32),
        "output_gate": bf(rng.standard_normal((B, H, D))),
        "norm_weight": bf(rng.uniform(0.5, 1.5, D)),
        "conv_bias": bf(rng.standard_normal(C) * 0.1) if bias else None,
    }
    if fused:
        inputs["f_a"] = bf(rng.standard_normal((B, D)))
        inputs["f_b_weight"] = bf(rng.standard_normal((H * D, D)) * 0.1)
    return inputs


def decode_arguments(inp, state_indices, *, lower_bound, norm_eps=1e-5, state_layout="vk"):
    """The keyword arguments of kdatile.ops' kda_decode (kda_decode_with_f_b when `inp` has
    f_a) for these inputs, with `out` bf16 NaN everywhere: every row, padding included, must be
    written by the kernel."""
    B, H, D = inp["x"].shape[0], inp["state"].shape[1], inp["state"].shape[2]
    args = dict(x=inp["x"], conv_weight=inp["conv_w"], conv_state=inp["conv_state"],
                raw_beta=inp["raw_beta"], A_log=inp["A_log"], dt_bias=inp["dt_bias"],
                state=inp["state"], state_indices=state_indices,
                output_gate=inp["output_gate"], norm_weight=inp["norm_weight"],
                conv_bias=inp["conv_bias"], lower_bound=lower_bound, norm_eps=norm_eps,
                state_layout=state_layout, out=np.full((B, H, D), 0x7FC0, np.uint16))
    if "f_a" in inp:
        args.update(f_a=inp["f_a"], f_b_weight=inp["f_b_weight"])
    else:
        args.update(raw_g=inp["raw_g"])
    return args


def decode_launch(inp, state_indices, *, lower_bound, norm_eps=1e-5, state_layout="vk",
                  block_v=None, block_step=None, stages=0, cluster=False, num_warps=None,
                  target="cpu"):
    """The kdatile.ops Launch (kernel, args, constexprs, grid, num_warps) of the decode kernel
    (kernels/kda_decode*.py) for these inputs at a given configuration, prepared by the op
    (kdatile.ops.decode.decode_launch with `config`) for `target`; its out_ptr argument is
    bf16 NaN. block_v: value rows per program (BV; None: all D), with a fresh workspace when
    < D without a cluster; block_step: value rows per step (BLK; None: BV, one step); stages:
    STAGES (shared-memory ring of asynchronous copies; 0: none); cluster: CLUSTER (a split
    head's programs sum over a cluster instead of taking tickets); num_warps: the GPU
    launch's warps."""
    from kdatile.ops.decode import decode_launch as op_launch

    D = inp["state"].shape[2]
    block_v = D if block_v is None else block_v
    _, launch = op_launch(**decode_arguments(inp, state_indices, lower_bound=lower_bound,
                                             norm_eps=norm_eps, state_layout=state_layout),
                          fused="f_a" in inp, target=target,
                          config=(block_v, block_step, stages, num_warps, cluster))
    return launch


def kernel_arg(launch, name):
    """The value a Launch passes for its kernel's parameter `name`."""
    return launch.args[launch.kernel.arg_names.index(name)]
