"""Timed launch choices (opt-in): where an op's rule picks one of several launch
configurations that compute the same result, `kdatile.autotune` can time them on the caller's
arrays instead and keep the fastest, per device kind and key, in the disk cache.

    KDATILE_AUTOTUNE_OPS=1 python3 serve.py      # or kdatile.ops.tuning.enable(True)

Off by default: the rules are measured (docs/performance.md) and cost nothing, while a key's
first call times every candidate. The rule's configuration is always a candidate, so a tuned
choice is the rule's or one measured faster on this device. While a CUDA graph is captured
nothing can be timed: a key tuned before (in this process or another, through the cache)
launches its choice, any other the rule's. Serving engines warm up eagerly before capturing,
which tunes the keys they will replay.

Tuned today: the chunked prefill's scan (chunk_kda, chunk_gated_delta_rule, chunk_gla, when
each sequence is scanned whole), over value-tile widths and warps, keyed by the sequences and
the head shape: what sets how many programs share the multiprocessors, not the tokens.
"""

from __future__ import annotations

import os

from ..autotune import Autotuner, Config, autotune
from ._kernels import Launch, execute

ENV = "KDATILE_AUTOTUNE_OPS"
_override: bool | None = None
_tuners: dict = {}

# The scan's arguments that select a configuration (program count and work per program).
SCAN_KEY = ("N", "HV", "K", "V", "BK", "DOT", "DELTA_RULE", "STATE_VK", "HAS_INITIAL",
            "STORE_FINAL", "STORE_STATES")


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
    return list(_tuners.values())


def scan_configs(block_v: int, num_warps: int | None, BK: int, gpu: bool) -> list[Config]:
    """The scan's candidates: the rule's (block_v value columns, num_warps) first, then on GPUs
    32 value columns at 2 and 4 warps (2 warps were 7-13% faster where one sequence leaves
    multiprocessors idle, slower where the programs fill them), on the CPU half the head."""
    pairs = [(block_v, num_warps)]
    if gpu:
        pairs += [(min(32, BK), 2), (min(32, BK), 4)]
    elif BK // 2 >= 16:
        pairs.append((BK // 2, None))
    configs = []
    for bv, warps in pairs:
        config = Config({"BV": bv}, num_warps=warps)
        if config not in configs:
            configs.append(config)
    return configs


def _tuner(kernel, configs, key) -> Autotuner:
    """One tuner per kernel, candidate set and key in the process (its choices persist on
    disk, so another process starts with them)."""
    index = (id(kernel), tuple(configs), tuple(key))
    if index not in _tuners:
        _tuners[index] = autotune(configs, key=list(key))(kernel)
    return _tuners[index]


def scan_grid(meta) -> tuple:
    """kda_chunk_scan's grid of a whole scan: (value tiles, value heads, sequences)."""
    return (-(-meta["V"] // meta["BV"]), meta["HV"], meta["N"])


def scan_launches(launch: Launch, configs: list[Config]) -> list[Launch]:
    """A whole scan's launch (the rule's) with each of `configs` applied: what tuning may
    run (ahead-of-time bundles export them all)."""
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
    tuner = _tuner(launch.kernel, configs, SCAN_KEY)
    tuned = {name for config in configs for name in config.constexprs}
    kwargs = {n: v for n, v in launch.constexprs.items() if n not in tuned}
    if not capturing:
        tuner[scan_grid](*launch.args, **kwargs)
        return tuner.best_config(*launch.args, **kwargs)
    config = tuner.best_config(*launch.args, **kwargs)
    if config is None:  # never tuned: the rule's launch
        execute(None, launch)
        return configs[0]
    (chosen,) = scan_launches(launch, [config])
    execute(None, chosen)
    return config
