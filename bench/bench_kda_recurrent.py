#!/usr/bin/env python3
"""KDA multi-token recurrent core on the GPU: kernels/kda_recurrent.py vs FLA's
fused_recurrent_kda_fwd (spec decoding: T tokens per sequence, per-token slots,
num_accepted_tokens), its two fast paths, and a correctness check against the fp64 reference.

    python3 bench/bench_kda_recurrent.py prepare DIR   # here: compile the kernels into a bundle
    python3 bench/bench_kda_recurrent.py run DIR       # on the GPU machine (torch, triton, FLA)

`run` first checks, for every launch variant (BV, num_warps, PREFETCH_STATE) and fp32 / bf16
pools, a varlen spec-decode batch with padding tokens and a padding sequence against the fp64
reference (test/python/kda_recurrent_reference.py; docs/kda.md tolerances). Then, for H in
{12, 48}, T in {1, 2, 4, 8} and batch B in {1, 8, 32, 128, 256} (fp32 [V, K] pool, in-kernel
L2-norm, gate and beta sigmoid, lower bound -5), it times four calls on the same inputs and
slots:
- "FLA": FLA's core, the state after every token written to its slot (in place);
- "ops": kdatile.ops.kda_recurrent's launch, the same semantics;
- "final": its final_state_only launch (every output, one state write per sequence);
- "records": kda_recurrent_records' launch: the committed state read, the accepted records
  (num_accepted_tokens of them, 1..T) replayed and the state written back, and a
  (exp(g), k, delta) record instead of a state per token.
Cold (the headline, the serving protocol of gpu_timing.cold_schedule / time_graph_cold): the
pool holds G groups of B*T distinct random slots (B sequences of T per-token slots; "records"
keeps each sequence's committed state in the first of them), G = max(2, ceil(300 MiB / (B * S))
+ 1) with S = H*D*D*4 bytes (one state per sequence, the least any of the four calls touches),
so at least 300 MiB of other states pass between two uses of a group; each group has its own
token inputs and outputs; one CUDA graph of R calls (R the smallest multiple of G >= 20), call r
on group r mod G. Warm beside it: group 0's call replayed (time_graph). Times in
microseconds; "x FLA" is FLA's cold time over ours; "bound" the per-token state traffic (one
read + T writes per sequence and head) at the copy bandwidth measured in the run, "%bound" its
share of the cold "ops" time.

`--variants` adds the launch-variant table of H = 12 (warm; every BV/warps/prefetch variant,
and the prefetching variant compiled with element copies, "pf ca": cp.async instead of TMA).
"""

from __future__ import annotations

import functools
import os
import sys
import time

import numpy as np
from gpu_timing import (
    ElementCopies,
    cold_schedule,
    copy_bandwidth,
    element_copies_spec,
    export_element_copies,
    export_gpu_bundle,
    group_arrays,
    prepare_run_main,
    slot_groups,
    time_graph,
    time_graph_cold,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("python", "kernels", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))

H, D = 12, 128  # H: the check's and the variant table's heads
HEADS = (12, 48)
BATCHES = (1, 8, 32, 128, 256)
TOKENS = (1, 2, 4, 8)
# (BV, num_warps, PREFETCH_STATE); kdatile.ops runs BV 32 with gpu_launch_options.
VARIANTS = ((128, 8, False), (64, 4, False), (32, 4, False), (32, 4, True), (32, 2, False))
# Compiled again with element copies (cp.async) in place of TMA, under DIR/elements.
ELEMENT_COPIES = (32, 4, True)
CALLS = ("FLA", "ops", "final", "records")


def cold_plan(heads, B, T):
    """(groups G, calls R, pool slots) of the cold protocol at one shape."""
    groups, calls = cold_schedule(B, heads * D * D * 4)
    return groups, calls, groups * B * T


def timed_arrays(xp, heads, B, T, slots):
    """The shapes of one group's arrays at a timed shape (xp: NumPy stand-ins in prepare)."""
    return dict(tokens=(B, T, heads, D), beta=(B, T, heads), state=(slots, heads, D, D),
                records=(slots, T, heads, 3 * D))


def timed_launches(c, o):
    """The Launches of the timed calls but FLA's on a group's arrays `c` writing `o`."""
    from kdatile.ops.recurrent import records_launch

    records = records_launch(
        c["q"], c["k"], c["v"], c["g"], c["beta"], A_log=c["A_log"], dt_bias=c["dt_bias"],
        lower_bound=-5.0, initial_state=c["state"], state_indices=c["committed"],
        records_in=c["records_in"], records_out=c["records_out"],
        num_accepted_tokens=c["acc"], out=o, target=c.get("target"))[1]
    return {"ops": launch(c, o, target=c.get("target")),
            "final": launch(c, o, target=c.get("target"), final_state_only=True),
            "records": records}


def numpy_group(heads, B, T):
    """NumPy stand-ins of a timed shape's group (shapes, dtypes and strides of run's)."""
    _, _, slots = cold_plan(heads, B, T)
    shp = timed_arrays(np, heads, B, T, slots)
    bf = np.uint16
    c = {name: np.zeros(shp["tokens"], bf) for name in ("q", "k", "v", "g")}
    si = np.arange(B * T, dtype=np.int32).reshape(B, T)
    c.update(beta=np.zeros(shp["beta"], bf), A_log=np.zeros(heads, np.float32),
             dt_bias=np.zeros(heads * D, np.float32),
             state=np.zeros(shp["state"], np.float32), si=si,
             committed=np.ascontiguousarray(si[:, 0]), acc=np.ones(B, np.int32), cu=None,
             records_in=np.zeros(shp["records"], np.float32),
             records_out=np.zeros(shp["records"], np.float32), target="sm_90a")
    return c


def bench_case(B, T, rng):
    """NumPy inputs of a fixed-length spec-decode batch of H heads (the variant table's, warm);
    pool of B*T + 1 fp32 slots."""
    from kda_reference import f32_to_bf16

    def bf(*shape):
        return f32_to_bf16(rng.standard_normal(shape).astype(np.float32))

    slots = B * T + 1
    return dict(q=bf(B, T, H, D), k=bf(B, T, H, D), v=bf(B, T, H, D), g=bf(B, T, H, D),
                beta=bf(B, T, H), A_log=rng.uniform(-1, 1, H).astype(np.float32),
                dt_bias=(rng.standard_normal(H * D) * 0.5).astype(np.float32),
                state=(rng.standard_normal((slots, H, D, D)) * 0.1).astype(np.float32),
                si=rng.permutation(slots)[:B * T].reshape(B, T).astype(np.int32),
                acc=rng.integers(1, T + 1, B).astype(np.int32), cu=None)


def check_case(state_bf16, rng):
    """A varlen batch with padding (as test_varlen_spec_decode)."""
    from kda_reference import f32_to_bf16

    lens, Tcols = [3, 1, 4, 0, 2, 4, 4, 2], 4
    N = len(lens)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tokens, slots = int(cu[-1]), 2 * N * Tcols + 3

    def bf(*shape):
        return f32_to_bf16(rng.standard_normal(shape).astype(np.float32))

    si = rng.permutation(slots)[:N * Tcols].reshape(N, Tcols).astype(np.int32)
    si[0, 1] = -1
    si[2, 3] = slots
    si[5, :] = -1
    state = (rng.standard_normal((slots, H, D, D)) * 0.1).astype(np.float32)
    return dict(q=bf(1, tokens, H, D), k=bf(1, tokens, H, D), v=bf(1, tokens, H, D),
                g=bf(1, tokens, H, D), beta=bf(1, tokens, H),
                A_log=rng.uniform(-1, 1, H).astype(np.float32),
                dt_bias=(rng.standard_normal(H * D) * 0.5).astype(np.float32),
                state=f32_to_bf16(state) if state_bf16 else state, si=si,
                acc=np.array([3, 1, 3, 1, 2, 3, 4, 2], np.int32), cu=cu)


def launch(c, o, config=None, target=None, final_state_only=False):
    """The op's Launch of kda_recurrent for a case (NumPy arrays or their tensors) writing `o`:
    at `config` (BV, num_warps, PREFETCH_STATE; a prefetch on the copy engine, the "ca"
    variant recompiling it with element copies), or the op's own choice when None."""
    from kdatile.ops.recurrent import recurrent_launch

    if config is not None:
        config = (*config, False)
    return recurrent_launch(c["q"], c["k"], c["v"], c["g"], c["beta"], A_log=c["A_log"],
                            dt_bias=c["dt_bias"], lower_bound=-5.0, initial_state=c["state"],
                            state_indices=c["si"], cu_seqlens=c["cu"],
                            num_accepted_tokens=c["acc"], out=o, target=target,
                            config=config, final_state_only=final_state_only)[1]


def variant_of(launch):
    """The VARIANTS key (BV, num_warps, PREFETCH_STATE) of a Launch."""
    return launch.constexprs["BV"], launch.num_warps, launch.constexprs["PREFETCH_STATE"]


def run_launch(launch):
    return functools.partial(launch.kernel[launch.grid], *launch.args, **launch.constexprs,
                             num_warps=launch.num_warps)


def prepare(out_dir):
    import kdatile as kt
    cases = [check_case(state_bf16, np.random.default_rng(0)) for state_bf16 in (False, True)]
    cases += [bench_case(B, T, np.random.default_rng(0)) for B in BATCHES for T in TOKENS]
    launches = []
    for config in VARIANTS:
        for c in cases:
            ours = launch(c, np.zeros(c["v"].shape, np.uint16), config, target="sm_90a")
            launches.append((ours.kernel, ours.args,
                             dict(ours.constexprs, num_warps=ours.num_warps)))
    for heads in HEADS:
        for T in TOKENS:
            for B in BATCHES:
                c = numpy_group(heads, B, T)
                timed = timed_launches(c, np.zeros(c["v"].shape, np.uint16))
                launches += [(ours.kernel, ours.args,
                              dict(ours.constexprs, num_warps=ours.num_warps))
                             for ours in timed.values()]
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations of kda_recurrent in {out_dir}")
    specs = [element_copies_spec(launch(c, np.zeros(c["v"].shape, np.uint16), ELEMENT_COPIES,
                                        target="sm_90a")) for c in cases]
    print(f"{export_element_copies(out_dir, specs)} element-copy specializations")


def to_torch(torch, c):
    out = {}
    for name, a in c.items():
        if a is None:
            out[name] = None
        elif a.dtype == np.uint16:
            out[name] = torch.from_numpy(a.view(np.int16).copy()).cuda().view(torch.bfloat16)
        else:
            out[name] = torch.from_numpy(a.copy()).cuda()
    return out


def bf16_np(torch, t):
    from kda_reference import bf16_to_f32
    return bf16_to_f32(t.view(torch.int16).cpu().numpy().view(np.uint16))


def widen(a):
    from kda_reference import bf16_to_f32
    return bf16_to_f32(a) if a.dtype == np.uint16 else a


def name(BV, warps, prefetch):
    """A variant's column title, e.g. 'BV32 w4 pf' (pf: PREFETCH_STATE)."""
    return f"BV{BV} w{warps}" + (" pf" if prefetch else "")


def check(torch, element_copies):
    from kda_recurrent_reference import kda_recurrent_reference
    from kda_reference import rel_rms

    ok = True
    for state_bf16 in (False, True):
        c = check_case(state_bf16, np.random.default_rng(0))
        ref_o, ref_pool = kda_recurrent_reference(
            widen(c["q"]), widen(c["k"]), widen(c["v"]), widen(c["g"]), widen(c["beta"]),
            widen(c["state"]), c["si"], scale=D ** -0.5, cu_seqlens=c["cu"],
            num_accepted=c["acc"], A_log=c["A_log"], dt_bias=c["dt_bias"], lower_bound=-5.0,
            state_bf16=state_bf16)
        before = widen(c["state"]).astype(np.float64)
        written = np.flatnonzero(np.any(ref_pool != before, axis=(1, 2, 3)))
        untouched = np.setdiff1d(np.arange(before.shape[0]), written)
        for BV, warps, prefetch, elements in [(*v, False) for v in VARIANTS] + [
                (*ELEMENT_COPIES, True)]:
            t = to_torch(torch, c)
            o = torch.full(t["v"].shape, float("nan"), device="cuda", dtype=torch.bfloat16)
            ours = launch(t, o, (BV, warps, prefetch))
            (element_copies.launcher(torch, ours) if elements else run_launch(ours))()
            torch.cuda.synchronize()
            got_o = bf16_np(torch, o).reshape(ref_o.shape)
            pool = t["state"]
            got_pool = (bf16_np(torch, pool) if state_bf16 else pool.cpu().numpy())
            pad = np.all(ref_o == 0, axis=(1, 2))
            e_o = rel_rms(ref_o[~pad], got_o[~pad])
            e_s = rel_rms(ref_pool[written], got_pool[written])
            exact = (np.array_equal(got_pool[untouched], before[untouched])
                     and (got_o[pad] == 0).all() and np.isfinite(got_o).all())
            good = e_o <= 5e-3 and e_s <= (5e-3 if state_bf16 else 1e-5) and exact
            ok &= good
            title = name(BV, warps, prefetch) + (" ca" if elements else "")
            print(f"check {'bf16' if state_bf16 else 'fp32'} pool {title}: "
                  f"out {e_o:.2e} state {e_s:.2e} padding/untouched exact {exact} "
                  f"{'OK' if good else 'FAIL'}")
    return ok


def torch_groups(torch, heads, B, T, rng):
    """(G, R, per-group argument dicts) of a timed shape on the GPU: one fp32 pool and two
    record pools shared by the groups, each group its slots, token inputs and output."""
    groups, calls, slots = cold_plan(heads, B, T)
    shp = timed_arrays(torch, heads, B, T, slots)
    dev = "cuda"
    shared = dict(A_log=torch.empty(heads, device=dev).uniform_(-1, 1),
                  dt_bias=torch.randn(heads * D, device=dev) * 0.5,
                  state=torch.randn(shp["state"], device=dev) * 0.1,
                  records_in=torch.zeros(shp["records"], device=dev),
                  records_out=torch.zeros(shp["records"], device=dev),
                  acc=torch.from_numpy(rng.integers(1, T + 1, B).astype(np.int32)).to(dev),
                  cu=None)
    per = {name: group_arrays(torch, groups, shp["tokens"], torch.bfloat16)
           for name in ("q", "k", "v", "g", "o")}
    per["beta"] = group_arrays(torch, groups, shp["beta"], torch.bfloat16)
    tables = slot_groups(torch, groups, B * T, rng)
    out = []
    for i in range(groups):
        si = tables[i].view(B, T)
        out.append(dict(shared, **{name: arrs[i] for name, arrs in per.items()}, si=si,
                        committed=si[:, 0].contiguous()))
    return groups, calls, out


def fla_call(fla_fwd, c):
    return functools.partial(
        fla_fwd, c["q"], c["k"], c["v"], c["g"], c["beta"], A_log=c["A_log"],
        dt_bias=c["dt_bias"], initial_state=c["state"], inplace_final_state=True,
        state_v_first=True, ssm_state_indices=c["si"], num_accepted_tokens=c["acc"],
        use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
        lower_bound=-5.0, out=c["o"])


def run(bundle_dir, args):
    import torch

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    element_copies = ElementCopies(bundle_dir)
    ok = check(torch, element_copies)
    try:
        from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd
    except Exception as e:  # noqa: BLE001
        print(f"FLA not importable ({e}); timing ours only")
        fused_recurrent_kda_fwd = None
    bw = copy_bandwidth(torch)
    print(f"# {torch.cuda.get_device_name(0)}; copy bandwidth {bw / 1e12:.2f} TB/s; fp32 [V,K] "
          "pool; us per call (CUDA graph medians); cold = serving protocol, warm = same slots")
    cols = " ".join(f"{n:>8}" for n in CALLS)
    print(f"{'H':>3} {'B':>4} {'T':>2} {'G':>4} | cold {cols} | x FLA: {'ops':>5} {'final':>5} "
          f"{'rec':>5} | warm {cols} | {'bound':>7} {'%bound':>6}")
    start = time.time()
    for heads in HEADS:
        for T in TOKENS:
            for B in BATCHES:
                rng = np.random.default_rng(heads * 1000 + B * 10 + T)
                groups, calls, cs = torch_groups(torch, heads, B, T, rng)
                fns = {name: [] for name in CALLS}
                for c in cs:
                    for name, ours in timed_launches(c, c["o"]).items():
                        fns[name].append(run_launch(ours))
                    if fused_recurrent_kda_fwd is not None:
                        fns["FLA"].append(fla_call(fused_recurrent_kda_fwd, c))
                cold, warm = {}, {}
                for name in CALLS:
                    if not fns[name]:
                        cold[name] = warm[name] = float("nan")
                        continue
                    cold[name] = time_graph_cold(torch, fns[name], calls)
                    warm[name] = time_graph(torch, fns[name][0])
                bound = (1 + T) * B * heads * D * D * 4 / bw * 1e6
                f = cold["FLA"]
                print(f"{heads:>3} {B:>4} {T:>2} {groups:>4} | cold "
                      + " ".join(f"{cold[n]:>8.2f}" for n in CALLS)
                      + f" |        {f / cold['ops']:>5.2f} {f / cold['final']:>5.2f} "
                      f"{f / cold['records']:>5.2f} | warm "
                      + " ".join(f"{warm[n]:>8.2f}" for n in CALLS)
                      + f" | {bound:>7.2f} {100 * bound / cold['ops']:>5.1f}%")
                sys.stdout.flush()
                print(f"  [{time.time() - start:.0f} s] H={heads} B={B} T={T} done",
                      file=sys.stderr)
                del cs, fns
                torch.cuda.empty_cache()
    if args.variants:
        run_variants(torch, bw, element_copies, fused_recurrent_kda_fwd)
    if not ok:
        sys.exit("correctness check FAILED")


def run_variants(torch, bw, element_copies, fused_recurrent_kda_fwd):
    """The warm launch-variant table at H heads (every VARIANTS entry and element copies)."""
    print(f"\n# launch variants, H={H}, warm (same slots every call), us")
    head = " ".join(f"{name(*v):>12}" for v in VARIANTS) + f" {name(*ELEMENT_COPIES) + ' ca':>12}"
    print(f"{'B':>4} {'T':>2} | {'FLA':>8} | {head} | {'ops':>7} {'ops/FLA':>7} | "
          f"{'bound':>7} {'best/FLA':>8} {'%bound':>7}")
    for T in TOKENS:
        for B in BATCHES:
            c = to_torch(torch, bench_case(B, T, np.random.default_rng(B * 10 + T)))
            t_fla = float("nan")
            if fused_recurrent_kda_fwd is not None:
                t_fla = time_graph(torch, fla_call(fused_recurrent_kda_fwd,
                                                   dict(c, o=torch.empty_like(c["v"]))))
            times = []
            for config in VARIANTS:
                ours = run_launch(launch(c, torch.empty_like(c["v"]), config))
                times.append(time_graph(torch, ours))
            t_ca = time_graph(torch, element_copies.launcher(
                torch, launch(c, torch.empty_like(c["v"]), ELEMENT_COPIES)))
            bound = (1 + T) * B * H * D * D * 4 / bw * 1e6
            best = min(times)
            ops = times[VARIANTS.index(variant_of(launch(c, torch.empty_like(c["v"]))))]
            cells = " ".join(f"{x:>12.2f}" for x in times + [t_ca])
            print(f"{B:>4} {T:>2} | {t_fla:>8.2f} | {cells} | {ops:>7.2f} {t_fla / ops:>7.2f} | "
                  f"{bound:>7.2f} {t_fla / best:>8.2f} {100 * bound / best:>6.1f}%")
            sys.stdout.flush()


def add_arguments(parser):
    parser.add_argument("--variants", action="store_true",
                        help="also time every launch variant at H = 12 (warm)")


if __name__ == "__main__":
    prepare_run_main(__doc__, lambda out_dir, args: prepare(out_dir), run, add_arguments)
