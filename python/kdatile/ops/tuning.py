"""Timed launch choices (opt-in): where an op's rule picks one of several launch
configurations that compute the same result, `kdatile.autotune` can time them on the caller's
arrays instead and keep the fastest, per device kind and key, in the disk cache.

    KDATILE_AUTOTUNE_OPS=1 python3 serve.py      # or kdatile.ops.tuning.enable(True)

Off by default: the rules are measured (docs/performance.md) and cost nothing, while a key's
first call times every candidate. The rule's configuration is always a candidate, so a tuned
choice is the rule's or one measured faster on this device. While a CUDA graph is captured
nothing can be timed or compiled: a key this process launched eagerly with tuning on launches
the same choice, any other the rule's. Serving engines warm up eagerly before capturing, which
tunes (or loads from the cache) the keys they will replay.

Tuned today: the chunked prefill's scan (chunk_kda, chunk_gated_delta_rule, chunk_gla, when
each sequence is scanned whole), over value-tile widths and warps, keyed by the number of
sequences and the scan's compile-time parameters (head shape, dtypes, flags): what sets how
many programs share the multiprocessors, not the tokens. The first call of a key decides for
every length, so warm up with representative lengths.
"""

from __future__ import annotations

import os
import threading

from ..autotune import Autotuner, Config, autotune
from ._kernels import Launch, execute

ENV = "KDATILE_AUTOTUNE_OPS"
_override: bool | None = None
_lock = threading.Lock()
_tuners: dict = {}
# The configuration each (tuner, key) last launched eagerly in this process: what a captured
# launch may take (its code is loaded).
_launched: dict = {}


def enabled() -> bool:
    """Whether the ops time their launch candidates: enable()'s setting, else the
    KDATILE_AUTOTUNE_OPS environment variable (unset, empty or 0: off)."""
    if _override is not None:
        return _override
    return os.environ.get(ENV, "").strip() not in ("", "0")


def enable(flag: bool | None) -> None:
    """Turns the ops' tuning on (True) or off (False) for this process; None: back to the
    environment variable."""
    global _override
    if flag is not None and not isinstance(flag, bool):
        raise TypeError(f"kdatile.ops.tuning.enable: expected a bool or None, got "
                        f"{type(flag).__name__}")
    _override = flag


def tuners() -> list[Autotuner]:
    """The ops' tuners in this process: each one's `timings` and `failures` say, per key, what
    every candidate measured or why it was skipped."""
    with _lock:
        return list(_tuners.values())


def scan_configs(block_v: int, num_warps: int | None, columns: int, gpu: bool) -> list[Config]:
    """The scan's candidates: the rule's (block_v value columns, num_warps) first, then on GPUs
    64 value columns at 4 warps and 32 at 2 and 4 (at most `columns`, the value head's power
    of two; the rule takes 32 at 2 where its programs fill at most half the multiprocessors, 64
    at 4 elsewhere), on the CPU half the head (when that is at least 16 columns). Duplicates
    are dropped."""
    pairs = [(block_v, num_warps)]
    if gpu:
        pairs += [(min(64, columns), 4), (min(32, columns), 2), (min(32, columns), 4)]
    elif columns // 2 >= 16:
        pairs.append((columns // 2, None))
    configs = []
    for bv, warps in pairs:
        config = Config({"BV": bv}, num_warps=warps)
        if config not in configs:
            configs.append(config)
    return configs


def _tuner(kernel, configs, key) -> Autotuner:
    """One tuner per kernel, candidate set and key in the process (its choices persist on
    disk, so another process starts with them)."""
    index = (kernel, tuple(configs), tuple(key))
    with _lock:
        if index not in _tuners:
            _tuners[index] = autotune(configs, key=list(key))(kernel)
        return _tuners[index]


def scan_grid(meta) -> tuple:
    """kda_chunk_scan's grid of a whole scan: (value tiles, value heads, sequences)."""
    return (-(-meta["V"] // meta["BV"]), meta["HV"], meta["N"])


def is_whole_scan(launch: Launch) -> bool:
    """Whether `launch` is kda_chunk_scan over whole sequences (SEG > T_total, no SUMMARY):
    one program per value tile, head and sequence, what tuning covers."""
    if launch.kernel.__name__ != "kda_chunk_scan" or launch.constexprs.get("SUMMARY"):
        return False
    values = dict(zip(launch.kernel.arg_names, launch.args))
    return values["SEG"] > values["T_total"]


def _check_whole_scan(launch: Launch) -> None:
    if not is_whole_scan(launch):
        raise ValueError("kdatile.ops.tuning: expected kda_chunk_scan's launch of a whole "
                         "scan (SEG > T_total, no SUMMARY)")


def scan_launches(launch: Launch, configs: list[Config]) -> list[Launch]:
    """A whole scan's launch (the rule's) with each of `configs` applied: what tuning may
    run (ahead-of-time bundles export them all)."""
    _check_whole_scan(launch)
    out = []
    for config in configs:
        constexprs = dict(launch.constexprs, **config.constexprs)
        meta = dict(zip(launch.kernel.arg_names, launch.args), **constexprs)
        out.append(launch._replace(constexprs=constexprs, num_warps=config.num_warps,
                                   grid=scan_grid(meta)))
    return out


def run_scan(launch: Launch, configs: list[Config], capturing: bool) -> Config:
    """Runs a whole scan's launch (the rule's) with the tuned choice among `configs` (the
    rule's first) and returns the configuration it ran."""
    _check_whole_scan(launch)
    if len(configs) == 1:
        execute(None, launch)
        return configs[0]
    tuned = {name for config in configs for name in config.constexprs}
    kwargs = {n: v for n, v in launch.constexprs.items() if n not in tuned}
    # Every compile-time parameter the tuner does not set, and the sequences: not the tokens.
    key = ("N",) + tuple(sorted(kwargs))
    tuner = _tuner(launch.kernel, configs, key)
    values = dict(zip(launch.kernel.arg_names, launch.args), **kwargs)
    launched = (id(tuner),) + tuple(repr(values[name]) for name in key)
    if capturing:
        config = _launched.get(launched)
        if config is None:  # not launched eagerly with tuning: the rule's launch
            execute(None, launch)
            return configs[0]
        (chosen,) = scan_launches(launch, [config])
        execute(None, chosen)
        return config
    tuner[scan_grid](*launch.args, **kwargs)
    config = tuner.best_config(*launch.args, **kwargs)
    _launched[launched] = config
    return config
