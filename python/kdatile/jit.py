"""`@kt.jit`: the kernel object, launching, and its in-memory cache.

Binding and specialization are in specialize.py (`JITFunction.specialize` returns the
Specialization a launch compiles), the disk cache in cache.py.
"""

from __future__ import annotations

import inspect
import os
import textwrap
import threading

from . import bundle, gpu
from .cache import (
    cache_dir,
    cache_stats,
    clear_cache,
    compile_specialization,
    count,
    new_memory,
    reset_cache_stats,
)
from .runtime import array_extent, normalize_grid
from .specialize import (
    CPU_TARGET,
    Specialization,
    Specializer,
    aligned_key,
    check_num_warps,
    check_target,
    memory_key,
)

__all__ = ["JITFunction", "Specialization", "cache_dir", "cache_stats", "clear_cache", "jit",
           "reset_cache_stats"]


class _Launcher:
    """One compiled specialization, ready to launch: the kernel and, per kernel parameter,
    the index of the JIT parameter whose value it takes."""

    __slots__ = ("kernel", "arg_indices", "written")

    def __init__(self, kernel, arg_indices: list[int]):
        self.kernel = kernel
        self.arg_indices = arg_indices
        # The JIT parameters whose arrays the kernel may store through.
        self.written = [i for p, i in zip(kernel.params, arg_indices) if p.get("written")]

    def check_writable(self, fn_name: str, params, values) -> None:
        """Refuses a read-only NumPy array for a pointer the kernel stores through: a
        read-only memory map would kill the process, an immutable buffer would change."""
        for i in self.written:
            v = values[i]
            flags = getattr(v, "flags", None)
            if flags is not None and not getattr(flags, "writeable", True):
                raise ValueError(f"argument '{params[i].name}' is a read-only array, but kernel "
                                 f"'{fn_name}' stores through it; pass a writable array")


class JITFunction:
    """A kernel: `fn[grid](*args, CONST=value, num_threads=None, num_warps=None)`.

    `grid` is a tuple of 1 to 3 ints or a callable taking a dict of every argument and constexpr
    by name and returning such a tuple. Host arrays run on the CPU target (num_threads: CPU
    threads); torch GPU tensors on the GPU's target (num_warps: warps per block, default 4).
    `fn.specialize(...)` says what a launch compiles without compiling it.
    """

    def __init__(self, fn, *, search_paths=(), do_not_specialize=(), target=None,
                 num_warps=gpu.DEFAULT_NUM_WARPS):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        # None: chosen per launch from the arguments' device; "cpu" or a GPU target: forced.
        self.target = target
        self.num_warps = check_num_warps(num_warps)
        self._lock = threading.Lock()
        self._memory = new_memory()
        self._specializer = Specializer(fn, fn.__name__, do_not_specialize)
        self.params = self._specializer.params
        self.arg_names = [p.name for p in self.params]
        self._load_source(fn)
        self.search_paths = []
        if os.path.isfile(self.filename):
            self.search_paths.append(os.path.dirname(self.filename))
        self.search_paths += [os.path.abspath(s) for s in search_paths]

    # -- source --------------------------------------------------------------------------
    def _load_source(self, fn) -> None:
        """The whole file text for top-level functions; the function's own text otherwise."""
        self.filename = None
        self.line_offset = 0
        try:
            path = inspect.getsourcefile(fn)
        except TypeError:
            path = None
        top_level = "<locals>" not in self.__qualname__ and "." not in self.__qualname__
        if path and os.path.isfile(path) and top_level:
            with open(path, encoding="utf-8") as f:
                self.source = f.read()
            self.filename = os.path.abspath(path)
            self.whole_file = True
            return
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise TypeError(
                f"@kt.jit: cannot get the source of '{fn.__name__}' ({e}); define kernels in a "
                "file, or exec code registered in linecache"
            ) from None
        # The fragment needs the DSL namespace imported under the names the function uses;
        # the import lines go before it, and the line offset accounts for them.
        import sys

        pkg = sys.modules[__package__]
        aliases = sorted(k for k, v in getattr(fn, "__globals__", {}).items() if v is pkg)
        header = "".join(f"import kdatile as {a}\n" for a in aliases if a != "kdatile")
        if "kdatile" in aliases:
            header += "import kdatile\n"
        nheader = header.count("\n")
        if first - 1 < nheader:
            header, nheader = "", 0
        self.source = header + textwrap.dedent("".join(lines))
        self.line_offset = first - 1 - nheader
        if path and os.path.isfile(path):
            self.filename = os.path.abspath(path)
        else:
            self.filename = path or fn.__code__.co_filename or "<kernel>"
        self.whole_file = False

    # -- specialization ------------------------------------------------------------------
    def specialize(self, *args, grid=None, target=None, num_warps=None, assume_aligned=None,
                   **constexprs) -> Specialization:
        """What `fn[grid](*args, **constexprs)` compiles, without compiling it.

        Arguments as for a launch (every argument problem raises as it would there). target:
        None picks it as a launch does (host arrays: "cpu", or the @kt.jit(target=) one; torch
        GPU tensors: their GPU's); "cpu", "sm_90a", "gfx950" or "gfx1250" names it, and then
        host arrays stand for GPU tensors of the same dtype. num_warps: as for a launch (the
        @kt.jit default when None; a `num_warps` constexpr parameter takes it). assume_aligned:
        key every pointer as 16-byte aligned, as GPU allocations are (None: when host arrays
        stand for GPU tensors; False keys them by their addresses). grid: a tuple or a callable
        of the arguments by name, as for launches (None: no grid). `grid`, `target`,
        `num_warps` and `assume_aligned` are therefore not usable as parameter names here.
        """
        if num_warps is not None and "num_warps" in self._specializer.by_name:
            constexprs["num_warps"] = num_warps
            num_warps = None
        values = self._specializer.bind(args, constexprs)
        key, _, device = self._specializer.describe(values)
        target = self._specialization_target(target, device)
        nw = None
        if target != CPU_TARGET:
            nw = self._specializer.resolve_num_warps(values, num_warps, self.num_warps)
        if assume_aligned is None:
            assume_aligned = target != CPU_TARGET and device is None
        if assume_aligned:
            key = aligned_key(key)
        grid3 = None
        if grid is not None:
            grid3 = normalize_grid(grid, self._by_name_values(values) if callable(grid) else None)
        return Specialization(self, key, values, target, nw, grid3)

    def _specialization_target(self, target, device) -> str:
        if target is not None:
            check_target(target)
            if self.target not in (None, target):
                raise ValueError(f"kernel '{self.__name__}' is forced to target "
                                 f"{self.target!r} (@kt.jit(target=...)), not {target!r}")
            if target == CPU_TARGET and device is not None:
                raise ValueError(f"kernel '{self.__name__}': target 'cpu' needs host arrays, "
                                 f"but the arrays are on device '{device}'")
            return target
        if device is None:
            return self.target or CPU_TARGET
        return self._gpu_target(device)[2]

    def _by_name_values(self, values) -> dict:
        return {p.name: values[p.index] for p in self.params}

    # -- compilation and the in-memory cache ---------------------------------------------
    def _launcher(self, kernel) -> _Launcher:
        indices = []
        for p in kernel.params:
            jp = self._specializer.by_name.get(p["name"])
            if jp is None:
                raise RuntimeError(f"kdatile: compiled kernel has unknown parameter {p['name']!r}")
            indices.append(jp.index)
        return _Launcher(kernel, indices)

    def _get(self, key, values, target=CPU_TARGET, num_warps=None, platform=None) -> _Launcher:
        mkey = memory_key(key, target, num_warps)
        launcher = self._memory.get(mkey)
        if launcher is not None:
            count("memory_hits")
            return launcher
        with self._lock:
            launcher = self._memory.get(mkey)
            if launcher is None:
                spec = Specialization(self, key, values, target, num_warps)
                if target != CPU_TARGET and bundle.active():
                    # KDATILE_BUNDLE: precompiled code objects only, no compiler.
                    kernel = bundle.lookup(spec, platform)
                else:
                    kernel = compile_specialization(spec, platform)
                launcher = self._memory[mkey] = self._launcher(kernel)
            return launcher

    def warmup(self, *args, num_warps=None, **kwargs):
        """Compiles (or loads from cache) the specialization these arguments select.

        For GPU tensors the code object is also loaded on their device, so that a later launch
        may be captured into a CUDA graph. Returns the CompiledKernel or GPUKernel.
        """
        if num_warps is not None and "num_warps" in self._specializer.by_name:
            kwargs["num_warps"] = num_warps
            num_warps = None
        values = self._specializer.bind(args, kwargs)
        key, _, device = self._specializer.describe(values)
        if device is None:
            self._check_host_target()
            return self._get(key, values).kernel
        torch, index, platform, target, nw = self._gpu_setup(device, values, num_warps)
        launcher = self._get(key, values, target, nw, platform)
        if index != torch.cuda.current_device():
            with torch.cuda.device(index):
                launcher.kernel.load(index)
        else:
            launcher.kernel.load(index)
        return launcher.kernel

    # -- GPU -----------------------------------------------------------------------------
    def _check_host_target(self) -> None:
        if self.target not in (None, CPU_TARGET):
            raise ValueError(f"kernel '{self.__name__}' is compiled for {self.target}, which needs "
                             "GPU tensors, but every array argument is in host memory")

    def _gpu_target(self, device):
        """(torch, device index, platform, target) of a launch on `device`."""
        torch = gpu.torch_module()
        index = gpu.device_index(torch, device)
        if self.target is None:
            platform, target = gpu.device_target(torch, index)
        elif self.target == CPU_TARGET:
            raise ValueError(f"kernel '{self.__name__}' is compiled for the CPU "
                             f"(@kt.jit(target='cpu')), but its arrays are on device '{device}'")
        else:
            platform, target = gpu.platform_of(torch), self.target
        return torch, index, platform, target

    def _gpu_setup(self, device, values, num_warps):
        """(torch, device index, platform, target, num_warps) of a launch on `device`."""
        torch, index, platform, target = self._gpu_target(device)
        nw = self._specializer.resolve_num_warps(values, num_warps, self.num_warps)
        return torch, index, platform, target, nw

    def _run_gpu(self, grid3, key, values, payloads, device, num_warps):
        torch, index, platform, target, nw = self._gpu_setup(device, values, num_warps)
        launcher = self._memory.get(memory_key(key, target, nw))
        if launcher is not None:
            count("memory_hits")
        else:
            # Compiling (and loading) may synchronize: not during graph capture.
            if gpu.is_capturing(torch):
                raise gpu.capture_error(self.__name__, target, f"num_warps={nw}")
            launcher = self._get(key, values, target, nw, platform)
        launcher.kernel.launch(torch, grid3, [payloads[i] for i in launcher.arg_indices], index)

    # -- launch --------------------------------------------------------------------------
    def run(self, grid, args, kwargs, num_threads=None, num_warps=None):
        if num_warps is not None and "num_warps" in self._specializer.by_name:
            kwargs = dict(kwargs, num_warps=num_warps)
            num_warps = None
        values = self._specializer.bind(args, kwargs)
        key, payloads, device = self._specializer.describe(values)
        if callable(grid):
            grid3 = normalize_grid(grid, self._by_name_values(values))
        else:
            grid3 = normalize_grid(grid)
        if device is not None:
            return self._run_gpu(grid3, key, values, payloads, device, num_warps)
        self._check_host_target()
        launcher = self._get(key, values)
        launcher.check_writable(self.__name__, self._specializer.params, values)
        kernel = launcher.kernel
        extents = [array_extent(values[i]) for i in launcher.arg_indices] \
            if kernel.checks_bounds else None
        kernel.launch(grid3, [payloads[i] for i in launcher.arg_indices], num_threads,
                      extents=extents)

    def __getitem__(self, grid):
        def launcher(*args, num_threads=None, num_warps=None, **kwargs):
            return self.run(grid, args, kwargs, num_threads=num_threads, num_warps=num_warps)

        return launcher

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"@kt.jit kernel '{self.__name__}' must be launched with a grid: "
            f"{self.__name__}[grid](...); inside another kernel it is inlined by the compiler"
        )

    def __repr__(self) -> str:
        return f"<kt.jit kernel {self.__name__} from {self.filename}>"


def jit(fn=None, *, search_paths=(), do_not_specialize=(), target=None,
        num_warps=gpu.DEFAULT_NUM_WARPS):
    """Marks a DSL kernel (or DSL helper). Usable as `@kt.jit` or `@kt.jit(...)`.

    search_paths: extra directories for `import mod` inside the DSL (the kernel file's
    directory is always searched first). do_not_specialize: parameter names whose integer
    values never become constexprs (1) nor get the divisibility hint (16). target: None (the
    default) picks it per launch from the arrays' device (host memory: "cpu"; a torch GPU
    tensor: its GPU's target); a target name forces it. num_warps: the default warps per block
    of GPU launches (a launch's `num_warps=` overrides it).
    """

    def wrap(f):
        return JITFunction(f, search_paths=search_paths, do_not_specialize=do_not_specialize,
                           target=target, num_warps=num_warps)

    if fn is not None:
        return wrap(fn)
    return wrap
