"""Cases of the context-parallel chunk_kda tests (test_ops_chunk_kda_cp.py on the CPU,
test/gpu/test_gpu_cp.py on CUDA tensors), and the worker each rank runs:
`python3 cp_cases.py RANK WORLD RENDEZVOUS_FILE OUT_DIR [cuda]` joins a gloo group of WORLD
processes, runs every case of that world size (CASES, or GPU_CASES on CUDA tensors) with its
own tokens and saves its outputs and final states to OUT_DIR/<case>.rank<RANK>.npz.

A case is the global inputs (from a seed) and the token count of each rank; the test runs the
single-process chunk_kda and the fp64 recurrence on the same inputs.
"""

import os
import sys
from typing import NamedTuple

import numpy as np

from kda_chunk_reference import prefill_inputs


class Case(NamedTuple):
    name: str
    lengths: tuple  # the sequences' lengths (cu_seqlens)
    per_rank: tuple  # tokens of each rank, in rank order
    H: int = 2
    HV: int = 2
    D: int = 32
    dtype: str = "f32"
    initial: bool = True
    state_v_first: bool = False
    gate: bool = True  # the lower-bound gate in the kernel; else log decays
    gate_low: float = -1.0  # log decays uniform in [gate_low, 0] without the gate


CASES = (
    # One sequence cut inside a chunk (16 tokens) on 2 ranks.
    Case("cut_mid_chunk", (100,), (37, 63)),
    # Cuts on chunk boundaries (16 and 64 tokens), 4 ranks, bf16, GVA.
    Case("cuts_on_chunks", (64, 48, 80), (64, 32, 48, 48), H=1, dtype="bf16"),
    # Several sequences spread over 4 ranks, one rank without tokens, sequences of 0 and 1
    # token, a sequence spanning three ranks, [V, K] states, log decays. Decays this slow
    # keep what a rank receives significant after a whole rank's tokens.
    Case("spread", (5, 40, 1, 0, 70, 17, 0), (30, 0, 60, 43), state_v_first=True,
         gate=False, gate_low=-0.01),
    # One long sequence over all 4 ranks, head dim not a power of two, no initial state.
    Case("one_sequence_all_ranks", (203,), (50, 51, 50, 52), D=48, initial=False,
         gate=False, gate_low=-0.01),
    # The same with the lower-bound gate: little of a state outlives a rank.
    Case("one_sequence_gated", (203,), (50, 51, 50, 52), D=48),
    # Two ranks, the second starting exactly at a sequence's start.
    Case("cut_at_sequence_start", (30, 50), (30, 50), dtype="bf16", state_v_first=True),
    # fp16 inputs (bf16 intermediates, as on one process), a sequence cut inside a chunk.
    Case("fp16_cut_mid_chunk", (20, 90), (61, 49), dtype="f16"),
)

# On one GPU (both ranks on it): the Kimi shapes' head dim with the lower-bound gate and GVA,
# and slow decays over one sequence cut near its middle.
GPU_CASES = (
    Case("gpu_gate_gva", (300, 1000, 200), (700, 800), H=4, HV=8, D=128, dtype="bf16"),
    Case("gpu_slow_decay", (1500,), (650, 850), H=4, HV=4, D=128, gate=False, gate_low=-0.01,
         state_v_first=True),
)


def cases(world: int, device: str = "cpu"):
    return [c for c in (GPU_CASES if device == "cuda" else CASES) if len(c.per_rank) == world]


def inputs(case: Case):
    """The global inputs and keywords of a case: (q, k, v, g, beta, kwargs), B = 1."""
    rng = np.random.default_rng(sum(map(ord, case.name)))
    T = sum(case.lengths)
    D = case.D
    q, k, v, g, beta = prefill_inputs(rng, 1, T, case.H, case.HV, D, D, dtype=case.dtype,
                                      use_gate=case.gate, gate_low=case.gate_low,
                                      use_beta_sigmoid=True)
    cu = np.concatenate([[0], np.cumsum(case.lengths)]).astype(np.int32)
    kw = dict(cu_seqlens=cu, use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True,
              state_v_first=case.state_v_first, output_final_state=True)
    if case.gate:
        kw.update(use_gate_in_kernel=True, lower_bound=-5.0,
                  A_log=rng.uniform(-1.0, 1.0, case.HV).astype(np.float32),
                  dt_bias=rng.standard_normal(case.HV * D).astype(np.float32))
    if case.initial:
        kw["initial_state"] = rng.standard_normal((len(case.lengths), case.HV, D, D)).astype(
            np.float32)
    return q, k, v, g, beta, kw


def rank_slice(case: Case, rank: int) -> slice:
    start = sum(case.per_rank[:rank])
    return slice(start, start + case.per_rank[rank])


def local_inputs(case: Case, rank: int):
    """Rank `rank`'s arguments of the case: its tokens' q, k, v, g, beta and the global
    keywords."""
    q, k, v, g, beta, kw = inputs(case)
    mine = rank_slice(case, rank)
    return [np.ascontiguousarray(x[:, mine]) for x in (q, k, v, g, beta)], kw


def to_torch(torch, array, device):
    """A NumPy array as a torch tensor on `device` (uint16 bf16 bit patterns as bfloat16)."""
    t = torch.from_numpy(np.ascontiguousarray(array))
    t = t.view(torch.bfloat16) if array.dtype == np.uint16 else t
    return t.to(device)


def to_numpy(torch, t):
    """A tensor (or NumPy array) as NumPy, bf16 as uint16 bit patterns."""
    if not isinstance(t, torch.Tensor):
        return t
    t = t.detach().cpu()
    return t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16 else t.numpy()


def main(rank: int, world: int, rendezvous: str, out_dir: str, device: str = "cpu") -> None:
    import torch
    import torch.distributed as dist

    from kdatile.ops import chunk_kda

    dist.init_process_group("gloo", init_method=f"file://{rendezvous}", rank=rank,
                            world_size=world)
    try:
        for case in cases(world, device):
            arrays, kw = local_inputs(case, rank)
            if device == "cuda":
                arrays = [to_torch(torch, x, device) for x in arrays]
                kw = {n: to_torch(torch, x, device) if isinstance(x, np.ndarray) else x
                      for n, x in kw.items()}
            o, final = chunk_kda(*arrays, cp_group=dist.group.WORLD, **kw)
            np.savez(os.path.join(out_dir, f"{case.name}.rank{rank}.npz"),
                     o=to_numpy(torch, o), final=to_numpy(torch, final))
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], *sys.argv[5:6])
