"""What the GPU benchmarks share besides the timing protocols (kdatile.testing, re-exported
here: time_graph, the warm one; cold_schedule, slot_groups, group_arrays, time_graph_cold, the
cold serving one): their two-step command line, the bundle export of their prepare step, and
the copy bandwidths their bounds are taken at."""

import argparse
import functools
import json
import os
import subprocess
import sys

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(_ROOT, "python"))

# The timing protocols live in the package (kt.testing), for kernel authors too.
from kdatile.testing import (  # noqa: E402, F401
    COLD_GAP_BYTES,
    COLD_MIN_CALLS,
    COLD_REPLAYS,
    cold_schedule,
    group_arrays,
    slot_groups,
    time_graph,
    time_graph_cold,
)


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
                      "num_warps": spec.num_warps,
                      "cluster_shape": response.get("cluster_shape", [1, 1, 1]),
                      "early_launch": bool(response.get("early_launch"))}
    with open(os.path.join(elements_dir, "index.json"), "w") as f:
        json.dump(index, f)
    return len(index)


class ElementCopies:
    """The kernels export_element_copies compiled: a launcher for an op's Launch (on CUDA
    tensors) runs the element-copy build of the same specialization with its arguments,
    launched as the bundle's build is (cluster shape, early launch)."""

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
                meta["num_warps"], meta["shared_bytes"],
                cluster_shape=tuple(meta.get("cluster_shape", (1, 1, 1))),
                early_launch=meta.get("early_launch", False))
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
