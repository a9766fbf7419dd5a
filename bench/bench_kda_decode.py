#!/usr/bin/env python3
"""KDA decode on the GPU: kdatile's fused decode kernel vs FLA's fused_recurrent_kda_fwd.

Two steps, because the GPU machine has no LLVM:

    python3 bench/bench_kda_decode.py prepare DIR     # here: compile the kernels into a bundle
    python3 bench/bench_kda_decode.py run DIR         # on the GPU machine (torch, triton, FLA)

`run` prints, for H in {12, 32, 64} and batch in {1, 8, 32, 128, 256}: our fused decode (conv,
norms, gates, delta rule, gated RMSNorm; fp32 and bf16 state) and FLA's KDA core alone
(`fused_recurrent_kda_fwd` with in-kernel L2-norm, gate and beta sigmoid, lower bound -5, paged
fp32 [V, K] state updated in place), all replayed from CUDA graphs; times in microseconds, our
ratio to FLA measured in the same run, and the state-traffic bandwidth bound (state read +
write at the copy bandwidth measured in the same run). The protocol is KDA.md section 5's:
a paged pool of 2*B+1 slots, distinct random slots, median over many replays.

FLA comes from the fla-core wheel carried as .whl/ (see the device README), never committed.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

import numpy as np
from gpu_timing import copy_bandwidth, time_graph

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("python", "kernels", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))

HEADS = (12, 32, 64)
BATCHES = (1, 8, 32, 128, 256)
D = 128
STATE_DTYPES = ("f32", "bf16")
NUM_WARPS = (4, 8)
VARIANTS = [(state, warps) for state in STATE_DTYPES for warps in NUM_WARPS]


def decode_args(np_state_dtype, H, B, rng):
    """Arguments of kernels/kda_decode.py with NumPy stand-ins (shapes and dtypes only)."""
    from kda_reference import decode_launch, make_decode_inputs

    inp = make_decode_inputs(rng, B, H, 2 * B + 1)
    if np_state_dtype == "bf16":
        inp["state"] = np.zeros(inp["state"].shape, np.uint16)
    idx = np.arange(B, dtype=np.int32)
    return decode_launch(inp, idx, lower_bound=-5.0)


def prepare(out_dir):
    import kdatile as kt
    from kda_decode import kda_decode

    rng = np.random.default_rng(0)
    launches = []
    for H in HEADS:
        for state, warps in VARIANTS:
            # The specialization does not depend on the batch (only the grid does).
            args, constexprs, _ = decode_args(state, H, 8, rng)
            launches.append((kda_decode, args, dict(constexprs, num_warps=warps)))
    runtime = os.path.join(ROOT, "test", "gpu", "artifacts", "libkda_gpu_runtime.so")
    if not os.path.exists(runtime):
        sys.exit(f"{runtime} is missing: run `python3 test/gpu/prepare.py --out "
                 "test/gpu/artifacts` first (it builds the LLVM-free GPU runtime)")
    exported = kt.export_bundle(out_dir, launches, runtime=runtime)
    print(f"{len(exported)} specializations of kda_decode in {out_dir}")


def torch_decode_args(torch, H, B, state_dtype, idx):
    """kernels/kda_decode.py arguments as CUDA tensors, laid out as decode_launch lays out
    the NumPy ones (so the bundle's specialization matches); the pool has 2*B+1 slots."""
    C, slots, bf = 3 * H * D, 2 * B + 1, torch.bfloat16

    def rnd(*shape, dtype=bf, scale=1.0):
        return (torch.randn(*shape, device="cuda") * scale).to(dtype)

    x = rnd(B, C)
    state = rnd(slots, H, D, D, dtype=torch.float32 if state_dtype == "f32" else bf,
                scale=0.1)
    args = [x, rnd(C, 4, scale=0.5), x, rnd(slots, C, 3), rnd(B, H, D), x, x, rnd(B, H),
            torch.rand(H, device="cuda"), rnd(H * D, dtype=torch.float32, scale=0.5), state,
            idx, rnd(B, H, D), (torch.rand(D, device="cuda") + 0.5).to(bf),
            torch.empty(B, H, D, device="cuda", dtype=bf),
            slots, C, 3 * C, 3, 1, -5.0, 1e-5]
    constexprs = dict(H=H, D=D, STATE_KV=False, USE_LOWER_BOUND=True, HAS_CONV_BIAS=False,
                      FUSED_FB=False)
    return args, constexprs, (B, H, 1)






def run(bundle_dir):
    import torch

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd

    import kdatile as kt
    from kda_decode import kda_decode

    dev = "cuda"
    bw = copy_bandwidth(torch)
    print(f"# {torch.cuda.get_device_name(0)}; copy bandwidth {bw / 1e12:.2f} TB/s "
          f"(read + write); kdatile {kt.__name__}, FLA fused_recurrent_kda_fwd")
    header = " ".join(f"{f'{st} w{w}':>9} {'x FLA':>6}" for st, w in VARIANTS)
    print(f"{'H':>3} {'B':>4} | {'FLA core':>9} | {header} | {'bound':>7} {'best %bound':>11}")
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    for H in HEADS:
        for B in BATCHES:
            slots = 2 * B + 1
            idx = torch.from_numpy(rng.permutation(slots)[:B].astype(np.int32)).to(dev)
            # FLA: q, k, v, g [B, 1, H, D] bf16; beta [B, 1, H]; pool [slots, H, V, K] fp32.
            q, k, v, g = (torch.randn(B, 1, H, D, device=dev, dtype=torch.bfloat16)
                          for _ in range(4))
            beta = torch.randn(B, 1, H, device=dev, dtype=torch.bfloat16)
            A_log = torch.rand(H, device=dev, dtype=torch.float32)
            dt_bias = torch.randn(H * D, device=dev, dtype=torch.float32)
            pool = torch.randn(slots, H, D, D, device=dev, dtype=torch.float32) * 0.1
            out_fla = torch.empty_like(v)

            fla = functools.partial(
                fused_recurrent_kda_fwd, q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias,
                initial_state=pool, inplace_final_state=True, state_v_first=True,
                ssm_state_indices=idx, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                use_beta_sigmoid_in_kernel=True, lower_bound=-5.0, out=out_fla)
            t_fla = time_graph(torch, fla)
            del pool
            times = {}
            for state_dtype, warps in VARIANTS:
                tensors, constexprs, grid = torch_decode_args(torch, H, B, state_dtype, idx)

                ours = functools.partial(kda_decode[grid], *tensors, **constexprs,
                                         num_warps=warps)
                times[(state_dtype, warps)] = time_graph(torch, ours)
                del tensors
            bound = 2 * B * H * D * D * 4 / bw * 1e6  # fp32 state read + write
            best32 = min(times[("f32", w)] for w in NUM_WARPS)
            cells = " ".join(f"{times[v]:>9.2f} {t_fla / times[v]:>6.2f}" for v in VARIANTS)
            print(f"{H:>3} {B:>4} | {t_fla:>9.2f} | {cells} | {bound:>7.2f} "
                  f"{100 * bound / best32:>10.1f}%")
            sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["prepare", "run"])
    parser.add_argument("dir", help="bundle directory")
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args.dir)
    else:
        run(args.dir)


if __name__ == "__main__":
    main()
