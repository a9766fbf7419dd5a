#!/usr/bin/env python3
"""Step 1 of the GPU checks, on the build machine (LLVM, libkda, ptxas; no GPU needed).

    python3 test/gpu/prepare.py --out DIR

For every kernel in kernels/ (and the hand-written GPU-stage smoke kernel in test/gpu/Inputs),
and every specialization the GPU tests use, writes to DIR:
  - the sm_90a code objects: <case>.cubin and <case>.ptx (or the compile error),
  - <case>.npz: the inputs and the CPU target's results on them (the reference),
  - manifest.json: kernel name, parameters, argument values, grid, block, shared memory, files;
  - libkda_gpu_runtime.so: the GPU half of the C API (lib/CAPI/CAPIGPU.cpp + lib/Runtime)
    built without LLVM, and header_smoke: a C program using a `--emit header` header,
  - bundle/: the @kt.jit launches of the DSL cases, and those of the kdatile.ops calls of
    test_gpu_ops.py (ops_cases.py; listed under "ops" in the manifest), as an ahead-of-time
    bundle (kt.export_bundle, with a copy of libkda_gpu_runtime.so), run with KDATILE_BUNDLE,
so that step 2 (bench/run_gpu_checks.sh on the GPU machine: torch + driver, no LLVM) needs
nothing compiled there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for sub in ("python", "kernels"):
    sys.path.insert(0, os.path.join(ROOT, sub))

import gpu_runtime  # noqa: E402

import kdatile as kt  # noqa: E402
from kdatile import _lib  # noqa: E402
from kdatile.runtime import parse_signature  # noqa: E402

TARGET = "sm_90a"
WARP = 32


def _rng(seed):
    return np.random.default_rng(seed)


EARLY_LAUNCH_N = 1 << 20


def dsl_cases():
    """(case id, jit function, args, constexprs, grid, num_warps, rtol, atol[, compile-request
    fields such as block_copies])."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python"))
    from launch_order_kernels import scale_after_prior

    from delta_rule_step import delta_rule_step
    from l2norm_rows import l2norm_rows
    from vector_add import vector_add

    r = _rng(0)
    cases = []
    for n, block, nw in ((1000, 256, 4), (4096, 1024, 8)):
        x = r.standard_normal(n).astype(np.float32)
        y = r.standard_normal(n).astype(np.float32)
        cases.append((f"vector_add_n{n}_b{block}", vector_add,
                      [x, y, np.zeros(n, np.float32), n], {"BLOCK": block},
                      (-(-n // block), 1, 1), nw, 0.0, 0.0))
    # Launched early (kt.wait_prior_launches): test_gpu_kernels.py also chains it on itself.
    n = EARLY_LAUNCH_N
    cases.append((f"scale_after_prior_n{n}", scale_after_prior,
                  [r.standard_normal(n).astype(np.float32), np.zeros(n, np.float32), n, 2.0],
                  {"BLOCK": 1024}, (n // 1024, 1, 1), 4, 0.0, 0.0))
    M, N, sx, so = 37, 100, 128, 100
    x = r.standard_normal((M, sx)).astype(np.float32)
    cases.append(("l2norm_rows_37x100", l2norm_rows,
                  [x, np.zeros((M, so), np.float32), M, N, sx, so, 1e-6],
                  {"BLOCK_M": 4, "BLOCK_N": 128}, (-(-M // 4), 1, 1), 4, 1e-5, 1e-6))
    for H, V, K in ((8, 64, 64), (4, 32, 128)):
        q = (r.standard_normal((H, K)) / np.sqrt(K)).astype(np.float32)
        k = r.standard_normal((H, K)).astype(np.float32)
        k /= np.linalg.norm(k, axis=1, keepdims=True)
        v = r.standard_normal((H, V)).astype(np.float32)
        g = -np.abs(r.standard_normal((H, K))).astype(np.float32) * 0.1
        beta = r.uniform(0.1, 0.9, H).astype(np.float32)
        state = r.standard_normal((H, V, K)).astype(np.float32) * 0.1
        cases.append((f"delta_rule_step_h{H}_v{V}_k{K}", delta_rule_step,
                      [q, k, v, g, beta, state, np.zeros((H, V), np.float32)],
                      {"V": V, "K": K}, (H, 1, 1), 4, 1e-4, 1e-5))
    # The fused KDA decode step: Kimi-K3 TP8 heads, paged fp32 state, both gate forms; padding
    # and out-of-range slots mixed in.
    from kda_reference import decode_launch, make_decode_inputs

    for H, B, lower_bound in ((12, 5, -5.0), (4, 3, None)):
        slots = B + 2  # a small pool: the artifacts travel to the GPU machine
        inp = make_decode_inputs(r, B, H, slots)
        idx = r.permutation(slots)[:B].astype(np.int32)
        idx[1] = -1
        idx[-1] = slots + 3
        launch = decode_launch(inp, idx, lower_bound=lower_bound)
        cases.append((f"kda_decode_h{H}_b{B}_{'lb' if lower_bound else 'sp'}", launch.kernel,
                      list(launch.args), launch.constexprs, launch.grid, 4, 1e-2, 1e-2))
    def decode_case(name, H, B, padding_row, layout, D=128, options=None, **config):
        """A kda_decode case on a pool of 2*B+1 slots, row `padding_row` a padding row;
        `options`: compile-request fields (block_copies)."""
        slots = 2 * B + 1
        inp = make_decode_inputs(r, B, H, slots, D=D)
        if layout == "kv":
            inp["state"] = np.ascontiguousarray(inp["state"].swapaxes(2, 3))
        idx = r.permutation(slots)[:B].astype(np.int32)
        idx[padding_row] = -1
        launch = decode_launch(inp, idx, lower_bound=-5.0, state_layout=layout, **config)
        cases.append((name, launch.kernel, list(launch.args), launch.constexprs, launch.grid, 4,
                      1e-2, 1e-2, options or {}))

    # Whole heads in steps, the state streamed through shared memory by cp.async (a ring of
    # two 32-row and of three 16-row buffers), both state layouts; two 64-row buffers (64 KiB:
    # dynamic shared memory, above the 48 KiB a static allocation may take).
    for block_step, stages, layout in ((32, 2, "vk"), (16, 3, "kv"), (64, 2, "vk")):
        decode_case(f"kda_decode_h4_b5_blk{block_step}_stages{stages}_{layout}", 4, 5, 2,
                    layout, block_step=block_step, stages=stages)
    # The same rings with element copies in place of TMA (block_copies="elements": cp.async).
    for block_step, stages, layout in ((32, 2, "vk"), (16, 3, "kv")):
        decode_case(f"kda_decode_h4_b5_blk{block_step}_stages{stages}_{layout}_elements", 4, 5,
                    2, layout, block_step=block_step, stages=stages,
                    options={"block_copies": "elements"})
    # Split heads whose programs sum their squares in a thread-block cluster (kt.cluster_sum):
    # 4 and 8 programs per head in one step (also with a [K, V] state), and 2 programs of
    # several steps through shared-memory stages; padding mixed in.
    for block_v, block_step, stages, layout in ((32, None, 0, "vk"), (16, None, 0, "vk"),
                                                (64, 16, 2, "vk"), (32, None, 0, "kv")):
        decode_case(f"kda_decode_h2_b2_bv{block_v}_{layout}_cluster", 2, 2, 1, layout,
                    block_v=block_v, block_step=block_step, stages=stages, cluster=True)
    # Heads narrower than the written layouts of a one-step cluster program (D = 64 and 32:
    # its lanes span 128 columns, so some hold copies), over 4 and 2 programs of 16 rows.
    for D in (64, 32):
        decode_case(f"kda_decode_h2_b2_d{D}_bv16_vk_cluster", 2, 2, 1, "vk", D=D, block_v=16,
                    cluster=True)
    from cluster_kernels import cluster_totals, normalize_rows, two_sums

    x = r.standard_normal((6, 4 * 128)).astype(np.float32)
    cases.append(("normalize_rows_cluster4", normalize_rows, [x, np.zeros_like(x)],
                  {"COLS": 128, "PARTS": 4}, (6, 4, 1), 4, 1e-5, 1e-6))
    x = r.standard_normal(16).astype(np.float32)
    cases.append(("cluster_totals_size2", cluster_totals,
                  [x, np.zeros(16, np.float32), np.array([1, 0] * 4, np.int32)],
                  {"SIZE": 2}, (16, 1, 1), 4, 1e-6, 1e-6))
    cases.append(("two_cluster_sums_size8", two_sums, [x, np.zeros(16, np.float32)],
                  {"SIZE": 8}, (16, 1, 1), 4, 1e-5, 1e-6))
    # The multi-token recurrent core: varlen sequences, per-token slots, speculative decoding
    # (num_accepted_tokens), padding tokens; value rows split over programs (BV = 32).
    from kda_recurrent import kda_recurrent
    from kda_recurrent_reference import make_inputs as make_recurrent_inputs
    from kda_recurrent_reference import recurrent_launch

    lens, Tcols, H = [3, 1, 4, 2], 4, 4
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    slots = 2 * len(lens) * Tcols + 1
    inp = make_recurrent_inputs(r, int(cu[-1]), H, slots)
    si = r.permutation(slots)[:len(lens) * Tcols].astype(np.int32).reshape(len(lens), Tcols)
    si[0, 1] = -1
    acc = np.array([2, 1, 3, 1], np.int32)
    launch = recurrent_launch(inp, si, cu_seqlens=cu, num_accepted=acc, BV=32)
    cases.append(("kda_recurrent_varlen_spec", kda_recurrent, list(launch.args),
                  launch.constexprs, launch.grid, 4, 1e-2, 1e-2))
    # Test kernels of test/python/dsl_kernels.py: a reduction across warps,
    # a reduction meeting a load (loaded in the reduction's layout), and a
    # tile added to its transpose (a layout conversion through shared memory).
    from dsl_kernels import column_sums, row_norms_plus, transpose_add

    for M, N, nw in ((64, 32, 4), (128, 16, 8)):
        x = r.standard_normal((M, N)).astype(np.float32)
        cases.append((f"column_sums_{M}x{N}_w{nw}", column_sums,
                      [x, np.zeros(N, np.float32)], {"M": M, "N": N}, (1, 1, 1), nw,
                      1e-5, 1e-5))
    for M, N in ((16, 128), (64, 32)):
        x = r.standard_normal((M, N)).astype(np.float32)
        y = r.standard_normal(M).astype(np.float32)
        cases.append((f"row_norms_plus_{M}x{N}", row_norms_plus,
                      [x, y, np.zeros(M, np.float32)], {"M": M, "N": N}, (1, 1, 1), 4,
                      1e-5, 1e-5))
    N = 64
    x = r.standard_normal((N, N)).astype(np.float32)
    cases.append((f"transpose_add_{N}x{N}", transpose_add,
                  [x, np.zeros((N, N), np.float32)], {"N": N}, (1, 1, 1), 4,
                  1e-6, 1e-6))
    # kt.sqrt_rn, kt.div_rn and a float //: IEEE-rounded on sm_90a as on the CPU (exact),
    # where kt.sqrt and / take the approximate instructions.
    from dsl_kernels import rounded_math

    x = r.uniform(0.1, 100.0, 64).astype(np.float32)
    y = r.uniform(0.1, 10.0, 64).astype(np.float32)
    x[:4], y[:4] = [4.0, 4.6875, 6.0, 0.3], [1.0, 0.9375, 2.0, 0.1]
    cases.append(("rounded_math", rounded_math, [x, y, np.zeros(3 * 64, np.float32)],
                  {"BLOCK": 64}, (1, 1, 1), 4, 0.0, 0.0))
    # Atomics on tiles, with results independent of the order the atomics run in: a
    # histogram (indices repeating within and across programs, a masked tail; BLOCK 64 on
    # 128 threads holds every element twice, BLOCK 256 four per thread), and every kind.
    from dsl_kernels import atomic_olds, histogram, masked_counter, tile_atomic_kinds

    # Old values returned to every thread holding a copy (BLOCK 64 on 128 threads: through
    # shared memory) and a masked scalar's, each address touched once so they are exact.
    for block in (64, 512):
        cases.append((f"atomic_olds_b{block}", atomic_olds,
                      [r.integers(-1000, 1000, 6 * block).astype(np.int32),
                       np.zeros(6 * block, np.int32),
                       r.integers(-1000, 1000, 6).astype(np.int32), np.zeros(6, np.int32)],
                      {"BLOCK": block}, (6, 1, 1), 4, 0.0, 0.0))

    # Shared buffers filled by cp.async: a pipelined copy of 2 and 3 stages with masked tails
    # (zero-filled groups) and rows past n left alone, and masks of every kind.
    from smem_kernels import masked_copy, pipelined_copy

    for n, stages in ((100, 2), (33, 3), (5, 3)):
        cases.append((f"smem_pipelined_copy_n{n}_s{stages}", pipelined_copy,
                      [r.standard_normal((n, 48)).astype(np.float32),
                       np.full((n + 32, 48), -1.0, np.float32), n, 48],
                      {"BLOCK": 32, "COLS": 16, "STAGES": stages}, (3, 1, 1), 4, 0.0, 0.0))
    # Three 64x128 fp32 slots: 96 KiB of dynamic shared memory (the launch opts in).
    cases.append(("smem_pipelined_copy_96k", pipelined_copy,
                  [r.standard_normal((200, 256)).astype(np.float32),
                   np.full((264, 256), -1.0, np.float32), 200, 256],
                  {"BLOCK": 64, "COLS": 128, "STAGES": 3}, (2, 1, 1), 4, 0.0, 0.0))
    # Padded buffers: a bf16 product read through 8x8 matrix loads (8 elements of padding
    # keep 16-byte rows) or element by element (4), and a two-slot fp32 transpose.
    from smem_kernels import padded_dot, padded_transpose

    for pad in (4, 8):
        cases.append((f"smem_padded_dot_p{pad}", padded_dot,
                      [r.integers(0x3C00, 0x4000, (64, 64)).astype(np.uint16),
                       r.integers(0xBC00, 0xC000, (64, 64)).astype(np.uint16),
                       np.zeros((64, 64), np.float32)],
                      {"M": 64, "N": 64, "K": 64, "PAD": pad}, (1, 1, 1), 4, 1e-5, 1e-4))
    for pad in (1, 4):
        cases.append((f"smem_padded_transpose_p{pad}", padded_transpose,
                      [r.standard_normal((3, 16, 32)).astype(np.float32),
                       np.zeros((3, 2, 32, 16), np.float32)],
                      {"R": 16, "C": 32, "PAD": pad}, (3, 1, 1), 4, 0.0, 0.0))
    cases.append(("smem_masked_copy", masked_copy,
                  [r.standard_normal(64).astype(np.float32), np.zeros((4, 64), np.float32), 50],
                  {"BLOCK": 64}, (1, 1, 1), 4, 0.0, 0.0))

    cases.append(("masked_counter", masked_counter,
                  [np.zeros(1, np.int32), np.zeros(1, np.int32)], {"WRITE_OLDS": False},
                  (41, 1, 1), 4, 0.0, 0.0))

    for n, block in ((1000, 64), (1000, 256)):
        idx = r.integers(0, 7, n).astype(np.int32)
        cases.append((f"histogram_n{n}_b{block}", histogram,
                      [idx, np.zeros(7, np.int32), np.zeros(1, np.int32), n],
                      {"BLOCK": block, "WRITE_OLDS": False}, (-(-n // block), 1, 1), 4,
                      0.0, 0.0))
    block = 16
    i32 = np.zeros(3 * block, np.int32)
    i32[block:2 * block] = -1
    cases.append(("tile_atomic_kinds", tile_atomic_kinds,
                  [i32, np.zeros(block, np.float32), np.zeros(block, np.int64),
                   np.zeros(1, np.int32)], {"BLOCK": block, "XCHG": False}, (50, 1, 1), 4,
                  0.0, 0.0))

    # kt.dot on the matrix instructions (mma.sync on sm_90a): one instruction tile on
    # 4 warps (copies), warps along M, along M and N, 8 warps; bf16 and f16.
    from dsl_kernels import matmul_tile
    from refs import matmul_inputs

    for (M, N, K, nw) in ((16, 8, 16, 4), (64, 64, 32, 4), (32, 128, 64, 4),
                          (128, 64, 32, 8)):
        for dtype in ("bf16", "float16"):
            a, b, c, _ = matmul_inputs(r, M, N, K, dtype)
            cases.append((f"matmul_tile_{dtype}_{M}x{N}x{K}_w{nw}", matmul_tile,
                          [a, b, c, np.zeros((M, N), np.float32)], {"M": M, "N": N, "K": K},
                          (1, 1, 1), nw, 1e-5, 1e-4))

    # tf32 (allow_tf32=True on fp32 tiles): mma.sync m16n8k8 on operands rounded as the CPU
    # rounds them.
    for (M, N, K, nw) in ((16, 8, 8, 1), (64, 64, 32, 4)):
        a, b, c, _ = matmul_inputs(r, M, N, K, "float32")
        cases.append((f"matmul_tile_tf32_{M}x{N}x{K}_w{nw}", matmul_tile,
                      [a, b, c, np.zeros((M, N), np.float32)],
                      {"M": M, "N": N, "K": K, "TF32": True}, (1, 1, 1), nw, 1e-5, 1e-4))

    # Inclusive scans (registers, lane shuffles, warps through shared memory): prefix and
    # suffix, rows spread over warps and along lanes.
    from dsl_kernels import scans
    from refs import scan_inputs

    for (M, N, reverse) in ((64, 32, False), (16, 128, True), (128, 16, False)):
        x, i = scan_inputs(r, M, N)
        outs = [np.zeros((M, N), np.float32) for _ in range(3)] + [np.zeros((M, N), np.int32)]
        cases.append((f"scans_{M}x{N}{'_rev' if reverse else ''}", scans, [x, i, *outs],
                      {"M": M, "N": N, "REVERSE": reverse}, (1, 1, 1), 4, 1e-5, 1e-4))
    # kernels/matmul.py: cp.async rings feeding wgmma from shared memory (tile-shared-dots),
    # every edge masked: 128x128x64 on three stages (64-byte swizzled a, 128-byte b), 64x64x32
    # on four with K steps of 16 (32-byte a), 8 warps (two warpgroups) on 128x128 and on
    # 128x256 (one n256 instruction over four column blocks of b), and the mma.sync path
    # where the warpgroups do not divide the tile (64 rows on 8 warps).
    from matmul import matmul

    for (M, N, K, bm, bn, bk, stages, ks, nw) in (
            (300, 200, 320, 128, 128, 64, 3, 32, 4), (96, 160, 72, 64, 64, 32, 4, 16, 4),
            (256, 136, 200, 128, 128, 64, 3, 64, 8), (130, 520, 136, 128, 256, 64, 3, 64, 8),
            (80, 72, 96, 64, 64, 32, 3, 32, 8)):
        a, b, _, _ = matmul_inputs(r, M, N, K, "bf16")
        grid = ((M + bm - 1) // bm, (N + bn - 1) // bn, 1)
        cases.append((f"matmul_{M}x{N}x{K}_{bm}x{bn}x{bk}_s{stages}_w{nw}", matmul,
                      [a, b, np.zeros((M, N), np.float32), M, N, K, K, N, N],
                      {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "STAGES": stages,
                       "KS": ks}, grid, nw, 1e-5, 1e-4))
    # Tensor descriptors: blocks across every edge and at negative offsets, loaded (zeros
    # outside) and stored back (nothing outside), bf16 with padded rows (finite values: a
    # replay compares with torch.equal); a 3-D strided view.
    import tensor_desc_kernels as tdk

    for (m, n, off_m, off_n) in ((37, 50, -5, 7), (20, 30, 13, -40)):
        src = r.integers(1, 0x7F00, size=(m, n + 3)).astype(np.uint16)  # finite bf16
        cases.append((f"tensor_desc_round_trip_{m}x{n}_{off_m}_{off_n}", tdk.block_round_trip,
                      [src, np.zeros((6, 16, 32), np.uint16),
                       np.full((m, n + 2), 12345, np.uint16), m, n, n + 3, n + 2, off_m, off_n],
                      {"BM": 16, "BN": 32}, (3, 2, 1), 4, 0.0, 0.0))
    # Rows of 64 bf16 (128 bytes), 16-byte aligned bases and column offsets of whole 16
    # elements: TMA copies, at every edge and at negative offsets, zeros loaded outside and
    # nothing stored outside.
    for (m, n, off_m, off_n) in ((37, 50, -5, 16), (20, 64, 13, -48)):
        src = r.integers(1, 0x7F00, size=(m, 64)).astype(np.uint16)
        cases.append((f"tensor_desc_tma_round_trip_{m}x{n}_{off_m}_{off_n}",
                      tdk.block_round_trip,
                      [src, np.zeros((6, 16, 32), np.uint16),
                       np.full((m, 64), 12345, np.uint16), m, n, 64, 64, off_m, off_n],
                      {"BM": 16, "BN": 32}, (3, 2, 1), 4, 0.0, 0.0))
        # TMA stores too (at program offsets); fp32 and bf16.
        for dt in (np.uint16, np.float32):
            tile = r.integers(1, 0x7F00, size=(m, 64)).astype(dt)
            cases.append((f"tensor_desc_tma_shifted_{np.dtype(dt).name}_{m}x{n}_{off_m}_{off_n}",
                          tdk.shifted_copy,
                          [tile, np.full((m, 64), 12345, dt), m, n, 64, 64, off_m, off_n],
                          {"BM": 16, "BN": 32}, (3, 2, 1), 4, 0.0, 0.0))
    base = r.standard_normal((6, 5, 9)).astype(np.float32)
    cases.append(("tensor_desc_strided_3d", tdk.strided_3d,
                  [base, np.zeros((4, 4, 8), np.float32), 9, 6, 5, 1, 45, 9],
                  {"BA": 4, "BB": 4, "BC": 8}, (1, 1, 1), 4, 0.0, 0.0))
    # kt.cumprod and a non-commutative kt.associative_scan over a pair of tiles.
    from dsl_kernels import recurrences
    from refs import recurrence_inputs

    for (M, N, reverse) in ((64, 32, False), (16, 128, True), (256, 8, True)):
        a, b = recurrence_inputs(r, M, N)
        outs = [np.zeros((M, N), np.float32) for _ in range(2)]
        cases.append((f"recurrences_{M}x{N}{'_rev' if reverse else ''}", recurrences,
                      [a, b, *outs], {"M": M, "N": N, "REVERSE": reverse}, (1, 1, 1), 4,
                      1e-5, 1e-4))
    return cases


# -- kdatile.ops on the GPU (test_gpu_ops.py): the launches of its calls ----------------------

def ops_cases():
    """The kdatile.ops calls of test_gpu_ops.py (ops_cases.py): returns (manifest entries,
    bundle launches). The launches are the ops' own (decode_launch / recurrent_launch /
    chunk_launches with target sm_90a, the case's NumPy inputs standing for the CUDA tensors),
    and those of the FLA layer routed to kdatile (fla_client.py), so the bundle holds exactly
    what the GPU calls select. The inputs and the fp64 references are rebuilt on the
    GPU machine (pure NumPy, seeded), which keeps the artifacts small."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python"))
    from fla_client import client_launches
    from ops_cases import (
        DECODE_CASES,
        FUSED_CASES,
        GDN_CASES,
        PREFILL_CASES,
        RECURRENT_CASES,
        launches,
    )

    import cp_cases
    from kdatile.ops.chunk import tuning_candidates

    entries = {"decode": list(DECODE_CASES), "gdn": list(GDN_CASES),
               "recurrent": list(RECURRENT_CASES), "prefill": list(PREFILL_CASES),
               "fused": list(FUSED_CASES), "cp": [c.name for c in cp_cases.GPU_CASES],
               "kernels": set()}
    bundle_launches = []
    case_launches = [launch for _, launch in launches(TARGET)]
    for launch in (case_launches + client_launches(TARGET) + context_parallel_launches()
                   + tuning_candidates(case_launches)):
        entries["kernels"].add(os.path.splitext(os.path.basename(launch.kernel.filename))[0])
        opts = {} if launch.num_warps is None else {"num_warps": launch.num_warps}
        bundle_launches.append((launch.kernel, launch.args, dict(launch.constexprs, **opts)))
    entries["kernels"] = sorted(entries["kernels"])
    return entries, bundle_launches


def context_parallel_launches():
    """The launches of test_gpu_cp.py: each rank's of a chunk_kda(..., cp_group=) call
    (kdatile.ops.context_parallel.rank_launches) and the single-process call of each case."""
    import cp_cases
    from kdatile.ops.chunk import chunk_launches
    from kdatile.ops.context_parallel import rank_launches

    out = []
    for case in cp_cases.GPU_CASES:
        for rank in range(len(case.per_rank)):
            arrays, kw = cp_cases.local_inputs(case, rank)
            out += rank_launches(case.per_rank, rank, *arrays, target=TARGET, **kw)
        q, k, v, g, beta, kw = cp_cases.inputs(case)
        out += chunk_launches(q, k, v, g, beta, target=TARGET, **kw)[1]
    return out


def compile_gpu(request, out_dir, case_id, manifest_case):
    """Adds cubin/ptx files (or the errors) to the manifest entry."""
    files, errors = {}, {}
    cubin = os.path.join(out_dir, f"{case_id}.cubin")
    try:
        response = _lib.compile(dict(request, emit="cubin", output=cubin))
        files["cubin"] = os.path.basename(cubin)
        manifest_case["shared_bytes"] = int(response.get("shared_bytes") or 0)
        # The hidden tensor-map parameters the runner builds (after the signature's).
        manifest_case["params"] += [p for p in response["params"]
                                    if p["kind"] == "tensor_map"]
    except kt.CompilationError as e:
        errors["cubin"] = str(e)
    try:
        response = _lib.compile(dict(request, emit="ptx"))
        ptx = os.path.join(out_dir, f"{case_id}.ptx")
        with open(ptx, "w") as f:
            f.write(response["text"])
        files["ptx"] = os.path.basename(ptx)
        manifest_case.setdefault("shared_bytes", int(response.get("shared_bytes") or 0))
    except kt.CompilationError as e:
        errors["ptx"] = str(e)
    manifest_case["files"] = files
    if errors:
        manifest_case["errors"] = errors


def prepare_dsl_case(out_dir, case):
    case_id, fn, args, constexprs, grid, num_warps, rtol, atol, *options = case
    # The CPU reference, on copies.
    cpu_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn[grid](*cpu_args, **constexprs)
    # torch allocations are aligned far beyond 16 bytes: every pointer gets the hint.
    spec = fn.specialize(*args, **constexprs, target=TARGET, num_warps=num_warps,
                         assume_aligned=True)
    request = dict(spec.request(), **(options[0] if options else {}))
    params = parse_signature(spec.signature)
    by_name = spec.arguments
    arrays, expected, arg_list = {}, {}, []
    for p in params:
        v = by_name[p["name"]]
        if p["kind"] == "pointer":
            arrays[p["name"]] = v
            expected["expected_" + p["name"]] = cpu_args[fn.arg_names.index(p["name"])]
            arg_list.append({"name": p["name"], "array": p["name"]})
        else:
            arg_list.append({"name": p["name"], "value": v})
    np.savez(os.path.join(out_dir, f"{case_id}.npz"), **arrays, **expected)
    # Every argument of the @kt.jit launch, for the bundle tests: arrays by name, else values.
    jit_args = [{"name": jp.name, "array": jp.name} if jp.name in arrays
                else {"name": jp.name, "value": by_name[jp.name]}
                for jp in fn.params if not jp.is_constexpr]
    entry = {"id": case_id, "kernel": fn.__name__, "source": os.path.relpath(fn.filename, ROOT),
             "module": os.path.splitext(os.path.basename(fn.filename))[0],
             "module_dir": os.path.relpath(os.path.dirname(fn.filename), ROOT),
             "jit_args": jit_args,
             "target": TARGET, "signature": request["signature"], "constexprs": constexprs,
             "params": params, "args": arg_list, "grid": list(grid), "num_warps": num_warps,
             "block": [num_warps * WARP, 1, 1], "data": f"{case_id}.npz", "rtol": rtol,
             "atol": atol}
    compile_gpu(request, out_dir, case_id, entry)
    return entry


def prepare_smoke_case(out_dir):
    """The GPU-stage smoke kernel: out = x + alpha * y (reference in NumPy)."""
    path = os.path.join(ROOT, "test", "gpu", "Inputs", "smoke_add.mlir")
    with open(path) as f:
        source = f.read()
    n, alpha = 1000, 0.5
    r = _rng(1)
    x = r.standard_normal(n).astype(np.float32)
    y = r.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    ref = (x + np.float32(alpha) * y).astype(np.float32)
    np.savez(os.path.join(out_dir, "smoke_add.npz"), x=x, y=y, out=out, expected_x=x,
             expected_y=y, expected_out=ref)
    signature = "x=*f32,y=*f32,out=*f32,n=i32,alpha=f32"
    request = {"source": source, "filename": path, "kernel": "smoke_add", "target": TARGET,
               "signature": signature, "num_warps": 8}
    entry = {"id": "smoke_add", "kernel": "smoke_add", "source": os.path.relpath(path, ROOT),
             "target": TARGET, "signature": signature, "constexprs": {},
             "params": parse_signature(signature),
             "args": [{"name": "x", "array": "x"}, {"name": "y", "array": "y"},
                      {"name": "out", "array": "out"}, {"name": "n", "value": n},
                      {"name": "alpha", "value": alpha}],
             "grid": [-(-n // 256), 1, 1], "num_warps": 8, "block": [256, 1, 1],
             "data": "smoke_add.npz", "rtol": 1e-6, "atol": 1e-6}
    compile_gpu(request, out_dir, "smoke_add", entry)
    # Its header, for the C test of the generated launcher.
    header = _lib.compile(dict(request, emit="header"))["text"]
    with open(os.path.join(out_dir, "smoke_add.h"), "w") as f:
        f.write(header)
    return entry


def build_native(out_dir):
    """libkda_gpu_runtime.so (no LLVM) and header_smoke, if a C++ compiler is around."""
    cxx, cc = gpu_runtime.compilers()
    if not cxx:
        return {"error": "no C/C++ compiler found"}
    inc = os.path.join(ROOT, "include")
    try:
        gpu_runtime.build(os.path.join(out_dir, "libkda_gpu_runtime.so"))
        subprocess.run([cc, "-std=c99", "-O2", "-Wall", "-Werror", f"-I{inc}", f"-I{out_dir}",
                        os.path.join(ROOT, "test/gpu/header_smoke.c"), "-L", out_dir,
                        "-lkda_gpu_runtime", "-ldl", "-lm", "-Wl,-rpath,$ORIGIN", "-o",
                        os.path.join(out_dir, "header_smoke")],
                       check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        return {"error": f"{' '.join(e.cmd[:2])}...: {e.stderr}"}
    return {"runtime_library": "libkda_gpu_runtime.so", "header_smoke": "header_smoke"}


def export_jit_bundle(out_dir, cases, runtime, extra_launches=()):
    """bundle/: the @kt.jit launches of the DSL cases (and extra_launches: the kdatile.ops
    calls') as an ahead-of-time bundle (kt.export_bundle), with the GPU runtime library, for
    KDATILE_BUNDLE on the GPU machine."""
    bundle_dir = os.path.join(out_dir, "bundle")
    shutil.rmtree(bundle_dir, ignore_errors=True)
    launches = [(fn, args, dict(constexprs, num_warps=nw))
                for _, fn, args, constexprs, _, nw, *_ in cases] + list(extra_launches)
    try:
        exported = kt.export_bundle(bundle_dir, launches, target=TARGET,
                                    runtime=runtime if os.path.isfile(runtime) else None)
    except (kt.CompilationError, RuntimeError, OSError) as e:
        return {"error": str(e)}
    return {"dir": "bundle", "specializations": len(exported)}


def print_cases():
    """kt.device_print (test/python/print_kernels.py): each case's lines on the CPU target, what
    test_gpu_print.py expects of the GPU (in any order), and the bundle launches it takes."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python"))
    import print_kernels

    script = os.path.join(ROOT, "test", "python", "print_kernels.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    expected, launches = {}, []
    for case, (kernel, _, args, constexprs) in print_kernels.cases().items():
        out = subprocess.run([sys.executable, script, case], capture_output=True, text=True,
                             env=env, check=True).stdout
        expected[case] = out.splitlines()
        launches.append((kernel, args, constexprs))
    return expected, launches


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="artifact directory (created)")
    ap.add_argument("--only", metavar="TEXT",
                    help="only the DSL cases whose id contains TEXT (no kdatile.ops calls): "
                         "a quick run of a few kernels")
    args = ap.parse_args()
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    cases = [prepare_smoke_case(out_dir)]
    jit_cases = [c for c in dsl_cases() if args.only is None or args.only in c[0]]
    for case in jit_cases:
        cases.append(prepare_dsl_case(out_dir, case))
    native = build_native(out_dir)
    try:
        ops, ops_launches = (({"decode": [], "gdn": [], "recurrent": [], "prefill": [],
                                "fused": [], "cp": []}, [])
                              if args.only else ops_cases())
    except (kt.CompilationError, RuntimeError, ValueError, OSError) as e:
        ops, ops_launches = {"error": f"{type(e).__name__}: {e}"}, []
    prints, print_launches = print_cases()
    bundle = export_jit_bundle(out_dir, jit_cases,
                               os.path.join(out_dir, "libkda_gpu_runtime.so"),
                               ops_launches + print_launches)
    manifest = {"compiler": _lib.version(), "target": TARGET, "cases": cases,
                "native": native, "bundle": bundle, "ops": ops, "prints": prints}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    ok = sum(1 for c in cases if "cubin" in c["files"])
    print(f"{out_dir}: {len(cases)} cases, {ok} with a cubin")
    for c in cases:
        for emit, err in c.get("errors", {}).items():
            print(f"  {c['id']} ({emit}): {err.strip().splitlines()[0]}")
    if "error" in manifest["native"]:
        print(f"  native: {manifest['native']['error']}")
    if "error" in ops:
        print(f"  ops: {ops['error']}")
    else:
        print(f"  ops: {len(ops['decode'])} decode, {len(ops['gdn'])} gdn decode, "
              f"{len(ops['recurrent'])} recurrent, "
              f"{len(ops['prefill'])} prefill and {len(ops['fused'])} fused-recurrent calls")
    if "error" in bundle:
        print(f"  bundle: {bundle['error']}")
    else:
        print(f"  bundle: {bundle['specializations']} @kt.jit specializations in "
              f"{os.path.join(out_dir, 'bundle')}")


if __name__ == "__main__":
    main()
