#!/usr/bin/env python3
"""kt.dot on the GPU: batched independent [M, K] x [K, N] tile products (the shape of a chunked
prefill's intra-chunk products), on the matrix instruction (bf16 and f16 inputs: mma.sync on
sm_90a) against the exact FMA path (fp32 inputs), with torch.bmm (cuBLAS) beside them, and a
check of every result against torch in fp32.

    python3 bench/bench_dot.py prepare DIR   # here: compile the kernels into a bundle
    python3 bench/bench_dot.py run DIR       # on the GPU machine (torch)

Times are CUDA-graph medians (bench/gpu_timing.py) for a batch of 4096 tiles; TFLOP/s counts
2 * M * N * K per tile.
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
from gpu_timing import export_gpu_bundle, prepare_run_main, time_graph

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import kdatile as kt  # noqa: E402

BATCH = 4096
SHAPES = ((64, 64, 64, 4), (64, 128, 64, 4), (128, 128, 64, 8))
DTYPES = ("bf16", "f16", "f32")


@kt.jit
def batched_dot(a_ptr, b_ptr, out_ptr, M: kt.constexpr, N: kt.constexpr, K: kt.constexpr):
    """out[t] = a[t] @ b[t] for the program's tile t of row-major [M, K] and [K, N] tiles,
    staged through swizzled shared buffers (asynchronous copies), from which the product
    reads its operands in the matrix instruction's layouts."""
    t = kt.program_id(0).to(kt.int64)
    rm = kt.arange(0, M)
    rn = kt.arange(0, N)
    rk = kt.arange(0, K)
    a_buf = kt.alloc_shared((M, K), a_ptr.dtype.element_ty,
                            kt.operand_swizzle(K, a_ptr.dtype.element_ty))
    b_buf = kt.alloc_shared((K, N), b_ptr.dtype.element_ty,
                            kt.operand_swizzle(N, b_ptr.dtype.element_ty))
    kt.async_copy(a_buf, a_ptr + t * (M * K) + rm[:, None] * K + rk[None, :])
    kt.async_copy(b_buf, b_ptr + t * (K * N) + rk[:, None] * N + rn[None, :])
    kt.async_wait(0)
    c = kt.dot(a_buf.load(), b_buf.load(), kt.zeros((M, N), kt.float32))
    kt.store(out_ptr + t * (M * N) + rm[:, None] * N + rn[None, :], c)


NUMPY = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}


def prepare(out_dir):
    launches = []
    for M, N, K, warps in SHAPES:
        for dtype in DTYPES:
            a = np.zeros((2, M, K), NUMPY[dtype])
            b = np.zeros((2, K, N), NUMPY[dtype])
            launches.append((batched_dot, [a, b, np.zeros((2, M, N), np.float32)],
                             {"M": M, "N": N, "K": K, "num_warps": warps}))
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations of batched_dot in {out_dir}")


def run(bundle_dir):
    import torch

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    types = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    print(f"# {torch.cuda.get_device_name(0)}; {BATCH} tiles; times in us (CUDA graph, "
          "median); TFLOP/s in brackets")
    print(f"{'M x N x K':>14} {'dtype':>5} | {'kt.dot':>16} | {'torch.bmm':>16} | max |err|")
    ok = True
    for M, N, K, warps in SHAPES:
        flops = 2.0 * M * N * K * BATCH
        for dtype in DTYPES:
            g = torch.Generator(device="cuda").manual_seed(M + N + K)
            a = torch.randn(BATCH, M, K, device="cuda", generator=g).to(types[dtype])
            b = torch.randn(BATCH, K, N, device="cuda", generator=g).to(types[dtype])
            out = torch.empty(BATCH, M, N, device="cuda", dtype=torch.float32)
            ours = functools.partial(batched_dot[(BATCH,)], a, b, out, M=M, N=N, K=K,
                                     num_warps=warps)
            ours()
            ref = torch.bmm(a.float(), b.float())
            err = (out - ref).abs().max().item()
            ok &= err <= 1e-3 * K ** 0.5
            t_ours = time_graph(torch, ours)
            t_bmm = time_graph(torch, functools.partial(torch.bmm, a, b))
            print(f"{M:>4} x{N:>4} x{K:>4} {dtype:>5} | {t_ours:8.1f} [{flops / t_ours / 1e6:5.1f}]"
                  f" | {t_bmm:8.1f} [{flops / t_bmm / 1e6:5.1f}] | {err:.2e}")
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    prepare_run_main(__doc__, prepare, run)
