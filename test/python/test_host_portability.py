"""Host code that runs on any x86-64 CPU.

Kernels moving bf16 and f16 data (conversions, masked loads and stores, selects, loop-carried
tiles, shared memory) are compiled for a baseline CPU (x86-64-v2: no AVX, no F16C, no
AVX512-BF16) and for this machine's CPU. Every shared object may only leave symbols of libc and
libm undefined (a compiler-rt helper such as __truncsfbf2 would make it unloadable where the
CPU lacks the conversion instructions), and every one runs here with exact results. The
conversions are checked bit for bit against NumPy (f16) and the IEEE rounding rule (bf16).
An object built for features this CPU lacks is refused with an error naming them.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

import kdatile as kt
from kda_reference import f32_to_bf16
from kdatile import _lib
from kdatile.runtime import CompiledKernel
from smem_kernels import masked_copy

from dsl_kernels import copy_cast

BASELINE = "x86-64-v2"
CPUS = (BASELINE, "host")
HERE = os.path.dirname(os.path.abspath(__file__))


@kt.jit
def select_accumulate(x_ptr, out_ptr, n, STEPS: kt.constexpr, BLOCK: kt.constexpr):
    # A narrow tile carried around a loop (a phi), chosen by a select, with a masked load's
    # `other` of the same type.
    offs = kt.arange(0, BLOCK)
    mask = offs < n
    best = kt.load(x_ptr + offs, mask=mask, other=0.0)
    for step in range(1, STEPS):
        cand = kt.load(x_ptr + step * n + offs, mask=mask, other=0.0)
        best = kt.where(cand > best, cand, best)
    kt.store(out_ptr + offs, best, mask=mask)


def _request(fn, signature: str, constexprs: dict, cpu: str, output: str) -> dict:
    return {
        "source": fn.source, "filename": fn.filename, "kernel": fn.__name__,
        "signature": signature, "constexprs": constexprs,
        "search_paths": [os.path.dirname(fn.filename)], "stdlib_dir": _lib.PACKAGE_DIR,
        "target": "cpu", "cpu": cpu, "emit": "so", "output": output,
    }


def _compile(fn, signature, constexprs, cpu, tmp_path) -> CompiledKernel:
    """Compiles for `cpu` and checks the object's undefined symbols."""
    path = str(tmp_path / f"{fn.__name__}-{cpu}-{abs(hash((signature, str(constexprs))))}.so")
    response = _lib.compile(_request(fn, signature, constexprs, cpu, path))
    assert response["cpu"] == (cpu if cpu != "host" else _lib.cpu_target()["cpu"])
    _check_undefined_symbols(path)
    return CompiledKernel(path, response["entry"], response["params"])


_LIBC = ctypes.CDLL("libc.so.6")
_LIBM = ctypes.CDLL("libm.so.6")


def _check_undefined_symbols(path: str) -> None:
    nm = shutil.which("nm") or shutil.which("llvm-nm-22")
    assert nm, "nm (binutils) is needed to list undefined symbols"
    out = subprocess.run([nm, "-D", "--undefined-only", path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        symbol = line.split()[-1]
        name, _, version = symbol.partition("@")
        assert version.startswith("GLIBC_"), f"{path}: {symbol} is not a libc/libm symbol"
        assert hasattr(_LIBC, name) or hasattr(_LIBM, name), f"{path}: {symbol} unresolved"


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint16 if a.itemsize == 2 else np.uint32)


def _bf16_round(f32: np.ndarray) -> np.ndarray:
    """bf16 bits of f32 values: round to nearest even; a NaN keeps its sign and top mantissa
    bits and is made quiet."""
    quiet = ((f32.view(np.uint32) >> 16) | 0x40).astype(np.uint16)
    return np.where(np.isnan(f32), quiet, f32_to_bf16(f32))


def _f32_samples() -> np.ndarray:
    rng = np.random.default_rng(5)
    bits = rng.integers(0, 2 ** 32, 1 << 18, dtype=np.uint64).astype(np.uint32)
    special = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
                        0xFFFFFFFF, 0x7F7FFFFF, 0x00000001, 0x00800000, 0x477FE000, 0x477FF000,
                        0x477FEFFF, 0x33000000, 0x33000001, 0x387FC000, 0x38800000,
                        0x3F808000, 0x3F818000, 0x3F808001], np.uint32)
    # Every bf16/f16 rounding boundary: the halfway points and their neighbours.
    halves = (np.arange(1 << 16, dtype=np.uint32) << 16) | 0x8000
    f16 = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    f16 = f16[np.isfinite(f16)].astype(np.float32)
    nxt = np.nextafter(f16, np.float32(np.inf))
    with np.errstate(over="ignore"):
        up = np.nextafter(f16.astype(np.float16), np.float16(np.inf)).astype(np.float64)
    mids = (f16.astype(np.float64) + up) / 2
    mids = mids[np.isfinite(mids)].astype(np.float32).view(np.uint32)
    out = np.concatenate([bits, special, halves, halves - 1, halves + 1, mids, mids - 1,
                          mids + 1, f16.view(np.uint32), nxt.view(np.uint32)])
    return out.view(np.float32)


def _as(bits: np.ndarray, dtype: str) -> np.ndarray:
    """16-bit patterns as the array type a kernel pointer of `dtype` takes (NumPy has no
    bfloat16: uint16 arrays stand for bf16)."""
    return bits if dtype == "bf16" else bits.view(np.float16)


def _launch(kernel, *args):
    n = args[-1]
    kernel[(kt.cdiv(n, 1024),)](*args)


@pytest.mark.parametrize("cpu", CPUS)
def test_narrow_to_f32_exhaustive(cpu, tmp_path):
    every = np.arange(1 << 16, dtype=np.uint16)
    n = every.size
    for src, want in (("bf16", (every.astype(np.uint32) << 16).view(np.float32)),
                      ("f16", every.view(np.float16).astype(np.float32))):
        k = _compile(copy_cast, f"x_ptr=*{src},out_ptr=*f32,n=i32",
                     {"BLOCK": 1024, "OUT": "f32"}, cpu, tmp_path)
        out = np.full(n, np.nan, np.float32)
        _launch(k, _as(every, src), out, n)
        np.testing.assert_array_equal(_bits(out), _bits(want), err_msg=f"{src} -> f32 on {cpu}")


@pytest.mark.parametrize("cpu", CPUS)
def test_f32_to_narrow(cpu, tmp_path):
    x = _f32_samples()
    n = x.size
    for dst in ("bf16", "f16"):
        k = _compile(copy_cast, f"x_ptr=*f32,out_ptr=*{dst},n=i32",
                     {"BLOCK": 1024, "OUT": dst}, cpu, tmp_path)
        out = np.zeros(n, np.uint16)
        _launch(k, x, _as(out, dst), n)
        if dst == "bf16":
            np.testing.assert_array_equal(out, _bf16_round(x), err_msg=f"f32 -> bf16 on {cpu}")
        else:
            with np.errstate(over="ignore"):
                want = x.astype(np.float16)
            got = out.view(np.float16)
            nan = np.isnan(x)
            assert np.isnan(got[nan]).all()
            assert (np.signbit(got[nan]) == np.signbit(x[nan])).all()
            np.testing.assert_array_equal(out[~nan], _bits(want)[~nan],
                                          err_msg=f"f32 -> f16 on {cpu}")


@pytest.mark.parametrize("cpu", CPUS)
def test_f64_to_narrow_rounds_once(cpu, tmp_path):
    # Just above or below a halfway point of the narrow format, by less than an f32 ulp:
    # rounding to f32 first (to nearest) would land on the halfway point and tie to even.
    rng = np.random.default_rng(9)
    top = rng.integers(0x3000, 0x4F00, 4096).astype(np.uint64)
    mid_bf16 = ((top << 16) | 0x8000).astype(np.uint32).view(np.float32).astype(np.float64)
    f16 = rng.integers(0x0400, 0x7B00, 4096).astype(np.uint16).view(np.float16)
    mid_f16 = (f16.astype(np.float64)
               + np.nextafter(f16, np.float16(np.inf)).astype(np.float64)) / 2
    for dst, mids in (("bf16", mid_bf16), ("f16", mid_f16)):
        x = np.concatenate([mids * (1 + 2.0 ** -40), mids * (1 - 2.0 ** -40), mids,
                            [0.0, -0.0, np.inf, -np.inf, 1e300, -1e-300]])
        k = _compile(copy_cast, f"x_ptr=*f64,out_ptr=*{dst},n=i32",
                     {"BLOCK": 1024, "OUT": dst}, cpu, tmp_path)
        out = np.zeros(x.size, np.uint16)
        _launch(k, x, _as(out, dst), x.size)
        if dst == "f16":
            with np.errstate(over="ignore"):
                want = _bits(x.astype(np.float16))
        else:
            want = _bf16_from_f64(x)
        np.testing.assert_array_equal(out, want, err_msg=f"f64 -> {dst} on {cpu}")


def _bf16_from_f64(x: np.ndarray) -> np.ndarray:
    """bf16 bits nearest to f64 values (ties to even), chosen among the bf16 neighbours of the
    f32 rounding by exact f64 differences; beyond the largest bf16's halfway point: Inf."""
    limit = float(np.array([0x7F7F8000], np.uint32).view(np.float32)[0])
    out = np.empty(x.size, np.uint16)
    for i, v in enumerate(x):
        if not np.isfinite(v) or abs(v) >= limit:
            out[i] = 0x7F80 | (0x8000 if np.signbit(v) else 0) if np.isfinite(v) or np.isinf(v) \
                else 0x7FC0
            continue
        top = int(np.array([v], np.float32).view(np.uint32)[0]) >> 16
        cands = [c for c in (top - 1, top, top + 1) if 0 <= c <= 0xFFFF]
        vals = np.array([c << 16 for c in cands], np.uint32).view(np.float32).astype(np.float64)
        ok = np.isfinite(vals)
        cands, vals = [c for c, k in zip(cands, ok) if k], vals[ok]
        best = min(range(len(cands)), key=lambda j: (abs(vals[j] - v), cands[j] & 1))
        out[i] = cands[best]
    return out


@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_selects_phis_and_shared_memory(cpu, dtype, tmp_path):
    rng = np.random.default_rng(3)
    n, steps = 50, 4
    vals = rng.standard_normal((steps, n)).astype(np.float32)
    bits = _bf16_round(vals) if dtype == "bf16" else _bits(vals.astype(np.float16))
    decoded = ((bits.astype(np.uint32) << 16).view(np.float32) if dtype == "bf16"
               else bits.view(np.float16).astype(np.float32))
    k = _compile(select_accumulate, f"x_ptr=*{dtype},out_ptr=*{dtype},n=i32",
                 {"STEPS": steps, "BLOCK": 64}, cpu, tmp_path)
    out = np.zeros(n, np.uint16)
    k[(1,)](_as(bits, dtype), _as(out, dtype), n)
    want = bits[np.argmax(decoded, axis=0), np.arange(n)]
    np.testing.assert_array_equal(out, want)

    # Shared memory with masked asynchronous copies (rows: a tile mask, never, a false and a
    # true runtime scalar mask; masked-off elements become zeros).
    k = _compile(masked_copy, f"x_ptr=*{dtype},out_ptr=*{dtype},n=i32", {"BLOCK": 64}, cpu,
                 tmp_path)
    src = np.resize(bits, 64).astype(np.uint16)
    out = np.full((4, 64), 0xFFFF, np.uint16)
    k[(1,)](_as(src, dtype), _as(out, dtype), 40)
    lanes = np.arange(64)
    live = (lanes < 40) & (lanes % 3 != 0)
    np.testing.assert_array_equal(out[0], np.where(live, src, 0))
    assert (out[1] == 0).all() and (out[2] == 0).all()
    np.testing.assert_array_equal(out[3], src)


def test_kernel_for_missing_features_is_refused(tmp_path):
    """An object using features this CPU lacks fails to load with their names."""
    features = _lib.cpu_target()["cpu_features"].split(",")
    # AMX is Intel's, SSE4a AMD's: every CPU lacks one of them.
    lacking = next(f for f in ("amx-tile", "sse4a") if f not in features)
    path = str(tmp_path / "needs.so")
    request = _request(copy_cast, "x_ptr=*f32,out_ptr=*f32,n=i32",
                       {"BLOCK": 64, "OUT": "f32"}, "host", path)
    response = _lib.compile(dict(request, cpu_features=f"+{lacking}"))
    assert lacking in response["cpu_features"].split(",")
    with pytest.raises(RuntimeError, match=f"CPU features this machine lacks: .*{lacking}"):
        CompiledKernel(path, response["entry"], response["params"])


def test_bad_cpu_names_are_errors():
    with pytest.raises(kt.CompilationError, match="unknown CPU 'pentium9'"):
        _lib.cpu_target("pentium9")
    with pytest.raises(kt.CompilationError, match="bad CPU feature 'avx2'"):
        _lib.cpu_target("host", "avx2")
    with pytest.raises(kt.CompilationError, match="bad CPU feature '\\+nosuchfeature'"):
        _lib.cpu_target(BASELINE, "+nosuchfeature")
    base = _lib.cpu_target(BASELINE)["cpu_features"].split(",")
    assert "sse4.2" in base and "avx" not in base and "f16c" not in base


def test_jit_compiles_for_kdatile_cpu(monkeypatch, tmp_path):
    """$KDATILE_CPU reaches the JIT's compile request and its disk-cache key; meta.json says
    what was compiled for."""
    import json

    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path / "cache"))
    x = np.arange(8, dtype=np.float32)
    metas = {}
    for cpu in CPUS:
        monkeypatch.setenv("KDATILE_CPU", cpu)
        fresh = kt.jit(copy_cast.fn)  # its own memory cache
        spec = fresh.specialize(x, np.zeros(8, np.uint16), 8, BLOCK=8, OUT=kt.bfloat16)
        assert spec.request()["cpu"] == cpu
        command = spec.compile_command()
        assert command[command.index("--cpu") + 1] == cpu
        out = np.zeros(8, np.uint16)
        fresh[(1,)](x, out, 8, BLOCK=8, OUT=kt.bfloat16)
        np.testing.assert_array_equal(out, _bf16_round(x))
        found = [json.load(open(os.path.join(root, "meta.json")))
                 for root, _, files in os.walk(tmp_path / "cache") if "meta.json" in files]
        metas[cpu] = [m for m in found if m["request"]["cpu"] == cpu]
        assert len(metas[cpu]) == 1
    assert metas[BASELINE][0]["cpu"] == BASELINE
    assert "avx" not in metas[BASELINE][0]["cpu_features"].split(",")
    assert metas["host"][0]["cpu"] == _lib.cpu_target()["cpu"]
