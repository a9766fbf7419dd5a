#!/usr/bin/env python3
"""bf16 matrix products on the GPU, side by side in one run: kernels/matmul.py (TMA stages
feeding asynchronous wgmma on sm_90a) against torch.matmul (cuBLAS) and a Triton GEMM at 4096^3,
and kt.dot on batches of prefill-shaped chunk products (bench_dot.batched_dot: 64x64x128 and
64x128x64 tiles, one per program) against torch.bmm and a Triton batched kernel. Every result
is checked against torch in fp32.

    python3 bench/bench_matmul.py prepare DIR   # here: compile the kernels into a bundle
    python3 bench/bench_matmul.py run DIR       # on the GPU machine (torch, triton)

Times are CUDA-graph medians (bench/gpu_timing.py); ratios are peer time / our time (above
1: we are faster). Our GEMM tries each tile configuration of CONFIGS and reports the best,
as the Triton GEMM does with its own configurations.
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
from bench_dot import batched_dot
from gpu_timing import export_gpu_bundle, prepare_run_main, time_graph

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "kernels"))

import kdatile as kt  # noqa: E402
from matmul import matmul  # noqa: E402

SIZE = 4096
# (BLOCK_M, BLOCK_N, BLOCK_K, STAGES, KS, num_warps): wgmma where the warpgroups divide
# BLOCK_M (4 warps per 64 rows), mma.sync beside it (BLOCK_M = 64 on 8 warps).
CONFIGS = ((128, 128, 64, 3, 32, 4), (128, 128, 64, 4, 64, 8), (256, 128, 64, 3, 64, 8),
           (128, 256, 64, 3, 64, 8), (128, 128, 32, 4, 32, 4), (64, 128, 64, 3, 32, 8))
CHUNK_SHAPES = ((64, 64, 128, 4), (64, 128, 64, 4))
CHUNK_BATCH = 8192


def _gemm_args(M, N, K):
    a = np.zeros((M, K), np.uint16)
    b = np.zeros((K, N), np.uint16)
    return [a, b, np.zeros((M, N), np.uint16), M, N, K, K, N, N]  # bf16 result


def prepare(out_dir):
    launches = []
    for bm, bn, bk, stages, ks, warps in CONFIGS:
        launches.append((matmul, _gemm_args(SIZE, SIZE, SIZE),
                         {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "STAGES": stages,
                          "KS": ks, "num_warps": warps}))
    for M, N, K, warps in CHUNK_SHAPES:
        launches.append((batched_dot, [np.zeros((2, M, K), np.uint16),
                                       np.zeros((2, K, N), np.uint16),
                                       np.zeros((2, M, N), np.float32)],
                         {"M": M, "N": N, "K": K, "num_warps": warps}))
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations in {out_dir}")


@functools.cache
def _triton_kernels():
    """A Triton GEMM and a batched tile product, for the comparison."""
    import triton
    import triton.language as tl

    @triton.jit
    def gemm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             GROUP: tl.constexpr):
        pid = tl.program_id(0)
        grid_n = tl.cdiv(N, BN)
        per_group = GROUP * grid_n
        first_m = (pid // per_group) * GROUP
        rows = min(tl.cdiv(M, BM) - first_m, GROUP)
        pm = first_m + (pid % per_group) % rows
        pn = (pid % per_group) // rows
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), tl.float32)
        for k0 in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k0 + rk)[None, :])
            y = tl.load(b + (k0 + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty))

    @triton.jit
    def tiles(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        t = tl.program_id(0).to(tl.int64)
        rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
        x = tl.load(a + t * M * K + rm[:, None] * K + rk[None, :])
        y = tl.load(b + t * K * N + rk[:, None] * N + rn[None, :])
        tl.store(c + t * M * N + rm[:, None] * N + rn[None, :], tl.dot(x, y))

    return triton, gemm, tiles


def _best_triton_gemm(torch, a, b, c):
    triton, gemm, _ = _triton_kernels()
    best = None
    for bm, bn, bk, stages, warps in ((128, 128, 64, 3, 4), (128, 256, 64, 3, 8),
                                      (128, 128, 32, 4, 4), (256, 128, 64, 3, 8)):
        grid = (triton.cdiv(SIZE, bm) * triton.cdiv(SIZE, bn),)
        fn = functools.partial(gemm[grid], a, b, c, SIZE, SIZE, SIZE, BM=bm, BN=bn, BK=bk,
                               GROUP=8, num_stages=stages, num_warps=warps)
        t = time_graph(torch, fn)
        if best is None or t < best[0]:
            best = (t, f"{bm}x{bn}x{bk} s{stages} w{warps}")
    return best


def run(bundle_dir):
    import torch

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    print(f"# {torch.cuda.get_device_name(0)}; times in us (CUDA graph, median), TFLOP/s in "
          "brackets; ratio = peer time / our time")
    ok = True
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(SIZE, SIZE, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(SIZE, SIZE, device="cuda", generator=g).to(torch.bfloat16)
    ref = torch.matmul(a.float(), b.float())
    flops = 2.0 * SIZE ** 3
    print(f"\n## bf16 GEMM {SIZE}^3 (bf16 result)")
    results = []
    for bm, bn, bk, stages, ks, warps in CONFIGS:
        c = torch.empty(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
        grid = (SIZE // bm, SIZE // bn)
        fn = functools.partial(matmul[grid], a, b, c, SIZE, SIZE, SIZE, SIZE, SIZE, SIZE,
                               BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, STAGES=stages, KS=ks,
                               num_warps=warps)
        fn()
        err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
        ok &= err <= 1e-2
        t = time_graph(torch, fn, calls=5, replays=10)
        results.append((t, f"{bm}x{bn}x{bk} s{stages} w{warps}", err))
        print(f"  kdatile {results[-1][1]:>22}: {t:9.1f} [{flops / t / 1e6:6.1f}]  "
              f"max rel err {err:.1e}")
    ours = min(results)
    c = torch.empty(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    t_torch = time_graph(torch, functools.partial(torch.matmul, a, b, out=c), calls=5,
                         replays=10)
    t_triton, triton_cfg = _best_triton_gemm(torch, a, b, c)
    print(f"  kdatile best {ours[1]}: {ours[0]:.1f} [{flops / ours[0] / 1e6:.1f}]")
    print(f"  torch.matmul: {t_torch:.1f} [{flops / t_torch / 1e6:.1f}]  ratio "
          f"{t_torch / ours[0]:.2f} ({100 * t_torch / ours[0]:.0f}% of torch)")
    print(f"  triton {triton_cfg}: {t_triton:.1f} [{flops / t_triton / 1e6:.1f}]  ratio "
          f"{t_triton / ours[0]:.2f}")

    _, _, tiles = _triton_kernels()
    print(f"\n## batched chunk products ({CHUNK_BATCH} tiles, bf16 in, fp32 out)")
    for M, N, K, warps in CHUNK_SHAPES:
        x = torch.randn(CHUNK_BATCH, M, K, device="cuda", generator=g).to(torch.bfloat16)
        y = torch.randn(CHUNK_BATCH, K, N, device="cuda", generator=g).to(torch.bfloat16)
        out = torch.empty(CHUNK_BATCH, M, N, device="cuda", dtype=torch.float32)
        mine = functools.partial(batched_dot[(CHUNK_BATCH,)], x, y, out, M=M, N=N, K=K,
                                 num_warps=warps)
        mine()
        err = (out - torch.bmm(x.float(), y.float())).abs().max().item()
        ok &= err <= 1e-3 * K ** 0.5
        t_mine = time_graph(torch, mine)
        t_bmm = time_graph(torch, functools.partial(torch.bmm, x, y))
        tri_out = torch.empty_like(out)
        t_tri = time_graph(torch, functools.partial(tiles[(CHUNK_BATCH,)], x, y, tri_out, M=M,
                                                    N=N, K=K, num_warps=warps))
        fl = 2.0 * M * N * K * CHUNK_BATCH
        print(f"  {M}x{N}x{K}: kdatile {t_mine:7.1f} [{fl / t_mine / 1e6:5.1f}] | torch.bmm "
              f"{t_bmm:7.1f} (ratio {t_bmm / t_mine:.2f}) | triton {t_tri:7.1f} (ratio "
              f"{t_tri / t_mine:.2f}) | max |err| {err:.1e}")
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    prepare_run_main(__doc__, prepare, run)
