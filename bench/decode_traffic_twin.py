#!/usr/bin/env python3
"""The KDA decode step's memory traffic without its math: a ceiling for the fused decode.

A reference point for bench_kda_decode.py, not a kdatile kernel. `decode_traffic_twin` is a
Triton kernel (one program per batch row and head) that reads and writes the global memory the
fused decode step does (all but A_log, 4 bytes per head), at the same paged slots: the slot
index, the head's x row, conv weights, conv cache (read and written back), raw_g, dt_bias,
beta, output gate and norm weight, the [D, D] fp32 state read and written in place in
[BLK, D] blocks (Triton's `num_stages` prefetching the next blocks into shared memory), and
the bf16 output row. Its arithmetic is one multiply-add per element, so its time is what a
kernel moving these bytes takes on the machine: the decode's state-only bound (docs/performance.md)
leaves out the conv cache, x and the gates (about 5% more bytes at D = 128), and a
head's 64 KiB state block is not one long stream. `best_twin_time` is its best time over a
few block sizes and stages. Launches are written BLK/warps/stages. The slots must be valid (no
padding: the twin does not test them).

Run as a script on the GPU machine (torch + triton), it also times two other ways to move the
same bytes, as percentages of the state-only bound (read + write at the best copy bandwidth of
the run), for the large batches of bench_kda_decode.py:
- the state blocks through Hopper's tensor memory accelerator (a TMA descriptor over the pool
  seen as [slots * H * D, D] rows; Triton pipelines its loads);
- a persistent grid (a few programs per multiprocessor) walking all heads' blocks in one
  pipelined loop, so the next head's blocks are in flight while a head finishes.

    python3 bench/decode_traffic_twin.py
"""

from __future__ import annotations

import functools
import os
import sys

import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gpu_timing import copy_bandwidth, time_graph  # noqa: E402

D = 128
# (BLK, warps, stages) of the plain twin; best_twin_time reports the best.
TWIN_LAUNCHES = ((32, 4, 2), (32, 4, 3), (64, 4, 2), (64, 8, 2))
TMA_LAUNCHES = ((32, 4, 2), (32, 4, 3), (64, 4, 2), (64, 4, 3), (128, 4, 2))
# (BLK, warps, stages, programs per multiprocessor)
PERSISTENT_LAUNCHES = ((32, 4, 3, 4), (32, 4, 4, 4), (64, 4, 3, 2), (64, 8, 3, 2))
LARGE_BATCHES = ((12, 128), (12, 256), (32, 128), (32, 256), (64, 128), (64, 256))  # (H, B)


@triton.jit
def conv_cache_traffic(x, conv_w, conv_state, n, h, slot, H, C, D: tl.constexpr):
    """The conv's traffic for head h of row n: x, the weights and the channel-major
    [slots, C, 3] cache (each group's 3 D values contiguous), the cache written back."""
    d = tl.arange(0, D)
    taps = tl.arange(0, 4)
    cached = taps[None, :] < 3
    acc = tl.zeros((D,), tl.float32)
    for grp in tl.static_range(3):  # q, k and v channels
        ch = (grp * H + h) * D + d
        xv = tl.load(x + n * C + ch).to(tl.float32)
        w = tl.load(conv_w + ch[:, None] * 4 + taps[None, :]).to(tl.float32)
        cs = conv_state + slot * C * 3 + ch[:, None] * 3 + taps[None, :]
        c = tl.load(cs, mask=cached, other=0.0).to(tl.float32)
        acc += tl.sum(w * c, 1) + xv
        tl.store(cs, (c + xv[:, None]).to(tl.bfloat16), mask=cached)
    return acc


@triton.jit
def head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, idx, pid, H, C,
                 D: tl.constexpr):
    """The traffic of head pid (= n * H + h) before its state: (h, slot, the conv's sum, the
    gate's factors eg, beta)."""
    n = pid // H
    h = pid % H
    slot = tl.load(idx + n).to(tl.int64)
    d = tl.arange(0, D)
    acc = conv_cache_traffic(x, conv_w, conv_state, n, h, slot, H, C, D)
    eg = tl.exp(tl.load(raw_g + pid * D + d).to(tl.float32) + tl.load(dt_bias + h * D + d))
    return h, slot, acc, eg, tl.load(raw_beta + pid).to(tl.float32)


@triton.jit
def store_head_output(acc, gate, norm_w, out, pid, D: tl.constexpr):
    """The traffic of head pid after its state: the gate and norm weight read, out written."""
    d = tl.arange(0, D)
    y = acc * tl.load(gate + pid * D + d).to(tl.float32) * tl.load(norm_w + d).to(tl.float32)
    tl.store(out + pid * D + d, y.to(tl.bfloat16))


@triton.jit
def decode_traffic_twin(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S, idx, gate, norm_w,
                        out, H, C, NB: tl.constexpr, BLK: tl.constexpr, D: tl.constexpr,
                        STAGES: tl.constexpr, LOAD_EVICT: tl.constexpr = "",
                        STORE_CACHE: tl.constexpr = ""):
    """LOAD_EVICT / STORE_CACHE: Triton's cache hints on the state's loads (eviction_policy)
    and stores (cache_modifier); none by default."""
    pid = tl.program_id(0)
    h, slot, acc, eg, b = head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, idx,
                                       pid, H, C, D)
    base = S + (slot * H + h) * D * D
    rows = tl.arange(0, BLK)
    d = tl.arange(0, D)
    for blk in tl.range(0, NB, num_stages=STAGES):
        p = base + (blk * BLK + rows)[:, None] * D + d[None, :]
        s = tl.load(p, eviction_policy=LOAD_EVICT)
        tl.store(p, s * eg[None, :] + b, cache_modifier=STORE_CACHE)
    store_head_output(acc, gate, norm_w, out, pid, D)


@triton.jit
def tma_traffic_twin(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S_rows, idx, gate, norm_w,
                     out, H, C, NB: tl.constexpr, BLK: tl.constexpr, D: tl.constexpr,
                     STAGES: tl.constexpr):
    pid = tl.program_id(0)
    h, slot, acc, eg, b = head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, idx,
                                       pid, H, C, D)
    row0 = ((slot * H + h) * D).to(tl.int32)
    for blk in tl.range(0, NB, num_stages=STAGES):
        r = row0 + blk * BLK
        S_rows.store([r, 0], S_rows.load([r, 0]) * eg[None, :] + b)
    store_head_output(acc, gate, norm_w, out, pid, D)


@triton.jit
def persistent_traffic_twin(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S, idx, gate,
                            norm_w, out, H, C, heads, NB: tl.constexpr, BLK: tl.constexpr,
                            D: tl.constexpr, STAGES: tl.constexpr):
    d = tl.arange(0, D)
    rows = tl.arange(0, BLK)
    for it in tl.range(tl.program_id(0), heads * NB, tl.num_programs(0), num_stages=STAGES):
        head = it // NB
        blk = it % NB
        n = head // H
        h = head % H
        slot = tl.load(idx + n).to(tl.int64)
        eg = tl.exp(tl.load(raw_g + head * D + d).to(tl.float32) + tl.load(dt_bias + h * D + d))
        p = S + (slot * H + h) * D * D + (blk * BLK + rows)[:, None] * D + d[None, :]
        tl.store(p, tl.load(p) * eg[None, :] + 1.0)
        if blk == 0:
            acc = conv_cache_traffic(x, conv_w, conv_state, n, h, slot, H, C, D)
            y = acc * tl.load(gate + head * D + d).to(tl.float32)
            y = y * tl.load(norm_w + d).to(tl.float32) + tl.load(raw_beta + head).to(tl.float32)
            tl.store(out + head * D + d, y.to(tl.bfloat16))


def twin_operands(torch, H, B, idx):
    """(operands before the state, the [slots, H, D, D] fp32 state, operands after it) for B
    rows of H heads: a pool of 2*B+1 slots, bf16 operands as the decode takes them."""
    C, slots, bf, dev = 3 * H * D, 2 * B + 1, torch.bfloat16, "cuda"

    def rnd(*shape, dtype=bf):
        return (torch.randn(*shape, device=dev) * 0.1).to(dtype)

    before = (rnd(B, C), rnd(C, 4), rnd(slots, C, 3), rnd(B, H, D), rnd(B, H),
              rnd(H * D, dtype=torch.float32))
    after = (idx, rnd(B, H, D), rnd(D), torch.empty(B, H, D, device=dev, dtype=bf), H, C)
    return before, rnd(slots, H, D, D, dtype=torch.float32), after


def best_twin_time(torch, H, B, idx):
    """(us, 'BLK/warps/stages') of the fastest TWIN_LAUNCHES launch of the plain twin for B
    rows of H heads at the slots idx (valid and distinct, in a pool of 2*B+1)."""
    before, state, after = twin_operands(torch, H, B, idx)
    best = None
    for blk, warps, stages in TWIN_LAUNCHES:
        fn = functools.partial(decode_traffic_twin[(B * H,)], *before, state, *after,
                               NB=D // blk, BLK=blk, D=D, STAGES=stages, num_warps=warps)
        t = time_graph(torch, fn)
        if best is None or t < best[0]:
            best = (t, f"{blk}/{warps}/{stages}")
    return best


def main():
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    # Scratch for descriptors Triton builds on the device.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))
    bw = copy_bandwidth(torch)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"# {torch.cuda.get_device_name(0)} ({sms} multiprocessors); best copy bandwidth "
          f"{bw / 1e12:.2f} TB/s; % of the fp32 state read + write at that bandwidth")
    for H, B in LARGE_BATCHES:
        slots = 2 * B + 1
        idx = torch.randperm(slots, device="cuda")[:B].to(torch.int32)
        before, state, after = twin_operands(torch, H, B, idx)
        bound = 2 * B * H * D * D * 4 / bw * 1e6
        times = []
        for blk, warps, stages in TWIN_LAUNCHES:
            times.append((f"plain {blk}/{warps}/{stages}", functools.partial(
                decode_traffic_twin[(B * H,)], *before, state, *after, NB=D // blk, BLK=blk,
                D=D, STAGES=stages, num_warps=warps)))
        for blk, warps, stages in TMA_LAUNCHES:
            rows = TensorDescriptor.from_tensor(state.view(-1, D), [blk, D])
            times.append((f"tma {blk}/{warps}/{stages}", functools.partial(
                tma_traffic_twin[(B * H,)], *before, rows, *after, NB=D // blk, BLK=blk, D=D,
                STAGES=stages, num_warps=warps)))
        for blk, warps, stages, per_sm in PERSISTENT_LAUNCHES:
            times.append((f"persistent {blk}/{warps}/{stages} x{per_sm}", functools.partial(
                persistent_traffic_twin[(sms * per_sm,)], *before, state, *after, B * H,
                NB=D // blk, BLK=blk, D=D, STAGES=stages, num_warps=warps)))
        cells = [f"{name} {100 * bound / time_graph(torch, fn):.1f}%" for name, fn in times]
        print(f"H={H} B={B}: " + "; ".join(cells))
        sys.stdout.flush()
        del state


if __name__ == "__main__":
    main()
