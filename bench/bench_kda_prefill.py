"""KDA chunked prefill on the GPU: kdatile.ops.chunk_kda against FLA's chunk_kda in one run.

    python3 bench/bench_kda_prefill.py prepare DIR   # here: compile the launches into a bundle
    python3 bench/bench_kda_prefill.py run DIR       # on the GPU machine (torch; FLA optional)
    python3 bench/bench_kda_prefill.py run DIR 8x1024/12 T=8192/64   # some shapes only

The protocol of docs/performance.md: bf16 q, k, v, lower bound -5 with the in-kernel L2 norm,
gate and beta sigmoid, fp32 states, CUDA-graph medians. `run` first checks two varlen cases
against the fp64 token recurrence (test/python/kda_chunk_reference.py; the second one scanned
in segments), then times each shape and each launch alone ("scan": the launches after the
prep) and, where the op scans in segments, the call with every sequence scanned whole
("whole"), else the call with kdatile.ops.tuning on ("tuned": the scan's candidates timed at
the first call, the fastest replayed); TFLOP/s by KDA.md's count, T * H * 180224. FLA, when
importable, runs with FLA_FLASH_KDA=0 on the same tensors.
"""

import functools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "python"))
sys.path.insert(0, os.path.dirname(__file__))

from gpu_timing import export_gpu_bundle, prepare_run_main, time_graph  # noqa: E402

D = 128
# (label, H, sequence lengths); one sequence is the fixed-length [1, T] call.
SHAPES = [
    ("T=8192", 64, [8192]),
    ("T=32768", 64, [32768]),
    ("T=8192", 96, [8192]),
    ("6144+2048", 64, [6144, 2048]),
    ("8x1024", 12, [1024] * 8),
    ("8x4096", 12, [4096] * 8),
    ("7168+512+512", 12, [7168, 512, 512]),
    ("512+512+7168", 12, [512, 512, 7168]),
    ("T=8192", 12, [8192]),
    ("T=32768", 12, [32768]),
]
# The GPU checks against the fp64 recurrence: (H, lengths, shift of the raw gate). The second
# is scanned in segments (few programs, a long sequence), its gates shifted to decay gently so
# that each segment's transition, and so the chain of segments, weighs in the result.
CHECKS = [(2, [1, 17, 64, 100], 0.0), (2, [3500, 17, 700], -8.0)]


def inputs(xp, H, lens, make):
    """chunk_kda's arguments for sequences `lens` of H heads; `make(shape, dtype)` builds
    each array ("bf16" or "f32")."""
    T = sum(lens)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    args = dict(q=make((1, T, H, D), "bf16"), k=make((1, T, H, D), "bf16"),
                v=make((1, T, H, D), "bf16"), g=make((1, T, H, D), "bf16"),
                beta=make((1, T, H), "bf16"), A_log=make((H,), "f32"),
                dt_bias=make((H * D,), "f32"), initial_state=make((len(lens), H, D, D), "f32"))
    if len(lens) > 1:
        args["cu_seqlens"] = xp(cu)
    return args


KEYWORDS = dict(output_final_state=True, use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                use_beta_sigmoid_in_kernel=True, lower_bound=-5.0, safe_gate=True)


def prepare(out_dir):
    import kdatile as kt
    from kdatile.ops.chunk import chunk_launches, tuning_candidates

    def zeros(shape, dtype):
        return np.zeros(shape, np.uint16 if dtype == "bf16" else np.float32)

    launches = []
    for _, H, lens in SHAPES + [("check", H, lens) for H, lens, _ in CHECKS]:
        for segment in (None, 0):  # the op's choice, and each sequence scanned whole
            _, ops = chunk_launches(**inputs(np.asarray, H, lens, zeros), **KEYWORDS,
                                    target="sm_90a", segment_tokens=segment)
            ops = ops + tuning_candidates(ops)  # what the tuned call may run
            launches += [(x.kernel, x.args, dict(x.constexprs, num_warps=x.num_warps))
                         for x in ops]
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations of kda_chunk in {out_dir}")


def launch_all(launches):
    from kdatile.ops._kernels import execute

    for x in launches:
        execute(None, x)


def run(bundle_dir, args=None):
    """Times SHAPES, or those `args.shapes` names (LABEL/H)."""
    only = args.shapes if args is not None else []
    import torch

    from kda_chunk_reference import kda_prefill_reference
    from kda_reference import rel_rms
    from kdatile.ops import chunk_kda, tuning
    from kdatile.ops.chunk import chunk_launches

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    os.environ["FLA_FLASH_KDA"] = "0"
    gen = torch.Generator(device="cuda").manual_seed(0)

    def rand(shape, dtype):
        x = torch.randn(shape, generator=gen, device="cuda")
        return x.to(torch.bfloat16) if dtype == "bf16" else x * 0.1

    def cuda(a):
        return torch.from_numpy(a).cuda()

    for H, lens, shift in CHECKS:
        c = inputs(cuda, H, lens, rand)
        c["g"] += shift
        o, final = chunk_kda(**c, **KEYWORDS)
        _, launches = chunk_launches(**c, **KEYWORDS)
        host = {n: x.float().cpu().numpy() for n, x in c.items() if n != "cu_seqlens"}
        ref_o, ref_final, _ = kda_prefill_reference(
            host["q"], host["k"], host["v"], host["g"], host["beta"],
            initial_state=host["initial_state"], cu_seqlens=c["cu_seqlens"].cpu().numpy(),
            use_qk_l2norm=True, use_gate=True, use_beta_sigmoid=True, A_log=host["A_log"],
            dt_bias=host["dt_bias"], lower_bound=-5.0)
        err_o = rel_rms(ref_o, o.float().cpu().numpy())
        err_s = rel_rms(ref_final, final.cpu().numpy())
        how = "segments" if len(launches) > 2 else "whole"
        print(f"check lens {lens}, H={H}, gate shift {shift} (scan {how}): rel RMS o "
              f"{err_o:.2e}, final state {err_s:.2e} "
              f"({'ok' if max(err_o, err_s) <= 5e-3 else 'FAILED'})")
    try:
        from fla.ops.kda import chunk_kda as fla_chunk_kda
    except Exception as e:  # noqa: BLE001
        print(f"FLA not importable ({e}); timing ours only")
        fla_chunk_kda = None
    print(f"# {torch.cuda.get_device_name(0)}; D={D}, bf16 inputs, fp32 states, lower bound "
          "-5; us (CUDA graph, median)")
    print(f"{'shape':>14} {'H':>3} | {'FLA':>9} | {'ours':>9} {'FLA/ours':>8} {'TFLOP/s':>8} | "
          f"{'prep':>9} {'scan':>9} | {'whole':>9} {'tuned':>9}")
    names = {f"{label}/{H}" for label, H, _ in SHAPES}
    unknown = set(only) - names
    if unknown:
        raise SystemExit(f"unknown shapes {sorted(unknown)}; the shapes: {sorted(names)}")
    for label, H, lens in SHAPES:
        if only and f"{label}/{H}" not in only:
            continue
        c = inputs(cuda, H, lens, rand)
        ours = functools.partial(chunk_kda, **c, **KEYWORDS)
        t_ours = time_graph(torch, ours, calls=5, replays=10)
        t_fla = float("nan")
        if fla_chunk_kda is not None:
            fla_args = {n: x for n, x in c.items() if n != "cu_seqlens"}
            if "cu_seqlens" in c:
                fla_args["cu_seqlens"] = c["cu_seqlens"].long()
            fla = functools.partial(fla_chunk_kda, **fla_args, **KEYWORDS)
            try:
                t_fla = time_graph(torch, fla, calls=5, replays=10)
            except Exception as e:  # noqa: BLE001
                print(f"FLA failed at {label}: {e}")
        # Each launch alone, on the same intermediates; "scan" sums the launches after the
        # prep (a split scan's summary, chain and scan). "whole": the call with every
        # sequence scanned whole, where the op splits them.
        _, launches = chunk_launches(**c, **KEYWORDS)
        parts = [time_graph(torch, functools.partial(launch_all, [x]), calls=5, replays=10)
                 for x in launches]
        t_whole = t_tuned = float("nan")
        if len(launches) > 2:
            _, whole = chunk_launches(**c, **KEYWORDS, segment_tokens=0)
            t_whole = time_graph(torch, functools.partial(launch_all, whole), calls=5,
                                 replays=10)
        else:
            tuning.enable(True)  # time_graph's first, eager call tunes; the graph replays it
            try:
                t_tuned = time_graph(torch, ours, calls=5, replays=10)
            finally:
                tuning.enable(None)
        T = sum(lens)
        tflops = T * H * 180224 / (t_ours * 1e-6) / 1e12
        print(f"{label:>14} {H:>3} | {t_fla:>9.1f} | {t_ours:>9.1f} {t_fla / t_ours:>8.2f} "
              f"{tflops:>8.1f} | {parts[0]:>9.1f} {sum(parts[1:]):>9.1f} | {t_whole:>9.1f} "
              f"{t_tuned:>9.1f}")
        sys.stdout.flush()
        del c


if __name__ == "__main__":
    def add_arguments(parser):
        parser.add_argument("shapes", nargs="*", help="run: only these shapes (LABEL/H, e.g. "
                                                      "8x1024/12); prepare compiles them all")

    prepare_run_main(__doc__, lambda d, args: prepare(d), run, add_arguments)
