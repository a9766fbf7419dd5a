"""Timing helpers shared by the GPU benchmarks (run on the GPU machine, with torch): CUDA-graph
timing under the warm protocol (time_graph: the same memory every call) and the cold, serving
one (cold_schedule, slot_groups, group_arrays, time_graph_cold: no call finds its slots in L2);
their two-step command line, and the bundle export of their prepare step."""

import argparse
import functools
import json
import math
import os
import statistics
import subprocess
import sys

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def export_gpu_bundle(kt, out_dir, launches):
    """kt.export_bundle of `launches` into `out_dir` with an LLVM-free GPU runtime built from
    this checkout's sources (test/gpu/gpu_runtime.py), so the bundle's runtime reads what this
    compiler writes (tensor-map recipes)."""
    sys.path.insert(0, os.path.join(_ROOT, "test", "gpu"))
    import gpu_runtime

    os.makedirs(out_dir, exist_ok=True)
    runtime = os.path.join(out_dir, "libkda_gpu_runtime.build.so")
    try:
        gpu_runtime.build(runtime)
        return kt.export_bundle(out_dir, launches, runtime=runtime)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot build the GPU runtime for the bundle: {getattr(e, 'stderr', e)}")
    finally:
        if os.path.exists(runtime):
            os.unlink(runtime)


def element_copies_spec(launch):
    """The sm_90a Specialization of an op's Launch (prepared on NumPy stand-ins)."""
    return launch.kernel.specialize(*launch.args, **launch.constexprs,
                                    num_warps=launch.num_warps, target="sm_90a")


def _element_copies_key(spec) -> str:
    return json.dumps([spec.kernel, spec.signature, spec.constexprs, spec.num_warps],
                      sort_keys=True)


def export_element_copies(out_dir, specs) -> int:
    """Compiles each Specialization again with element copies in place of the copy engine
    (`block_copies="elements"`: cp.async for TMA) into out_dir/elements, for ElementCopies to
    time beside the bundle's; returns how many distinct ones."""
    from kdatile import _lib

    elements_dir = os.path.join(out_dir, "elements")
    os.makedirs(elements_dir, exist_ok=True)
    index = {}
    for spec in specs:
        key = _element_copies_key(spec)
        if key in index:
            continue
        cubin = f"{spec.kernel}_{len(index)}.cubin"
        response = _lib.compile(dict(spec.request(), block_copies="elements", emit="cubin",
                                     output=os.path.join(elements_dir, cubin)))
        index[key] = {"kernel": spec.kernel, "cubin": cubin, "params": response["params"],
                      "shared_bytes": int(response.get("shared_bytes") or 0),
                      "num_warps": spec.num_warps}
    with open(os.path.join(elements_dir, "index.json"), "w") as f:
        json.dump(index, f)
    return len(index)


class ElementCopies:
    """The kernels export_element_copies compiled: a launcher for an op's Launch (on CUDA
    tensors) runs the element-copy build of the same specialization with its arguments."""

    def __init__(self, bundle_dir):
        self.dir = os.path.join(bundle_dir, "elements")
        with open(os.path.join(self.dir, "index.json")) as f:
            self.index = json.load(f)
        self.kernels = {}

    def launcher(self, torch, launch):
        """A callable launching the element-copy build of `launch`; it holds `launch` (the
        kernel reads its tensors by address)."""
        from kdatile import gpu

        spec = launch.kernel.specialize(*launch.args, **launch.constexprs,
                                        num_warps=launch.num_warps)
        key = _element_copies_key(spec)
        kernel = self.kernels.get(key)
        if kernel is None:
            meta = self.index[key]
            with open(os.path.join(self.dir, meta["cubin"]), "rb") as f:
                image = f.read()
            kernel = self.kernels[key] = gpu.GPUKernel(
                meta["kernel"], "cuda", "sm_90a", image, "cubin", meta["params"],
                meta["num_warps"], meta["shared_bytes"])
        values = [a.data_ptr() if hasattr(a, "data_ptr") else a
                  for a in (spec.arguments[p["name"]] for p in kernel.params)]
        grid = tuple(launch.grid) + (1,) * (3 - len(launch.grid))
        return functools.partial(_launch_holding, launch, kernel.launch, torch, grid, values,
                                 torch.cuda.current_device())


def _launch_holding(launch, run, *args):
    """run(*args): `launch` is only held, so its tensors outlive the addresses in args."""
    return run(*args)


def prepare_run_main(doc, prepare, run, add_arguments=None):
    """`SCRIPT prepare DIR` (here: compile into a bundle) or `SCRIPT run DIR` (on the GPU
    machine), with `doc` as the help text. With `add_arguments` (a function adding options to
    the argparse parser), the step is called as step(DIR, parsed arguments)."""
    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["prepare", "run"])
    parser.add_argument("dir", help="bundle directory")
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args()
    step = prepare if args.step == "prepare" else run
    if add_arguments is None:
        step(args.dir)
    else:
        step(args.dir, args)


def _replay_median(torch, graph, calls, replays):
    """Median over `replays` back-to-back replays of `graph` (after one untimed replay) of the
    replay's time in microseconds divided by `calls`."""
    graph.replay()
    torch.cuda.synchronize()
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def time_graph(torch, fn, calls=20, replays=25):
    """Median time in microseconds of one call of `fn`: `calls` calls are captured in one
    CUDA graph and replayed back to back, so launch latency is not counted. Every call reads
    and writes the same memory, so what fits in L2 stays there from call to call (warm)."""
    fn()  # warm up: compile/load outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return _replay_median(torch, graph, calls, replays)


# The cold (serving) protocol: between two uses of a group of slots, the calls in between touch
# at least COLD_GAP_BYTES of per-slot arrays (about six times the H200's 50 MB L2), so none of the
# group's per-slot data is left in L2 when its next call reads it.
COLD_GAP_BYTES = 300 << 20
COLD_MIN_CALLS = 20
COLD_REPLAYS = 15
_ALIGN = 256  # bytes: where each group's array starts (what kernels key as aligned: 16)


def cold_schedule(batch, slot_bytes, gap_bytes=COLD_GAP_BYTES, min_calls=COLD_MIN_CALLS):
    """(groups G, calls R) of the cold protocol for calls of `batch` rows, each row reading
    `slot_bytes` bytes of per-slot arrays (state, conv cache, ...; where several kernels are
    compared on the same slots, the smallest of their footprints, so each of them gets at
    least the gap): G = max(2, ceil(gap_bytes / (batch * slot_bytes)) + 1), so the G - 1 calls
    between two uses of a group touch at least gap_bytes of other slots; R, the calls captured
    in one graph, is the smallest multiple of G that is at least min_calls, so call r uses
    group r mod G and the cycle goes on across back-to-back replays. The pool holds G * batch
    slots: about gap_bytes plus two calls' slots, whatever the batch."""
    if batch < 1 or slot_bytes < 1:
        raise ValueError(f"cold_schedule: batch ({batch}) and slot_bytes ({slot_bytes}) must "
                         "be positive")
    groups = max(2, math.ceil(gap_bytes / (batch * slot_bytes)) + 1)
    return groups, groups * math.ceil(min_calls / groups)


def slot_groups(torch, groups, batch, rng, device="cuda"):
    """The slot indices of the cold protocol's groups: `groups` disjoint groups of `batch`
    distinct slots of a pool of groups * batch slots, in random order (a permutation of the
    pool drawn from the NumPy Generator `rng`). A list of int32 tensors [batch] on `device`,
    contiguous views each starting 256-byte aligned (rows of one padded table)."""
    import numpy as np

    perm = rng.permutation(groups * batch).astype(np.int32).reshape(groups, batch)
    width = -(-batch * 4 // _ALIGN) * _ALIGN // 4
    table = np.zeros((groups, width), np.int32)
    table[:, :batch] = perm
    rows = torch.from_numpy(table).to(device)
    return [rows[g, :batch] for g in range(groups)]


def group_arrays(torch, groups, shape, dtype, scale=1.0, device="cuda"):
    """One array of `shape` and `dtype` per group (the cold protocol's per-call inputs and
    outputs), filled with normal values of standard deviation `scale` (floating dtypes; zeros
    otherwise): contiguous views of one allocation, each starting 256-byte aligned, no two
    sharing memory."""
    n = math.prod(shape)
    size = torch.empty((), dtype=dtype).element_size()
    stride = -(-n * size // _ALIGN) * _ALIGN // size
    flat = torch.empty(groups * stride, dtype=dtype, device=device)
    if dtype.is_floating_point:
        flat.normal_(0.0, scale)
    else:
        flat.zero_()
    return [flat[g * stride:g * stride + n].view(shape) for g in range(groups)]


def time_graph_cold(torch, group_calls, calls, replays=COLD_REPLAYS):
    """Median time in microseconds of one call under the cold (serving) protocol.

    Contract: group_calls[g] (g < G = len(group_calls)) runs one call on group g only: its
    slots of every per-slot array (slot_groups over one pool, G from cold_schedule), its own
    per-call inputs and outputs (group_arrays), and weights that all groups share. `calls`
    (R from cold_schedule) must be a multiple of G. Every callable runs once eagerly (loads,
    autotuning and allocator caches stay out of the capture); then R calls, call r running
    group_calls[r mod G], are captured in one CUDA graph, replayed once untimed and `replays`
    times back to back, and a call's time is a replay's over R. With G and R from
    cold_schedule, the calls between two uses of a group touch at least the gap of per-slot
    data, also across replays. Kernels compared side by side get the same groups, so call r of
    each reads the same slots."""
    groups = len(group_calls)
    if groups < 1 or calls < 1 or calls % groups:
        raise ValueError(f"time_graph_cold: {calls} calls are not a positive multiple of "
                         f"{groups} groups")
    for fn in group_calls:
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for r in range(calls):
            group_calls[r % groups]()
    return _replay_median(torch, graph, calls, replays)


def copy_bandwidth(torch):
    """Device-to-device copy bandwidth in bytes/s, counting read + write: the best of torch's
    copy_ on 256 MiB and a Triton copy kernel on 1 GiB, fp32 (on the H200, torch's copy_ of
    1 GiB or more runs at about 2.8 TB/s against 4.2 TB/s for these two)."""
    return max(copy_bandwidths(torch).values())


def copy_bandwidths(torch):
    """{method: bytes/s} of the copies copy_bandwidth takes the best of."""
    results = {}
    for method, mib in (("torch copy_", 256), ("triton copy", 1024)):
        nbytes = mib << 20
        if method == "torch copy_":
            src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
            dst = torch.empty_like(src)
            us = time_graph(torch, functools.partial(dst.copy_, src), calls=5, replays=10)
            del src, dst
        else:
            us = triton_copy_time(torch, nbytes, calls=5, replays=10)
        results[f"{method} {mib} MiB"] = 2 * nbytes / (us * 1e-6)
    return results


@functools.cache
def _triton_copy_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)

    return copy_kernel


def triton_copy_time(torch, nbytes, **timing):
    """Time in us (time_graph) of the Triton copy kernel moving `nbytes` (a multiple of 4) from
    one fp32 buffer to another: what a plain stream of that many bytes takes. Against a 1 GiB
    copy's bandwidth it shows how much of the bound a kernel of this size can reach at all (a
    small copy pays its launch, ramp-up and drain on fewer bytes; one that fits in L2 is
    served from there on replays, and runs faster than the bound)."""
    n = nbytes // 4
    src = torch.empty(n, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    grid = ((n + 1023) // 1024,)
    fn = functools.partial(_triton_copy_kernel()[grid], src, dst, n, BLOCK=1024, num_warps=4)
    return time_graph(torch, fn, **timing)
