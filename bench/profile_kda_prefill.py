#!/usr/bin/env python3
"""Launches kdatile.ops.chunk_kda a few times, eagerly, for a profiler:

    ncu --kernel-name regex:kda_chunk --launch-skip 2 --launch-count 2 --set full \\
        --import-source yes -o prefill python3 bench/profile_kda_prefill.py .bench_prefill 64 8192

Arguments: the bundle directory of `bench_kda_prefill.py prepare`, H and the sequence lengths
(one or more; several make a varlen call). The inputs and keywords are bench_kda_prefill's, so
the bundle holds the specializations; the kernels carry their DSL source lines (ncu's source
page maps each instruction to its line of kernels/kda_chunk.py).
"""

import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_kda_prefill as bench  # noqa: E402


def main():
    import torch

    from kdatile.ops import chunk_kda

    if len(sys.argv) < 4:
        sys.exit(__doc__)
    bundle, H, lens = sys.argv[1], int(sys.argv[2]), [int(a) for a in sys.argv[3:]]
    os.environ["KDATILE_BUNDLE"] = bundle
    gen = torch.Generator(device="cuda").manual_seed(0)

    def rand(shape, dtype):
        x = torch.randn(shape, generator=gen, device="cuda")
        return x.to(torch.bfloat16) if dtype == "bf16" else x * 0.1

    call = functools.partial(chunk_kda, **bench.inputs(lambda a: torch.from_numpy(a).cuda(),
                                                       H, lens, rand), **bench.KEYWORDS)
    for _ in range(3):
        call()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
