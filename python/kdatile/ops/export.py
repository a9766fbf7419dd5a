"""The kda-compile jobs of the KDA launches kdatile.ops picks: `python3 -m kdatile.ops.export`.

Each job is one op call on NumPy arrays standing for GPU tensors (`decode_launch` /
`recurrent_launch` with `target=`), so the launch (value rows per program, steps, stages,
warps, clusters) is the one the op's own rules pick for that batch, and its kernel
specialization (`JITFunction.specialize`) gives the signature, the constexprs and the
`kda-compile` command line (`Specialization.compile_command`). The main job's shapes: Kimi-K3
TP8 heads (H = 12), head dim 128, fp32 [V, K] state.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import NamedTuple

from .. import gpu
from ..specialize import TARGETS
from .chunk import chunk_launches
from .context_parallel import CPKernels
from .decode import decode_config_of, decode_launch
from .gdn_decode import gdn_decode_launch
from .recurrent import records_launch, recurrent_launch

HEADS = 12
HEAD_DIM = 128
# The batches of the main job's launches (test_export.py checks which launches the ops pick
# at them): a large and a small decode batch, and speculative decoding's several tokens per
# sequence.
LARGE_BATCH = 64
SMALL_BATCH = 1
RECURRENT_SEQUENCES, RECURRENT_TOKENS = 8, 4
# One token per sequence, a batch at which sm_90a's prefetch runs on TMA
# (kdatile.ops.recurrent.prefetch_by_lanes).
PREFETCH_SEQUENCES = 32
# The prefill's: Kimi-K3 TP8's 8 x 1k varlen batch.
PREFILL_SEQUENCES, PREFILL_TOKENS = 8, 1024
# One long sequence, which GPUs scan in segments (kdatile.ops.chunk.scan_segment).
SPLIT_TOKENS = 8192
# Gated DeltaNet's decode: Qwen3-Next's 16 q/k heads and 32 value heads.
GDN_HEADS, GDN_VALUE_HEADS = 16, 32

FILE_EXTENSIONS = {"asm": "s", "header": "h", "llvm": "ll", "tile": "mlir", "mlir": "mlir",
                   "gpu": "mlir"}


class Job(NamedTuple):
    """One compile: its name, what it is, and the Specialization the op's launch compiles."""

    name: str
    description: str
    spec: object


def _np():
    import numpy as np

    return np


def decode_arguments(B: int, *, fused: bool, H: int = HEADS, D: int = HEAD_DIM, slots: int = 2,
                     state_dtype: str = "f32", state_layout: str = "vk") -> dict:
    """kda_decode / kda_decode_with_f_b keywords (the main shape by default): zero-filled NumPy
    arrays of the op's shapes and dtypes (bf16 as uint16), a channel-major conv cache, a bf16
    norm weight, no conv bias, the lower-bound gate."""
    np = _np()
    C = 3 * H * D
    bf16 = np.uint16
    args = dict(
        x=np.zeros((B, C), bf16), conv_weight=np.zeros((C, 4), bf16),
        conv_state=np.zeros((slots, C, 3), bf16), raw_beta=np.zeros((B, H), bf16),
        A_log=np.zeros(H, np.float32), dt_bias=np.zeros(H * D, np.float32),
        state=np.zeros((slots, H, D, D), bf16 if state_dtype == "bf16" else np.float32),
        state_indices=np.arange(B, dtype=np.int32), output_gate=np.zeros((B, H, D), bf16),
        norm_weight=np.zeros(D, bf16), lower_bound=-5.0, state_layout=state_layout)
    if fused:
        args.update(f_a=np.zeros((B, D), bf16), f_b_weight=np.zeros((H * D, D), bf16))
    else:
        args.update(raw_g=np.zeros((B, H, D), bf16))
    return args


def recurrent_arguments(N: int, T: int, *, H: int = HEADS, D: int = HEAD_DIM, slots: int = 2,
                        state_dtype: str = "f32", state_layout: str = "vk") -> dict:
    """kda_recurrent keywords (the main shape by default, K = V = D): N fixed-length sequences
    of T bf16 tokens, in-kernel L2-norm, lower-bound gate and beta sigmoid, no
    num_accepted_tokens; zero-filled NumPy arrays, a contiguous [N, T] slot table."""
    np = _np()
    bf16 = np.uint16
    return dict(
        q=np.zeros((N, T, H, D), bf16), k=np.zeros((N, T, H, D), bf16),
        v=np.zeros((N, T, H, D), bf16), g=np.zeros((N, T, H, D), bf16),
        beta=np.zeros((N, T, H), bf16), A_log=np.zeros(H, np.float32),
        dt_bias=np.zeros(H * D, np.float32), lower_bound=-5.0,
        initial_state=np.zeros((slots, H, D, D), bf16 if state_dtype == "bf16" else np.float32),
        state_indices=np.arange(N * T, dtype=np.int32).reshape(N, T),
        state_layout=state_layout)


def prefill_arguments(N: int, T: int, *, H: int = HEADS, D: int = HEAD_DIM) -> dict:
    """chunk_kda keywords (the main shape by default): N sequences of T bf16 tokens packed
    through cu_seqlens, in-kernel L2-norm, lower-bound gate (safe_gate) and beta sigmoid, an
    fp32 [K, V] initial and final state; zero-filled NumPy arrays."""
    np = _np()
    bf16 = np.uint16
    tokens = N * T
    return dict(
        q=np.zeros((1, tokens, H, D), bf16), k=np.zeros((1, tokens, H, D), bf16),
        v=np.zeros((1, tokens, H, D), bf16), g=np.zeros((1, tokens, H, D), bf16),
        beta=np.zeros((1, tokens, H), bf16), A_log=np.zeros(H, np.float32),
        dt_bias=np.zeros(H * D, np.float32), initial_state=np.zeros((N, H, D, D), np.float32),
        cu_seqlens=np.arange(0, tokens + 1, T, dtype=np.int32), output_final_state=True,
        use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
        safe_gate=True, lower_bound=-5.0)


def gdn_decode_arguments(B: int, *, H: int = GDN_HEADS, HV: int = GDN_VALUE_HEADS,
                         D: int = HEAD_DIM, slots: int = 2) -> dict:
    """gdn_decode arguments: zero-filled NumPy arrays of the op's shapes and dtypes (bf16 as
    uint16), a channel-major conv cache, an fp32 [V, K] state, no conv bias."""
    np = _np()
    C = 2 * H * D + HV * D
    bf16 = lambda *shape: np.zeros(shape, np.uint16)  # noqa: E731
    return dict(x=bf16(B, C), conv_weight=bf16(C, 4), conv_state=bf16(slots, C, 3),
                a=bf16(B, HV), b=bf16(B, HV), A_log=np.zeros(HV, np.float32),
                dt_bias=np.zeros(HV, np.float32),
                state=np.zeros((slots, HV, D, D), np.float32),
                state_indices=np.zeros(B, np.int32), z=bf16(B, HV, D), norm_weight=bf16(D),
                num_k_heads=H)


def _specialization(launch, target):
    return launch.kernel.specialize(*launch.args, **launch.constexprs, grid=launch.grid,
                                    target=target, num_warps=launch.num_warps)


def _decode_job(name, description, target, B, multiprocessors, *, fused=False, config=None):
    _, launch = decode_launch(**decode_arguments(B, fused=fused), fused=fused, target=target,
                              multiprocessors=multiprocessors, config=config)
    return Job(name, description, _specialization(launch, target))


def _split_decode_job(target, multiprocessors):
    """The small batch's launch, named after how a split head's programs meet."""
    _, launch = decode_launch(**decode_arguments(SMALL_BATCH, fused=False), target=target,
                              multiprocessors=multiprocessors)
    config = decode_config_of(launch)
    if config.cluster:
        name = f"kda_decode_cluster{HEAD_DIM // config.block_v}"
        what = "thread-block cluster"
    else:
        name = f"kda_decode_bv{config.block_v}"
        what = "workspace of tickets"
    return Job(name, f"B = {SMALL_BATCH}: a head's value rows split over programs that meet "
               f"through a {what}", _specialization(launch, target))


def _recurrent_job(name, description, target, tokens=RECURRENT_TOKENS,
                   sequences=RECURRENT_SEQUENCES, **arguments):
    args = recurrent_arguments(sequences, tokens, **arguments)
    _, launch = recurrent_launch(**args, target=target)
    return Job(name, description, _specialization(launch, target))


def _records_job(target):
    """kda_recurrent_records: the main recurrent shape with per-token records."""
    np = _np()
    N, T = RECURRENT_SEQUENCES, RECURRENT_TOKENS
    args = recurrent_arguments(N, T, slots=N)
    args.update(state_indices=np.arange(N, dtype=np.int32),
                num_accepted_tokens=np.ones(N, np.int32),
                **{name: np.zeros((N, T, HEADS, 3 * HEAD_DIM), np.float32)
                   for name in ("records_in", "records_out")})
    _, launch = records_launch(**args, target=target)
    return Job("kda_recurrent_records", f"{N} sequences of {T} tokens, speculative state as "
               "per-token records", _specialization(launch, target))


def _prefill_jobs(target):
    _, (prep, scan) = chunk_launches(
        **prefill_arguments(PREFILL_SEQUENCES, PREFILL_TOKENS), target=target)
    what = f"{PREFILL_SEQUENCES} sequences of {PREFILL_TOKENS} tokens"
    jobs = [Job("kda_chunk_prep", f"{what}: every chunk's WY form", _specialization(prep, target)),
            Job("kda_chunk_scan", f"{what}: the state over each sequence's chunks",
                _specialization(scan, target))]
    _, launches = chunk_launches(**prefill_arguments(1, SPLIT_TOKENS), target=target)
    if len(launches) == 4:  # prep, summary, starts, scan
        what = f"one sequence of {SPLIT_TOKENS} tokens scanned in segments"
        jobs += [Job("kda_chunk_summary", f"{what}: each segment's affine map of the state",
                     _specialization(launches[1], target)),
                 Job("kda_segment_starts", f"{what}: the state before each segment",
                     _specialization(launches[2], target))]
    return jobs


def _context_parallel_jobs(target):
    """The context-parallel prefill's two kernels at the prefill's shape (bf16 inputs: the
    products on the matrix instructions), [K, V] states."""
    from .. import language as lang
    from . import validation as vd

    np = _np()
    H, D = HEADS, HEAD_DIM
    state = np.zeros((H, D, D), np.float32)
    o = np.zeros((1, PREFILL_TOKENS, H, D), np.uint16)
    ref = vd.describe("q", o)
    cp = CPKernels(ref, target, H, D, False, lang.bfloat16)
    compose = cp.compose_launch(state, state, state, state)
    correct = cp.correct_launch(o, o, state, PREFILL_TOKENS)
    return [Job("kda_cp_compose", "context-parallel prefill: a rank's state transition "
                "applied to the state before it", _specialization(compose, target)),
            Job("kda_cp_correct", f"context-parallel prefill: {PREFILL_TOKENS} tokens' outputs "
                "corrected by the state before the rank", _specialization(correct, target))]


def main_jobs(target: str, multiprocessors=None) -> list:
    """The main job's KDA compiles for `target`."""
    return [
        _decode_job("kda_decode", f"B = {LARGE_BATCH}, raw_g given", target, LARGE_BATCH,
                    multiprocessors),
        _decode_job("kda_decode_fb", f"B = {LARGE_BATCH}, raw_g computed from f_a and f_b",
                    target, LARGE_BATCH, multiprocessors, fused=True),
        _split_decode_job(target, multiprocessors),
        _recurrent_job("kda_recurrent", f"{RECURRENT_SEQUENCES} sequences of "
                       f"{RECURRENT_TOKENS} tokens", target),
        _recurrent_job("kda_recurrent_t1", f"{PREFETCH_SEQUENCES} sequences of one token: "
                       "the starting state prefetched by the copy engine (TMA, the Tensor "
                       "Data Mover) where there is one", target, tokens=1,
                       sequences=PREFETCH_SEQUENCES),
    ] + _prefill_jobs(target) + [_gdn_decode_job(target)]


def _gdn_decode_job(target, B=LARGE_BATCH):
    _, launch = gdn_decode_launch(**gdn_decode_arguments(B), target=target)
    NV = launch.constexprs["NV"]
    name = "gdn_decode" if NV == 1 else f"gdn_decode_cluster{NV}"
    split = "" if NV == 1 else f", each head's value rows over a cluster of {NV} programs"
    return Job(name, f"Gated DeltaNet, B = {B}, {GDN_HEADS} q/k heads and {GDN_VALUE_HEADS} "
               f"value heads{split}", _specialization(launch, target))


def check_jobs(target: str, multiprocessors=None) -> list:
    """The compiles the lit tests check besides the main job's (test/Kernels)."""
    jobs = [_recurrent_job("kda_recurrent_bf16_kv", f"{RECURRENT_SEQUENCES} sequences of "
                           f"{RECURRENT_TOKENS} tokens, a bf16 [K, V] state", target,
                           state_dtype="bf16", state_layout="kv"),
            _records_job(target), _gdn_decode_job(target, B=SMALL_BATCH)]
    jobs += _context_parallel_jobs(target)
    jobs.append(_decode_job(
        "kda_decode_head", f"B = {SMALL_BATCH}, a whole head per program in one step "
        "(kernels/kda_decode.py: what a bf16 state runs up to 256 heads)", target, SMALL_BATCH,
        multiprocessors, config=(HEAD_DIM, HEAD_DIM, 0, 4, False)))
    if target != "cpu":
        # Not a launch the ops pick where heads split over clusters (sm_90a); compiled there
        # to check the lowering of the tickets' fences and atomics.
        jobs.append(_decode_job(
            "kda_decode_tickets", f"B = {SMALL_BATCH}, a head split over 4 programs that meet "
            "through a workspace of tickets (forced: sm_90a splits heads over clusters)",
            target, SMALL_BATCH, multiprocessors,
            config=(HEAD_DIM // 4, HEAD_DIM // 4, 0, 4, False)))
    return jobs


def jobs(targets, *, checks: bool = False, multiprocessors=None) -> list:
    """The jobs for each target, in order; a job compiling what an earlier one of the same
    target compiles is left out."""
    out = []
    for target in targets:
        seen = set()
        candidates = main_jobs(target, multiprocessors)
        if checks:
            candidates += check_jobs(target, multiprocessors)
        for job in candidates:
            if job.spec.key not in seen:
                seen.add(job.spec.key)
                out.append(job)
    return out


def output_path(directory: str, job: Job, emit=None) -> str:
    """DIR/NAME.TARGET.EXT, EXT naming what `emit` (None: the code object) produces."""
    target = job.spec.target
    if emit is None:
        emit = "so" if target == "cpu" else gpu.code_object_emit(target)
    return f"{directory.rstrip('/')}/{job.name}.{target}.{FILE_EXTENSIONS.get(emit, emit)}"


def job_command(job: Job, *, out_dir=None, emit=None, kda_compile="kda-compile",
                flags=()) -> list:
    """The kda-compile argv of a job: its compile_command, then `flags`."""
    output = None if out_dir is None else output_path(out_dir, job, emit)
    return job.spec.compile_command(output=output, emit=emit, kda_compile=kda_compile) + list(
        flags)


def describe(job: Job, argv: list) -> dict:
    spec = job.spec
    return {"name": job.name, "target": spec.target, "description": job.description,
            "kernel": spec.kernel, "file": spec.filename, "signature": spec.signature,
            "constexprs": spec.constexprs, "grid": list(spec.grid), "num_warps": spec.num_warps,
            "argv": argv}


EPILOG = f"""\
jobs, for each --target (a job that would compile what an earlier one compiles is left out):
  kda_decode           the decode op's launch at B = {LARGE_BATCH}: kernels/kda_decode_steps.py
                       (a whole head per program in steps of value rows)
  kda_decode_fb        the same with raw_g computed from f_a and f_b (kda_decode_with_f_b)
  kda_decode_bvN       B = {SMALL_BATCH}, where a head splits over programs of N value rows that
                       meet through a workspace of tickets (kernels/kda_decode_split.py;
                       kda_decode_bv32 on AMD targets)
  kda_decode_clusterN  B = {SMALL_BATCH}, where a head splits over a thread-block cluster of N
                       programs (kernels/kda_decode_cluster.py; kda_decode_cluster4 on sm_90a)
  kda_recurrent        kernels/kda_recurrent.py (kda_recurrent): {RECURRENT_SEQUENCES} sequences \
of {RECURRENT_TOKENS} tokens
  kda_recurrent_t1     {PREFETCH_SEQUENCES} sequences of one token: the starting state prefetched by
                       the copy engine on sm_90a (TMA; up to 8 sequences the lanes copy it) and
                       gfx1250 (the Tensor Data Mover)
  kda_chunk_prep       kernels/kda_chunk.py (kda_chunk_prep): chunk_kda's {PREFILL_SEQUENCES} x \
{PREFILL_TOKENS} tokens
  kda_chunk_scan       the same prefill's state scan (kda_chunk_scan)
  kda_chunk_summary    on GPUs, one sequence of {SPLIT_TOKENS} tokens at the same heads, which the
                       scan takes in segments: kda_chunk_scan's SUMMARY pass (each segment's
                       affine map of the state)
  kda_segment_starts   kernels/kda_cp.py: the state before each of those segments
  gdn_decode           kernels/gdn_decode.py (gdn_decode): Gated DeltaNet at B = 64, 16 q/k
                       heads and 32 value heads (Qwen3-Next)
with --checks also the lit tests' compiles (test/Kernels):
  kda_recurrent_bf16_kv  kda_recurrent with a bf16 [K, V] state
  kda_recurrent_records  kda_recurrent_records: speculative state as per-token records
  kda_decode_tickets     B = {SMALL_BATCH} split over 4 programs meeting through tickets, forced
                         (on AMD targets it is kda_decode_bv32)
  kda_cp_compose         kernels/kda_cp.py: the context-parallel prefill's state transition
  kda_cp_correct         kernels/kda_cp.py: its output correction ({PREFILL_TOKENS} tokens)

Each launch (value rows per program, steps, stages, warps, clusters) is the one the op picks
for that batch on a GPU with the H200's 132 multiprocessors (--multiprocessors changes it):
kdatile.ops.decode.decode_config and kdatile.ops.recurrent.gpu_launch_options state the rules.

examples:
  python3 -m kdatile.ops.export --target gfx950
  python3 -m kdatile.ops.export --target sm_90a --emit ptx --out build/kernels \\
      --kda-compile build/bin/kda-compile -- --stats
  python3 -m kdatile.ops.export --target all --checks --format json
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m kdatile.ops.export",
        description="Prints the kda-compile jobs of the KDA kernel launches kdatile.ops picks\n"
                    f"for the main job's shapes (H = {HEADS}, D = {HEAD_DIM}, fp32 [V, K] state, "
                    "lower-bound gate):\neach job's name and the kda-compile command that "
                    "compiles exactly what the JIT\ncompiles for that launch.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", action="append", required=True,
                    choices=list(TARGETS) + ["all"],
                    help="target to compile for (repeatable; 'all': every target)")
    ap.add_argument("--checks", action="store_true",
                    help="also the compiles the lit tests check (see below)")
    ap.add_argument("--format", choices=("shell", "json"), default="shell",
                    help="shell (default): per job a '# NAME TARGET: ...' comment line and "
                         "the command, shell-quoted; json: a list of objects with the name, "
                         "target, kernel, file, signature, constexprs, grid, num_warps and argv")
    ap.add_argument("--out", metavar="DIR",
                    help="write each job's output to DIR/NAME.TARGET.EXT (-o); without it the "
                         "commands have no -o")
    ap.add_argument("--emit", help="kda-compile --emit (default: left out, which gives the "
                                   "code object: cubin, hsaco, or a shared object on the CPU)")
    ap.add_argument("--kda-compile", default="kda-compile", metavar="PATH",
                    help="the kda-compile to put in the commands (default: kda-compile)")
    ap.add_argument("--multiprocessors", type=int, metavar="N",
                    help="the GPU's multiprocessors, which some launch rules scale with "
                         "(default: the H200's 132)")
    ap.add_argument("flags", nargs="*", metavar="-- FLAG",
                    help="after '--': flags appended to every command (e.g. --stats)")
    opts = ap.parse_args(argv)
    targets = []
    for t in opts.target:
        for name in (TARGETS if t == "all" else (t,)):
            if name not in targets:
                targets.append(name)
    selected = jobs(targets, checks=opts.checks, multiprocessors=opts.multiprocessors)
    commands = [job_command(job, out_dir=opts.out, emit=opts.emit,
                            kda_compile=opts.kda_compile, flags=opts.flags) for job in selected]
    if opts.format == "json":
        json.dump([describe(job, cmd) for job, cmd in zip(selected, commands)], sys.stdout,
                  indent=1)
        sys.stdout.write("\n")
        return 0
    for job, cmd in zip(selected, commands):
        spec = job.spec
        warps = "" if spec.num_warps is None else f", {spec.num_warps} warps"
        print(f"# {job.name} {spec.target}: {job.description}; grid {spec.grid}{warps}")
        print(shlex.join(cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
