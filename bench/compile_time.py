"""Compile-time table of the shipped kernels (kernels/*.py) on the CPU target.

For each kernel: cold compile (fresh, empty cache directory), in-memory cache hit (a second
launch in the same process) and on-disk cache hit (a fresh process with the filled cache).
Not a test. Run from the repository root: `python3 bench/compile_time.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "kernels")]

# kernel module -> setup code defining `kernel`, `grid`, `args` and `meta` (constexprs).
CASES = {
    "vector_add": """
n = 4099
x = np.ones(n, np.float32); y = np.ones(n, np.float32); out = np.empty(n, np.float32)
args, meta = (x, y, out, n), dict(BLOCK=256)
kernel, grid = mod.vector_add, (kt.cdiv(n, 256),)
""",
    "l2norm_rows": """
M, N = 64, 100
x = np.ones((M, N), np.float32); out = np.empty_like(x)
args, meta = (x, out, M, N, N, N, 1e-6), dict(BLOCK_M=4, BLOCK_N=128)
kernel, grid = mod.l2norm_rows, (kt.cdiv(M, 4),)
""",
    "delta_rule_step": """
H, V, K = 12, 128, 128
q = np.ones((H, K), np.float32); k = q.copy(); g = np.zeros_like(q)
v = np.ones((H, V), np.float32); beta = np.ones(H, np.float32)
state = np.zeros((H, V, K), np.float32); o = np.empty((H, V), np.float32)
args, meta = (q, k, v, g, beta, state, o), dict(V=V, K=K)
kernel, grid = mod.delta_rule_step, (H,)
""",
}

CHILD = """
import importlib, json, sys, time
t0 = time.perf_counter()
sys.path[:0] = {paths!r}
import numpy as np
import kdatile as kt
kt.compiler_version()  # loads libkda.so
lib_load = time.perf_counter() - t0
mod = importlib.import_module({name!r})
{case}
t0 = time.perf_counter(); kernel.warmup(*args, **meta); first = time.perf_counter() - t0
reps = 2000
t0 = time.perf_counter()
for _ in range(reps):
    kernel.warmup(*args, **meta)
hit = (time.perf_counter() - t0) / reps
t0 = time.perf_counter()
for _ in range(reps // 10):
    kernel[grid](*args, **meta)
launch = (time.perf_counter() - t0) / (reps // 10)
print(json.dumps({{"lib": lib_load, "first": first, "hit": hit, "launch": launch,
                  "stats": kt.cache_stats()}}))
"""


def run_child(name: str, cache: str) -> dict:
    code = CHILD.format(paths=sys.path[:2], name=name, case=CASES[name])
    env = dict(os.environ, KDATILE_CACHE_DIR=cache)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{name}: {proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    rows = []
    for name in CASES:
        with tempfile.TemporaryDirectory(prefix="kdatile-bench-") as cache:
            try:
                cold = run_child(name, cache)  # compiles: empty cache
                warm = run_child(name, cache)  # new process: disk hit
            except RuntimeError as e:
                print(f"error: {e}", file=sys.stderr)
                return 1
        assert cold["stats"]["compiles"] == 1, cold
        assert warm["stats"]["compiles"] == 0 and warm["stats"]["disk_hits"] == 1, warm
        rows.append((name, cold["lib"], cold["first"], warm["first"], cold["hit"],
                     cold["launch"]))
    header = ("kernel", "load libkda", "cold compile", "disk hit", "memory hit", "launch")
    print(f"{header[0]:<16} {header[1]:>12} {header[2]:>13} {header[3]:>10} {header[4]:>11} "
          f"{header[5]:>11}")
    for name, lib_s, cold_s, disk_s, mem_s, launch_s in rows:
        print(f"{name:<16} {lib_s * 1e3:>9.1f} ms {cold_s * 1e3:>10.1f} ms {disk_s * 1e3:>7.2f} ms "
              f"{mem_s * 1e6:>8.1f} us {launch_s * 1e6:>8.1f} us")
    print("cold compile / disk hit: first kernel.warmup() in a fresh process (libkda already "
          "loaded);\nmemory hit: warmup() again (bind, specialize, cache lookup); launch: a "
          "whole\nkernel[grid](...) call on a memory hit, including the kernel's run time.")
    return 0


if __name__ == "__main__":
    t = time.perf_counter()
    rc = main()
    print(f"total {time.perf_counter() - t:.1f} s")
    sys.exit(rc)
