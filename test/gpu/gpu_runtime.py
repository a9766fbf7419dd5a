"""libkda_gpu_runtime.so: the GPU half of the C API (lib/CAPI/CAPIGPU.cpp + lib/Runtime),
built without LLVM, for the GPU machine. One build recipe for the GPU checks (prepare.py)
and the benchmarks' bundles (bench/gpu_timing.py), so neither ships a runtime older than the
compiler that wrote its kernels' parameters (tensor-map recipes)."""

import os
import shutil
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCES = ("lib/CAPI/CAPIGPU.cpp", "lib/Runtime/GPULaunch.cpp", "lib/Runtime/CUDALoader.cpp",
           "lib/Runtime/TensorMap.cpp", "lib/Runtime/HIPLoader.cpp")


def compilers():
    """(C++, C) compilers, or (None, None)."""
    cxx = shutil.which("clang++-22") or shutil.which("clang++") or shutil.which("g++")
    cc = shutil.which("clang-22") or shutil.which("clang") or shutil.which("gcc")
    return (cxx, cc) if cxx and cc else (None, None)


def build(lib):
    """Builds the runtime at `lib`; raises subprocess.CalledProcessError or RuntimeError."""
    cxx, cc = compilers()
    if not cxx:
        raise RuntimeError("no C/C++ compiler found")
    kda_free = lib + ".kda_free.o"
    try:
        subprocess.run([cc, "-O2", "-fPIC", "-c", os.path.join(ROOT, "test/gpu/kda_free.c"),
                        "-o", kda_free], check=True, capture_output=True, text=True)
        subprocess.run([cxx, "-std=c++17", "-O2", "-fPIC", "-shared",
                        f"-I{os.path.join(ROOT, 'include')}",
                        *(os.path.join(ROOT, p) for p in SOURCES), kda_free, "-ldl",
                        "-lpthread", "-o", lib], check=True, capture_output=True, text=True)
    finally:
        if os.path.exists(kda_free):
            os.unlink(kda_free)
