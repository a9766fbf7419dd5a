"""The C API's GPU half (kda_gpu_*) and a `--emit header` header on a real GPU.

prepare.py builds libkda_gpu_runtime.so (lib/CAPI/CAPIGPU.cpp + lib/Runtime, no LLVM) and
header_smoke (a C program including the smoke kernel's generated header).
"""

import ctypes
import os
import subprocess

import numpy as np
import pytest

from conftest import MANIFEST, artifact_dir


@pytest.fixture(scope="module")
def capi(manifest, torch_cuda):
    native = manifest.get("native", {})
    if "runtime_library" not in native:
        pytest.skip(f"no runtime library: {native.get('error', 'not built')}")
    torch_cuda.zeros(1, device="cuda")
    lib = ctypes.CDLL(os.path.join(artifact_dir(), native["runtime_library"]))
    vp, u32, err = ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)
    lib.kda_gpu_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                 ctypes.c_char_p, ctypes.POINTER(vp), err]
    lib.kda_gpu_launch.argtypes = [ctypes.c_char_p, vp] + [u32] * 7 + [vp, vp, err]
    lib.kda_gpu_is_capturing.argtypes = [ctypes.c_char_p, vp, ctypes.POINTER(ctypes.c_int), err]
    lib.kda_gpu_unload.argtypes = [ctypes.c_char_p, vp, err]
    lib.kda_free.argtypes = [vp]
    return lib


def _message(lib, err):
    text = ctypes.string_at(err.value).decode()
    lib.kda_free(err)
    return text


def _load(lib, image, name):
    fn, err = ctypes.c_void_p(), ctypes.c_void_p()
    rc = lib.kda_gpu_load(b"cuda", image, len(image), name.encode(), ctypes.byref(fn),
                          ctypes.byref(err))
    return rc, fn, (_message(lib, err) if rc else "")


def _smoke():
    case = [c for c in MANIFEST["cases"] if c["id"] == "smoke_add"][0]
    return case


def _run_smoke(lib, torch, fn, shared_bytes, stream=None):
    case = _smoke()
    data = np.load(os.path.join(artifact_dir(), case["data"]))
    x, y = (torch.from_numpy(data[k]).cuda() for k in ("x", "y"))
    out = torch.zeros_like(x)
    keep = [ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(y.data_ptr()),
            ctypes.c_void_p(out.data_ptr()), ctypes.c_int32(x.numel()), ctypes.c_float(0.5)]
    argv = (ctypes.c_void_p * 5)(*[ctypes.addressof(k) for k in keep])
    err = ctypes.c_void_p()
    if stream is None:
        stream = torch.cuda.current_stream().cuda_stream
    rc = lib.kda_gpu_launch(b"cuda", fn, case["grid"][0], 1, 1, 256, 1, 1, shared_bytes, stream,
                            argv, ctypes.byref(err))
    assert rc == 0, _message(lib, err)
    torch.cuda.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), data["expected_out"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["cubin", "ptx"])
def test_load_and_launch(capi, torch_cuda, kind):
    case = _smoke()
    with open(os.path.join(artifact_dir(), case["files"][kind]), "rb") as f:
        image = f.read()
    rc, fn, msg = _load(capi, image, "smoke_add")
    assert rc == 0, msg
    _run_smoke(capi, torch_cuda, fn, 0)
    # Above 48 KiB of dynamic shared memory the function is opted in first.
    _run_smoke(capi, torch_cuda, fn, 96 * 1024)
    err = ctypes.c_void_p()
    assert capi.kda_gpu_unload(b"cuda", fn, ctypes.byref(err)) == 0


def test_errors_name_the_cuda_error(capi, torch_cuda):
    rc, _, msg = _load(capi, b"\x7fELF garbage" + b"\0" * 64, "k")
    assert rc != 0 and "cuModuleLoadData failed: CUDA_ERROR_" in msg
    with open(os.path.join(artifact_dir(), _smoke()["files"]["cubin"]), "rb") as f:
        rc, _, msg = _load(capi, f.read(), "no_such_kernel")
    assert rc != 0 and "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND" in msg


def test_is_capturing(capi, torch_cuda):
    torch = torch_cuda
    status, err = ctypes.c_int(-1), ctypes.c_void_p()
    stream = torch.cuda.current_stream().cuda_stream
    assert capi.kda_gpu_is_capturing(b"cuda", stream, ctypes.byref(status), ctypes.byref(err)) == 0
    assert status.value == 0
    with open(os.path.join(artifact_dir(), _smoke()["files"]["cubin"]), "rb") as f:
        rc, fn, msg = _load(capi, f.read(), "smoke_add")
    assert rc == 0, msg
    graph = torch.cuda.CUDAGraph()
    x = torch.zeros(1, device="cuda")
    with torch.cuda.graph(graph):
        s = torch.cuda.current_stream().cuda_stream
        capi.kda_gpu_is_capturing(b"cuda", s, ctypes.byref(status), ctypes.byref(err))
        x += 1
    assert status.value == 1


def test_hip_is_absent_here(capi):
    fn, err = ctypes.c_void_p(), ctypes.c_void_p()
    rc = capi.kda_gpu_load(b"hip", b"x", 1, b"k", ctypes.byref(fn), ctypes.byref(err))
    assert rc != 0 and "libamdhip64.so" in _message(capi, err)


def test_generated_header(manifest, torch_cuda):
    native = manifest.get("native", {})
    if "header_smoke" not in native:
        pytest.skip(f"header_smoke not built: {native.get('error', '')}")
    exe = os.path.join(artifact_dir(), native["header_smoke"])
    os.chmod(exe, 0o755)
    proc = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "header_smoke: ok" in proc.stdout, proc.stdout + proc.stderr
    assert "bad grid: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE" in proc.stdout
