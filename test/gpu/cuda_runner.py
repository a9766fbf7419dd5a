"""A tiny CUDA driver-API runner in pure ctypes, for machines without libkda.

The GPU machine has torch and the NVIDIA driver but no LLVM, so libkda.so (linked against
libLLVM) cannot run there. This module loads the cubin / PTX artifacts that test/gpu/prepare.py
compiled on the build machine with cuModuleLoadData and launches them with cuLaunchKernel on
torch's current stream (or any CUstream), passing arguments the way the C API does: args[i]
points to the value of the i-th parameter, device pointers as `void *`.

    runner = CudaRunner()
    fn = runner.load(open("k.cubin", "rb").read(), "k")
    runner.launch(fn, grid=(4, 1, 1), block=(128, 1, 1), params=manifest_params,
                  values=[x.data_ptr(), 1000], stream=torch.cuda.current_stream().cuda_stream)
"""

from __future__ import annotations

import ctypes
import struct

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
DEFAULT_SHARED_LIMIT = 48 * 1024


class CudaError(RuntimeError):
    """A failed driver call: `.code` is the CUresult, `.name` its CUDA_ERROR_* name."""

    def __init__(self, call: str, code: int, name: str, text: str):
        super().__init__(f"{call} failed: {name} ({code}): {text}")
        self.call, self.code, self.name = call, code, name


def _scalar(dtype: str, value):
    """The ctypes object holding a scalar argument of compiler type `dtype`."""
    if dtype == "f32":
        return ctypes.c_float(float(value))
    if dtype == "f64":
        return ctypes.c_double(float(value))
    if dtype == "i64":
        return ctypes.c_int64(int(value))
    if dtype == "i32":
        return ctypes.c_int32(int(value))
    if dtype == "i16":
        return ctypes.c_int16(int(value))
    if dtype == "i8":
        return ctypes.c_int8(int(value))
    if dtype == "i1":
        return ctypes.c_int32(1 if value else 0)
    if dtype == "f16":
        return ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", float(value)))[0])
    if dtype == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        return ctypes.c_uint16(((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF)
    raise ValueError(f"unsupported scalar type {dtype!r}")


class CudaRunner:
    """libcuda.so.1 through ctypes: load modules, launch kernels, query capture."""

    def __init__(self, library: str = "libcuda.so.1"):
        try:
            self.cu = ctypes.CDLL(library)
        except OSError as e:
            raise RuntimeError(f"{library} not found: {e}") from None
        cu = self.cu
        vp, u32 = ctypes.c_void_p, ctypes.c_uint
        cu.cuGetErrorName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        cu.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        cu.cuInit.argtypes = [u32]
        cu.cuCtxGetCurrent.argtypes = [ctypes.POINTER(vp)]
        cu.cuCtxSetCurrent.argtypes = [vp]
        cu.cuCtxGetDevice.argtypes = [ctypes.POINTER(ctypes.c_int)]
        cu.cuDeviceGet.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        cu.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(vp), ctypes.c_int]
        cu.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
        cu.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
        cu.cuModuleUnload.argtypes = [vp]
        cu.cuFuncSetAttribute.argtypes = [vp, ctypes.c_int, ctypes.c_int]
        cu.cuLaunchKernel.argtypes = [vp, u32, u32, u32, u32, u32, u32, u32, vp, vp, vp]
        cu.cuStreamIsCapturing.argtypes = [vp, ctypes.POINTER(ctypes.c_int)]
        cu.cuCtxSynchronize.argtypes = []
        self.check("cuInit", cu.cuInit(0))
        self._shared_limits: dict = {}
        self._modules: list = []

    def check(self, call: str, rc: int) -> None:
        if rc == 0:
            return
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        self.cu.cuGetErrorName(rc, ctypes.byref(name))
        self.cu.cuGetErrorString(rc, ctypes.byref(text))
        raise CudaError(call, rc, (name.value or b"CUDA error").decode(),
                        (text.value or b"").decode())

    def ensure_context(self) -> int:
        """The current context (torch's), else device 0's primary context; returns the device."""
        ctx = ctypes.c_void_p()
        self.check("cuCtxGetCurrent", self.cu.cuCtxGetCurrent(ctypes.byref(ctx)))
        if not ctx.value:
            dev = ctypes.c_int()
            self.check("cuDeviceGet", self.cu.cuDeviceGet(ctypes.byref(dev), 0))
            self.check("cuDevicePrimaryCtxRetain",
                       self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
            self.check("cuCtxSetCurrent", self.cu.cuCtxSetCurrent(ctx))
        dev = ctypes.c_int()
        self.check("cuCtxGetDevice", self.cu.cuCtxGetDevice(ctypes.byref(dev)))
        return dev.value

    def load(self, image: bytes, kernel: str) -> int:
        """Loads a cubin or PTX image and returns the CUfunction of `kernel`."""
        self.ensure_context()
        if not image.startswith(b"\x7fELF") and not image.endswith(b"\0"):
            image += b"\0"  # PTX text is read up to its NUL
        module = ctypes.c_void_p()
        self.check("cuModuleLoadData", self.cu.cuModuleLoadData(ctypes.byref(module), image))
        fn = ctypes.c_void_p()
        self.check(f"cuModuleGetFunction({kernel})",
                   self.cu.cuModuleGetFunction(ctypes.byref(fn), module, kernel.encode()))
        self._modules.append(module)
        return fn.value

    def pack(self, params, values):
        """(argv, keep-alive) for `values` described by manifest `params`; hidden tensor-map
        parameters (last) are built from the values by the kdatile GPU runtime
        (`tensor_map_runtime`: a ctypes CDLL of libkda_gpu_runtime.so)."""
        maps = [p for p in params if p["kind"] == "tensor_map"]
        params = [p for p in params if p["kind"] != "tensor_map"]
        if len(params) != len(values):
            raise TypeError(f"{len(params)} parameters, {len(values)} values")
        keep = []
        for p, v in zip(params, values):
            if p["kind"] == "pointer":
                keep.append(ctypes.c_void_p(int(v)))
            else:
                keep.append(_scalar(p["dtype"], v))
        if maps:
            ints = [int(v) if p["kind"] == "pointer" or p["dtype"][0] == "i" else 0
                    for p, v in zip(params, values)]
            keep += [self.encode_tensor_map(p["recipe"], ints) for p in maps]
        argv = (ctypes.c_void_p * max(1, len(keep)))()
        for i, obj in enumerate(keep):
            argv[i] = ctypes.addressof(obj)
        return argv, keep

    tensor_map_runtime = None

    def encode_tensor_map(self, recipe, args):
        """The 128-byte aligned 128-byte tensor map of `recipe` on the int arguments `args`."""
        lib = self.tensor_map_runtime
        if lib is None:
            raise RuntimeError("a kernel with tensor maps needs tensor_map_runtime set")
        i64p = ctypes.POINTER(ctypes.c_int64)
        lib.kda_gpu_encode_tensor_map.argtypes = [i64p, ctypes.c_size_t, i64p, ctypes.c_size_t,
                                                  ctypes.c_void_p, i64p,
                                                  ctypes.POINTER(ctypes.c_void_p)]
        raw = (ctypes.c_uint8 * 256)()
        tensor_map = (ctypes.c_uint8 * 128).from_buffer(raw, (-ctypes.addressof(raw)) % 128)
        r = (ctypes.c_int64 * len(recipe))(*recipe)
        a = (ctypes.c_int64 * max(1, len(args)))(*args)
        err = ctypes.c_void_p()
        rc = lib.kda_gpu_encode_tensor_map(r, len(recipe), a, len(args),
                                           ctypes.addressof(tensor_map), None, ctypes.byref(err))
        if rc != 0:
            raise RuntimeError("kda_gpu_encode_tensor_map failed: "
                               + ctypes.string_at(err.value).decode())
        return tensor_map

    def launch(self, fn: int, grid, block, params, values, shared_bytes: int = 0,
               stream: int | None = None) -> None:
        self.ensure_context()
        if shared_bytes > DEFAULT_SHARED_LIMIT and self._shared_limits.get(fn, 0) < shared_bytes:
            self.check("cuFuncSetAttribute", self.cu.cuFuncSetAttribute(
                fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(shared_bytes)))
            self._shared_limits[fn] = shared_bytes
        argv, keep = self.pack(params, values)
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        self.check("cuLaunchKernel", self.cu.cuLaunchKernel(
            fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], int(shared_bytes),
            stream, argv, None))
        del keep

    def capture_status(self, stream: int | None) -> int:
        status = ctypes.c_int()
        self.check("cuStreamIsCapturing",
                   self.cu.cuStreamIsCapturing(stream, ctypes.byref(status)))
        return status.value

    def synchronize(self) -> None:
        self.check("cuCtxSynchronize", self.cu.cuCtxSynchronize())
