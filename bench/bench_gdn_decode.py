#!/usr/bin/env python3
"""Gated DeltaNet decode step on the GPU: kdatile.ops.gdn_decode (conv + core + gated norm in
one launch, paged state updated in place) against the same step on FLA's modules.

    python3 bench/bench_gdn_decode.py prepare DIR   # here: compile the launches into a bundle
    python3 bench/bench_gdn_decode.py run DIR       # on the GPU machine (torch, triton, FLA)

Shapes: Qwen3-Next's heads (16 q/k heads, 32 value heads) and a TP4 shard (4 and 8), K = V =
128, fp32 [V, K] state, bf16 activations, B in {1, 8, 32, 128, 256}. Columns, in microseconds
(CUDA-graph medians):
- "ours": kdatile.ops.gdn_decode on a pool of slots, read and written in place;
- "FLA full": the step on FLA's modules: causal_conv1d_update on the row's q, k and v channels
  (a [B, C, 4] cache), fused_recurrent_gated_delta_rule (the gate, beta sigmoid and q/k norm in
  the kernel) from the rows' states to new final states (FLA's recurrent kernel has no slot
  table: the rows' states are a dense [B, HV, V, K] array, the same bytes as ours), and
  layer_norm_gated_fwd (SiLU gate, RMS);
- "FLA core": the recurrent kernel alone on the conv outputs.
`run` first checks each shape (3 rows, one of them padding) against the fp64 reference
(test/python/gdn_reference.py; docs/kda.md tolerances). Cold (the headline, the serving protocol
of gpu_timing.cold_schedule / time_graph_cold): G groups of B rows, each with its own slots /
states, caches and inputs, at least 300 MiB of other states between two uses of a group; warm
beside it (group 0 replayed).
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
from gpu_timing import (
    cold_schedule,
    export_gpu_bundle,
    group_arrays,
    prepare_run_main,
    slot_groups,
    time_graph,
    time_graph_cold,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("python", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))

D = 128
HEADS = [(16, 32), (4, 8)]
BATCHES = [1, 8, 32, 128, 256]


def channels(H, HV):
    return 2 * H * D + HV * D


def prepare(out_dir):
    import kdatile as kt
    from kdatile.ops.export import gdn_decode_arguments
    from kdatile.ops.gdn_decode import gdn_decode_launch

    launches = []
    for H, HV in HEADS:
        for B in [3] + BATCHES:  # 3: the check's rows
            args = gdn_decode_arguments(B, H=H, HV=HV, slots=2 * B)
            launch = gdn_decode_launch(**args, target="sm_90a")[1]
            launches.append((launch.kernel, launch.args,
                             dict(launch.constexprs, num_warps=launch.num_warps)))
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations of gdn_decode in {out_dir}")


class Setup:
    """The cold protocol's groups for one (H, HV, B): pools, per-group inputs, FLA's arrays."""

    def __init__(self, torch, H, HV, B, rng):
        C = channels(H, HV)
        state_bytes = HV * D * D * 4
        self.groups, self.calls = cold_schedule(B, state_bytes + C * 3 * 2)
        G = self.groups
        bf16, f32 = torch.bfloat16, torch.float32
        self.H, self.HV, self.B, self.C = H, HV, B, C
        self.state = torch.randn(G * B, HV, D, D, device="cuda") * 0.1
        self.conv = torch.randn(G * B, C, 3, device="cuda").to(bf16)
        self.idx = slot_groups(torch, G, B, rng)
        self.x = group_arrays(torch, G, (B, C), bf16)
        self.a = group_arrays(torch, G, (B, HV), bf16)
        self.b = group_arrays(torch, G, (B, HV), bf16)
        self.z = group_arrays(torch, G, (B, HV, D), bf16)
        self.out = group_arrays(torch, G, (B, HV, D), bf16)
        self.conv_w = (torch.randn(C, 4, device="cuda") * 0.5).to(bf16)
        self.A_log = torch.rand(HV, device="cuda") * 1.5
        self.dt_bias = torch.randn(HV, device="cuda")
        self.norm_w = torch.ones(D, device="cuda", dtype=bf16)
        # FLA: per group a [B, C, 4] conv cache and dense [B, HV, V, K] states (its kernel
        # has no slot table), the conv outputs for the core-only column.
        self.fla_cache = group_arrays(torch, G, (B, C, 4), bf16)
        self.fla_state = group_arrays(torch, G, (B, HV, D, D), f32, scale=0.1)
        self.fla_qkv = group_arrays(torch, G, (B, C), bf16)


def ours_calls(ops, s):
    return [functools.partial(
        ops.gdn_decode, s.x[g], s.conv_w, s.conv, s.a[g], s.b[g], s.A_log, s.dt_bias,
        s.state, s.idx[g], s.z[g], s.norm_w, num_k_heads=s.H, out=s.out[g])
        for g in range(s.groups)]


def fla_modules():
    try:
        from fla.modules.convolution import causal_conv1d_update
    except ImportError:
        from fla.modules.conv.triton.kernels import causal_conv1d_update
    try:
        from fla.modules.fused_norm_gate import layer_norm_gated_fwd
    except ImportError:
        from fla.modules.norm.fused_norm_gate import layer_norm_gated_fwd
    from fla.ops.gated_delta_rule import fused_recurrent_gated_delta_rule
    return causal_conv1d_update, fused_recurrent_gated_delta_rule, layer_norm_gated_fwd


def fla_calls(s, full):
    conv_update, recurrent, norm = fla_modules()
    H, HV, B = s.H, s.HV, s.B

    def core(g, qkv):
        q = qkv[:, :H * D].view(B, 1, H, D)
        k = qkv[:, H * D:2 * H * D].view(B, 1, H, D)
        v = qkv[:, 2 * H * D:].view(B, 1, HV, D)
        o, _ = recurrent(q, k, v, g=s.a[g].view(B, 1, HV), beta=s.b[g].view(B, 1, HV),
                         initial_state=s.fla_state[g], output_final_state=True,
                         use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                         A_log=s.A_log, dt_bias=s.dt_bias, use_beta_sigmoid_in_kernel=True,
                         state_v_first=True)
        return o

    def step(g):
        qkv = conv_update(s.x[g], s.fla_cache[g], weight=s.conv_w, activation="silu")
        qkv = qkv[0] if isinstance(qkv, tuple) else qkv
        o = core(g, qkv)
        norm(o.view(B * HV, D), s.z[g].view(B * HV, D), s.norm_w, None, activation="silu",
             eps=1e-6, is_rms_norm=True)

    if full:
        return [functools.partial(step, g) for g in range(s.groups)]
    return [functools.partial(core, g, s.fla_qkv[g]) for g in range(s.groups)]


def check(torch, ops) -> bool:
    """Each bench shape at 3 rows (one padding) on CUDA vs the fp64 reference."""
    from gdn_reference import gdn_decode_reference, make_gdn_inputs
    from kda_reference import bf16_to_f32, rel_rms

    ok = True
    for H, HV in HEADS:
        i = make_gdn_inputs(np.random.default_rng(H), 3, H, HV, 4, K=D, V=D)
        idx = np.array([2, -1, 0], np.int32)
        ref_out, ref_cs, ref_state = gdn_decode_reference(
            i["x"], i["conv_w"], i["conv_state"], i["a"], i["b"], i["A_log"], i["dt_bias"],
            i["state"], idx, i["z"], i["norm_weight"], H=H)

        def dev(a):
            t = torch.from_numpy(a.copy())
            return (t.view(torch.bfloat16) if a.dtype == np.uint16 else t).cuda()

        state, conv = dev(i["state"]), dev(i["conv_state"])
        out = ops.gdn_decode(dev(i["x"]), dev(i["conv_w"]), conv, dev(i["a"]), dev(i["b"]),
                             dev(i["A_log"]), dev(i["dt_bias"]), state, dev(idx), dev(i["z"]),
                             dev(i["norm_weight"]), num_k_heads=H)
        bits = lambda t: t.view(torch.int16).cpu().numpy().view(np.uint16)  # noqa: E731
        e_o = rel_rms(ref_out[[0, 2]], bf16_to_f32(bits(out))[[0, 2]])
        e_s = rel_rms(ref_state[[2, 0]], state.cpu().numpy()[[2, 0]])
        good = (e_o <= 5e-3 and e_s <= 1e-5 and (bits(out)[1] == 0).all()
                and (bits(conv) == ref_cs).all())
        ok &= good
        print(f"check H={H} HV={HV}: out rel RMS {e_o:.2e}, state {e_s:.2e}, conv cache "
              f"{'exact' if (bits(conv) == ref_cs).all() else 'DIFFERS'}: "
              f"{'ok' if good else 'FAILED'}")
    return ok


def run(bundle_dir):
    import torch

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    from kdatile import ops

    ok = check(torch, ops)
    try:
        fla_modules()
        have_fla = True
    except Exception as e:  # noqa: BLE001
        print(f"FLA not importable ({e}); timing ours only")
        have_fla = False
    print(f"# {torch.cuda.get_device_name(0)}; K = V = {D}, fp32 [V, K] state, bf16 "
          "activations; us per call (CUDA graph medians); cold = serving protocol, warm = "
          "same slots")
    names = ["ours", "FLA full", "FLA core"]
    cols = " ".join(f"{n:>9}" for n in names)
    print(f"{'H':>3} {'HV':>3} {'B':>4} {'G':>4} | cold {cols} | full/ours core/ours | "
          f"warm {cols}")
    for H, HV in HEADS:
        for B in BATCHES:
            s = Setup(torch, H, HV, B, np.random.default_rng(H * 1000 + B))
            fns = {"ours": ours_calls(ops, s)}
            if have_fla:
                try:
                    fns["FLA full"] = fla_calls(s, full=True)
                    fns["FLA core"] = fla_calls(s, full=False)
                except Exception as e:  # noqa: BLE001
                    print(f"# FLA failed: {type(e).__name__}: {e}")
            cold, warm = {}, {}
            for name in names:
                if name not in fns:
                    cold[name] = warm[name] = float("nan")
                    continue
                try:
                    cold[name] = time_graph_cold(torch, fns[name], s.calls)
                    warm[name] = time_graph(torch, fns[name][0])
                except Exception as e:  # noqa: BLE001
                    print(f"# {name} failed: {type(e).__name__}: {str(e).splitlines()[0]}")
                    cold[name] = warm[name] = float("nan")
            ours = cold["ours"]
            print(f"{H:>3} {HV:>3} {B:>4} {s.groups:>4} | cold "
                  + " ".join(f"{cold[n]:>9.2f}" for n in names)
                  + f" | {cold['FLA full'] / ours:>9.2f} {cold['FLA core'] / ours:>9.2f} | "
                  "warm " + " ".join(f"{warm[n]:>9.2f}" for n in names))
            sys.stdout.flush()
            del s, fns
            torch.cuda.empty_cache()
    if not ok:
        sys.exit("correctness check FAILED")


if __name__ == "__main__":
    prepare_run_main(__doc__, prepare, run)
