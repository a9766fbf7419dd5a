"""GPU launches of `@kt.jit` kernels on torch CUDA / ROCm tensors.

The target comes from the tensors' device: NVIDIA `sm_<major><minor>` from
`torch.cuda.get_device_capability` ("a" added for 9.0, the only NVIDIA target: sm_90a), AMD the
`gcnArchName` of the device properties (gfx950, gfx1250) when torch is a ROCm build
(`torch.version.hip`). Code objects (cubin, PTX or HSACO) are loaded through the C API
(`kda_gpu_load`) once per device and launched with `kda_gpu_launch` on torch's current stream.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import threading

from . import _lib
from .runtime import SCALAR_CTYPES, check_cluster_shape, check_grid_in_clusters, make_scalar

NVIDIA_TARGETS = ("sm_90a",)
AMD_TARGETS = ("gfx950", "gfx1250")
WAVE_SIZES = {"sm_90a": 32, "gfx950": 64, "gfx1250": 32}
# Targets whose tensor-descriptor block copies (kt.async_load / kt.async_store) run on a copy
# engine, asynchronously and without registers (the compiler's TargetHooks::getBlockCopyEngine;
# test_tensor_desc.py checks the two agree): TMA on sm_90a, the Tensor Data Mover on gfx1250,
# bounds-checked buffer loads into LDS (LDS DMA) and buffer stores on gfx950.
BLOCK_COPY_ENGINES = {"sm_90a": "tma", "gfx950": "buffer", "gfx1250": "tdm"}
DEFAULT_NUM_WARPS = 4
# Whether kernels that wait for the previous kernel themselves (kt.wait_prior_launches) are
# launched early (CUDA programmatic stream serialization): KDATILE_EARLY_LAUNCH=0 turns it off,
# as does set_early_launch(False).
_early_launch = os.environ.get("KDATILE_EARLY_LAUNCH", "1") != "0"


def set_early_launch(enabled: bool) -> bool:
    """Turns early launches of kernels with kt.wait_prior_launches on or off for the launches
    that follow (graphs captured before keep theirs); returns the previous setting."""
    global _early_launch
    previous, _early_launch = _early_launch, bool(enabled)
    return previous

# (platform, target) per (torch build, device index): device queries are not free.
_targets: dict = {}


def torch_module():
    return sys.modules.get("torch")


def platform_of(torch) -> str:
    """"hip" on a ROCm build of torch, else "cuda"."""
    version = getattr(torch, "version", None)
    return "hip" if getattr(version, "hip", None) else "cuda"


def device_index(torch, device) -> int:
    index = getattr(device, "index", None)
    return torch.cuda.current_device() if index is None else int(index)


def device_target(torch, index: int) -> tuple[str, str]:
    """(platform, target) of GPU `index`; RuntimeError for GPUs kdatile has no target for."""
    key = (id(torch), index)
    hit = _targets.get(key)
    if hit is not None:
        return hit
    platform = platform_of(torch)
    if platform == "hip":
        arch = str(torch.cuda.get_device_properties(index).gcnArchName).split(":")[0]
        if arch not in AMD_TARGETS:
            raise RuntimeError(f"kdatile: no target for AMD GPU {arch} (device cuda:{index}); "
                               f"supported: {', '.join(AMD_TARGETS)}")
        target = arch
    else:
        major, minor = torch.cuda.get_device_capability(index)
        target = f"sm_{major}{minor}" + ("a" if (major, minor) == (9, 0) else "")
        if target not in NVIDIA_TARGETS:
            raise RuntimeError(f"kdatile: no target for NVIDIA GPU {target} (device "
                               f"cuda:{index}); supported: {', '.join(NVIDIA_TARGETS)}")
    _targets[key] = (platform, target)
    return platform, target


def code_object_emit(target: str) -> str:
    """The emit kind giving a loadable code object for `target`."""
    return "hsaco" if target.startswith("gfx") else "cubin"


def is_capturing(torch) -> bool:
    """Whether torch's current stream is being captured into a CUDA / HIP graph."""
    return bool(torch.cuda.is_current_stream_capturing())


def capture_error(kernel: str, target: str, detail: str) -> RuntimeError:
    return RuntimeError(
        f"kdatile: kernel '{kernel}' ({target}, {detail}) is not compiled and loaded for this "
        "specialization and device, and the current stream is being captured into a CUDA graph, "
        "where compiling or loading is not allowed. Run the kernel once with the same argument "
        "dtypes, constexprs and num_warps (or call kernel.warmup(...)) before capturing."
    )


def _gpu_maker(param):
    """The ctypes object the launch passes for one parameter (pointers as void *)."""
    if param["kind"] == "pointer":
        return ctypes.c_void_p
    short, name = param["dtype"], param["name"]
    if short == "i1":  # 4 bytes: whatever width the back end gives the parameter, low byte first
        return lambda v: ctypes.c_int32(1 if v else 0)
    if short in ("f16", "bf16"):
        return lambda v: make_scalar(short, v, name)
    if short in ("f32", "f64"):
        return SCALAR_CTYPES[short]
    ctype = SCALAR_CTYPES[short]
    return lambda v: ctype(int(v))


# (platform, sha256 of the image, kernel name, device index) -> the loaded function.
_loaded_functions: dict = {}
_loaded_lock = threading.Lock()


class GPUKernel:
    """A compiled GPU kernel: its code object, loaded per device on first launch.

    `params` as in kda_compile's response; `image_kind` is "cubin", "ptx" or "hsaco". Hidden
    "tensor_map" parameters (after the others) are built before each launch from the values
    of the others (`_lib.gpu_encode_tensor_map`, kept for repeated values).
    """

    def __init__(self, name: str, platform: str, target: str, image: bytes, image_kind: str,
                 params: list, num_warps: int, shared_bytes: int = 0, wave_size: int | None = None,
                 cluster_shape=(1, 1, 1), early_launch: bool = False):
        self.name = name
        self.platform = platform
        self.target = target
        self.image = image
        self.image_kind = image_kind
        # What a compile returned (a bundle exports it); `params` are those the caller passes.
        self.all_params = [dict(p) for p in params]
        every = self.all_params
        self.params = [p for p in every if p["kind"] != "tensor_map"]
        self._recipes = [(ctypes.c_int64 * len(p["recipe"]))(*p["recipe"])
                         for p in every if p["kind"] == "tensor_map"]
        self._tensor_maps: dict = {}  # argument values -> the launch's tensor maps
        self.num_warps = int(num_warps)
        self.wave_size = int(wave_size or WAVE_SIZES.get(target, 32))
        self.block = (self.num_warps * self.wave_size, 1, 1)
        self.shared_bytes = int(shared_bytes or 0)
        # Programs per cluster, fixed in the code object (.reqnctapercluster).
        self.cluster_shape = check_cluster_shape(cluster_shape)
        # The kernel calls kt.wait_prior_launches: it may start before the previous one ends.
        self.early_launch = bool(early_launch)
        self.functions: dict = {}  # device index -> CUfunction / hipFunction_t
        self._image_digest = hashlib.sha256(image).digest()
        self._makers = [_gpu_maker(p) for p in self.params]
        self._argv_type = ctypes.c_void_p * max(1, len(self.params) + len(self._recipes))

    def __repr__(self) -> str:
        return (f"<GPUKernel {self.name} for {self.target} ({self.image_kind}, "
                f"block {self.block[0]}, {self.shared_bytes} B shared)>")

    def is_loaded(self, index: int) -> bool:
        return index in self.functions

    def load(self, index: int) -> int:
        """The kernel's function on device `index` (current when called), loading it once per
        process: modules are never unloaded (a captured CUDA graph may still launch them), so
        another GPUKernel of the same image and name reuses the loaded one."""
        fn = self.functions.get(index)
        if fn is None:
            key = (self.platform, self._image_digest, self.name, index)
            with _loaded_lock:
                fn = _loaded_functions.get(key)
                if fn is None:
                    image = self.image
                    if self.image_kind == "ptx" and not image.endswith(b"\0"):
                        image += b"\0"
                    fn = _loaded_functions[key] = _lib.gpu_load(self.platform, image, self.name)
            self.functions[index] = fn
        return fn

    def launch(self, torch, grid3, values, index: int) -> None:
        """Launches on device `index` on torch's current stream for that device."""
        check_grid_in_clusters(self.name, grid3, self.cluster_shape)
        if grid3[0] == 0 or grid3[1] == 0 or grid3[2] == 0:
            return
        if index != torch.cuda.current_device():
            with torch.cuda.device(index):
                return self.launch(torch, grid3, values, index)
        fn = self.functions.get(index)
        if fn is None:
            if is_capturing(torch):
                raise capture_error(self.name, self.target, "not loaded on device "
                                    f"cuda:{index}")
            fn = self.load(index)
        argv = self._argv_type()
        keep = [make(v) for make, v in zip(self._makers, values)]
        if self._recipes:
            keep += self._get_tensor_maps(values)
        addressof = ctypes.addressof
        for i, obj in enumerate(keep):
            argv[i] = addressof(obj)
        stream = torch.cuda.current_stream(index).cuda_stream
        flags = _lib.LAUNCH_EARLY if self.early_launch and _early_launch else 0
        _lib.gpu_launch(self.platform, fn, grid3, self.block, self.shared_bytes, stream, argv,
                        flags)


    def _get_tensor_maps(self, values) -> list:
        """The tensor maps of a launch with `values`, built once per distinct values (a
        few kept: the last launches' pointers and sizes)."""
        key = tuple(values)
        maps = self._tensor_maps.get(key)
        if maps is not None:
            return maps
        args = (ctypes.c_int64 * max(1, len(values)))(
            *[int(v) if isinstance(v, (int, bool)) else 0 for v in values])
        maps = []
        for recipe in self._recipes:
            try:
                maps.append(_lib.gpu_encode_tensor_map(recipe, args))
            except _lib.TensorMapError as e:
                arg = (f"argument '{self.params[e.base_arg]['name']}'"
                       if 0 <= e.base_arg < len(self.params) else "a tensor argument")
                raise ValueError(f"kdatile: kernel '{self.name}': the tensor descriptor over "
                                 f"{arg} cannot be copied by the tensor memory accelerator: "
                                 f"{e}") from None
        if len(self._tensor_maps) >= 64:
            self._tensor_maps.clear()
        self._tensor_maps[key] = maps
        return maps


__all__ = ["GPUKernel", "code_object_emit", "device_target"]
