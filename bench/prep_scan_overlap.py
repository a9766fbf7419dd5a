#!/usr/bin/env python3
"""Whether a chunked op's scan and another call's prep share the GPU without slowing each
other: the upper bound of pipelining the two launches over segments of the tokens.

    python3 bench/prep_scan_overlap.py BUNDLE   # on the GPU machine, a bench_variants bundle

Gated DeltaNet at one 8192-token sequence of 32 heads (bench_variants' first chunked case):
two independent problems A and B; times (CUDA-graph medians, µs) of A's prep alone, A's scan
alone, A's prep then scan, and A's scan on one stream beside B's prep on another."""

import functools
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from gpu_timing import time_graph  # noqa: E402


def main(bundle):
    import bench_variants as bv
    import torch

    from kdatile.ops import _kernels, chunk

    os.environ["KDATILE_BUNDLE"] = bundle
    make = bv.cuda_maker(torch)
    op, _, H, lens = bv.cases()[0]
    problems = []
    for _ in range(2):
        args, kwargs = bv.arguments(op, H, lens, make)
        problems.append(chunk.chunk_gdn_launches(*args, **kwargs)[1])
    (prep_a, scan_a), (prep_b, _) = problems
    side = torch.cuda.Stream()

    def run(*launches):
        for x in launches:
            _kernels.execute(None, x)

    def beside(main_launch, side_launch):
        main = torch.cuda.current_stream()
        side.wait_stream(main)
        _kernels.execute(None, main_launch)
        with torch.cuda.stream(side):
            _kernels.execute(None, side_launch)
        main.wait_stream(side)

    cases = {"prep A": functools.partial(run, prep_a), "scan A": functools.partial(run, scan_a),
             "prep A, scan A": functools.partial(run, prep_a, scan_a),
             "prep A, prep B": functools.partial(run, prep_a, prep_b),
             "scan A beside prep B": functools.partial(beside, scan_a, prep_b),
             "prep B beside scan A": functools.partial(beside, prep_b, scan_a)}
    print(f"# {torch.cuda.get_device_name(0)}; {op} {lens} H={H}; us per call (CUDA graph)")
    for name, fn in cases.items():
        print(f"{name:>24}: {time_graph(torch, fn, calls=5, replays=10):9.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
