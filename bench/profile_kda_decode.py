#!/usr/bin/env python3
"""Launches the fused KDA decode kernel a few times, eagerly, for a profiler:

    ncu --kernel-name kda_decode --launch-skip 2 --launch-count 1 --section SpeedOfLight \\
        --section WarpStateStats python3 bench/profile_kda_decode.py .bench_bundle 12 1

Arguments: the bundle directory of `bench_kda_decode.py prepare`, H, batch, and optionally the
state dtype (f32 or bf16), the value rows per program (BV), the value rows per step (BLK), the
shared-memory stages (STAGES), the warps and CLUSTER (0 or 1), one of
bench_kda_decode.LAUNCHES; by default the launch kdatile.ops picks for the batch on the H200.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_kda_decode as bench  # noqa: E402


def main():
    import torch

    bundle, H, B = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    state = sys.argv[4] if len(sys.argv) > 4 else "f32"
    os.environ["KDATILE_BUNDLE"] = bundle
    config = bench.ops_launch(B, H, state)
    if len(sys.argv) > 9:
        bv, blk, stages, warps, cluster = (int(a) for a in sys.argv[5:10])
        config = (bv, blk, stages, warps, bool(cluster))
    idx = torch.randperm(2 * B + 1, device="cuda")[:B].to(torch.int32)
    launch = bench.torch_launch(torch, H, B, state, idx, config)
    for _ in range(4):
        launch()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
