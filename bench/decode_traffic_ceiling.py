#!/usr/bin/env python3
"""How close to the state-traffic bound can any one-launch KDA decode step get on this GPU?

A reference point for bench_kda_decode.py's "% of bound" column, not a kdatile kernel. The bound
is the fp32 state's read + write at a 1 GiB copy's bandwidth (docs/performance.md). Every kernel
here is Triton with next to no arithmetic, so each time is what its memory traffic alone costs;
for the large batches of the benchmark it prints them as percentages of the bound:

- copy: a plain copy of the state's bytes from one buffer to another, in programs of 4 KiB
  (gpu_timing.triton_copy_time): what a stream of this size reaches;
- state R rows: the state alone (no slot table, no conv cache, no gates), updated in place in
  contiguous programs of R rows of D = 128 floats (R = 128 is one head's 64 KiB per program);
- twin: decode_traffic_twin's kernel (the step's bytes at the step's slots, one program per
  head), without and with the cache hints Triton offers on the state's loads and stores
  (evict-first loads, streaming `.cs` stores, both);
- split xP: the twin with each head split over P programs of D / P rows, each moving the
  head's other bytes again (they hit in L2): what a finer grid costs when every program needs
  the head's conv, norms and gates;
- shared xP: the same split where only the head's first program moves the other bytes and
  publishes the gate through global memory; the others spin on a flag and then stream their
  rows. This assumes that the first program of a head starts no later than the others (true
  of the H200's in-order dispatch in our runs; CUDA does not promise it, and without it the
  kernel could hang): a measurement, not a pattern to ship.
- independent: the step's bytes at its slots with no dependency between the state and the
  rest: programs of R state rows (at the head's slot) and, in the same launch, one program
  per head moving the head's other bytes (before, after or between the state's programs).
  No design can use the gate before it is computed, so this bounds every one-launch step
  from above. "flat": the other bytes moved as contiguous vectors (each group's conv cache
  as one run of 3 D values) instead of the twin's per-channel [D, 4] accesses; "rows": by
  batch row instead of by head, each row's arrays (its slot's whole conv cache, x, raw_g, the
  output gate and the output, and all conv weights) in P programs of contiguous slices.

Run on the GPU machine (torch + triton):

    python3 bench/decode_traffic_ceiling.py
"""

from __future__ import annotations

import functools
import os
import sys

import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from decode_traffic_twin import (  # noqa: E402
    LARGE_BATCHES,
    D,
    decode_traffic_twin,
    head_traffic,
    store_head_output,
    twin_operands,
)
from gpu_timing import copy_bandwidth, time_graph, triton_copy_time  # noqa: E402

# (rows per program, BLK, warps, stages) of the state-alone stream.
STATE_LAUNCHES = ((128, 32, 4, 3), (128, 64, 4, 2), (32, 32, 4, 1), (8, 8, 4, 1))
# (name, load eviction policy, store cache modifier) of the twin.
HINTS = (("no hint", "", ""), ("evict-first loads", "evict_first", ""),
         ("streaming stores", "", ".cs"), ("both", "evict_first", ".cs"))
TWIN_LAUNCHES = ((32, 4, 3), (64, 4, 2), (64, 8, 2))  # (BLK, warps, stages)
# (programs per head, BLK, warps, stages) of the split and shared twins.
SPLIT_LAUNCHES = ((2, 32, 4, 2), (2, 64, 4, 1), (4, 32, 4, 1), (8, 16, 2, 1))
# (state rows per program, warps) of the independent streams; ORDERS: where the heads' other
# programs go.
INDEPENDENT_LAUNCHES = ((8, 4), (16, 4), (32, 4))
ORDERS = ("first", "last", "between")
FLAT_LAUNCHES = ((8, 4), (16, 4))  # with ORDERS "first" and "between"
ROW_PARTS = (1, 4, 16)  # programs per batch row of row_streams (8 state rows, 4 warps)


@triton.jit
def state_rows_in_place(S, NB: tl.constexpr, BLK: tl.constexpr, D: tl.constexpr,
                        STAGES: tl.constexpr):
    """Program p updates rows [p * NB * BLK, (p + 1) * NB * BLK) of S ([rows, D] fp32)."""
    base = S + tl.program_id(0).to(tl.int64) * (NB * BLK * D)
    rows = tl.arange(0, BLK)
    d = tl.arange(0, D)
    for i in tl.range(0, NB, num_stages=STAGES):
        p = base + (i * BLK + rows)[:, None] * D + d[None, :]
        tl.store(p, tl.load(p) * 0.999 + 0.5)


@triton.jit
def split_twin(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S, idx, gate, norm_w, out, H, C,
               SPLIT: tl.constexpr, NB: tl.constexpr, BLK: tl.constexpr, D: tl.constexpr,
               STAGES: tl.constexpr):
    """Head pid // SPLIT's rows [part * D / SPLIT, (part + 1) * D / SPLIT); every program
    moves the head's other bytes."""
    pid = tl.program_id(0) // SPLIT
    part = tl.program_id(0) % SPLIT
    h, slot, acc, eg, b = head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, idx,
                                       pid, H, C, D)
    base = S + (slot * H + h) * D * D + part * (NB * BLK * D)
    rows = tl.arange(0, BLK)
    d = tl.arange(0, D)
    for i in tl.range(0, NB, num_stages=STAGES):
        p = base + (i * BLK + rows)[:, None] * D + d[None, :]
        tl.store(p, tl.load(p) * eg[None, :] + b)
    if part == 0:
        store_head_output(acc, gate, norm_w, out, pid, D)


@triton.jit
def shared_twin(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S, idx, gate, norm_w, out, H,
                C, gates, ready, done, SPLIT: tl.constexpr, NB: tl.constexpr,
                BLK: tl.constexpr, D: tl.constexpr, STAGES: tl.constexpr):
    """split_twin where part 0 alone moves the other bytes and publishes (exp(g), beta) in
    gates[pid] with a release flag; the head's last other program resets the flags."""
    pid = tl.program_id(0) // SPLIT
    part = tl.program_id(0) % SPLIT
    d = tl.arange(0, D)
    if part == 0:
        h, slot, acc, eg, b = head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias,
                                           idx, pid, H, C, D)
        tl.store(gates + pid * (D + 1) + d, eg)
        tl.store(gates + pid * (D + 1) + D, b)
        tl.atomic_xchg(ready + pid, 1, sem="release")
        store_head_output(acc, gate, norm_w, out, pid, D)
    else:
        h = pid % H
        slot = tl.load(idx + pid // H).to(tl.int64)
        while tl.atomic_add(ready + pid, 0, sem="acquire") == 0:
            pass
        eg = tl.load(gates + pid * (D + 1) + d)
        b = tl.load(gates + pid * (D + 1) + D)
    base = S + (slot * H + h) * D * D + part * (NB * BLK * D)
    rows = tl.arange(0, BLK)
    for i in tl.range(0, NB, num_stages=STAGES):
        p = base + (i * BLK + rows)[:, None] * D + d[None, :]
        tl.store(p, tl.load(p) * eg[None, :] + b)
    if part != 0:
        if tl.atomic_add(done + pid, 1, sem="acq_rel") == SPLIT - 2:
            tl.store(done + pid, 0)
            tl.atomic_xchg(ready + pid, 0, sem="relaxed")


@triton.jit
def update_head_rows(S, idx, head, part, H, R: tl.constexpr, D: tl.constexpr):
    """Rows [part * R, (part + 1) * R) of head `head`'s state (at its row's slot), updated in
    place."""
    slot = tl.load(idx + head // H).to(tl.int64)
    base = S + (slot * H + head % H) * D * D + part * (R * D)
    p = base + tl.arange(0, R)[:, None] * D + tl.arange(0, D)[None, :]
    tl.store(p, tl.load(p) * 0.999 + 0.5)


@triton.jit
def flat_head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, idx, gate, norm_w, out,
                      head, H, C, D: tl.constexpr):
    """Head `head`'s bytes other than its state (those of head_traffic and
    store_head_output), each piece read or written as one contiguous vector."""
    n = head // H
    h = head % H
    slot = tl.load(idx + n).to(tl.int64)
    d = tl.arange(0, D)
    run = tl.arange(0, 4 * D)  # a group's 4 weights per channel; its 3 cached taps (masked)
    cached = run < 3 * D
    acc = tl.zeros((D,), tl.float32)
    for grp in tl.static_range(3):  # q, k and v channels
        ch0 = (grp * H + h) * D
        cs = conv_state + slot * C * 3 + ch0 * 3 + run
        c = tl.load(cs, mask=cached, other=0.0)
        tl.store(cs, (c.to(tl.float32) + 1.0).to(tl.bfloat16), mask=cached)
        w = tl.load(conv_w + ch0 * 4 + run).to(tl.float32)
        acc += tl.load(x + n * C + ch0 + d).to(tl.float32) + tl.sum(w * c.to(tl.float32), 0)
    eg = tl.exp(tl.load(raw_g + head * D + d).to(tl.float32) + tl.load(dt_bias + h * D + d))
    acc = acc * eg + tl.load(raw_beta + head).to(tl.float32)
    store_head_output(acc, gate, norm_w, out, head, D)


@triton.jit
def independent_streams(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S, idx, gate, norm_w,
                        out, H, C, heads, R: tl.constexpr, D: tl.constexpr,
                        ORDER: tl.constexpr, FLAT: tl.constexpr = False):
    """heads * D / R programs each update R state rows of a head at its slot; heads more move
    one head's other bytes each. ORDER "first"/"last": those come before/after the state's
    programs; "between": each head's follows its D / R state programs."""
    PER_HEAD: tl.constexpr = D // R
    pid = tl.program_id(0)
    if ORDER == "first":
        is_other = pid < heads
        head = tl.where(is_other, pid, (pid - heads) // PER_HEAD)
        part = (pid - heads) % PER_HEAD
    elif ORDER == "last":
        is_other = pid >= heads * PER_HEAD
        head = tl.where(is_other, pid - heads * PER_HEAD, pid // PER_HEAD)
        part = pid % PER_HEAD
    else:
        head = pid // (PER_HEAD + 1)
        part = pid % (PER_HEAD + 1)
        is_other = part == PER_HEAD
    if is_other:
        if FLAT:
            flat_head_traffic(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, idx, gate,
                              norm_w, out, head, H, C, D)
        else:
            h, slot, acc, eg, b = head_traffic(x, conv_w, conv_state, raw_g, raw_beta,
                                               dt_bias, idx, head, H, C, D)
            store_head_output(acc + b + eg, gate, norm_w, out, head, D)
    else:
        update_head_rows(S, idx, head, part, H, R, D)


@triton.jit
def move_slice(src, begin, end, offs, REWRITE: tl.constexpr, CHUNK: tl.constexpr):
    """Reads src[begin:end] (bf16 or fp32) in CHUNK-element vectors (two stages), rewrites it
    in place with REWRITE, and returns the fp32 sum of what was read."""
    acc = tl.zeros((CHUNK,), tl.float32)
    for i in tl.range(begin, end, CHUNK, num_stages=2):
        m = i + offs < end
        v = tl.load(src + i + offs, mask=m, other=0.0)
        if REWRITE:
            tl.store(src + i + offs, (v.to(tl.float32) + 1.0).to(v.dtype), mask=m)
        acc += v.to(tl.float32)
    return tl.sum(acc, 0)


@triton.jit
def row_streams(x, conv_w, conv_state, raw_g, raw_beta, dt_bias, S, idx, gate, norm_w, out, H,
                C, B, PARTS: tl.constexpr, R: tl.constexpr, D: tl.constexpr,
                CHUNK: tl.constexpr):
    """independent_streams (others first) with the other bytes moved by batch row: programs
    [0, B * PARTS) each move slice `part` of row n's arrays; the rest update R state rows."""
    PER_HEAD: tl.constexpr = D // R
    pid = tl.program_id(0)
    if pid < B * PARTS:
        n = pid // PARTS
        part = pid % PARTS
        slot = tl.load(idx + n).to(tl.int64)
        offs = tl.arange(0, CHUNK)
        cache = 3 * C // PARTS  # a part's slices of each array
        hd = H * D // PARTS
        cs = conv_state + slot * C * 3
        total = move_slice(cs, part * cache, (part + 1) * cache, offs, True, CHUNK)
        total += move_slice(conv_w, part * 4 * C // PARTS, (part + 1) * 4 * C // PARTS, offs,
                            False, CHUNK)
        total += move_slice(x + n * C, part * C // PARTS, (part + 1) * C // PARTS, offs, False,
                            CHUNK)
        for i in tl.range(part * hd, (part + 1) * hd, CHUNK, num_stages=2):
            m = i + offs < (part + 1) * hd
            g = tl.load(raw_g + n * H * D + i + offs, mask=m, other=0.0).to(tl.float32)
            g += tl.load(dt_bias + i + offs, mask=m, other=0.0)
            y = total * tl.exp(g) * tl.load(gate + n * H * D + i + offs, mask=m,
                                            other=0.0).to(tl.float32)
            y *= tl.load(norm_w + (i + offs) % D).to(tl.float32)
            tl.store(out + n * H * D + i + offs, y.to(tl.bfloat16), mask=m)
        if part == 0:  # the row's beta, read and kept (in the first output) so it is moved
            beta = tl.load(raw_beta + n * H + offs, mask=offs < H, other=0.0)
            tl.store(out + n * H * D + offs, beta, mask=offs < 1)
    else:
        update_head_rows(S, idx, (pid - B * PARTS) // PER_HEAD, (pid - B * PARTS) % PER_HEAD, H,
                         R, D)


def ceiling_cells(torch, H, B, bw):
    """['name pct%', ...] for B rows of H heads (pct: the bound over the kernel's time)."""
    slots = 2 * B + 1
    heads = B * H
    idx = torch.randperm(slots, device="cuda")[:B].to(torch.int32)
    before, state, after = twin_operands(torch, H, B, idx)
    bound = 2 * heads * D * D * 4 / bw * 1e6
    cells = [f"copy {100 * bound / triton_copy_time(torch, heads * D * D * 4):.1f}%"]

    def pct(fn):
        return 100 * bound / time_graph(torch, fn)

    for rows, blk, warps, stages in STATE_LAUNCHES:
        p = pct(functools.partial(state_rows_in_place[(heads * D // rows,)], state,
                                  NB=rows // blk, BLK=blk, D=D, STAGES=stages, num_warps=warps))
        cells.append(f"state {rows} rows {blk}/{warps}/{stages} {p:.1f}%")
    for name, evict, cache in HINTS:
        p = max(pct(functools.partial(decode_traffic_twin[(heads,)], *before, state, *after,
                                      NB=D // blk, BLK=blk, D=D, STAGES=stages,
                                      LOAD_EVICT=evict, STORE_CACHE=cache, num_warps=warps))
                for blk, warps, stages in TWIN_LAUNCHES)
        cells.append(f"twin {name} {p:.1f}%")
    gates = torch.empty(heads * (D + 1), device="cuda")
    ready = torch.zeros(heads, device="cuda", dtype=torch.int32)
    done = torch.zeros(heads, device="cuda", dtype=torch.int32)
    for split, blk, warps, stages in SPLIT_LAUNCHES:
        nb = D // split // blk
        launch = f"{blk}/{warps}/{stages}"
        p = pct(functools.partial(split_twin[(heads * split,)], *before, state, *after,
                                  SPLIT=split, NB=nb, BLK=blk, D=D, STAGES=stages,
                                  num_warps=warps))
        cells.append(f"split x{split} {launch} {p:.1f}%")
        p = pct(functools.partial(shared_twin[(heads * split,)], *before, state, *after, gates,
                                  ready, done, SPLIT=split, NB=nb, BLK=blk, D=D, STAGES=stages,
                                  num_warps=warps))
        if int(ready.sum()) or int(done.sum()):
            raise RuntimeError("shared_twin left its flags set")
        cells.append(f"shared x{split} {launch} {p:.1f}%")
    for rows, warps in INDEPENDENT_LAUNCHES:
        for order in ORDERS:
            p = pct(functools.partial(independent_streams[(heads * (D // rows + 1),)], *before,
                                      state, *after, heads, R=rows, D=D, ORDER=order,
                                      num_warps=warps))
            cells.append(f"independent {rows} rows, others {order} {p:.1f}%")
    for rows, warps in FLAT_LAUNCHES:
        for order in ORDERS[::2]:
            p = pct(functools.partial(independent_streams[(heads * (D // rows + 1),)], *before,
                                      state, *after, heads, R=rows, D=D, ORDER=order,
                                      FLAT=True, num_warps=warps))
            cells.append(f"independent flat {rows} rows, others {order} {p:.1f}%")
    for parts in ROW_PARTS:
        p = pct(functools.partial(row_streams[(B * parts + heads * D // 8,)], *before, state,
                                  *after, B, PARTS=parts, R=8, D=D, CHUNK=1024, num_warps=4))
        cells.append(f"independent rows x{parts} {p:.1f}%")
    return cells


def main():
    import torch

    bw = copy_bandwidth(torch)
    print(f"# {torch.cuda.get_device_name(0)}; best copy bandwidth {bw / 1e12:.2f} TB/s; % of "
          "the fp32 state read + write at that bandwidth (launches: BLK/warps/stages)")
    for H, B in LARGE_BATCHES:
        print(f"H={H} B={B}: " + "; ".join(ceiling_cells(torch, H, B, bw)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
