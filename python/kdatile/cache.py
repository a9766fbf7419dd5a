"""Caches of compiled specializations: in memory (per kernel) and on disk.

On disk at $KDATILE_CACHE_DIR, else ~/.cache/kdatile, under `<key[:2]>/<key>/` holding the
code object (`<kernel>.so` for the CPU, `<kernel>.cubin`, `.ptx` or `.hsaco` for GPUs) and
`meta.json`. CPU and GPU specializations share one path: the key is the sha256 of the compiler
build, the kernel's source, the contents of every file the compiler says the kernel may read
(`kda_dependencies`) and every other field of the compile request (sorted JSON), so a new
request field changes the key without code changes here. Files are written to temporary names
and renamed; meta.json records the code object's size and sha256 and a sha256 of itself, and
both are checked, with the request the entry was compiled for, before anything is loaded, so a
damaged or swapped entry is compiled again instead of being loaded (a truncated .so would kill
the process in dlopen). Concurrent first compiles of one entry in several processes take a file
lock: one compiles, the others load its result.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time

from . import _lib, gpu
from .runtime import CompiledKernel

_stats = {"memory_hits": 0, "disk_hits": 0, "compiles": 0}
_memories: list = []  # every kernel's in-memory cache, for clear_cache

# Request fields that name where things are rather than what is compiled: the source text is
# hashed on its own, and the files these paths lead to are hashed through kda_dependencies.
PATH_FIELDS = ("source", "filename", "search_paths", "stdlib_dir")


def cache_stats() -> dict:
    """Process-wide counters: memory_hits, disk_hits, compiles (kda_compile calls)."""
    return dict(_stats)


def reset_cache_stats() -> None:
    for k in _stats:
        _stats[k] = 0


def count(what: str) -> None:
    _stats[what] += 1


class CacheError(RuntimeError):
    """The disk cache cannot be used: its directory or an entry's path is not what it must be."""


def cache_dir() -> str:
    """$KDATILE_CACHE_DIR, else ~/.cache/kdatile."""
    env = os.environ.get("KDATILE_CACHE_DIR")
    if env:
        return env
    return os.path.join(os.path.expanduser("~"), ".cache", "kdatile")


DEFAULT_MEMORY_ENTRIES = 128


def memory_limit() -> int:
    """Specializations one kernel keeps in memory: $KDATILE_MEMORY_CACHE_ENTRIES, else 128."""
    env = os.environ.get("KDATILE_MEMORY_CACHE_ENTRIES")
    if env is None:
        return DEFAULT_MEMORY_ENTRIES
    try:
        limit = int(env)
    except ValueError:
        limit = 0
    if limit < 1:
        raise ValueError(f"KDATILE_MEMORY_CACHE_ENTRIES must be a positive integer, got {env!r}")
    return limit


class MemoryCache:
    """One kernel's launchers by specialization, the least recently used dropped beyond
    `limit`. A dropped CPU kernel's library is closed once nothing refers to it
    (runtime.CompiledKernel); GPU modules stay loaded for the process, since captured CUDA
    graphs may launch them, and a specialization loaded again reuses its module (gpu.py)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._entries: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def __setitem__(self, key, value) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def values(self) -> list:
        """The launchers kept, least recently used first (a copy)."""
        with self._lock:
            return list(self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def new_memory() -> MemoryCache:
    """An in-memory cache for one kernel (emptied by clear_cache)."""
    memory = MemoryCache(memory_limit())
    _memories.append(memory)
    return memory


def clear_cache(disk: bool = True) -> None:
    """Forgets every in-memory specialization and, with `disk`, removes the on-disk cache."""
    for memory in _memories:
        memory.clear()
    if disk:
        shutil.rmtree(cache_dir(), ignore_errors=True)


def request_fields(request: dict) -> dict:
    """The fields of a compile request that say what is compiled (not where files are)."""
    return {k: v for k, v in request.items() if k not in PATH_FIELDS}


def disk_key(request: dict, own_file=None) -> str:
    """The disk cache key of a compile request. own_file: the kernel's file when the request's
    source is a snapshot of it (that snapshot is what gets compiled, not the file now)."""
    h = hashlib.sha256()

    def feed(tag: str, data) -> None:
        if isinstance(data, str):
            data = data.encode()
        h.update(tag.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)

    feed("version", _lib.version())
    feed("source", request["source"])
    own = os.path.abspath(own_file) if own_file else None
    for path in sorted(set(_lib.dependencies(request))):
        if own and os.path.abspath(path) == own:
            continue
        try:
            with open(path, "rb") as f:
                feed("file", f.read())
        except OSError:
            feed("missing", path)
    feed("request", json.dumps(request_fields(request), sort_keys=True))
    if request.get("target", "cpu") == "cpu":
        # "host" is another CPU on another machine sharing the cache: key what it resolves to.
        target = _lib.cpu_target(request.get("cpu", "host"), request.get("cpu_features", ""))
        feed("cpu", json.dumps(target, sort_keys=True))
    return h.hexdigest()


def _replace(tmp: str, target: str) -> None:
    """Renames `tmp` to `target`, over a directory in the way too."""
    if os.path.isdir(target) and not os.path.islink(target):
        shutil.rmtree(target)
    os.replace(tmp, target)


def _write_atomic(directory: str, name: str, data) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w",
                       **({} if isinstance(data, bytes) else {"encoding": "utf-8"})) as f:
            f.write(data)
        _replace(tmp, os.path.join(directory, name))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# A compile still running after this many seconds says so on stderr, and again when it ends
# ($KDATILE_COMPILE_NOTICE_S; 0 or "off": never).
COMPILE_NOTICE_S = 2.0


def _notice_after() -> float | None:
    value = os.environ.get("KDATILE_COMPILE_NOTICE_S", "")
    if not value:
        return COMPILE_NOTICE_S
    if value.lower() == "off":
        return None
    try:
        seconds = float(value)
    except ValueError:
        return COMPILE_NOTICE_S
    return seconds if seconds > 0 else None


@contextlib.contextmanager
def compile_notice(kernel: str, target: str, after: float | None = None):
    """Prints 'kdatile: compiling KERNEL for TARGET ...' to stderr when the body runs longer
    than `after` seconds (default: _notice_after()), then the time it took; nothing for a
    quicker body. The compile releases the GIL, so a timer thread can speak meanwhile."""
    after = _notice_after() if after is None else after
    if after is None:
        yield
        return
    start = time.monotonic()
    lock = threading.Lock()
    state = {"done": False, "spoke": False}

    def speak():
        with lock:
            if state["done"]:
                return
            state["spoke"] = True
            sys.stderr.write(f"kdatile: compiling {kernel} for {target} (the first call of "
                             "this specialization; later calls and processes use the cache) "
                             "...\n")
            sys.stderr.flush()

    timer = threading.Timer(after, speak)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["spoke"]:
                sys.stderr.write(f"kdatile: compiled {kernel} for {target} in "
                                 f"{time.monotonic() - start:.1f} s\n")
                sys.stderr.flush()


def _compile_into(directory: str, request: dict, emit: str, kernel: str):
    """Compiles `request` into `directory`; returns (response, image kind, image file name)."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="." + emit, dir=directory)
    os.close(fd)
    try:
        try:
            with compile_notice(kernel, request.get("target", "cpu")):
                response = _lib.compile(dict(request, emit=emit, output=tmp))
            kind = emit
        except _lib.CompilationError as e:
            # No ptxas: the driver compiles PTX when the module loads.
            if emit != "cubin" or "cannot find ptxas" not in str(e):
                raise
            response = _lib.compile(dict(request, emit="ptx"))
            kind = "ptx"
            with open(tmp, "wb") as f:
                f.write(response.get("text", "").encode())
        count("compiles")
        image = f"{kernel}.{kind}"
        _replace(tmp, os.path.join(directory, image))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return response, kind, image


def _digest(path: str) -> tuple[int, str]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return size, h.hexdigest()


def _meta_digest(meta: dict) -> str:
    """The sha256 of an entry's metadata (its "meta_sha256" field aside): an edited or damaged
    parameter list must not reach the loader."""
    body = {k: v for k, v in meta.items() if k != "meta_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _entry_is_sound(meta: dict, kdir: str, request: dict) -> bool:
    """Whether a cache entry is the one `request` compiles, whole: metadata as written, for
    this request, and a code object of the recorded size and hash."""
    image = meta.get("image")
    if (meta.get("meta_sha256") != _meta_digest(meta)
            or meta.get("request") != request_fields(request)
            or not isinstance(image, str) or os.path.basename(image) != image):
        return False
    path = os.path.join(kdir, image)
    try:
        if not os.path.isfile(path) or os.path.getsize(path) != meta.get("image_size"):
            return False
        return _digest(path)[1] == meta.get("image_sha256")
    except OSError:
        return False


def _read_entry(kdir: str, request: dict):
    """The meta.json of a sound entry in `kdir`, or None."""
    meta_path = os.path.join(kdir, "meta.json")
    try:
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and _entry_is_sound(meta, kdir, request) else None


@contextlib.contextmanager
def _entry_lock(kdir: str):
    """An exclusive lock on one entry, across processes."""
    fd = os.open(kdir + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _make_entry_dir(kdir: str) -> None:
    root = cache_dir()
    if os.path.exists(root) and not os.path.isdir(root):
        raise CacheError(f"kdatile: the cache directory {root} ($KDATILE_CACHE_DIR or "
                         "~/.cache/kdatile) is not a directory; remove it or set "
                         "KDATILE_CACHE_DIR to a directory")
    if os.path.exists(kdir) and not os.path.isdir(kdir):
        os.unlink(kdir)  # a stray file where the entry's directory belongs
    try:
        os.makedirs(kdir, exist_ok=True)
    except OSError as e:
        raise CacheError(f"kdatile: cannot create the cache entry {kdir}: {e}; set "
                         "KDATILE_CACHE_DIR to a writable directory") from e


def _load_cpu(meta: dict, path: str) -> CompiledKernel:
    return CompiledKernel(path, meta["entry"], meta["params"])


def _load_gpu(meta: dict, path: str) -> gpu.GPUKernel:
    with open(path, "rb") as f:
        image = f.read()
    return gpu.GPUKernel(meta["kernel"], meta["platform"], meta["target"], image,
                         meta["image_kind"], meta["params"], meta["num_warps"],
                         meta.get("shared_bytes", 0), meta.get("wave_size"),
                         meta.get("cluster_shape", (1, 1, 1)), meta.get("early_launch", False))


def platform_of_target(target: str) -> str:
    """The GPU runtime platform of a target: "hip" for AMD targets, else "cuda"."""
    return "hip" if target.startswith("gfx") else "cuda"


def compile_specialization(spec, platform=None):
    """The compiled kernel of a Specialization, from the disk cache or compiled into it: a
    CompiledKernel for the CPU target, a GPUKernel (not loaded yet) for GPU targets.
    platform: the GPU runtime's ("cuda" or "hip"; None: the target's)."""
    request = spec.request()
    fn = spec.fn
    digest = disk_key(request, fn.filename if fn.whole_file else None)
    kdir = os.path.join(cache_dir(), digest[:2], digest)
    on_cpu = spec.target == "cpu"
    load = _load_cpu if on_cpu else _load_gpu

    def cached():
        meta = _read_entry(kdir, request)
        if meta is None:
            return None
        try:
            kernel = load(meta, os.path.join(kdir, meta["image"]))
        except (OSError, ValueError, KeyError, TypeError, RuntimeError):
            return None  # unloadable (for another CPU, say): compile it again
        count("disk_hits")
        return kernel

    kernel = cached()
    if kernel is not None:
        return kernel
    _make_entry_dir(kdir)
    with _entry_lock(kdir):
        kernel = cached()  # another process may have compiled it meanwhile
        if kernel is not None:
            return kernel
        return _compile_entry(spec, request, kdir, load, platform)


def _compile_entry(spec, request, kdir, load, platform):
    on_cpu = spec.target == "cpu"
    emit = "so" if on_cpu else gpu.code_object_emit(spec.target)
    response, kind, image = _compile_into(kdir, request, emit, spec.kernel)
    meta = {
        "kernel": spec.kernel,
        "target": spec.target,
        "signature": request["signature"],
        "constexprs": request["constexprs"],
        "request": request_fields(request),
        "image": image,
        "image_kind": kind,
        "image_size": None,
        "image_sha256": None,
        "params": response["params"],
        "seconds": response.get("seconds"),
    }
    if on_cpu:
        meta.update(entry=response["entry"], cpu=response["cpu"],
                    cpu_features=response["cpu_features"])
    else:
        meta.update(platform=platform or platform_of_target(spec.target),
                    num_warps=spec.num_warps, wave_size=response.get("wave_size"),
                    shared_bytes=int(response.get("shared_bytes") or 0),
                    cluster_shape=response.get("cluster_shape", [1, 1, 1]),
                    early_launch=bool(response.get("early_launch", False)))
    meta["image_size"], meta["image_sha256"] = _digest(os.path.join(kdir, image))
    meta["meta_sha256"] = _meta_digest(meta)
    _write_atomic(kdir, "meta.json", json.dumps(meta, indent=1))
    return load(meta, os.path.join(kdir, image))
