#!/usr/bin/env python3
"""KDA decode on the GPU: kdatile's fused decode kernel vs FLA's fused_recurrent_kda_fwd.

Two steps, because the GPU machine has no LLVM:

    python3 bench/bench_kda_decode.py prepare DIR     # here: compile the kernels into a bundle
    python3 bench/bench_kda_decode.py run DIR         # on the GPU machine (torch, triton, FLA)

`run` prints, for H in {12, 32, 64} and batch in {1, 8, 32, 128, 256}: our fused decode (conv,
norms, gates, delta rule, gated RMSNorm; fp32 and bf16 state; whole heads in steps of 32 rows on 4
warps, with or without two shared-memory stages of asynchronous copies, or of 64 rows on 8 warps, or
in one step on 4 warps, heads split over 2, 4 or 8 programs exchanging through tickets or in a
thread-block cluster, and the launch kdatile.ops picks), FLA's KDA
core alone (`fused_recurrent_kda_fwd` with in-kernel L2-norm, gate and beta sigmoid, lower bound -5,
paged fp32 [V, K] state updated in place) and FLA's whole step (three causal_conv1d_update calls,
the core, and the gated RMSNorm), all replayed from CUDA graphs; times in microseconds, FLA's time
over ours measured in the same run, and the state-traffic bandwidth bound (fp32 state read + write
at the best copy bandwidth measured in the same run). "twin" is decode_traffic_twin.py's kernel,
which moves exactly the fused step's global-memory bytes (state, conv cache, x, gates, output) at
the same slots with almost no arithmetic, at its best launch: what a kernel with this traffic
reaches on the machine, as a percentage of the same bound; "copy" is a plain Triton copy of
exactly the fp32 state's bytes from one buffer to another, as fast as a stream of that size
goes (the bound takes a 1 GiB copy's bandwidth). A second table compares an fp32 [K, V] state:
FLA's core on a [K, V] pool (state_v_first=False) and ours at the launch kdatile.ops picks for
that layout. The protocol is docs/performance.md's: a paged pool of 2*B+1 slots, distinct random
slots, median over many replays.

FLA (fla-core) is installed on the GPU machine, e.g. from a wheel in the git-ignored .whl/;
without it its columns are nan. The staged launch (two shared-memory stages, TMA on sm_90a) is
also timed compiled with element copies (cp.async, "ca") beside it.
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
from gpu_timing import (
    ElementCopies,
    copy_bandwidths,
    element_copies_spec,
    export_element_copies,
    export_gpu_bundle,
    prepare_run_main,
    time_graph,
    triton_copy_time,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("python", "kernels", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))

HEADS = (12, 32, 64)
BATCHES = (1, 8, 32, 128, 256)
D = 128
STATE_DTYPES = ("f32", "bf16")
# (value rows per program BV, value rows per step BLK, shared-memory stages STAGES, warps,
# CLUSTER): the launches decode_config picks, a split head's programs exchanging through
# tickets (False) or in a thread-block cluster (True, what the ops run on the H200).
LAUNCHES = ((128, 32, 2, 4, False), (128, 32, 0, 4, False), (128, 64, 0, 8, False),
            (128, 128, 0, 4, False), (32, 32, 0, 4, False), (16, 16, 0, 4, True),
            (32, 32, 0, 4, True), (64, 64, 0, 4, True), (64, 32, 0, 4, True))
VARIANTS = [(state, *launch) for state in STATE_DTYPES for launch in LAUNCHES]
# The staged launch compiled again with element copies (cp.async) in place of TMA, timed
# beside it ("ca").
STAGED = (128, 32, 2, 4, False)


def numpy_arguments(H, B, state_dtype="f32", state_layout="vk"):
    """kda_decode's arguments at this shape as NumPy stand-ins for CUDA tensors (zeros: only
    shapes and dtypes matter): what the bundle's launches are prepared on."""
    from kdatile.ops.export import decode_arguments

    return decode_arguments(B, fused=False, H=H, D=D, state_dtype=state_dtype,
                            state_layout=state_layout)


def variant_of(launch):
    """The (BV, BLK, STAGES, warps, CLUSTER) of an op's Launch: a key of LAUNCHES."""
    c = launch.constexprs
    return c["BV"], c["BLK"], c["STAGES"], launch.num_warps, c["CLUSTER"]


def ops_launch(B, H, state_dtype="f32", state_layout="vk"):
    """The (BV, BLK, STAGES, warps, CLUSTER) kdatile.ops.kda_decode runs on the H200 (the
    launch it prepares for sm_90a, which assumes the H200's multiprocessors)."""
    from kdatile.ops.decode import decode_launch

    _, launch = decode_launch(**numpy_arguments(H, B, state_dtype, state_layout),
                              target="sm_90a")
    return variant_of(launch)


def prepare(out_dir):
    import kdatile as kt
    from kdatile.ops.decode import decode_launch

    launches = []

    def add(H, B, state_dtype, state_layout="vk", config=None):
        _, launch = decode_launch(**numpy_arguments(H, B, state_dtype, state_layout),
                                  target="sm_90a", config=config)
        launches.append((launch.kernel, launch.args,
                         dict(launch.constexprs, num_warps=launch.num_warps)))

    for H in HEADS:
        for state, *config in VARIANTS:
            # The specialization does not depend on the batch (only the grid does).
            add(H, 8, state, config=config)
        for B in BATCHES:
            add(H, B, "f32", "kv")
    exported = export_gpu_bundle(kt, out_dir, launches)
    print(f"{len(set(exported))} specializations of kda_decode in {out_dir}")
    specs = [element_copies_spec(decode_launch(**numpy_arguments(H, 8, state),
                                               target="sm_90a", config=STAGED)[1])
             for H in HEADS for state in STATE_DTYPES]
    print(f"{export_element_copies(out_dir, specs)} element-copy specializations")


def torch_arguments(torch, H, B, state_dtype, idx, state_layout="vk"):
    """kda_decode's arguments as CUDA tensors, laid out as numpy_arguments lays out the NumPy
    stand-ins (so the bundle's specializations match); the pool has 2*B+1 slots."""
    C, slots, bf = 3 * H * D, 2 * B + 1, torch.bfloat16

    def rnd(*shape, dtype=bf, scale=1.0):
        return (torch.randn(*shape, device="cuda") * scale).to(dtype)

    return dict(
        x=rnd(B, C), conv_weight=rnd(C, 4, scale=0.5), conv_state=rnd(slots, C, 3),
        raw_g=rnd(B, H, D), raw_beta=rnd(B, H), A_log=torch.rand(H, device="cuda"),
        dt_bias=rnd(H * D, dtype=torch.float32, scale=0.5),
        state=rnd(slots, H, D, D, dtype=torch.float32 if state_dtype == "f32" else bf,
                  scale=0.1),
        state_indices=idx, output_gate=rnd(B, H, D),
        norm_weight=(torch.rand(D, device="cuda") + 0.5).to(bf), lower_bound=-5.0,
        state_layout=state_layout, out=torch.empty(B, H, D, device="cuda", dtype=bf))


def torch_launch(torch, H, B, state_dtype, idx, config, state_layout="vk",
                 element_copies=None):
    """A callable running kernels/kda_decode.py at `config` (BV, BLK, STAGES, warps, CLUSTER)
    on fresh CUDA tensors, prepared by the op (decode_launch with config); with
    `element_copies` (an ElementCopies), its element-copy build."""
    from kdatile.ops.decode import decode_launch

    _, launch = decode_launch(**torch_arguments(torch, H, B, state_dtype, idx, state_layout),
                              config=config)
    if element_copies is not None:
        return element_copies.launcher(torch, launch)
    return functools.partial(launch.kernel[launch.grid], *launch.args, **launch.constexprs,
                             num_warps=launch.num_warps)


def fla_baselines(torch, H, B, idx):
    """(core, full, core with a [K, V] pool): FLA's KDA core alone, the decode step as FLA's
    modules run it (three short-convolution updates: q, k, v, separate ShortConvolution
    layers, cache [B, H*D, 4]; the core; the sigmoid-gated RMSNorm: layer_norm_gated_fwd,
    is_rms_norm=True), and the core on a [K, V] pool (state_v_first=False)."""
    from fla.modules.causal_conv1d.ops import causal_conv1d_update
    from fla.modules.norm.fused_norm_gate import layer_norm_gated_fwd
    from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd

    dev, bf = "cuda", torch.bfloat16
    slots = 2 * B + 1
    # q, k, v, g [B, 1, H, D] bf16; beta [B, 1, H]; pool [slots, H, V, K] fp32.
    q, k, v, g = (torch.randn(B, 1, H, D, device=dev, dtype=bf) for _ in range(4))
    beta = torch.randn(B, 1, H, device=dev, dtype=bf)
    A_log = torch.rand(H, device=dev, dtype=torch.float32)
    dt_bias = torch.randn(H * D, device=dev, dtype=torch.float32)
    pool = torch.randn(slots, H, D, D, device=dev, dtype=torch.float32) * 0.1
    out = torch.empty_like(v)

    def core(q, k, v, v_first=True):
        fused_recurrent_kda_fwd(
            q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, initial_state=pool,
            inplace_final_state=True, state_v_first=v_first, ssm_state_indices=idx,
            use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
            use_beta_sigmoid_in_kernel=True, lower_bound=-5.0, out=out)

    xs = [torch.randn(B, H * D, device=dev, dtype=bf) for _ in range(3)]
    caches = [torch.randn(B, H * D, 4, device=dev, dtype=bf) for _ in range(3)]
    weights = [torch.randn(H * D, 4, device=dev, dtype=bf) * 0.5 for _ in range(3)]
    gate = torch.randn(B * H, D, device=dev, dtype=bf)
    norm_w = torch.rand(D, device=dev, dtype=bf) + 0.5

    def full():
        qkv = [causal_conv1d_update(x, c, weight=w, activation="silu")[0].view(B, 1, H, D)
               for x, c, w in zip(xs, caches, weights)]
        core(*qkv)
        layer_norm_gated_fwd(out.view(B * H, D), gate, norm_w, None, activation="sigmoid",
                             eps=1e-5, is_rms_norm=True)

    t_core = time_graph(torch, functools.partial(core, q, k, v))
    t_full = time_graph(torch, full)
    t_core_kv = time_graph(torch, functools.partial(core, q, k, v, v_first=False))
    return t_core, t_full, t_core_kv


def run(bundle_dir):
    import torch

    os.environ["KDATILE_BUNDLE"] = bundle_dir
    from decode_traffic_twin import best_twin_time

    element_copies = ElementCopies(bundle_dir)
    try:
        import fla  # noqa: F401
        have_fla = True
    except ImportError as e:
        print(f"# FLA not importable ({e}); its columns are nan")
        have_fla = False
    bws = copy_bandwidths(torch)
    bw = max(bws.values())
    print(f"# {torch.cuda.get_device_name(0)}; copy bandwidth (read + write): "
          + ", ".join(f"{name} {v / 1e12:.2f} TB/s" for name, v in bws.items())
          + f"; bound uses {bw / 1e12:.2f} TB/s")
    print(f"# kdatile bundle {bundle_dir}; FLA: fused_recurrent_kda_fwd (core) and "
          "3 x causal_conv1d_update + core + layer_norm_gated_fwd (full)")
    print("# times in us (CUDA graph replay, median); x core / x full: FLA's time over ours")
    one = torch.zeros(1, device="cuda")
    floor = time_graph(torch, one.zero_)
    print(f"# an empty launch (a one-element fill) replays in {floor:.2f} us: the floor under "
          "every time below")
    header = " ".join(f"{f'{st} {bv}/{blk}/{s}/{w}' + ('c' if c else ''):>16} {'x core':>6}"
                      for st, bv, blk, s, w, c in VARIANTS)
    header += " " + " ".join(f"{st + ' staged ca':>16} {'ca/TMA':>6}" for st in STATE_DTYPES)
    print(f"{'H':>3} {'B':>4} | {'FLA core':>8} {'FLA full':>8} | {header} | "
          f"{'f32 ops':>8} {'x core':>6} {'x full':>6} {'bf16 ops':>8} {'x core':>6} | "
          f"{'bound':>7} {'%bound':>6} | {'copy':>7} {'%bound':>6} | {'twin':>7} {'launch':>8} "
          f"{'%bound':>6}")
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    kv_rows = []
    for H in HEADS:
        for B in BATCHES:
            slots = 2 * B + 1
            idx = torch.from_numpy(rng.permutation(slots)[:B].astype(np.int32)).to("cuda")
            t_core, t_full, t_core_kv = (fla_baselines(torch, H, B, idx) if have_fla
                                         else (float("nan"),) * 3)
            times = {}
            for state_dtype, *config in VARIANTS:
                ours = torch_launch(torch, H, B, state_dtype, idx, config)
                times[(state_dtype, *config)] = time_graph(torch, ours)
                del ours
            config = ops_launch(B, H, "f32", "kv")
            ours_kv = time_graph(torch, torch_launch(torch, H, B, "f32", idx, config, "kv"))
            bv, blk, stages, warps, cluster = config
            launch = f"{bv}/{blk}/{stages}/{warps}" + ("c" if cluster else "")
            kv_rows.append(f"{H:>3} {B:>4} | {t_core_kv:>8.2f} | {ours_kv:>8.2f} {launch:>12} "
                           f"{t_core_kv / ours_kv:>6.2f}")
            bound = 2 * B * H * D * D * 4 / bw * 1e6  # fp32 state read + write
            copy = triton_copy_time(torch, B * H * D * D * 4)
            twin, twin_launch = best_twin_time(torch, H, B, idx)
            ops32 = times[("f32", *ops_launch(B, H, "f32"))]
            ops16 = times[("bf16", *ops_launch(B, H, "bf16"))]
            cells = " ".join(f"{times[v]:>16.2f} {t_core / times[v]:>6.2f}" for v in VARIANTS)
            for state_dtype in STATE_DTYPES:
                t_ca = time_graph(torch, torch_launch(torch, H, B, state_dtype, idx, STAGED,
                                                      element_copies=element_copies))
                cells += f" {t_ca:>16.2f} {t_ca / times[(state_dtype, *STAGED)]:>6.2f}"
            print(f"{H:>3} {B:>4} | {t_core:>8.2f} {t_full:>8.2f} | {cells} | {ops32:>8.2f} "
                  f"{t_core / ops32:>6.2f} {t_full / ops32:>6.2f} {ops16:>8.2f} "
                  f"{t_core / ops16:>6.2f} | {bound:>7.2f} {100 * bound / ops32:>5.1f}% | "
                  f"{copy:>7.2f} {100 * bound / copy:>5.1f}% | {twin:>7.2f} {twin_launch:>8} "
                  f"{100 * bound / twin:>5.1f}%")
            sys.stdout.flush()

    print("# an fp32 [K, V] state: FLA's core with a [K, V] pool (state_v_first=False) and ours "
          "at the launch kdatile.ops picks")
    print(f"{'H':>3} {'B':>4} | {'FLA core':>8} | {'ours':>8} {'launch':>12} {'x core':>6}")
    print("\n".join(kv_rows))


if __name__ == "__main__":
    prepare_run_main(__doc__, prepare, run)
