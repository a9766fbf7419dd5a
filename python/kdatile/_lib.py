"""ctypes bindings of libkda (include/kda/CAPI/kda.h), loaded lazily on first use."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# An installed package holds the library in its native prefix; a source tree has it in build/.
INSTALLED_LIBRARY = os.path.join(PACKAGE_DIR, "_native", "lib", "libkda.so")
SOURCE_TREE_LIBRARY = os.path.normpath(
    os.path.join(PACKAGE_DIR, "..", "..", "build", "lib", "libkda.so")
)

_lock = threading.Lock()
_lib = None
_version = None


class CompilationError(Exception):
    """A DSL error reported by the compiler.

    `str(err)` is exactly the compiler's text: "file:line:col: error: message", the source line
    and a caret under the column (possibly several such diagnostics).
    """

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def library_path() -> str:
    """Where libkda.so is looked for: $KDATILE_LIBRARY, else the installed package's
    kdatile/_native/lib, else the source tree's build/lib."""
    env = os.environ.get("KDATILE_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise RuntimeError(
                f"KDATILE_LIBRARY={env!r} does not name a file; point it at libkda.so"
            )
        return env
    for path in (INSTALLED_LIBRARY, SOURCE_TREE_LIBRARY):
        if os.path.isfile(path):
            return path
    raise RuntimeError(
        "kdatile: cannot find libkda.so (the kdatile compiler library). Install the package "
        "(`pip install .` in the repository), or build it from the repository root with "
        f"`bash .ci/setup` (it lands in {SOURCE_TREE_LIBRARY}), or set "
        "KDATILE_LIBRARY=/path/to/libkda.so. Without the "
        "compiler, GPU kernels can run from an ahead-of-time bundle: KDATILE_BUNDLE=DIR "
        "(see kt.export_bundle)"
    )


def lib() -> ctypes.CDLL:
    """The loaded libkda, loading it on first call."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            path = library_path()
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                raise RuntimeError(f"kdatile: failed to load {path}: {e}") from e
            handle.kda_version.restype = ctypes.c_char_p
            handle.kda_version.argtypes = []
            handle.kda_builtins.restype = ctypes.c_char_p
            handle.kda_builtins.argtypes = []
            handle.kda_cpu_report_out_of_bounds.restype = None
            for name in ("kda_compile", "kda_dependencies"):
                fn = getattr(handle, name)
                fn.restype = ctypes.c_int
                fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
            handle.kda_cpu_launch.restype = ctypes.c_int
            handle.kda_cpu_launch.argtypes = [
                ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p),
            ]
            handle.kda_cpu_launch_in_clusters.restype = ctypes.c_int
            handle.kda_cpu_launch_in_clusters.argtypes = [
                ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p,
                ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p),
            ]
            handle.kda_cpu_target.restype = ctypes.c_int
            handle.kda_cpu_target.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                              ctypes.POINTER(ctypes.c_void_p)]
            handle.kda_missing_cpu_features.restype = ctypes.c_void_p
            handle.kda_missing_cpu_features.argtypes = [ctypes.c_char_p]
            handle.kda_free.restype = None
            handle.kda_free.argtypes = [ctypes.c_void_p]
            _lib = handle
    return _lib


def version() -> str:
    """The compiler build id: kda_version() plus a hash of the library file.

    kda_version() names the release and revision the build was configured at; the file hash
    changes with every rebuild, so a compiler changed without a new configure never reuses
    kernels cached by the old one.
    """
    global _version
    if _version is None:
        handle = lib()
        digest = hashlib.sha256()
        with open(library_path(), "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        _version = f"{handle.kda_version().decode()} build {digest.hexdigest()[:16]}"
    return _version


def out_of_bounds_report() -> int:
    """The address of kda_cpu_report_out_of_bounds, the first word of a bounds table."""
    return ctypes.cast(lib().kda_cpu_report_out_of_bounds, ctypes.c_void_p).value


def builtin_table() -> str:
    """The compiler's builtin table as JSON (kda_builtins)."""
    return lib().kda_builtins().decode()


def _take_string(ptr: ctypes.c_void_p, handle=None) -> str:
    """The text of a string the library returned, freed with that library's kda_free."""
    if not ptr.value:
        return ""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8", errors="replace")
    finally:
        (handle or lib()).kda_free(ptr)


def _call_json(fn_name: str, request: dict) -> dict:
    fn = getattr(lib(), fn_name)
    out = ctypes.c_void_p()
    rc = fn(json.dumps(request).encode(), ctypes.byref(out))
    text = _take_string(out)
    try:
        response = json.loads(text) if text else {}
    except json.JSONDecodeError:
        response = {"ok": False, "error": text}
    if rc != 0 or not response.get("ok", False):
        raise CompilationError(response.get("error") or f"{fn_name} failed (code {rc})")
    return response


_cpu_targets: dict = {}


def cpu_request() -> dict:
    """The "cpu" / "cpu_features" request fields of JIT compiles for the CPU: $KDATILE_CPU
    (default "host": this machine's CPU and features, or an LLVM CPU name such as
    "x86-64-v2" for code that runs on any x86-64 CPU) and $KDATILE_CPU_FEATURES ("+f,-g");
    and "check_bounds" with $KDATILE_CHECK_BOUNDS=1: every global-memory access checked
    against the arrays passed (an access outside raises kt.OutOfBoundsError with the DSL
    line). A kernel compiled in the process keeps the mode it was compiled in."""
    request = {"cpu": os.environ.get("KDATILE_CPU", "host"),
               "cpu_features": os.environ.get("KDATILE_CPU_FEATURES", "")}
    if os.environ.get("KDATILE_CHECK_BOUNDS", "").lower() in ("1", "true", "yes", "on"):
        request["check_bounds"] = True
    return request


def cpu_target(cpu: str = "host", cpu_features: str = "") -> dict:
    """What a request's cpu / cpu_features compile for: {"cpu": name, "cpu_features": the
    instruction-set features the code may use}. Part of the disk-cache key, since "host" means
    another CPU on another machine. Unknown names raise CompilationError."""
    key = (cpu, cpu_features)
    hit = _cpu_targets.get(key)
    if hit is None:
        out = ctypes.c_void_p()
        rc = lib().kda_cpu_target(cpu.encode(), cpu_features.encode(), ctypes.byref(out))
        response = json.loads(_take_string(out) or "{}")
        if rc != 0 or not response.get("ok"):
            raise CompilationError(response.get("error") or "kda_cpu_target failed")
        hit = _cpu_targets[key] = {"cpu": response["cpu"],
                                   "cpu_features": response["cpu_features"]}
    return dict(hit)


def check_cpu_features(library: ctypes.CDLL, kernel: str, path: str) -> None:
    """Raises RuntimeError when the shared object `path` (loaded as `library`) was compiled for
    CPU features this machine lacks: running it could die of an illegal instruction. Objects
    record their features in `<kernel>__kda_cpu_features`."""
    try:
        required = ctypes.string_at(ctypes.addressof(
            ctypes.c_char.in_dll(library, kernel + "__kda_cpu_features"))).decode()
    except ValueError:
        raise RuntimeError(f"{path}: no {kernel}__kda_cpu_features record; it was not built by "
                           "this compiler (recompile it with kda-compile --emit so)") from None
    missing = _take_string(ctypes.c_void_p(lib().kda_missing_cpu_features(required.encode())))
    if missing:
        raise RuntimeError(
            f"{path}: kernel '{kernel}' was compiled for CPU features this machine lacks: "
            f"{missing.replace(',', ', ')}; recompile it here, or for a baseline CPU "
            "(kda-compile --cpu x86-64-v2, or KDATILE_CPU=x86-64-v2 for the JIT)")


def compile(request: dict) -> dict:  # noqa: A001 - mirrors kda_compile
    """kda_compile: returns the response dict or raises CompilationError."""
    return _call_json("kda_compile", request)


def dependencies(request: dict) -> list[str]:
    """kda_dependencies: the DSL files the kernel may read."""
    return list(_call_json("kda_dependencies", request).get("files", []))


def cpu_launch(entry: int, grid: tuple[int, int, int], args, num_threads: int,
               cluster_shape=(1, 1, 1), num_args: int = 0) -> None:
    """Runs a CPU kernel; a kernel with a cluster shape (kt.cluster_sum) other than 1x1x1
    runs in clusters (its `num_args` arguments are followed by the launcher's exchange)."""
    err = ctypes.c_void_p()
    if tuple(cluster_shape) == (1, 1, 1):
        rc = lib().kda_cpu_launch(entry, grid[0], grid[1], grid[2], args, num_threads,
                                  ctypes.byref(err))
    else:
        rc = lib().kda_cpu_launch_in_clusters(entry, grid[0], grid[1], grid[2], *cluster_shape,
                                              args, num_args, num_threads, ctypes.byref(err))
    if rc != 0:
        msg = _take_string(err)
        raise RuntimeError(f"kdatile: kernel launch failed: {msg or f'code {rc}'}")
    if err.value:
        lib().kda_free(err)


# -- GPU runtime (kda_gpu_*) ---------------------------------------------------------------

GPU_RUNTIME_NAME = "libkda_gpu_runtime.so"
_gpu_handles: dict = {}  # library path (None: libkda) -> handle with kda_gpu_* declared


def gpu_runtime_path():
    """The library whose kda_gpu_* functions launch GPU kernels.

    $KDATILE_GPU_RUNTIME, else the first libkda_gpu_runtime.so (the GPU half of the C API,
    built without LLVM) in a $KDATILE_BUNDLE directory, else None: libkda itself.
    """
    env = os.environ.get("KDATILE_GPU_RUNTIME")
    if env:
        if not os.path.isfile(env):
            raise RuntimeError(f"KDATILE_GPU_RUNTIME={env!r} does not name a file; point it at "
                               f"{GPU_RUNTIME_NAME} or libkda.so")
        return env
    for d in os.environ.get("KDATILE_BUNDLE", "").split(os.pathsep):
        path = os.path.join(d, GPU_RUNTIME_NAME) if d else ""
        if path and os.path.isfile(path):
            return path
    return None


def _gpu_lib() -> ctypes.CDLL:
    """The GPU runtime library (see gpu_runtime_path) with kda_gpu_* declared (once)."""
    path = gpu_runtime_path()
    handle = _gpu_handles.get(path)
    if handle is not None:
        return handle
    if path is None:
        try:
            handle = lib()
        except RuntimeError as e:
            if not os.environ.get("KDATILE_BUNDLE"):
                raise
            raise RuntimeError(
                f"kdatile: no GPU runtime for the bundle: put {GPU_RUNTIME_NAME} in the "
                f"KDATILE_BUNDLE directory or set KDATILE_GPU_RUNTIME=/path/to/it ({e})") from e
    else:
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            raise RuntimeError(f"kdatile: failed to load the GPU runtime {path}: {e}") from e
    vp, u32 = ctypes.c_void_p, ctypes.c_uint32
    err = ctypes.POINTER(ctypes.c_void_p)
    handle.kda_gpu_load.restype = ctypes.c_int
    handle.kda_gpu_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.c_char_p, ctypes.POINTER(vp), err]
    handle.kda_gpu_unload.restype = ctypes.c_int
    handle.kda_gpu_unload.argtypes = [ctypes.c_char_p, vp, err]
    launch_dims = [ctypes.c_char_p, vp, u32, u32, u32, u32, u32, u32, u32, vp]
    handle.kda_gpu_launch.restype = ctypes.c_int
    handle.kda_gpu_launch.argtypes = launch_dims + [vp, err]
    if hasattr(handle, "kda_gpu_launch_ex"):  # runtimes before early launches lack it
        handle.kda_gpu_launch_ex.restype = ctypes.c_int
        handle.kda_gpu_launch_ex.argtypes = launch_dims + [u32, vp, err]
    handle.kda_gpu_is_capturing.restype = ctypes.c_int
    handle.kda_gpu_is_capturing.argtypes = [ctypes.c_char_p, vp,
                                            ctypes.POINTER(ctypes.c_int), err]
    if hasattr(handle, "kda_gpu_encode_tensor_map"):  # runtimes before tensor maps lack it
        i64p = ctypes.POINTER(ctypes.c_int64)
        handle.kda_gpu_encode_tensor_map.restype = ctypes.c_int
        handle.kda_gpu_encode_tensor_map.argtypes = [i64p, ctypes.c_size_t, i64p,
                                                     ctypes.c_size_t, vp, i64p, err]
    handle.kda_free.restype = None
    handle.kda_free.argtypes = [ctypes.c_void_p]
    _gpu_handles[path] = handle
    return handle


def _gpu_error(what: str, rc: int, err: ctypes.c_void_p, handle=None) -> RuntimeError:
    msg = _take_string(err, handle)
    return RuntimeError(f"kdatile: {what}: {msg or f'code {rc}'}")


def gpu_load(platform: str, image: bytes, kernel: str) -> int:
    """kda_gpu_load: the kernel's CUfunction / hipFunction_t as an int."""
    fn = ctypes.c_void_p()
    err = ctypes.c_void_p()
    handle = _gpu_lib()
    rc = handle.kda_gpu_load(platform.encode(), image, len(image), kernel.encode(),
                             ctypes.byref(fn), ctypes.byref(err))
    if rc != 0:
        raise _gpu_error(f"loading kernel '{kernel}' failed", rc, err, handle)
    return fn.value


def gpu_unload(platform: str, function: int) -> None:
    err = ctypes.c_void_p()
    handle = _gpu_lib()
    rc = handle.kda_gpu_unload(platform.encode(), function, ctypes.byref(err))
    if rc != 0:
        raise _gpu_error("unloading a kernel failed", rc, err, handle)


LAUNCH_EARLY = 1  # KDA_LAUNCH_EARLY


def gpu_launch(platform: str, function: int, grid, block, shared_bytes: int, stream: int,
               args, flags: int = 0) -> None:
    """kda_gpu_launch_ex; `args` is a ctypes array of pointers to the parameter values,
    `flags` 0 or LAUNCH_EARLY (only for kernels whose compile result has "early_launch").
    A runtime older than early launches launches in order, which every kernel allows (its
    wait for prior launches then returns at once)."""
    err = ctypes.c_void_p()
    handle = _gpu_lib()
    dims = (platform.encode(), function, grid[0], grid[1], grid[2], block[0], block[1],
            block[2], shared_bytes, stream)
    if flags and hasattr(handle, "kda_gpu_launch_ex"):
        rc = handle.kda_gpu_launch_ex(*dims, flags, args, ctypes.byref(err))
    else:
        rc = handle.kda_gpu_launch(*dims, args, ctypes.byref(err))
    if rc != 0:
        raise _gpu_error("kernel launch failed", rc, err, handle)


TENSOR_MAP_BYTES = 128


class TensorMapError(ValueError):
    """A tensor map the launch cannot build; `base_arg` indexes the tensor's pointer
    argument (-1 when unknown)."""

    def __init__(self, message: str, base_arg: int):
        super().__init__(message)
        self.base_arg = base_arg


def gpu_encode_tensor_map(recipe, args):
    """kda_gpu_encode_tensor_map: the 128-byte tensor map (a 128-byte aligned ctypes object, as the
    driver's CUtensorMap)
    of `recipe` (a ctypes int64 array) evaluated on `args` (a ctypes int64 array of the
    kernel parameters' values)."""
    handle = _gpu_lib()
    if not hasattr(handle, "kda_gpu_encode_tensor_map"):
        raise RuntimeError("kdatile: this GPU runtime cannot build tensor maps; use the "
                           "libkda_gpu_runtime.so of the compiler that built the kernel")
    # ctypes aligns arrays to their element only: a larger buffer, used from a boundary.
    raw = (ctypes.c_uint8 * (2 * TENSOR_MAP_BYTES))()
    offset = (-ctypes.addressof(raw)) % TENSOR_MAP_BYTES
    tensor_map = (ctypes.c_uint8 * TENSOR_MAP_BYTES).from_buffer(raw, offset)
    base = ctypes.c_int64(-1)
    err = ctypes.c_void_p()
    rc = handle.kda_gpu_encode_tensor_map(recipe, len(recipe), args, len(args),
                                          ctypes.addressof(tensor_map), ctypes.byref(base),
                                          ctypes.byref(err))
    if rc != 0:
        raise TensorMapError(_take_string(err, handle) or f"code {rc}", base.value)
    return tensor_map


def gpu_is_capturing(platform: str, stream: int) -> int:
    """kda_gpu_is_capturing: 0 (no), 1 (capturing), 2 (invalidated capture)."""
    status = ctypes.c_int(0)
    err = ctypes.c_void_p()
    handle = _gpu_lib()
    rc = handle.kda_gpu_is_capturing(platform.encode(), stream, ctypes.byref(status),
                                     ctypes.byref(err))
    if rc != 0:
        raise _gpu_error("stream capture query failed", rc, err, handle)
    return status.value
