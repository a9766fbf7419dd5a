"""Benchmarking helpers for kernel authors: `kt.testing.do_bench` and the cold (serving) protocol.

    import kdatile as kt
    us = kt.testing.do_bench(lambda: kernel[grid](x, y, n, BLOCK=256), device="cuda")

On a GPU (torch and CUDA), `do_bench` times CUDA-graph replays of several back-to-back calls
(launch latency not counted) or, with `graph=False`, each call between CUDA events, optionally
after flushing L2; on the host it times calls with the wall clock. The cold protocol
(cold_schedule, slot_groups, group_arrays, time_graph_cold) times calls that never find their
per-slot data in L2, as in a server, where other layers' weights and states pass through L2
between two steps of one layer (docs/performance.md); time_graph is the warm counterpart.
"""

from __future__ import annotations

import math
import statistics
import time


def _replay_median(torch, graph, calls, replays):
    """Median over `replays` back-to-back replays of `graph` (after one untimed replay) of the
    replay's time in microseconds divided by `calls`."""
    graph.replay()
    torch.cuda.synchronize()
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def time_graph(torch, fn, calls=20, replays=25):
    """Median time in microseconds of one call of `fn`: `calls` calls are captured in one
    CUDA graph and replayed back to back, so launch latency is not counted. Every call reads
    and writes the same memory, so what fits in L2 stays there from call to call (warm)."""
    fn()  # warm up: compile/load outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return _replay_median(torch, graph, calls, replays)


# The cold (serving) protocol: between two uses of a group of slots, the calls in between touch
# at least COLD_GAP_BYTES of per-slot arrays (about six times the H200's 50 MB L2), so none of the
# group's per-slot data is left in L2 when its next call reads it.
COLD_GAP_BYTES = 300 << 20
COLD_MIN_CALLS = 20
COLD_REPLAYS = 15
_ALIGN = 256  # bytes: where each group's array starts (what kernels key as aligned: 16)


def cold_schedule(batch, slot_bytes, gap_bytes=COLD_GAP_BYTES, min_calls=COLD_MIN_CALLS):
    """(groups G, calls R) of the cold protocol for calls of `batch` rows, each row reading
    `slot_bytes` bytes of per-slot arrays (state, conv cache, ...; where several kernels are
    compared on the same slots, the smallest of their footprints, so each of them gets at
    least the gap): G = max(2, ceil(gap_bytes / (batch * slot_bytes)) + 1), so the G - 1 calls
    between two uses of a group touch at least gap_bytes of other slots; R, the calls captured
    in one graph, is the smallest multiple of G that is at least min_calls, so call r uses
    group r mod G and the cycle goes on across back-to-back replays. The pool holds G * batch
    slots: about gap_bytes plus two calls' slots, whatever the batch."""
    if batch < 1 or slot_bytes < 1:
        raise ValueError(f"cold_schedule: batch ({batch}) and slot_bytes ({slot_bytes}) must "
                         "be positive")
    groups = max(2, math.ceil(gap_bytes / (batch * slot_bytes)) + 1)
    return groups, groups * math.ceil(min_calls / groups)


def slot_groups(torch, groups, batch, rng, device="cuda"):
    """The slot indices of the cold protocol's groups: `groups` disjoint groups of `batch`
    distinct slots of a pool of groups * batch slots, in random order (a permutation of the
    pool drawn from the NumPy Generator `rng`). A list of int32 tensors [batch] on `device`,
    contiguous views each starting 256-byte aligned (rows of one padded table)."""
    import numpy as np

    perm = rng.permutation(groups * batch).astype(np.int32).reshape(groups, batch)
    width = -(-batch * 4 // _ALIGN) * _ALIGN // 4
    table = np.zeros((groups, width), np.int32)
    table[:, :batch] = perm
    rows = torch.from_numpy(table).to(device)
    return [rows[g, :batch] for g in range(groups)]


def group_arrays(torch, groups, shape, dtype, scale=1.0, device="cuda"):
    """One array of `shape` and `dtype` per group (the cold protocol's per-call inputs and
    outputs), filled with normal values of standard deviation `scale` (floating dtypes; zeros
    otherwise): contiguous views of one allocation, each starting 256-byte aligned, no two
    sharing memory."""
    n = math.prod(shape)
    size = torch.empty((), dtype=dtype).element_size()
    stride = -(-n * size // _ALIGN) * _ALIGN // size
    flat = torch.empty(groups * stride, dtype=dtype, device=device)
    if dtype.is_floating_point:
        flat.normal_(0.0, scale)
    else:
        flat.zero_()
    return [flat[g * stride:g * stride + n].view(shape) for g in range(groups)]


def time_graph_cold(torch, group_calls, calls, replays=COLD_REPLAYS):
    """Median time in microseconds of one call under the cold (serving) protocol.

    Contract: group_calls[g] (g < G = len(group_calls)) runs one call on group g only: its
    slots of every per-slot array (slot_groups over one pool, G from cold_schedule), its own
    per-call inputs and outputs (group_arrays), and weights that all groups share. `calls`
    (R from cold_schedule) must be a multiple of G. Every callable runs once eagerly (loads,
    autotuning and allocator caches stay out of the capture); then R calls, call r running
    group_calls[r mod G], are captured in one CUDA graph, replayed once untimed and `replays`
    times back to back, and a call's time is a replay's over R. With G and R from
    cold_schedule, the calls between two uses of a group touch at least the gap of per-slot
    data, also across replays. Kernels compared side by side get the same groups, so call r of
    each reads the same slots."""
    groups = len(group_calls)
    if groups < 1 or calls < 1 or calls % groups:
        raise ValueError(f"time_graph_cold: {calls} calls are not a positive multiple of "
                         f"{groups} groups")
    for fn in group_calls:
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for r in range(calls):
            group_calls[r % groups]()
    return _replay_median(torch, graph, calls, replays)


L2_FLUSH_BYTES = 256 << 20  # several times the L2 of current GPUs (H200: 50 MB)


def do_bench(fn, *, device: str, warmup: int = 3, reps: int = 25, calls: int = 10,
             graph: bool = True, flush_l2: bool = False) -> float:
    """Median time of one call of `fn` in microseconds.

    device: where `fn` runs its kernels, "cuda" or "cpu" (explicit: a host kernel timed with
    GPU events, or a GPU one with the wall clock, would measure nothing useful). On CUDA with
    `graph`, `calls` calls are captured in one CUDA graph, replayed once untimed, then `reps`
    times (a call's time is a replay's over `calls`; what the calls touch stays in L2 between
    them, the warm protocol; `fn` must be capturable: no host syncs, no compiles after its
    first call). With `graph=False` each of `reps` calls is timed between CUDA events, after a
    write of L2_FLUSH_BYTES when `flush_l2` (each call then starts with a cold L2). On the
    host, `reps` calls are timed with the wall clock (`flush_l2` and `graph` do not apply).
    `warmup` calls run first, untimed (compiles, loads, allocator caches)."""
    if device not in ("cuda", "cpu"):
        raise ValueError(f"do_bench: device must be 'cuda' or 'cpu', got {device!r}")
    if warmup < 1 or reps < 1 or calls < 1:
        raise ValueError("do_bench: warmup, reps and calls must be positive")
    torch = _torch_cuda() if device == "cuda" else None
    if device == "cuda" and torch is None:
        raise ValueError("do_bench: device='cuda' needs torch with a CUDA device")
    for _ in range(warmup):
        fn()
    if torch is None:
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e6)
        return statistics.median(times)
    torch.cuda.synchronize()
    if graph:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn()
        return _replay_median(torch, g, calls, reps)
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda") \
        if flush_l2 else None
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        if flush is not None:
            flush.zero_()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def _torch_cuda():
    """torch when it is importable and has a CUDA device, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None
