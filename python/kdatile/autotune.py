"""`@kt.autotune`: pick the fastest of several launch configurations of a kernel, per key.

    @kt.autotune(configs=[kt.Config({"BLOCK": 256}), kt.Config({"BLOCK": 1024}, num_warps=8)],
                 key=["n"])
    @kt.jit
    def scale(x_ptr, y_ptr, n, BLOCK: kt.constexpr):
        ...

    scale[lambda meta: (kt.cdiv(meta["n"], meta["BLOCK"]),)](x, y, n)

The first launch with a new key (the named arguments' values; an array's shape and dtype),
on a new device kind, times every configuration (kt.testing's clocks: CUDA events on GPUs, the
wall clock on the host) and keeps the fastest; later launches with that key use it at once.
Choices persist in the disk cache (`kt.cache_dir()/autotune`, one file per kernel source), so
another process starts with them. Configurations must compute the same result: each is run
several times on the caller's arrays, and the arrays named in `restore` are copied back before
every trial (give those the kernel updates in place). A configuration that fails to compile or
launch is skipped (`tuner.failures` says why); when every one fails the launch raises.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import statistics
import tempfile
import threading
import time

from .cache import cache_dir
from .jit import JITFunction


class Config:
    """One launch configuration: constexpr values and, on GPUs, num_warps (None: the
    kernel's default)."""

    def __init__(self, constexprs: dict, num_warps: int | None = None):
        if not isinstance(constexprs, dict) or not all(isinstance(k, str) for k in constexprs):
            raise TypeError("kt.Config: constexprs must be a dict of parameter names to values")
        self.constexprs = dict(constexprs)
        self.num_warps = num_warps

    def as_dict(self) -> dict:
        return {"constexprs": self.constexprs, "num_warps": self.num_warps}

    def __eq__(self, other) -> bool:
        return isinstance(other, Config) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.as_dict(), sort_keys=True, default=str))

    def __repr__(self) -> str:
        nw = "" if self.num_warps is None else f", num_warps={self.num_warps}"
        return f"kt.Config({self.constexprs!r}{nw})"


def autotune(configs, key, *, restore=(), warmup: int = 1, reps: int = 5):
    """Decorator over a @kt.jit kernel: see the module's documentation. key: the names of the
    arguments whose values select a configuration; restore: the names of array arguments the
    kernel writes in place (copied back before each trial); warmup / reps: untimed and timed
    runs per configuration (the median counts)."""
    configs = list(configs)
    if not configs or not all(isinstance(c, Config) for c in configs):
        raise TypeError("kt.autotune: configs must be a non-empty list of kt.Config")
    key, restore = list(key), list(restore)

    def wrap(fn):
        if not isinstance(fn, JITFunction):
            raise TypeError("kt.autotune decorates a @kt.jit kernel: put @kt.autotune above "
                            "@kt.jit")
        for name in key + restore:
            if name not in fn.arg_names:
                raise ValueError(f"kt.autotune: '{name}' is not a parameter of kernel "
                                 f"'{fn.__name__}' ({', '.join(fn.arg_names)})")
        for c in configs:
            for name in c.constexprs:
                if name not in fn.arg_names:
                    raise ValueError(f"kt.autotune: {c!r} sets '{name}', which is not a "
                                     f"parameter of kernel '{fn.__name__}'")
        return Autotuner(fn, configs, key, restore, warmup, reps)

    return wrap


class Autotuner:
    """A kernel with several launch configurations: `tuner[grid](*args, **kwargs)`."""

    def __init__(self, fn, configs, key, restore, warmup, reps):
        self.fn = fn
        self.configs = configs
        self.key = key
        self.restore = restore
        self.warmup, self.reps = warmup, reps
        self.__name__ = fn.__name__
        # The parameters' defaults, for keys naming an argument a call leaves out.
        self._defaults = {p.name: p.default
                          for p in inspect.signature(fn.fn).parameters.values()
                          if p.default is not inspect.Parameter.empty}
        self._lock = threading.Lock()
        self._best: dict = {}
        self.trials = 0  # configurations timed in this process
        self.timings: dict = {}  # key -> {repr(config): microseconds}
        self.failures: dict = {}  # key -> {repr(config): error text}

    def __getitem__(self, grid):
        def launcher(*args, **kwargs):
            return self.run(grid, args, kwargs)

        return launcher

    def best_config(self, *args, **kwargs) -> Config | None:
        """The configuration chosen for these arguments' key, or None before it is tuned."""
        bound = self._bind(args, kwargs)
        return self._lookup(self._key(bound))

    # -- launch --------------------------------------------------------------------------
    def run(self, grid, args, kwargs):
        bound = self._bind(args, kwargs)
        key = self._key(bound)
        config = self._lookup(key)
        if config is None:
            with self._lock:
                config = self._lookup(key) or self._tune(key, grid, args, kwargs, bound)
        return self._launch(config, grid, args, kwargs)

    def _launch(self, config, grid, args, kwargs):
        opts = dict(kwargs, **config.constexprs)
        if config.num_warps is not None:
            opts["num_warps"] = config.num_warps
        return self.fn[grid](*args, **opts)

    def _bind(self, args, kwargs) -> dict:
        """The call's arguments by name, parameter defaults filled in."""
        names = self.fn.arg_names
        if len(args) > len(names):
            raise TypeError(f"{self.__name__} takes {len(names)} arguments, got {len(args)}")
        bound = dict(self._defaults)
        bound.update(zip(names, args))
        bound.update(kwargs)
        return bound

    def _key(self, bound) -> str:
        parts = [_device_kind(bound)]
        for name in self.key:
            if name not in bound:
                raise TypeError(f"{self.__name__}: the autotuning key '{name}' has no value")
            parts.append(f"{name}={_describe(bound[name])}")
        return "|".join(parts)

    # -- tuning ----------------------------------------------------------------------------
    def _tune(self, key, grid, args, kwargs, bound) -> Config:
        saved = {name: _copy(bound[name]) for name in self.restore}
        timings, failures = {}, {}
        for config in self.configs:
            try:
                timings[config] = self._time(config, grid, args, kwargs, bound, saved)
            except Exception as e:  # noqa: BLE001 - a failing configuration is skipped
                failures[repr(config)] = f"{type(e).__name__}: {e}"
        for name, value in saved.items():
            _copy_into(bound[name], value)
        self.failures[key] = failures
        if not timings:
            lines = "\n".join(f"  {c}: {e}" for c, e in failures.items())
            raise RuntimeError(f"kt.autotune: every configuration of '{self.__name__}' failed "
                               f"for {key}:\n{lines}")
        self.timings[key] = {repr(c): t for c, t in timings.items()}
        best = min(timings, key=timings.get)
        self._best[key] = best
        self._store(key, best)
        return best

    def _time(self, config, grid, args, kwargs, bound, saved) -> float:
        self.trials += 1
        torch = _cuda_torch(bound)
        times = []
        for i in range(self.warmup + self.reps):
            for name, value in saved.items():
                _copy_into(bound[name], value)
            if torch is not None:
                with torch.cuda.device(_cuda_device(bound)):
                    torch.cuda.synchronize()
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    start.record()
                    self._launch(config, grid, args, kwargs)
                    end.record()
                    end.synchronize()
                elapsed = start.elapsed_time(end) * 1e3
            else:
                begin = time.perf_counter()
                self._launch(config, grid, args, kwargs)
                elapsed = (time.perf_counter() - begin) * 1e6
            if i >= self.warmup:
                times.append(elapsed)
        return statistics.median(times)

    # -- memory and disk -------------------------------------------------------------------
    def _path(self) -> str:
        digest = hashlib.sha256(self.fn.source.encode()).hexdigest()[:16]
        return os.path.join(cache_dir(), "autotune", f"{self.__name__}-{digest}.json")

    def _read(self) -> dict:
        try:
            with open(self._path()) as f:
                data = json.load(f)
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _lookup(self, key) -> Config | None:
        hit = self._best.get(key)
        if hit is not None:
            return hit
        stored = self._read().get(key)
        for config in self.configs:
            if stored == config.as_dict():
                self._best[key] = config
                return config
        return None  # never tuned, or tuned over other configurations

    def _store(self, key, config) -> None:
        path = self._path()
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            data = self._read()
            data[key] = config.as_dict()
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=1, sort_keys=True, default=str)
            os.replace(tmp, path)  # readers see the old file or the new one, never half
        except OSError:
            pass  # an unwritable cache only costs tuning again in the next process


def _is_array(value) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _describe(value) -> str:
    if _is_array(value):
        return f"{tuple(value.shape)}:{value.dtype}"
    return repr(value)


def _cuda_device(bound):
    """The device of the first GPU array among the arguments, or None."""
    for value in bound.values():
        device = getattr(value, "device", None)
        if device is not None and getattr(device, "type", "cpu") != "cpu":
            return device
    return None


def _device_kind(bound) -> str:
    """'cpu' or the GPU's name: choices do not carry over between kinds of device."""
    device = _cuda_device(bound)
    if device is None:
        return "cpu"
    import torch

    return torch.cuda.get_device_name(device)


def _cuda_torch(bound):
    return None if _cuda_device(bound) is None else __import__("torch")


def _copy(value):
    if hasattr(value, "clone"):
        return value.clone()
    return value.copy()


def _copy_into(dst, src) -> None:
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src
