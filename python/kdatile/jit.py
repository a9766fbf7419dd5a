"""`@kt.jit`: specialization, in-memory and on-disk caches, launching."""

from __future__ import annotations

import ctypes
import hashlib
import inspect
import json
import math
import os
import tempfile
import textwrap
import threading

from . import _lib, bundle, gpu
from .language import constexpr, dtype, pointer_type, to_dtype
from .runtime import (
    CompiledKernel,
    describe_array,
    describe_scalar,
    normalize_grid,
    what_is,
)

_stats = {"memory_hits": 0, "disk_hits": 0, "compiles": 0}
_all_jit_functions: list = []


def cache_stats() -> dict:
    """Process-wide counters: memory_hits, disk_hits, compiles (kda_compile calls)."""
    return dict(_stats)


def reset_cache_stats() -> None:
    for k in _stats:
        _stats[k] = 0


def cache_dir() -> str:
    """$KDATILE_CACHE_DIR, else ~/.cache/kdatile."""
    env = os.environ.get("KDATILE_CACHE_DIR")
    if env:
        return env
    return os.path.join(os.path.expanduser("~"), ".cache", "kdatile")


def clear_cache(disk: bool = True) -> None:
    """Forgets every in-memory specialization and, with `disk`, removes the on-disk cache."""
    for fn in _all_jit_functions:
        fn._memory.clear()
    if disk:
        import shutil

        shutil.rmtree(cache_dir(), ignore_errors=True)


def _is_constexpr_annotation(ann) -> bool:
    if ann is constexpr or isinstance(ann, constexpr):
        return True
    return isinstance(ann, str) and ann.split(".")[-1] == "constexpr"


def _scalar_annotation(ann):
    """The kt dtype a parameter is annotated with (`n: kt.int32`), or None."""
    if isinstance(ann, dtype):
        return ann
    if isinstance(ann, str):
        return to_dtype(ann.split(".")[-1])
    return None


def _pointer_annotation(ann):
    """The kt.pointer_type a parameter is annotated with (`x: kt.pointer`), or None."""
    if isinstance(ann, pointer_type):
        return ann
    if isinstance(ann, str) and ann.split(".")[-1] == "pointer":
        return pointer_type()
    return None


class _Param:
    __slots__ = ("name", "index", "is_constexpr", "default", "scalar_type", "pointer",
                 "specialize")

    def __init__(self, name, index, is_constexpr, default, annotation, specialize):
        self.name = name
        self.index = index
        self.is_constexpr = is_constexpr
        self.default = default
        self.scalar_type = None if is_constexpr else _scalar_annotation(annotation)
        self.pointer = None if is_constexpr else _pointer_annotation(annotation)
        self.specialize = specialize


_NO_DEFAULT = inspect.Parameter.empty


def _constexpr_value(name: str, value):
    """(json value, key) of a constexpr value; TypeError naming `name` if unsupported."""
    if isinstance(value, bool):
        return value, ("b", value)
    if isinstance(value, int):
        return value, ("i", value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"constexpr '{name}': non-finite value {value!r}")
        return value, ("f", value)
    d = to_dtype(value)
    if d is not None and not isinstance(value, (int, float)):
        return d.short, ("d", d.short)
    import sys

    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic):
        return _constexpr_value(name, value.item())
    raise TypeError(
        f"constexpr '{name}' must be an int, float, bool or kt dtype, got {what_is(value)}"
    )


class _Specialization:
    """One compiled specialization, ready to launch."""

    __slots__ = ("kernel", "arg_indices")

    def __init__(self, kernel: CompiledKernel, arg_indices: list[int]):
        self.kernel = kernel
        self.arg_indices = arg_indices


class JITFunction:
    """A kernel: `fn[grid](*args, CONST=value, num_threads=None, num_warps=None)`.

    `grid` is a tuple of 1 to 3 ints or a callable taking a dict of every argument and constexpr
    by name and returning such a tuple. Host arrays run on the CPU target (num_threads: CPU
    threads); torch GPU tensors on the GPU's target (num_warps: warps per block, default 4).
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
        self.num_warps = self._check_num_warps(num_warps)
        self._lock = threading.Lock()
        self._memory: dict = {}
        sig = inspect.signature(fn)
        self.params: list[_Param] = []
        for i, p in enumerate(sig.parameters.values()):
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                raise TypeError(f"@kt.jit kernel '{fn.__name__}': parameter '{p.name}' must be a "
                                "plain positional-or-keyword parameter")
            is_ce = _is_constexpr_annotation(p.annotation)
            self.params.append(_Param(p.name, i, is_ce, p.default, p.annotation,
                                      p.name not in do_not_specialize))
        self._by_name = {p.name: p for p in self.params}
        self._load_source(fn)
        self.search_paths = []
        if os.path.isfile(self.filename):
            self.search_paths.append(os.path.dirname(self.filename))
        self.search_paths += [os.path.abspath(s) for s in search_paths]
        _all_jit_functions.append(self)

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

    # -- binding -------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        params = self.params
        n = len(params)
        if len(args) > n:
            raise TypeError(f"{self.__name__}() takes {n} arguments but {len(args)} were given")
        values = list(args) + [_NO_DEFAULT] * (n - len(args))
        for i in range(len(args)):
            if params[i].is_constexpr:
                raise TypeError(f"{self.__name__}(): '{params[i].name}' is a kt.constexpr "
                                "parameter; pass it by keyword")
        for k, v in kwargs.items():
            p = self._by_name.get(k)
            if p is None:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{k}'")
            if values[p.index] is not _NO_DEFAULT:
                raise TypeError(f"{self.__name__}() got multiple values for argument '{k}'")
            values[p.index] = v
        for p in params:
            if values[p.index] is _NO_DEFAULT:
                if p.default is _NO_DEFAULT:
                    what = "constexpr" if p.is_constexpr else "argument"
                    raise TypeError(f"{self.__name__}() missing required {what} '{p.name}'")
                values[p.index] = p.default
        return values

    def _specialize(self, values):
        """(key, payloads) of a launch; see _specialize_args."""
        key, payloads, _ = self._specialize_args(values)
        return key, payloads

    def _specialize_args(self, values):
        """The cache key and the per-parameter description of one launch.

        Returns (key, payloads, device): payloads[i] is the address or the scalar of runtime
        parameter i; device None for host arrays, else the torch.device of every GPU tensor
        (arrays on different devices, or host arrays mixed with GPU tensors, are ValueErrors
        naming the parameter).
        """
        key = []
        payloads = [None] * len(values)
        device = device_arg = host_arg = None
        for p in self.params:
            v = values[p.index]
            name = p.name
            if p.is_constexpr:
                _, k = _constexpr_value(name, v)
                key.append(k)
                continue
            if v is None:
                raise TypeError(f"argument '{name}' is None")
            ptr = describe_array(name, v)
            if ptr is not None:
                dev = ptr[2]
                if dev is None:
                    if device is not None:
                        raise ValueError(
                            f"argument '{name}' is {what_is(v)} on the CPU, but argument "
                            f"'{device_arg}' is on device '{device}'; all arrays of one launch "
                            "must be on the same device")
                    host_arg = host_arg or name
                elif host_arg is not None:
                    raise ValueError(
                        f"argument '{name}': tensor is on device '{dev}', but argument "
                        f"'{host_arg}' is on the CPU; all arrays of one launch must be on the "
                        "same device")
                elif device is None:
                    device, device_arg = dev, name
                elif (dev.type, getattr(dev, "index", None)) != (
                        device.type, getattr(device, "index", None)):
                    raise ValueError(
                        f"argument '{name}': tensor is on device '{dev}', but argument "
                        f"'{device_arg}' is on device '{device}'; all arrays of one launch must "
                        "be on the same device")
                if p.scalar_type is not None:
                    raise TypeError(f"argument '{name}' must be a scalar ({p.scalar_type.name}), "
                                    f"got {what_is(v)}")
                want = p.pointer.element_ty if p.pointer is not None else None
                if want is not None and want.short != ptr[0]:
                    raise TypeError(f"argument '{name}' must point to {want.name}, got "
                                    f"{what_is(v)}")
                payloads[p.index] = ptr[1]
                key.append(("p", ptr[0], ptr[1] % 16 == 0))
                continue
            if p.pointer is not None:
                raise TypeError(f"argument '{name}' must be an array or tensor ({p.pointer!r}), "
                                f"got {what_is(v)}")
            short = describe_scalar(name, v)
            if short is None:
                raise TypeError(f"argument '{name}': unsupported type {type(v).__name__} (expected "
                                "an array, a tensor, an int, a float or a bool)")
            if p.scalar_type is not None:
                want = p.scalar_type.short
                if short == "i1" and want != "i1" or (
                    short[0] == "f" and want[0] != "f" and want != "bf16"
                ):
                    raise TypeError(f"argument '{name}' must be {p.scalar_type.name}, got "
                                    f"{what_is(v)}")
                short = want
                iv = v if isinstance(v, int) and not isinstance(v, bool) else None
                if iv is not None and short in ("i8", "i16", "i32", "i64"):
                    bits = int(short[1:])
                    if not -(2 ** (bits - 1)) <= iv < 2 ** (bits - 1):
                        raise OverflowError(f"argument '{name}': {iv} does not fit in {short}")
                payloads[p.index] = v
                key.append(("s", short, iv is not None and iv % 16 == 0))
                continue
            if short[0] == "i" and short != "i1":
                iv = int(v)
                if iv == 1 and p.specialize:
                    key.append(("one",))
                    continue
                payloads[p.index] = v
                key.append(("s", short, p.specialize and iv % 16 == 0))
            else:
                payloads[p.index] = v
                key.append(("s", short, False))
        return tuple(key), payloads, device

    @staticmethod
    def _check_num_warps(num_warps) -> int:
        if isinstance(num_warps, bool) or not isinstance(num_warps, int) or not (
                1 <= num_warps <= 32):
            raise ValueError(f"num_warps must be an int in [1, 32], got {num_warps!r}")
        return num_warps

    def _request(self, key, values, target="cpu", num_warps=None) -> dict:
        sig_items = []
        constexprs = {}
        for p, k in zip(self.params, key):
            v = values[p.index]
            if p.is_constexpr:
                constexprs[p.name] = _constexpr_value(p.name, v)[0]
            elif k[0] == "one":
                constexprs[p.name] = 1
            elif k[0] == "p":
                sig_items.append(f"{p.name}=*{k[1]}" + (":16" if k[2] else ""))
            else:
                sig_items.append(f"{p.name}={k[1]}" + (":16" if k[2] else ""))
        request = {
            "source": self.source,
            "filename": self.filename,
            "kernel": self.__name__,
            "target": target,
            "signature": ",".join(sig_items),
            "constexprs": constexprs,
            "search_paths": self.search_paths,
            "stdlib_dir": _lib.PACKAGE_DIR,
        }
        if self.line_offset:
            request["line_offset"] = self.line_offset
        if target != "cpu":
            request["num_warps"] = num_warps
        return request

    # -- compilation and caches ----------------------------------------------------------
    def _disk_key(self, request: dict) -> str:
        files = _lib.dependencies(request)
        h = hashlib.sha256()

        def feed(tag: str, data) -> None:
            if isinstance(data, str):
                data = data.encode()
            h.update(tag.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)

        feed("version", _lib.version())
        feed("source", request["source"])
        own = os.path.abspath(self.filename) if self.filename else None
        for path in sorted(set(files)):
            if self.whole_file and own and os.path.abspath(path) == own:
                continue  # the snapshot taken at decoration time is what gets compiled
            try:
                with open(path, "rb") as f:
                    feed("file", f.read())
            except OSError:
                feed("missing", path)
        feed("kernel", self.__name__)
        feed("target", request["target"])
        options = {"line_offset": self.line_offset}
        if "num_warps" in request:
            options["num_warps"] = request["num_warps"]
        feed("options", json.dumps(options, sort_keys=True))
        feed("signature", request["signature"])
        feed("constexprs", json.dumps(request["constexprs"], sort_keys=True))
        return h.hexdigest()

    def _compile(self, key, values, target="cpu", num_warps=None, platform=None):
        if target != "cpu":
            if bundle.active():  # KDATILE_BUNDLE: precompiled code objects only, no compiler
                kernel = bundle.lookup(self, key, values, target, num_warps, platform)
            else:
                kernel = self._compile_gpu(key, values, target, num_warps, platform)
            return self._specialization(kernel)
        request = self._request(key, values)
        digest = self._disk_key(request)
        kdir = os.path.join(cache_dir(), digest[:2], digest)
        so_path = os.path.join(kdir, f"{self.__name__}.so")
        meta_path = os.path.join(kdir, "meta.json")
        kernel = None
        if os.path.isfile(meta_path) and os.path.isfile(so_path):
            try:
                with open(meta_path, encoding="utf-8") as f:
                    meta = json.load(f)
                kernel = CompiledKernel(so_path, meta["entry"], meta["params"],
                                        library=ctypes.CDLL(so_path))
                _stats["disk_hits"] += 1
            except (OSError, ValueError, KeyError, TypeError, RuntimeError):
                kernel = None  # unreadable or damaged entry: compile it again
        if kernel is None:
            os.makedirs(kdir, exist_ok=True)
            fd, tmp_so = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=kdir)
            os.close(fd)
            try:
                response = _lib.compile(dict(request, emit="so", output=tmp_so))
                _stats["compiles"] += 1
                os.replace(tmp_so, so_path)
            finally:
                if os.path.exists(tmp_so):
                    os.unlink(tmp_so)
            meta = {
                "entry": response["entry"],
                "params": response["params"],
                "kernel": self.__name__,
                "signature": request["signature"],
                "constexprs": request["constexprs"],
                "seconds": response.get("seconds"),
            }
            fd, tmp_meta = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=kdir)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(meta, f, indent=1)
            os.replace(tmp_meta, meta_path)
            kernel = CompiledKernel(so_path, meta["entry"], meta["params"],
                                    library=ctypes.CDLL(so_path))
        return self._specialization(kernel)

    def _specialization(self, kernel) -> _Specialization:
        indices = []
        for p in kernel.params:
            jp = self._by_name.get(p["name"])
            if jp is None:
                raise RuntimeError(f"kdatile: compiled kernel has unknown parameter {p['name']!r}")
            indices.append(jp.index)
        return _Specialization(kernel, indices)

    def warmup(self, *args, num_warps=None, **kwargs):
        """Compiles (or loads from cache) the specialization these arguments select.

        For GPU tensors the code object is also loaded on their device, so that a later launch
        may be captured into a CUDA graph. Returns the CompiledKernel or GPUKernel.
        """
        if num_warps is not None and "num_warps" in self._by_name:
            kwargs["num_warps"] = num_warps
            num_warps = None
        values = self._bind(args, kwargs)
        key, _, device = self._specialize_args(values)
        if device is None:
            self._check_host_target()
            return self._get(key, values).kernel
        torch, index, platform, target, nw = self._gpu_setup(device, values, num_warps)
        spec = self._get(key, values, target, nw, platform)
        if index != torch.cuda.current_device():
            with torch.cuda.device(index):
                spec.kernel.load(index)
        else:
            spec.kernel.load(index)
        return spec.kernel

    def _get(self, key, values, target="cpu", num_warps=None, platform=None) -> _Specialization:
        mkey = self._memory_key(key, target, num_warps)
        spec = self._memory.get(mkey)
        if spec is not None:
            _stats["memory_hits"] += 1
            return spec
        with self._lock:
            spec = self._memory.get(mkey)
            if spec is None:
                spec = self._compile(key, values, target, num_warps, platform)
                self._memory[mkey] = spec
            return spec

    # -- GPU -----------------------------------------------------------------------------
    def _check_host_target(self) -> None:
        if self.target not in (None, "cpu"):
            raise ValueError(f"kernel '{self.__name__}' is compiled for {self.target}, which needs "
                             "GPU tensors, but every array argument is in host memory")

    def _gpu_setup(self, device, values, num_warps):
        """(torch, device index, platform, target, num_warps) of a launch on `device`."""
        torch = gpu.torch_module()
        index = gpu.device_index(torch, device)
        if self.target is None:
            platform, target = gpu.device_target(torch, index)
        elif self.target == "cpu":
            raise ValueError(f"kernel '{self.__name__}' is compiled for the CPU "
                             f"(@kt.jit(target='cpu')), but its arrays are on device '{device}'")
        else:
            platform, target = gpu.platform_of(torch), self.target
        return torch, index, platform, target, self._resolve_num_warps(values, num_warps)

    def _resolve_num_warps(self, values, num_warps) -> int:
        """The warps per block of a GPU launch: a `num_warps` constexpr parameter, else the
        launch's num_warps=, else the @kt.jit default."""
        p = self._by_name.get("num_warps")
        if p is not None and p.is_constexpr:
            num_warps = values[p.index]
        return self.num_warps if num_warps is None else self._check_num_warps(num_warps)

    @staticmethod
    def _memory_key(key, target="cpu", num_warps=None):
        """The in-memory cache key of a specialization (also the AOT bundle's, see bundle.py)."""
        return key if target == "cpu" else (target, num_warps, key)

    def _compile_gpu(self, key, values, target, num_warps, platform):
        request = self._request(key, values, target, num_warps)
        digest = self._disk_key(request)
        kdir = os.path.join(cache_dir(), digest[:2], digest)
        meta_path = os.path.join(kdir, "meta.json")

        def make(meta, image):
            return gpu.GPUKernel(self.__name__, meta["platform"], meta["target"], image,
                                 meta["image_kind"], meta["params"], meta["num_warps"],
                                 meta.get("shared_bytes", 0), meta.get("wave_size"),
                                 meta.get("cluster_shape", (1, 1, 1)))

        if os.path.isfile(meta_path):
            try:
                with open(meta_path, encoding="utf-8") as f:
                    meta = json.load(f)
                with open(os.path.join(kdir, meta["image"]), "rb") as f:
                    image = f.read()
                kernel = make(meta, image)
                _stats["disk_hits"] += 1
                return kernel
            except (OSError, ValueError, KeyError, TypeError):
                pass  # unreadable or damaged entry: compile it again
        os.makedirs(kdir, exist_ok=True)
        emit = gpu.code_object_emit(target)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="." + emit, dir=kdir)
        os.close(fd)
        try:
            try:
                response = _lib.compile(dict(request, emit=emit, output=tmp))
                kind = emit
                with open(tmp, "rb") as f:
                    image = f.read()
            except _lib.CompilationError as e:
                # No ptxas: the driver compiles PTX when the module loads.
                if emit != "cubin" or "cannot find ptxas" not in str(e):
                    raise
                response = _lib.compile(dict(request, emit="ptx"))
                kind = "ptx"
                image = response.get("text", "").encode()
            _stats["compiles"] += 1
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        meta = {
            "kernel": self.__name__,
            "platform": platform,
            "target": target,
            "image": f"{self.__name__}.{kind}",
            "image_kind": kind,
            "params": response["params"],
            "num_warps": num_warps,
            "wave_size": response.get("wave_size"),
            "shared_bytes": int(response.get("shared_bytes") or 0),
            "cluster_shape": response.get("cluster_shape", [1, 1, 1]),
            "signature": request["signature"],
            "constexprs": request["constexprs"],
            "seconds": response.get("seconds"),
        }
        for name, data, mode in ((meta["image"], image, "wb"),
                                 ("meta.json", json.dumps(meta, indent=1), "w")):
            fd, tmp_out = tempfile.mkstemp(prefix=".tmp-", dir=kdir)
            with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
                f.write(data)
            os.replace(tmp_out, os.path.join(kdir, name))
        return make(meta, image)

    def _run_gpu(self, grid3, key, values, payloads, device, num_warps):
        torch, index, platform, target, nw = self._gpu_setup(device, values, num_warps)
        spec = self._memory.get(self._memory_key(key, target, nw))
        if spec is not None:
            _stats["memory_hits"] += 1
        else:
            # Compiling (and loading) may synchronize: not during graph capture.
            if gpu.is_capturing(torch):
                raise gpu.capture_error(self.__name__, target, f"num_warps={nw}")
            spec = self._get(key, values, target, nw, platform)
        spec.kernel.launch(torch, grid3, [payloads[i] for i in spec.arg_indices], index)

    # -- launch --------------------------------------------------------------------------
    def run(self, grid, args, kwargs, num_threads=None, num_warps=None):
        if num_warps is not None and "num_warps" in self._by_name:
            kwargs = dict(kwargs, num_warps=num_warps)
            num_warps = None
        values = self._bind(args, kwargs)
        key, payloads, device = self._specialize_args(values)
        if callable(grid):
            grid3 = normalize_grid(grid, {p.name: values[p.index] for p in self.params})
        else:
            grid3 = normalize_grid(grid)
        if device is not None:
            return self._run_gpu(grid3, key, values, payloads, device, num_warps)
        self._check_host_target()
        spec = self._get(key, values)
        spec.kernel.launch(grid3, [payloads[i] for i in spec.arg_indices], num_threads)

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
