#!/usr/bin/env python3
"""KDA decode on the GPU: kdatile's fused decode kernel vs FLA's KDA core and FLA's whole decode
step, timed under the serving protocol (cold L2, the headline) and the warm one beside it.

Two steps, because the GPU machine has no LLVM:

    python3 bench/bench_kda_decode.py prepare DIR     # here: compile the kernels into a bundle
    python3 bench/bench_kda_decode.py run DIR         # on the GPU machine (torch, triton, FLA)

Both take the same shape options: by default H in {12, 24, 32, 48, 64, 96} heads of D = 128 and
batch B in {1, 2, 4, 8, 16, 32, 64, 128, 256}; `--quick` H in {12, 64}, B in {1, 32, 256};
`--heads 12,32` and `--batches 1,8` pick others. `prepare` compiles every launch `run` makes
for its shapes, the launch variants of `--variants` included, once per specialization (which
depends on H, the state's dtype and layout and the launch, not on B, so the batches of one H
share a few); `run` first checks that the bundle holds them all.

For every shape `run` prints two rows, an fp32 or bf16 state in the [V, K] ("vk") and in the
[K, V] ("kv") layout:
- ours: kernels/kda_decode.py (conv, norms, gates, delta rule, gated RMSNorm) at the launch
  kdatile.ops picks on the H200 (decode_launch prepared for sm_90a), for each state dtype;
- "FLA core": `fused_recurrent_kda_fwd` (in-kernel q/k L2 norm, gate and beta sigmoid, lower
  bound -5, a paged fp32 pool of the row's layout, `state_v_first`, updated in place);
- "FLA full": the step as FLA's modules run it: three `causal_conv1d_update` calls (q, k, v;
  separate caches [B, H*D, 4]), the core, and `layer_norm_gated_fwd` (sigmoid gate, RMS).
Times in microseconds per call, each cold ("c") then warm ("w"); "x core" / "x full" are FLA's
time over ours (FLA runs fp32 states only, so the bf16 ratios are against FLA's fp32 state);
"bound" is the fp32 state read and written once at the best copy bandwidth measured in the run,
"%bnd" its share of our fp32 time; G and R are the cold protocol's groups and calls per graph.

Cold, the serving protocol (gpu_timing.cold_schedule and time_graph_cold): in a server the other
layers' weights and states pass through L2 between two decode steps of a layer, so a sequence's
state is never in L2 when its step reads it. Every per-slot array lives in one pool of G*B slots:
our fp32 and bf16 state pools [G*B, H, D, D] and conv cache [G*B, 3*H*D, 3], the fp32 pool FLA's
core reads (the fp32 state pool), and FLA's three conv caches (G groups of [B, H*D, 4]: FLA's
cache is indexed by the batch row). The pool is cut into G disjoint groups of B distinct random
slots, G = max(2, ceil(300 MiB / (B * S)) + 1) with S = H*D*D*2 + 3*H*D*3*2 bytes, the smallest
per-slot footprint of the calls compared (ours with a bf16 state: the state and the conv cache;
an fp32 state doubles it), so between two uses of a group the other G - 1 calls read and write
at least 300 MiB of other slots' arrays. One CUDA graph captures R calls, R the smallest
multiple of G that is at least 20: call r uses group r mod G, its slots and its own per-call
inputs and outputs (x, raw_g, beta, output gate, out; FLA's q, k, v, g, beta, conv inputs and
gate, one set per group), so they are cold too; the layer's weights (conv weights, A_log,
dt_bias, norm weight: a few KiB per head) are shared by all calls. Each group's call runs once
eagerly, then the graph is replayed once and 15 times back to back (R being a multiple of G, the
cycle goes on across replays); a call's time is a replay's over R, median over the replays.
Every column of a shape runs on the same groups, so call r of each reads the same slots. The
pools stay bounded: G*B*S is at most 300 MiB plus two calls' B*S (an fp32 state pool about
twice that), e.g. at H = 96, B = 256 (G = 2, R = 20) 3.2 GB of fp32 and 1.6 GB of bf16 state.

Warm, the earlier protocol (gpu_timing.time_graph): group 0's call captured 20 times and
replayed 25 times: the same B slots every call, so up to the 50 MB L2 the state stays there
from call to call and small batches run faster than a server sees them.

`--variants` adds a warm table ([V, K] state) over the same shapes: our kernel at every launch
of LAUNCHES for both state dtypes (value rows per program BV, value rows per step BLK,
shared-memory stages, warps; "c": a split head's programs in a thread-block cluster), the
staged launch (two shared-memory stages, TMA on sm_90a) also compiled with element copies
(cp.async, "ca"), a Triton copy of exactly the fp32 state's bytes ("copy", as fast as a stream of
that size goes), and decode_traffic_twin.py's kernel, which moves exactly the fused step's bytes
(at B random slots of its own pool of 2*B+1) with almost no arithmetic, at its best launch
("twin"), both as % of the bound. It adds about 25 graphs per shape: pair it with --quick or a
few --heads.

`--cold-variants` adds a cold table: every launch of LAUNCHES with an fp32 state, [V, K] and
[K, V], beside FLA's core in the same layout, on the same groups of slots, the fastest marked
against the ops' pick (whether the serving protocol favours another launch than the warm
measurements the launch rules came from).

Progress (shape, groups, calls, seconds) goes to stderr. FLA (fla-core) is installed on the GPU
machine, e.g. from a wheel in the git-ignored .whl/; without it its columns are nan.
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
    copy_bandwidths,
    element_copies_spec,
    export_element_copies,
    export_gpu_bundle,
    group_arrays,
    prepare_run_main,
    slot_groups,
    time_graph,
    time_graph_cold,
    triton_copy_time,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("python", "kernels", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))

HEADS = (12, 24, 32, 48, 64, 96)
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
QUICK_HEADS, QUICK_BATCHES = (12, 64), (1, 32, 256)
D = 128
CONV_CACHE = 3  # the conv cache holds the width-4 convolution's 3 previous inputs
STATE_DTYPES = ("f32", "bf16")
LAYOUTS = ("vk", "kv")
NAN = float("nan")
# --variants: (value rows per program BV, value rows per step BLK, shared-memory stages STAGES,
# warps, CLUSTER): the launches decode_config picks, a split head's programs exchanging through
# tickets (False) or in a thread-block cluster (True, what the ops run on the H200).
LAUNCHES = ((128, 32, 2, 4, False), (128, 32, 0, 4, False), (128, 64, 0, 8, False),
            (128, 128, 0, 4, False), (32, 32, 0, 4, False), (16, 16, 0, 4, True),
            (32, 32, 0, 4, True), (64, 64, 0, 4, True), (64, 32, 0, 4, True))
VARIANTS = [(state, *launch) for state in STATE_DTYPES for launch in LAUNCHES]
# The staged launch compiled again with element copies (cp.async) in place of TMA, timed
# beside it ("ca").
STAGED = (128, 32, 2, 4, False)


def add_arguments(parser):
    def sizes(text):
        try:
            values = tuple(int(v) for v in text.split(","))
        except ValueError:
            values = ()
        if not values or min(values) < 1:
            raise ValueError(f"expected positive integers separated by commas, got {text!r}")
        return values

    sizes.__name__ = "list of sizes"
    parser.add_argument("--heads", type=sizes, help="head counts H, e.g. 12,64 (default: "
                        + ",".join(map(str, HEADS)) + ")")
    parser.add_argument("--batches", type=sizes, help="batches B, e.g. 1,32 (default: "
                        + ",".join(map(str, BATCHES)) + ")")
    parser.add_argument("--quick", action="store_true", help="H in {12, 64}, B in {1, 32, 256} "
                        "(--heads / --batches still override)")
    parser.add_argument("--variants", action="store_true",
                        help="run: also time every launch of LAUNCHES (warm table)")
    parser.add_argument("--cold-variants", action="store_true",
                        help="run: also time every launch of LAUNCHES cold, fp32 [V, K] state, "
                        "against FLA's core cold (which launch the serving protocol favours)")
    parser.add_argument("--in-order", action="store_true",
                        help="run: also time ours (fp32) with early launches off "
                        "(KDATILE_EARLY_LAUNCH=0 for those calls), beside the early ones")
    parser.add_argument("--peer", metavar="FILE",
                        help="run: also time a peer decode kernel, fp32 [V, K] state: FILE is a "
                        "Python module defining NAME and make_call(torch, kwargs) -> a callable "
                        "running one step on kdatile.ops.kda_decode's keyword arguments (the "
                        "same tensors, slots and inputs as ours), or None where the peer does "
                        "not support the shape")


def shapes_of(args):
    """The (H, B) pairs the options select."""
    heads = args.heads or (QUICK_HEADS if args.quick else HEADS)
    batches = args.batches or (QUICK_BATCHES if args.quick else BATCHES)
    return [(H, B) for H in heads for B in batches]


def slot_bytes(H):
    """Bytes per slot of the smallest per-slot footprint among the calls compared (ours with a
    bf16 state: its [D, D] state blocks and its conv cache row [3*H*D, 3], bf16): what
    cold_schedule counts, so every column gets at least the gap."""
    return H * D * D * 2 + 3 * H * D * CONV_CACHE * 2


def numpy_arguments(H, B, state_dtype="f32", state_layout="vk"):
    """kda_decode's arguments at this shape as NumPy stand-ins for CUDA tensors (zeros: only
    shapes and dtypes matter): what the bundle's launches are prepared on."""
    from kdatile.ops.export import decode_arguments

    return decode_arguments(B, fused=False, H=H, D=D, state_dtype=state_dtype,
                            state_layout=state_layout)


def variant_of(launch):
    """The (BV, BLK, STAGES, warps, CLUSTER) of an op's Launch: a key of LAUNCHES."""
    from kdatile.ops.decode import decode_config_of

    return tuple(decode_config_of(launch))


def launch_name(config):
    bv, blk, stages, warps, cluster = config
    return f"{bv}/{blk}/{stages}/{warps}" + ("c" if cluster else "")


def numpy_launch(H, B, state_dtype="f32", state_layout="vk", config=None):
    """The Launch kda_decode makes for the H200 at this shape (decode_launch prepared for
    sm_90a, which assumes the H200's multiprocessors), at `config` when given."""
    from kdatile.ops.decode import decode_launch

    return decode_launch(**numpy_arguments(H, B, state_dtype, state_layout), target="sm_90a",
                         config=config)[1]


def ops_launch(B, H, state_dtype="f32", state_layout="vk"):
    """The (BV, BLK, STAGES, warps, CLUSTER) kdatile.ops.kda_decode runs on the H200."""
    return variant_of(numpy_launch(H, B, state_dtype, state_layout))


def bundle_launches(shapes, variants):
    """{specialization key: Launch} of every launch a run of these shapes makes: the ops'
    launch per shape, state dtype and layout, and with `variants` the LAUNCHES and the staged
    launch of each head count (their specializations do not depend on the batch)."""
    from kdatile.bundle import spec_key

    launches = {}

    def add(launch):
        spec = launch.kernel.specialize(*launch.args, **launch.constexprs,
                                        num_warps=launch.num_warps, target="sm_90a")
        launches.setdefault(spec_key(spec), launch)

    for H, B in shapes:
        for state_dtype in STATE_DTYPES:
            for layout in LAYOUTS:
                add(numpy_launch(H, B, state_dtype, layout))
    if variants:
        for H in sorted({H for H, _ in shapes}):
            for state_dtype, *config in VARIANTS:
                add(numpy_launch(H, 8, state_dtype, config=config))
            for config in LAUNCHES:  # the cold table's fp32 [K, V] launches
                add(numpy_launch(H, 8, "f32", "kv", config=config))
    return launches


def prepare(out_dir, args):
    import kdatile as kt

    start = time.time()
    shapes = shapes_of(args)
    launches = bundle_launches(shapes, variants=True)
    exported = export_gpu_bundle(kt, out_dir, [
        (launch.kernel, launch.args, dict(launch.constexprs, num_warps=launch.num_warps))
        for launch in launches.values()])
    print(f"{len(set(exported))} specializations of kda_decode in {out_dir} "
          f"({time.time() - start:.0f} s)")
    specs = [element_copies_spec(numpy_launch(H, 8, state, config=STAGED))
             for H in sorted({H for H, _ in shapes}) for state in STATE_DTYPES]
    print(f"{export_element_copies(out_dir, specs)} element-copy specializations "
          f"({time.time() - start:.0f} s in all)")


def check_bundle(shapes, variants):
    """Raises kdatile's BundleError (which says what is missing or stale) unless the bundles of
    $KDATILE_BUNDLE hold every launch of this run; returns how many specializations it uses."""
    from kdatile import bundle

    launches = bundle_launches(shapes, variants)
    for launch in launches.values():
        bundle.lookup(launch.kernel.specialize(*launch.args, **launch.constexprs,
                                               num_warps=launch.num_warps, target="sm_90a"),
                      "cuda")
    return len(launches)


class Setup:
    """The CUDA arrays of one shape: pools of groups * B slots (fp32 and bf16 states, our conv
    cache), the slots of each group, and each group's per-call inputs and outputs, ours and
    FLA's (whose conv caches are per group: FLA indexes them by the batch row)."""

    def __init__(self, torch, H, B, groups, rng):
        bf, f32 = torch.bfloat16, torch.float32
        C, slots = 3 * H * D, groups * B
        self.H, self.B, self.groups = H, B, groups

        def rnd(*shape, dtype=bf, scale=1.0):
            t = torch.empty(shape, dtype=dtype, device="cuda")
            return t.normal_(0.0, scale)

        def per_group(*shape, dtype=bf):
            return group_arrays(torch, groups, shape, dtype)

        self.idx = slot_groups(torch, groups, B, rng)
        self.state = {"f32": rnd(slots, H, D, D, dtype=f32, scale=0.1),
                      "bf16": rnd(slots, H, D, D, scale=0.1)}
        self.conv_state = rnd(slots, C, CONV_CACHE)
        self.weights = dict(conv_weight=rnd(C, 4, scale=0.5),
                            A_log=torch.rand(H, device="cuda", dtype=f32),
                            dt_bias=rnd(H * D, dtype=f32, scale=0.5),
                            norm_weight=(torch.rand(D, device="cuda") + 0.5).to(bf))
        self.ours = [dict(x=x, raw_g=g, raw_beta=beta, output_gate=gate, out=out)
                     for x, g, beta, gate, out in zip(
                         per_group(B, C), per_group(B, H, D), per_group(B, H),
                         per_group(B, H, D), per_group(B, H, D))]
        # FLA: q, k, v, g [B, 1, H, D] and beta [B, 1, H] bf16 for the core; its step's three
        # conv inputs [B, H*D] and caches [B, H*D, 4], and the norm's gate [B*H, D].
        self.fla_conv_weights = [rnd(H * D, 4, scale=0.5) for _ in range(3)]
        q, k, v, g, out = (per_group(B, 1, H, D) for _ in range(5))
        xs = [per_group(B, H * D) for _ in range(3)]
        caches = [per_group(B, H * D, 4) for _ in range(3)]
        gate = per_group(B * H, D)
        self.fla = [dict(q=q[i], k=k[i], v=v[i], g=g[i], beta=beta, out=out[i],
                         xs=[x[i] for x in xs], caches=[c[i] for c in caches], gate=gate[i])
                    for i, beta in enumerate(per_group(B, 1, H))]


def ours_launch(s, group, state_dtype, layout, config):
    """The Launch of kernels/kda_decode.py on group `group` of `s` at `config` (BV, BLK,
    STAGES, warps, CLUSTER; None: the op's own pick for the tensors' GPU), prepared by the op
    (decode_launch)."""
    from kdatile.ops.decode import decode_launch

    return decode_launch(**s.weights, **s.ours[group], conv_state=s.conv_state,
                         state=s.state[state_dtype], state_indices=s.idx[group],
                         lower_bound=-5.0, state_layout=layout, config=config)[1]


def ours_call(s, group, state_dtype, layout, config, element_copies=None):
    """A callable running ours_launch(...); with `element_copies` (an ElementCopies), its
    element-copy build."""
    import torch

    launch = ours_launch(s, group, state_dtype, layout, config)
    if element_copies is not None:
        return element_copies.launcher(torch, launch)
    return functools.partial(launch.kernel[launch.grid], *launch.args, **launch.constexprs,
                             num_warps=launch.num_warps)


def ours_calls(s, state_dtype, layout, config):
    return [ours_call(s, g, state_dtype, layout, config) for g in range(s.groups)]


def in_order_calls(s, state_dtype, layout, config):
    """ours_calls with early launches off: each call starts after the previous kernel ends,
    though the kernel waits for it itself (kt.wait_prior_launches)."""
    from kdatile import gpu

    def in_order(call):
        previous = gpu.set_early_launch(False)
        try:
            return call()
        finally:
            gpu.set_early_launch(previous)

    return [functools.partial(in_order, c) for c in ours_calls(s, state_dtype, layout, config)]


def fla_calls(s, layout, which):
    """One callable per group: FLA's KDA core alone on the fp32 pool in `layout` (which =
    "core"), or the decode step as FLA's modules run it ("full": three short-convolution
    updates, q, k, v; the core; the sigmoid-gated RMSNorm, layer_norm_gated_fwd with
    is_rms_norm=True)."""
    from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd

    if which == "full":
        causal_conv1d_update, layer_norm_gated_fwd = fla_step_modules()

    H, B, pool, w = s.H, s.B, s.state["f32"], s.weights

    def core(group, q, k, v):
        f = s.fla[group]
        fused_recurrent_kda_fwd(
            q, k, v, f["g"], f["beta"], A_log=w["A_log"], dt_bias=w["dt_bias"],
            initial_state=pool, inplace_final_state=True, state_v_first=layout == "vk",
            ssm_state_indices=s.idx[group], use_qk_l2norm_in_kernel=True,
            use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True, lower_bound=-5.0,
            out=f["out"])

    def full(group):
        f = s.fla[group]
        qkv = [causal_conv1d_update(x, c, weight=cw, activation="silu")[0].view(B, 1, H, D)
               for x, c, cw in zip(f["xs"], f["caches"], s.fla_conv_weights)]
        core(group, *qkv)
        layer_norm_gated_fwd(f["out"].view(B * H, D), f["gate"], w["norm_weight"], None,
                             activation="sigmoid", eps=1e-5, is_rms_norm=True)

    if which == "core":
        return [functools.partial(core, g, s.fla[g]["q"], s.fla[g]["k"], s.fla[g]["v"])
                for g in range(s.groups)]
    return [functools.partial(full, g) for g in range(s.groups)]


def load_peer(path):
    """The --peer module at `path` (None without one)."""
    if path is None:
        return None
    import importlib.util

    spec = importlib.util.spec_from_file_location("decode_peer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def peer_calls(torch, s, peer):
    """The peer's per-group callables on group g's slots and inputs (fp32 [V, K] pool), or
    None where it does not support the shape."""
    calls = [peer.make_call(torch, dict(**s.weights, **s.ours[g], conv_state=s.conv_state,
                                        state=s.state["f32"], state_indices=s.idx[g],
                                        lower_bound=-5.0))
             for g in range(s.groups)]
    return None if calls[0] is None else calls


def fla_step_modules():
    """FLA's causal_conv1d_update and layer_norm_gated_fwd (FLA has moved both between
    releases; the newer location first)."""
    try:
        from fla.modules.convolution import causal_conv1d_update
    except ImportError:
        from fla.modules.causal_conv1d.ops import causal_conv1d_update
    try:
        from fla.modules.fused_norm_gate import layer_norm_gated_fwd
    except ImportError:
        from fla.modules.norm.fused_norm_gate import layer_norm_gated_fwd
    return causal_conv1d_update, layer_norm_gated_fwd


def failed(torch, what, e):
    """Reports a column that failed; a failure that broke the CUDA context ends the run."""
    message = f"# {what} failed: {type(e).__name__}: {e}"
    print(message, flush=True)
    print(message, file=sys.stderr, flush=True)
    torch.cuda.synchronize()


def measure(torch, what, make, calls):
    """(cold, warm) µs per call of the per-group callables make() returns: time_graph_cold of
    `calls` calls, and time_graph of group 0's; (nan, nan) where it fails (reported)."""
    try:
        group_calls = make()
        if group_calls is None:  # not supported by that kernel
            return NAN, NAN
        return time_graph_cold(torch, group_calls, calls), time_graph(torch, group_calls[0])
    except Exception as e:  # an unsupported case must not cost the rest of the run
        failed(torch, what, e)
        return NAN, NAN


def cold(torch, what, make, calls):
    """time_graph_cold of `calls` calls of the per-group callables make() returns; nan where
    it fails (reported)."""
    try:
        return time_graph_cold(torch, make(), calls)
    except Exception as e:  # an unsupported case must not cost the rest of the run
        failed(torch, what, e)
        return NAN


def warm(torch, what, make):
    """time_graph of the callable make() returns; nan where it fails (reported)."""
    try:
        return time_graph(torch, make())
    except Exception as e:  # an unsupported case must not cost the rest of the run
        failed(torch, what, e)
        return NAN


def check_pick(s, state_dtype, layout, config, where):
    """Notes where the op, on this GPU, would pick another launch than the H200's that the
    bundle holds and the run times."""
    try:
        own = variant_of(ours_launch(s, 0, state_dtype, layout, None))
    except Exception as e:  # reported; the measurement reports its own failure
        own = f"nothing ({type(e).__name__}: {e})"
    else:
        if own == config:
            return
        own = launch_name(own)
    print(f"# note: on this GPU the op picks {own} for {where} {state_dtype}; timed: "
          f"{launch_name(config)}, the H200's", flush=True)


def progress(start, step, shapes, H, B, text, shape_start):
    print(f"[{step}/{len(shapes)}] H={H} B={B} {text}: {time.time() - shape_start:.1f} s "
          f"(elapsed {time.time() - start:.0f} s)", file=sys.stderr, flush=True)


def pair(cold, warm, width=8, spec=".2f"):
    return f"{cold:>{width}{spec}} {warm:>{width}{spec}}"


def ratio(a, b):
    return a / b if b == b and b > 0 else NAN


def run(bundle_dir, args):
    start = time.time()
    shapes = shapes_of(args)
    os.environ["KDATILE_BUNDLE"] = bundle_dir
    used = check_bundle(shapes, args.variants or args.cold_variants)
    print(f"# bundle {bundle_dir} holds the {used} specializations of this run",
          file=sys.stderr, flush=True)

    import torch

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
    print("# us per call, CUDA-graph replays, median; each quantity cold (c: the serving "
          "protocol, no slot in L2) then warm (w: the same slots every call)")
    print("# cold: G groups of B random slots in pools of G*B slots, >= 300 MiB of other slots' "
          "arrays between two uses of a group, R calls per graph (call r on group r mod G)")
    print("# ours at the launch kdatile.ops picks; x core / x full: FLA's time over ours (FLA: "
          "fp32 state); bound: fp32 state read + write at the copy bandwidth")
    peer = load_peer(args.peer)
    peer_head = ""
    if peer is not None:
        print(f"# peer {peer.NAME} ({args.peer}): fp32 [V, K] state, on our slots and inputs; "
              f"x {peer.NAME}: its time over ours (fp32)")
        peer_head = (f" | {peer.NAME[:6] + ' c':>8} {peer.NAME[:6] + ' w':>8} "
                     f"{'xpeer c':>7} {'xpeer w':>7}")
    order_head = ""
    if args.in_order:
        print("# in-order: ours fp32 with early launches off; x early: its time over ours")
        order_head = f" | {'inord c':>8} {'inord w':>8} {'xearly c':>8} {'xearly w':>8}"
    one = torch.zeros(1, device="cuda")
    floor = time_graph(torch, one.zero_)
    print(f"# an empty launch (a one-element fill) replays in {floor:.2f} us: the floor under "
          "every time below")
    ours_cols = " ".join(
        f"{st + ' launch':>12} {st + ' c':>8} {st + ' w':>8} {'xcore c':>7} {'xcore w':>7} "
        f"{'xfull c':>7} {'xfull w':>7}" for st in STATE_DTYPES)
    print(f"{'H':>3} {'B':>4} {'lay':>3} {'G':>4} {'R':>4} | {'core c':>8} {'core w':>8} "
          f"{'full c':>8} {'full w':>8} | {ours_cols} | {'bound':>8} {'%bnd c':>6} "
          f"{'%bnd w':>6}{peer_head}{order_head}", flush=True)

    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    fla_core_warm = {}
    for step, (H, B) in enumerate(shapes, 1):
        shape_start = time.time()
        groups, calls = cold_schedule(B, slot_bytes(H))
        s = Setup(torch, H, B, groups, rng)
        bound = 2 * B * H * D * D * 4 / bw * 1e6  # fp32 state read + write
        for layout in LAYOUTS:
            where = f"H={H} B={B} {layout}"
            core = full = (NAN, NAN)
            if have_fla:
                core, full = (measure(torch, f"FLA {which} {where}",
                                      functools.partial(fla_calls, s, layout, which), calls)
                              for which in ("core", "full"))
            if layout == "vk":
                fla_core_warm[H, B] = core[1]
            cells, ours = [], {}
            for state_dtype in STATE_DTYPES:
                config = ops_launch(B, H, state_dtype, layout)
                check_pick(s, state_dtype, layout, config, where)
                t = ours[state_dtype] = measure(
                    torch, f"ours {state_dtype} {where}",
                    functools.partial(ours_calls, s, state_dtype, layout, config), calls)
                cells.append(f"{launch_name(config):>12} {pair(*t)} "
                             f"{pair(ratio(core[0], t[0]), ratio(core[1], t[1]), 7)} "
                             f"{pair(ratio(full[0], t[0]), ratio(full[1], t[1]), 7)}")
            share = [100 * ratio(bound, t) for t in ours["f32"]]
            peer_cells = ""
            if peer is not None:
                t_peer = (NAN, NAN)
                if layout == "vk":
                    t_peer = measure(torch, f"{peer.NAME} {where}",
                                     functools.partial(peer_calls, torch, s, peer), calls)
                f32 = ours["f32"]
                peer_cells = (f" | {pair(*t_peer)} "
                              f"{pair(ratio(t_peer[0], f32[0]), ratio(t_peer[1], f32[1]), 7)}")
            order_cells = ""
            if args.in_order:
                config = ops_launch(B, H, "f32", layout)
                t_io = measure(torch, f"ours in order {where}",
                               functools.partial(in_order_calls, s, "f32", layout, config),
                               calls)
                f32 = ours["f32"]
                order_cells = (f" | {pair(*t_io)} "
                               f"{pair(ratio(t_io[0], f32[0]), ratio(t_io[1], f32[1]))}")
            print(f"{H:>3} {B:>4} {layout:>3} {groups:>4} {calls:>4} | {pair(*core)} "
                  f"{pair(*full)} | {' '.join(cells)} | {bound:>8.2f} {pair(*share, 6, '.1f')}"
                  f"{peer_cells}{order_cells}", flush=True)
        del s
        torch.cuda.empty_cache()
        progress(start, step, shapes, H, B, f"G={groups} R={calls}", shape_start)

    if args.variants:
        run_variants(torch, bundle_dir, shapes, bw, fla_core_warm, start)
    if args.cold_variants:
        run_cold_variants(torch, shapes, have_fla, start)
    print(f"# run took {time.time() - start:.0f} s")


def run_variants(torch, bundle_dir, shapes, bw, fla_core_warm, start):
    """The warm table of every launch of LAUNCHES, the staged launch with element copies, the
    state-sized copy and the traffic twin ([V, K] state, group 0 of a two-group pool)."""
    from decode_traffic_twin import best_twin_time

    element_copies = ElementCopies(bundle_dir)
    print("# warm: every launch of LAUNCHES (BV/BLK/STAGES/warps, c: cluster), [V, K] state; "
          "x core: FLA's warm core time over the variant's; ca: the staged launch with "
          "element copies (cp.async) and its time over TMA's; copy and twin: % of the bound")
    header = " ".join(f"{f'{st} {launch_name(config)}':>16} {'x core':>6}"
                      for st, *config in VARIANTS)
    header += " " + " ".join(f"{st + ' staged ca':>16} {'ca/TMA':>6}" for st in STATE_DTYPES)
    print(f"{'H':>3} {'B':>4} | {'core w':>8} | {header} | {'copy':>8} {'%bound':>6} | "
          f"{'twin':>8} {'launch':>8} {'%bound':>6}", flush=True)
    rng = np.random.default_rng(2)
    for step, (H, B) in enumerate(shapes, 1):
        shape_start = time.time()
        s = Setup(torch, H, B, 2, rng)
        t_core = fla_core_warm.get((H, B), NAN)
        times = {}
        cells = []
        for state_dtype, *config in VARIANTS:
            t = warm(torch, f"ours {state_dtype} {launch_name(config)} H={H} B={B}",
                     functools.partial(ours_call, s, 0, state_dtype, "vk", config))
            times[(state_dtype, *config)] = t
            cells.append(f"{t:>16.2f} {ratio(t_core, t):>6.2f}")
        for state_dtype in STATE_DTYPES:
            t = warm(torch, f"ours {state_dtype} staged ca H={H} B={B}",
                     functools.partial(ours_call, s, 0, state_dtype, "vk", STAGED,
                                       element_copies))
            cells.append(f"{t:>16.2f} {ratio(t, times[(state_dtype, *STAGED)]):>6.2f}")
        del s
        torch.cuda.empty_cache()
        bound = 2 * B * H * D * D * 4 / bw * 1e6
        copy = triton_copy_time(torch, B * H * D * D * 4)
        # The twin's slots: distinct and valid in its own pool of 2*B+1.
        idx = torch.from_numpy(rng.permutation(2 * B + 1)[:B].astype(np.int32)).to("cuda")
        twin, twin_launch = best_twin_time(torch, H, B, idx)
        print(f"{H:>3} {B:>4} | {t_core:>8.2f} | {' '.join(cells)} | {copy:>8.2f} "
              f"{100 * ratio(bound, copy):>5.1f}% | {twin:>8.2f} {twin_launch:>8} "
              f"{100 * ratio(bound, twin):>5.1f}%", flush=True)
        progress(start, step, shapes, H, B, "variants", shape_start)


def run_cold_variants(torch, shapes, have_fla, start):
    """The cold table of every launch of LAUNCHES with an fp32 state in either layout beside
    FLA's core in that layout, on the same groups of slots; "best" is the fastest launch and
    "ops" the one the ops pick."""
    print("# cold: every launch of LAUNCHES (BV/BLK/STAGES/warps, c: cluster), fp32 state, us; "
          "x: FLA's cold core time over the fastest launch's")
    header = " ".join(f"{launch_name(config):>12}" for config in LAUNCHES)
    print(f"{'H':>3} {'B':>4} {'lay':>3} | {'core c':>8} | {header} | {'best':>12} {'x':>5} | "
          f"{'ops':>12} {'x':>5}", flush=True)
    rng = np.random.default_rng(3)
    for step, (H, B) in enumerate(shapes, 1):
        shape_start = time.time()
        groups, calls = cold_schedule(B, slot_bytes(H))
        s = Setup(torch, H, B, groups, rng)
        for layout in LAYOUTS:
            where = f"H={H} B={B} {layout}"
            core = NAN
            if have_fla:
                core = cold(torch, f"FLA core {where}",
                            functools.partial(fla_calls, s, layout, "core"), calls)
            times = {config: cold(torch, f"ours f32 {launch_name(config)} {where}",
                                  functools.partial(ours_calls, s, "f32", layout, config), calls)
                     for config in LAUNCHES}
            finite = {c: t for c, t in times.items() if t == t}
            best = min(finite, key=finite.get) if finite else None
            picked = tuple(ops_launch(B, H, "f32", layout))
            cells = " ".join(f"{times[c]:>12.2f}" for c in LAUNCHES)
            best_cells = (f"{launch_name(best):>12} {ratio(core, finite[best]):>5.2f}" if best
                          else f"{'-':>12} {'-':>5}")
            print(f"{H:>3} {B:>4} {layout:>3} | {core:>8.2f} | {cells} | {best_cells} | "
                  f"{launch_name(picked):>12} {ratio(core, times.get(picked, NAN)):>5.2f}",
                  flush=True)
        del s
        torch.cuda.empty_cache()
        progress(start, step, shapes, H, B, "cold variants", shape_start)


def main():
    prepare_run_main(__doc__, prepare, run, add_arguments)


if __name__ == "__main__":
    main()
