"""Loads the DSL kernels the ops launch.

The directory is $KDATILE_KERNELS when set, else the installed package's kdatile/kernels, else
the source tree's `kernels/` next to the `python/` folder that holds this package. A kernel
module already imported from that file (tests put kernels/ on sys.path) is reused, so both
share one JITFunction and its in-memory cache.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import threading
from typing import NamedTuple

from .._lib import PACKAGE_DIR

_lock = threading.Lock()
_loaded: dict = {}


def kernels_dir() -> str:
    env = os.environ.get("KDATILE_KERNELS")
    if env:
        return os.path.abspath(env)
    installed = os.path.join(PACKAGE_DIR, "kernels")
    if os.path.isdir(installed):
        return installed
    return os.path.abspath(os.path.join(PACKAGE_DIR, "..", "..", "kernels"))


def load_kernel(module: str, name: str):
    """The @kt.jit kernel `name` of kernels/<module>.py."""
    key = (module, name)
    hit = _loaded.get(key)
    if hit is not None:
        return hit
    with _lock:
        path = os.path.join(kernels_dir(), module + ".py")
        if not os.path.isfile(path):
            raise RuntimeError(f"kdatile.ops: kernel file {path} not found; reinstall kdatile, "
                               "or set KDATILE_KERNELS to the directory holding the KDA "
                               "kernels (kernels/ of the kdatile source tree)")
        # Kernel files import each other's DSL helpers by module name (`from kda_decode
        # import conv_taps`), as the compiler resolves them: from the kernels directory.
        if kernels_dir() not in sys.path:
            sys.path.append(kernels_dir())
        real = os.path.realpath(path)
        mod = sys.modules.get(module)
        if mod is None or os.path.realpath(getattr(mod, "__file__", "") or "") != real:
            qual = f"kdatile.ops._kernels_{module}"
            mod = sys.modules.get(qual)
            if mod is None:
                spec = importlib.util.spec_from_file_location(qual, path)
                mod = importlib.util.module_from_spec(spec)
                sys.modules[qual] = mod
                try:
                    spec.loader.exec_module(mod)
                except BaseException:
                    del sys.modules[qual]
                    raise
        kernel = getattr(mod, name)
        _loaded[key] = kernel
        return kernel


def pow2_at_least(n: int) -> int:
    """The least power of two >= n (1 for n <= 1): the padded width of a head dim."""
    return 1 << max(0, (n - 1).bit_length())


class Launch(NamedTuple):
    """One kernel launch an op decided on: `kernel[grid](*args, **constexprs)` (plus num_warps=
    when not None: GPU targets)."""

    kernel: object
    args: tuple
    constexprs: dict
    grid: tuple
    num_warps: int | None


def execute(out, launch):
    """Runs an op's launch (None: nothing to launch) and returns its output."""
    if launch is not None:
        opts = {} if launch.num_warps is None else {"num_warps": launch.num_warps}
        launch.kernel[launch.grid](*launch.args, **launch.constexprs, **opts)
    return out


def bind(op, args: tuple, kwargs: dict) -> dict:
    """The arguments of a call op(*args, **kwargs) by parameter name, defaults filled in."""
    bound = inspect.signature(op).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def check_target(target):
    """A launch's target: None (the arrays' device) or a target name the compiler knows."""
    if target is None:
        return None
    from .. import specialize

    try:
        return specialize.check_target(target)
    except ValueError as e:
        raise ValueError(f"argument 'target': {e}") from None


def on_gpu(device: str, target) -> bool:
    """Whether a launch targets a GPU: `target` when given ("cpu" or a GPU target such as
    "sm_90a"), else the arrays' device."""
    return device != "cpu" if target is None else target != "cpu"


# Multiprocessors of the GPU the launch rules were measured on (the H200): what a launch
# prepared for a named target (NumPy stand-ins, bundles) assumes.
H200_MULTIPROCESSORS = 132


def _device_index(torch, ref) -> int:
    """The CUDA device index of `ref` (an ArrayInfo of a torch GPU tensor): its own, or the
    current device for a tensor without one."""
    index = ref.value.device.index
    return torch.cuda.current_device() if index is None else index


def multiprocessors(ref, target) -> int:
    """The multiprocessors of the GPU holding `ref` (an ArrayInfo of a torch CUDA tensor), or
    H200_MULTIPROCESSORS when the launch is prepared for a named `target`."""
    if target is not None or ref.device == "cpu" or not ref.is_torch:
        return H200_MULTIPROCESSORS
    import torch

    return torch.cuda.get_device_properties(_device_index(torch, ref)).multi_processor_count


def gpu_target(ref, target):
    """The launch's target: `target` when given, else that of the GPU holding `ref` (an
    ArrayInfo), or None for host arrays."""
    if target is None:
        if ref.device == "cpu" or not ref.is_torch:
            return None
        import torch

        from .. import gpu

        target = gpu.device_target(torch, _device_index(torch, ref))[1]
    return target


def has_clusters(ref, target) -> bool:
    """Whether the launch's GPU runs programs in thread-block clusters that exchange through
    shared memory (kt.cluster_sum; NVIDIA sm_90a): `target` when given, else the GPU holding
    `ref` (an ArrayInfo)."""
    # sm_90 is the compiler's alias of sm_90a.
    return gpu_target(ref, target) in ("sm_90a", "sm_90")


def wave_size(ref, target) -> int:
    """The lanes of a warp (wave) on the launch's GPU (gpu.WAVE_SIZES), 32 on the CPU target:
    `target` when given, else the GPU holding `ref` (an ArrayInfo)."""
    from .. import gpu

    found = gpu_target(ref, target)
    return gpu.WAVE_SIZES.get("sm_90a" if found == "sm_90" else found, 32)


def has_block_copy_engine(ref, target) -> bool:
    """Whether kt.async_load runs on a copy engine on the launch's GPU (gpu.BLOCK_COPY_ENGINES:
    TMA on NVIDIA, the Tensor Data Mover on gfx1250, buffer loads into LDS on gfx950):
    `target` when given, else the GPU holding `ref` (an ArrayInfo)."""
    from .. import gpu

    found = gpu_target(ref, target)
    return gpu.BLOCK_COPY_ENGINES.get("sm_90a" if found == "sm_90" else found) is not None
