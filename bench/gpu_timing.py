"""Timing helpers shared by the GPU benchmarks (run on the GPU machine, with torch)."""

import functools
import statistics


def time_graph(torch, fn, calls=20, replays=25):
    """Median time in microseconds of one call of `fn`: `calls` calls are captured in one
    CUDA graph and replayed back to back, so launch latency is not counted."""
    fn()  # warm up: compile/load outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
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


def copy_bandwidth(torch):
    """Device-to-device copy bandwidth in bytes/s, counting read + write (a 2 GiB copy)."""
    nbytes = 1 << 31
    # fp32 elements: torch's copy kernel moves them with vector instructions.
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    us = time_graph(torch, functools.partial(dst.copy_, src), calls=5, replays=10)
    return 2 * nbytes / (us * 1e-6)
