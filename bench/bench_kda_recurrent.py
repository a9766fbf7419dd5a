#!/usr/bin/env python3
"""KDA multi-token recurrent core on the GPU: kernels/kda_recurrent.py vs FLA's
fused_recurrent_kda_fwd (spec decoding: T tokens per sequence, per-token slots,
num_accepted_tokens), plus a correctness check against the fp64 reference.

    python3 bench/bench_kda_recurrent.py prepare DIR   # here: compile the kernels into a bundle
    python3 bench/bench_kda_recurrent.py run DIR       # on the GPU machine (torch, triton, FLA)

`run` first checks, for every variant (BV, num_warps, PREFETCH_STATE) and fp32 / bf16 pools, a
varlen spec-decode batch with padding tokens and a padding sequence against the fp64 reference
(test/python/kda_recurrent_reference.py; docs/kda.md tolerances). Then it times, for H = 12
and batch in {1, 8, 32, 128, 256}, T in {1, 4}: FLA's core (in-kernel L2-norm, gate and beta
sigmoid, lower bound -5, fp32 [V, K] pool updated in place) and ours, every variant and the one
kdatile.ops runs ("ops"), all replayed from CUDA graphs (median), with the bound of the state
traffic (one state read + T written per sequence and head) at the copy bandwidth measured in
the same run. The prefetching variant copies its starting state with TMA; "pf ca" is the same
kernel compiled with element copies (`block_copies="elements"`: cp.async), timed beside it.
"final" is the op's launch with final_state_only (every output, one state write per sequence
instead of T), beside the per-token states of "ops".
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
from gpu_timing import (
    ElementCopies,
    copy_bandwidth,
    element_copies_spec,
    export_element_copies,
    export_gpu_bundle,
    prepare_run_main,
    time_graph,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("python", "kernels", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))

H, D = 12, 128
BATCHES = (1, 8, 32, 128, 256)
TOKENS = (1, 2, 4, 8)
# (BV, num_warps, PREFETCH_STATE); kdatile.ops runs BV 32 with gpu_launch_options.
VARIANTS = ((128, 8, False), (64, 4, False), (32, 4, False), (32, 4, True), (32, 2, False))
# Compiled again with element copies (cp.async) in place of TMA, under DIR/elements.
ELEMENT_COPIES = (32, 4, True)


def bench_case(B, T, rng):
    """NumPy inputs of a fixed-length spec-decode batch; pool of B*T + 1 fp32 slots."""
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
    at `config` (BV, num_warps, PREFETCH_STATE), or the op's own choice when None."""
    from kdatile.ops.recurrent import recurrent_launch

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
    for c in cases[2:]:
        final = launch(c, np.zeros(c["v"].shape, np.uint16), target="sm_90a",
                       final_state_only=True)
        launches.append((final.kernel, final.args,
                         dict(final.constexprs, num_warps=final.num_warps)))
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


def run(bundle_dir):
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
    print(f"# {torch.cuda.get_device_name(0)}; copy bandwidth {bw / 1e12:.2f} TB/s; H={H}, "
          "fp32 [V,K] pool, times in us (CUDA graph, median)")
    head = " ".join(f"{name(*v):>12}" for v in VARIANTS) + f" {name(*ELEMENT_COPIES) + ' ca':>12}"
    print(f"{'B':>4} {'T':>2} | {'FLA':>8} | {head} | {'ops':>7} {'ops/FLA':>7} | "
          f"{'final':>7} {'ops/final':>9} | {'bound':>7} {'best/FLA':>8} {'%bound':>7}")
    for T in TOKENS:
        for B in BATCHES:
            c = to_torch(torch, bench_case(B, T, np.random.default_rng(B * 10 + T)))
            t_fla = float("nan")
            if fused_recurrent_kda_fwd is not None:
                o_fla = torch.empty_like(c["v"])

                fla = functools.partial(
                    fused_recurrent_kda_fwd, c["q"], c["k"], c["v"], c["g"], c["beta"],
                    A_log=c["A_log"], dt_bias=c["dt_bias"], initial_state=c["state"],
                    inplace_final_state=True, state_v_first=True, ssm_state_indices=c["si"],
                    num_accepted_tokens=c["acc"], use_qk_l2norm_in_kernel=True,
                    use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True, lower_bound=-5.0,
                    out=o_fla)
                t_fla = time_graph(torch, fla)
            times = []
            for config in VARIANTS:
                ours = run_launch(launch(c, torch.empty_like(c["v"]), config))
                times.append(time_graph(torch, ours))
            t_ca = time_graph(torch, element_copies.launcher(
                torch, launch(c, torch.empty_like(c["v"]), ELEMENT_COPIES)))
            t_final = time_graph(torch, run_launch(
                launch(c, torch.empty_like(c["v"]), final_state_only=True)))
            bound = (1 + T) * B * H * D * D * 4 / bw * 1e6
            best = min(times)
            ops = times[VARIANTS.index(variant_of(launch(c, torch.empty_like(c["v"]))))]
            cells = " ".join(f"{x:>12.2f}" for x in times + [t_ca])
            print(f"{B:>4} {T:>2} | {t_fla:>8.2f} | {cells} | {ops:>7.2f} {t_fla / ops:>7.2f} | "
                  f"{t_final:>7.2f} {ops / t_final:>9.2f} | {bound:>7.2f} {t_fla / best:>8.2f} "
                  f"{100 * bound / best:>6.1f}%")
            sys.stdout.flush()
    if not ok:
        sys.exit("correctness check FAILED")


if __name__ == "__main__":
    prepare_run_main(__doc__, prepare, run)
