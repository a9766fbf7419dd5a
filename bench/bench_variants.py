#!/usr/bin/env python3
"""Gated DeltaNet and GLA on the GPU: kdatile.ops' FLA-named ops against FLA's in one run.

    python3 bench/bench_variants.py prepare DIR   # here: compile the launches into a bundle
    python3 bench/bench_variants.py run DIR [OP ...]  # on the GPU machine (torch; FLA optional)

Four ops with FLA's names, keywords and layouts, on the same CUDA tensors as FLA's:
chunk_gated_delta_rule and chunk_gla (prefill: one 8192-token sequence of 32 heads, and four
2048-token sequences of 16 heads packed through cu_seqlens), fused_recurrent_gated_delta_rule
and fused_recurrent_gla (decode: B sequences of one token, B in {1, 32, 256}, 32 heads, an fp32
[B, H, K, V] initial state). D = 128, bf16 q, k, v; GDN: g = logsigmoid(randn) per head, beta
= sigmoid(randn), the in-kernel q/k L2 norm; GLA: g = logsigmoid(randn) / 16 per key channel.
Times are CUDA-graph medians in microseconds (the same inputs every call: warm L2, which only
matters for the decode rows); "FLA / ours" is measured in the same run. "o diff" is the
relative RMS difference of the two outputs (FLA is not the reference: the GPU checks compare
these ops with fp64, test/gpu/ops_cases.py; it only shows that both ran the same problem).
"tuned": the chunked ops with kdatile.ops.tuning on (the scan's candidates timed at the first
call, the fastest replayed). Where FLA's call cannot be captured in a CUDA graph (it reads
cu_seqlens on the host), both calls of that row are timed eagerly instead, each between CUDA
events (launch gaps included), and the row is marked "eager".
"""

import functools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from gpu_timing import export_gpu_bundle, prepare_run_main, time_graph  # noqa: E402

D = 128
PREFILL = [("T=8192", 32, [8192]), ("4x2048", 16, [2048] * 4)]
DECODE = [(32, B) for B in (1, 32, 256)]
OPS = ("chunk_gated_delta_rule", "chunk_gla", "fused_recurrent_gated_delta_rule",
       "fused_recurrent_gla")


def arguments(op, H, lens, make):
    """(positional, keyword) arguments of `op` for sequences `lens` of H heads; make(shape,
    kind) builds an array: kind "x" (bf16 q, k, v), "g_head" / "g_key" (fp32 log decays),
    "beta" (bf16 in (0, 1)), "state" (fp32) or "cu" (int32 offsets)."""
    recurrent = op.startswith("fused_recurrent")
    if recurrent:
        N = len(lens)
        lead = (N, 1)
    else:
        lead = (1, sum(lens))
    q, k, v = (make(lead + (H, D), "x") for _ in range(3))
    kw = dict(initial_state=make((len(lens), H, D, D), "state"), output_final_state=True)
    if not recurrent and len(lens) > 1:
        kw["cu_seqlens"] = make(np.concatenate([[0], np.cumsum(lens)]), "cu")
    if op.endswith("gated_delta_rule"):
        kw.update(beta=make(lead + (H,), "beta"), use_qk_l2norm_in_kernel=True)
        g = make(lead + (H,), "g_head")
    else:
        g = make(lead + (H, D), "g_key")
    if op == "fused_recurrent_gla":
        kw["gk"] = g
        return (q, k, v), kw
    if op == "fused_recurrent_gated_delta_rule":
        kw["g"] = g
        return (q, k, v), kw
    if op == "chunk_gated_delta_rule":
        beta = kw.pop("beta")
        return (q, k, v, g, beta), kw
    return (q, k, v, g), kw


def cases():
    """(op, label, H, lens) of every timed call."""
    out = []
    for op in OPS:
        if op.startswith("chunk"):
            out += [(op, label, H, lens) for label, H, lens in PREFILL]
        else:
            out += [(op, f"B={B}", H, [1] * B) for H, B in DECODE]
    return out


def cuda_maker(torch, seed=0):
    """arguments()' `make` on the GPU: random CUDA arrays of each kind, from `seed`."""
    import torch.nn.functional as F

    gen = torch.Generator(device="cuda").manual_seed(seed)

    def make(shape, kind):
        if kind == "cu":
            return torch.from_numpy(np.asarray(shape, np.int32)).cuda()
        x = torch.randn(tuple(shape), generator=gen, device="cuda")
        if kind == "x":
            return x.to(torch.bfloat16)
        if kind == "beta":
            return torch.sigmoid(x).to(torch.bfloat16)
        if kind == "g_head":
            return F.logsigmoid(x)
        if kind == "g_key":
            return F.logsigmoid(x) / 16
        return x * 0.1

    return make


def launches_of(op, args, kwargs):
    from kdatile.ops import chunk, fused_recurrent

    if op == "chunk_gated_delta_rule":
        return chunk.chunk_gdn_launches(*args, **kwargs, target="sm_90a")[1]
    if op == "chunk_gla":
        return chunk.chunk_gla_launches(*args, **kwargs, target="sm_90a")[1]
    prepare_launch = getattr(fused_recurrent, op + "_launch")
    return [prepare_launch(*args, **kwargs, target="sm_90a")[2]]


def prepare(out_dir):
    import kdatile as kt

    def zeros(shape, kind):
        if kind == "cu":
            return np.asarray(shape, np.int32)
        return np.zeros(shape, np.uint16 if kind in ("x", "beta") else np.float32)

    from kdatile.ops.chunk import tuning_candidates

    launches = []
    for op, _, H, lens in cases():
        args, kwargs = arguments(op, H, lens, zeros)
        ops = launches_of(op, args, kwargs)
        ops = ops + tuning_candidates(ops)  # what the tuned call may run
        launches += [(x.kernel, x.args, dict(x.constexprs, num_warps=x.num_warps))
                     for x in ops]
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations in {out_dir}")


def run(bundle_dir, args=None):
    """Times every case, or those of the ops `args.ops` names."""
    import torch

    from kdatile import ops
    from kdatile.ops import tuning
    from kdatile.testing import do_bench

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    try:
        import fla.ops.gated_delta_rule as fla_gdn
        import fla.ops.gla as fla_gla
        fla = {"chunk_gated_delta_rule": fla_gdn.chunk_gated_delta_rule,
               "fused_recurrent_gated_delta_rule": fla_gdn.fused_recurrent_gated_delta_rule,
               "chunk_gla": fla_gla.chunk_gla, "fused_recurrent_gla": fla_gla.fused_recurrent_gla}
    except Exception as e:  # noqa: BLE001
        print(f"FLA not importable ({e}); timing ours only")
        fla = {}
    make = cuda_maker(torch)
    print(f"# {torch.cuda.get_device_name(0)}; D={D}, bf16 q/k/v, fp32 states; us (CUDA graph, "
          "median, warm)")
    print(f"{'op':>33} {'shape':>8} {'H':>3} | {'FLA':>9} {'ours':>9} {'FLA/ours':>8} | "
          f"{'o diff':>8} | {'tuned':>9}")
    only = set(args.ops) if args is not None else set()
    if only - set(OPS):
        raise SystemExit(f"unknown ops {sorted(only - set(OPS))}; the ops: {list(OPS)}")
    with torch.inference_mode():
        for op, label, H, lens in cases():
            if only and op not in only:
                continue
            args, kwargs = arguments(op, H, lens, make)
            ours = functools.partial(getattr(ops, op), *args, **kwargs)
            calls = 5 if op.startswith("chunk") else 20
            t_ours = time_graph(torch, ours, calls=calls, replays=10)
            t_tuned = float("nan")
            if op.startswith("chunk"):
                tuning.enable(True)  # the first, eager call tunes; the graph replays it
                try:
                    t_tuned = time_graph(torch, ours, calls=calls, replays=10)
                finally:
                    tuning.enable(None)
            t_fla, diff, mark = float("nan"), float("nan"), ""
            if op in fla:
                fla_kwargs = dict(kwargs)
                if "cu_seqlens" in fla_kwargs:
                    fla_kwargs["cu_seqlens"] = fla_kwargs["cu_seqlens"].long()
                theirs = functools.partial(fla[op], *args, **fla_kwargs)
                try:
                    try:
                        t_fla = time_graph(torch, theirs, calls=calls, replays=10)
                    except RuntimeError as e:  # not capturable: both eagerly
                        print(f"# FLA {op} {label} under graph capture: {str(e)[:120]}")
                        torch.cuda.synchronize()
                        t_fla = do_bench(theirs, device="cuda", reps=25, graph=False)
                        t_ours = do_bench(ours, device="cuda", reps=25, graph=False)
                        mark = " eager"
                    a, b = ours()[0].float(), theirs()[0].float()
                    diff = float((a - b).pow(2).mean().sqrt() / b.pow(2).mean().sqrt())
                except Exception as e:  # noqa: BLE001
                    print(f"# FLA {op} {label} failed: {type(e).__name__}: {e}")
            print(f"{op:>33} {label:>8} {H:>3} | {t_fla:>9.2f} {t_ours:>9.2f} "
                  f"{t_fla / t_ours:>8.2f} | {diff:>8.1e} | {t_tuned:>9.2f}{mark}", flush=True)


if __name__ == "__main__":
    def add_arguments(parser):
        parser.add_argument("ops", nargs="*", help="run: only these ops (e.g. "
                                                   "fused_recurrent_gla); prepare compiles all")

    prepare_run_main(__doc__, lambda d, args: prepare(d), run, add_arguments)
