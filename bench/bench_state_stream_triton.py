#!/usr/bin/env python3
"""How fast can the KDA decode core's state stream go with and without software pipelining?

A reference point for the fused decode, not a kdatile kernel: a Triton kernel (one program per
head) walks the head's fp32 [V, K] state in [BLK, D] row blocks like kernels/kda_decode.py does
(load a block, u = S (e^g k), o = S (e^g q), delta = beta (v - u), S' = S e^g + delta k^T,
store), but without the conv, the norms, the gate math or the gated RMSNorm. `num_stages` > 1
lets Triton prefetch the next blocks into shared memory with asynchronous copies (cp.async on
sm_90a), which kdatile's DSL cannot express yet. Prints, for each batch, the time and the
percentage of the state-traffic bound (read + write at the best copy bandwidth of the run) of
each (BLK, warps, stages). Runs on the GPU machine only (torch + triton):

    python3 bench/bench_state_stream_triton.py
"""

from __future__ import annotations

import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gpu_timing import copy_bandwidth, time_graph  # noqa: E402

D = 128
SHAPES = ((12, 128), (12, 256), (64, 128))  # (H, B)
LAUNCHES = ((32, 4, 1), (32, 4, 2), (32, 4, 3), (16, 4, 3), (32, 8, 3), (64, 8, 2), (64, 4, 2),
            (128, 8, 1))  # (BLK, warps, stages)


def make_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def state_stream(S, q, k, g, beta, v, o, idx, H, NB: tl.constexpr, BLK: tl.constexpr,
                     D: tl.constexpr, STAGES: tl.constexpr):
        pid = tl.program_id(0)
        n = pid // H
        h = pid % H
        slot = tl.load(idx + n)
        base = S + (slot.to(tl.int64) * H + h) * D * D
        offs = tl.arange(0, D)
        rows = tl.arange(0, BLK)
        qv = tl.load(q + pid * D + offs).to(tl.float32)
        kv = tl.load(k + pid * D + offs).to(tl.float32)
        eg = tl.exp(tl.load(g + pid * D + offs).to(tl.float32))
        b = tl.load(beta + pid).to(tl.float32)
        kq = tl.sum(kv * qv, 0)
        for blk in tl.range(0, NB, num_stages=STAGES):
            p = base + (blk * BLK + rows)[:, None] * D + offs[None, :]
            s = tl.load(p)
            u = tl.sum(s * (eg * kv)[None, :], 1)
            ov = tl.sum(s * (eg * qv)[None, :], 1)
            delta = b * (tl.load(v + pid * D + blk * BLK + rows).to(tl.float32) - u)
            tl.store(p, s * eg[None, :] + delta[:, None] * kv[None, :])
            tl.store(o + pid * D + blk * BLK + rows, (ov + delta * kq).to(tl.bfloat16))

    return state_stream


def main():
    import torch

    kernel = make_kernel()
    bw = copy_bandwidth(torch)
    print(f"# {torch.cuda.get_device_name(0)}; best copy bandwidth {bw / 1e12:.2f} TB/s")
    print("# us and % of the bound, per BLK/warps/stages")
    for H, B in SHAPES:
        slots = 2 * B + 1
        state = torch.randn(slots, H, D, D, device="cuda") * 0.1
        idx = torch.randperm(slots, device="cuda")[:B].to(torch.int32)

        n = B * H * D
        q, k, v = ((torch.randn(n, device="cuda") * scale).to(torch.bfloat16)
                   for scale in (1.0, 0.1, 1.0))
        g = -torch.rand(n, device="cuda").to(torch.bfloat16)
        beta = torch.rand(B * H, device="cuda").to(torch.bfloat16)
        o = torch.empty(B * H * D, device="cuda", dtype=torch.bfloat16)
        bound = 2 * B * H * D * D * 4 / bw * 1e6
        cells = []
        for blk, warps, stages in LAUNCHES:
            fn = functools.partial(kernel[(B * H,)], state, q, k, g, beta, v, o, idx, H,
                                   NB=D // blk, BLK=blk, D=D, STAGES=stages, num_warps=warps)
            t = time_graph(torch, fn)
            cells.append(f"{blk}/{warps}/{stages} {t:.1f} ({100 * bound / t:.0f}%)")
        print(f"H={H} B={B} bound {bound:.1f}: " + "; ".join(cells))
        sys.stdout.flush()
        del state


if __name__ == "__main__":
    main()
