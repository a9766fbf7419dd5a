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

# kernel module -> (launch code). Each snippet defines `launch()` given `np`, `kt` and `mod`.
CASES = {
    "vector_add": """
n = 4099
x = np.ones(n, np.float32); y = np.ones(n, np.float32); out = np.empty(n, np.float32)
def launch():
    mod.vector_add[(kt.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
""",
    "l2norm_rows": """
M, N = 64, 100
x = np.ones((M, N), np.float32); out = np.empty_like(x)
def launch():
    mod.l2norm_rows[(kt.cdiv(M, 4),)](x, out, M, N, N, N, 1e-6, BLOCK_M=4, BLOCK_N=128)
""",
    "delta_rule_step": """
H, V, K = 12, 128, 128
q = np.ones((H, K), np.float32); k = q.copy(); g = np.zeros_like(q)
v = np.ones((H, V), np.float32); beta = np.ones(H, np.float32)
state = np.zeros((H, V, K), np.float32); o = np.empty((H, V), np.float32)
def launch():
    mod.delta_rule_step[(H,)](q, k, v, g, beta, state, o, V=V, K=K)
""",
}

CHILD = """
import importlib, json, sys, time
sys.path[:0] = {paths!r}
import numpy as np
import kdatile as kt
mod = importlib.import_module({name!r})
{case}
t0 = time.perf_counter(); launch(); first = time.perf_counter() - t0
reps = 200
t0 = time.perf_counter()
for _ in range(reps):
    launch()
again = (time.perf_counter() - t0) / reps
print(json.dumps({{"first": first, "again": again, "stats": kt.cache_stats()}}))
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
        rows.append((name, cold["first"], warm["first"], cold["again"]))
    header = ("kernel", "cold compile+launch", "disk hit+launch", "memory hit+launch")
    print(f"{header[0]:<18} {header[1]:>20} {header[2]:>17} {header[3]:>18}")
    for name, cold_s, disk_s, mem_s in rows:
        print(f"{name:<18} {cold_s * 1e3:>17.1f} ms {disk_s * 1e3:>14.2f} ms "
              f"{mem_s * 1e6:>15.1f} us")
    print("(memory hit: mean of 200 launches, including the kernel's own run time)")
    return 0


if __name__ == "__main__":
    t = time.perf_counter()
    rc = main()
    print(f"total {time.perf_counter() - t:.1f} s")
    sys.exit(rc)
