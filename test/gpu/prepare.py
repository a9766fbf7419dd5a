#!/usr/bin/env python3
"""Step 1 of the GPU checks, on the build machine (LLVM, libkda, ptxas; no GPU needed).

    python3 test/gpu/prepare.py --out DIR

For every kernel in kernels/ (and the hand-written GPU-stage smoke kernel in test/gpu/Inputs),
and every specialization the GPU tests use, writes to DIR:
  - the sm_90a code objects: <case>.cubin and <case>.ptx (or the compile error),
  - <case>.npz: the inputs and the CPU target's results on them (the reference),
  - manifest.json: kernel name, parameters, argument values, grid, block, shared memory, files;
  - libkda_gpu_runtime.so: the GPU half of the C API (lib/CAPI/CAPIGPU.cpp + lib/Runtime)
    built without LLVM, and header_smoke: a C program using a `--emit header` header,
  - bundle/: the @kt.jit launches of the DSL cases, and those of the kdatile.ops calls of
    test_gpu_ops.py (ops_cases.py), as an ahead-of-time bundle (kt.export_bundle, with a copy
    of libkda_gpu_runtime.so), run with KDATILE_BUNDLE,
  - ops_<case>.npz: those ops calls' inputs and fp64 reference results (ref_*),
so that step 2 (bench/run_gpu_checks.sh on the GPU machine: torch + driver, no LLVM) needs
nothing compiled there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for sub in ("python", "kernels"):
    sys.path.insert(0, os.path.join(ROOT, sub))

import kdatile as kt  # noqa: E402
from kdatile import _lib  # noqa: E402
from kdatile.runtime import parse_signature  # noqa: E402

TARGET = "sm_90a"
WARP = 32


def _rng(seed):
    return np.random.default_rng(seed)


def dsl_cases():
    """(case id, jit function, args, constexprs, grid, num_warps, rtol, atol)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python"))
    from delta_rule_step import delta_rule_step
    from l2norm_rows import l2norm_rows
    from vector_add import vector_add

    r = _rng(0)
    cases = []
    for n, block, nw in ((1000, 256, 4), (4096, 1024, 8)):
        x = r.standard_normal(n).astype(np.float32)
        y = r.standard_normal(n).astype(np.float32)
        cases.append((f"vector_add_n{n}_b{block}", vector_add,
                      [x, y, np.zeros(n, np.float32), n], {"BLOCK": block},
                      (-(-n // block), 1, 1), nw, 0.0, 0.0))
    M, N, sx, so = 37, 100, 128, 100
    x = r.standard_normal((M, sx)).astype(np.float32)
    cases.append(("l2norm_rows_37x100", l2norm_rows,
                  [x, np.zeros((M, so), np.float32), M, N, sx, so, 1e-6],
                  {"BLOCK_M": 4, "BLOCK_N": 128}, (-(-M // 4), 1, 1), 4, 1e-5, 1e-6))
    for H, V, K in ((8, 64, 64), (4, 32, 128)):
        q = (r.standard_normal((H, K)) / np.sqrt(K)).astype(np.float32)
        k = r.standard_normal((H, K)).astype(np.float32)
        k /= np.linalg.norm(k, axis=1, keepdims=True)
        v = r.standard_normal((H, V)).astype(np.float32)
        g = -np.abs(r.standard_normal((H, K))).astype(np.float32) * 0.1
        beta = r.uniform(0.1, 0.9, H).astype(np.float32)
        state = r.standard_normal((H, V, K)).astype(np.float32) * 0.1
        cases.append((f"delta_rule_step_h{H}_v{V}_k{K}", delta_rule_step,
                      [q, k, v, g, beta, state, np.zeros((H, V), np.float32)],
                      {"V": V, "K": K}, (H, 1, 1), 4, 1e-4, 1e-5))
    # The fused KDA decode step: Kimi-K3 TP8 heads, paged fp32 state, both gate forms; padding
    # and out-of-range slots mixed in.
    from kda_decode import kda_decode
    from kda_reference import decode_launch, make_decode_inputs

    for H, B, lower_bound in ((12, 5, -5.0), (4, 3, None)):
        slots = 2 * B + 1
        inp = make_decode_inputs(r, B, H, slots)
        idx = r.permutation(slots)[:B].astype(np.int32)
        idx[1] = -1
        idx[-1] = slots + 3
        args, constexprs, grid = decode_launch(inp, idx, lower_bound=lower_bound)
        cases.append((f"kda_decode_h{H}_b{B}_{'lb' if lower_bound else 'sp'}", kda_decode,
                      args, constexprs, grid, 4, 1e-2, 1e-2))
    # The multi-token recurrent core: varlen sequences, per-token slots, speculative decoding
    # (num_accepted_tokens), padding tokens; value rows split over programs (BV = 32).
    from kda_recurrent import kda_recurrent
    from kda_recurrent_reference import make_inputs as make_recurrent_inputs
    from kda_recurrent_reference import recurrent_launch

    lens, Tcols, H = [3, 1, 4, 2], 4, 4
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    slots = 2 * len(lens) * Tcols + 1
    inp = make_recurrent_inputs(r, int(cu[-1]), H, slots)
    si = r.permutation(slots)[:len(lens) * Tcols].astype(np.int32).reshape(len(lens), Tcols)
    si[0, 1] = -1
    acc = np.array([2, 1, 3, 1], np.int32)
    args, constexprs, grid = recurrent_launch(inp, si, cu_seqlens=cu, num_accepted=acc, BV=32)
    cases.append(("kda_recurrent_varlen_spec", kda_recurrent, args, constexprs, grid, 4,
                  1e-2, 1e-2))
    # Test kernels of test/python/dsl_kernels.py: a reduction across warps,
    # a reduction meeting a load (loaded in the reduction's layout), and a
    # tile added to its transpose (a layout conversion through shared memory).
    from dsl_kernels import column_sums, row_norms_plus, transpose_add

    for M, N, nw in ((64, 32, 4), (128, 16, 8)):
        x = r.standard_normal((M, N)).astype(np.float32)
        cases.append((f"column_sums_{M}x{N}_w{nw}", column_sums,
                      [x, np.zeros(N, np.float32)], {"M": M, "N": N}, (1, 1, 1), nw,
                      1e-5, 1e-5))
    for M, N in ((16, 128), (64, 32)):
        x = r.standard_normal((M, N)).astype(np.float32)
        y = r.standard_normal(M).astype(np.float32)
        cases.append((f"row_norms_plus_{M}x{N}", row_norms_plus,
                      [x, y, np.zeros(M, np.float32)], {"M": M, "N": N}, (1, 1, 1), 4,
                      1e-5, 1e-5))
    N = 64
    x = r.standard_normal((N, N)).astype(np.float32)
    cases.append((f"transpose_add_{N}x{N}", transpose_add,
                  [x, np.zeros((N, N), np.float32)], {"N": N}, (1, 1, 1), 4,
                  1e-6, 1e-6))
    return cases


# -- kdatile.ops on the GPU (test_gpu_ops.py): inputs, fp64 references, bundled launches -------

OPS_PAD_VALUES = (-1, -7, "slots", "slots+5", 2**31 - 1)


def _ops_indices(rng, B, slots):
    """B slot indices: distinct live slots (slot 0 among them when B > 2), every third row
    padding (negative, == slots, > slots, INT32_MAX)."""
    live = rng.permutation(slots)
    if B > 2:
        live = np.concatenate([[0], live[live != 0]])
    idx = []
    for n in range(B):
        if n % 3 == 1:
            p = OPS_PAD_VALUES[n % len(OPS_PAD_VALUES)]
            idx.append(slots if p == "slots" else slots + 5 if p == "slots+5" else p)
        else:
            idx.append(int(live[n]))
    return np.array(idx, np.int32)


def _decode_op_case(case):
    """(arrays for the npz, fp64 reference arrays) of one decode case of ops_cases."""
    from kda_reference import bf16_to_f32, f32_to_bf16, kda_decode_reference, make_decode_inputs

    r = _rng(case["seed"])
    B, H, slots = case["B"], case["H"], case["slots"]
    inp = make_decode_inputs(r, B, H, slots, bias=case["bias"], fused=case["fused"])
    idx = _ops_indices(r, B, slots)
    state = inp["state"] if case["state_dtype"] == "f32" else f32_to_bf16(inp["state"])
    state_f32 = state if case["state_dtype"] == "f32" else bf16_to_f32(state)
    conv = inp["conv_state"]  # [slots, C, 3]
    storage = conv if case["conv_layout"] == "cm" else np.ascontiguousarray(
        conv.transpose(0, 2, 1))
    arrays = {"x": inp["x"], "conv_w": inp["conv_w"], "conv_storage": storage,
              "raw_beta": inp["raw_beta"], "A_log": inp["A_log"], "dt_bias": inp["dt_bias"],
              "state": state, "state_indices": idx.astype(
                  np.int64 if case["index_dtype"] == "i64" else np.int32),
              "output_gate": inp["output_gate"], "norm_weight": inp["norm_weight"]}
    if case["fused"]:
        arrays.update(f_a=inp["f_a"], f_b_weight=inp["f_b_weight"])
    else:
        arrays["raw_g"] = inp["raw_g"]
    if case["bias"]:
        arrays["conv_bias"] = inp["conv_bias"]
    if case["given_out"]:
        arrays["out"] = np.full((B, H, 128), 0x7FC0, np.uint16)  # NaN: every row is written
    ref_out, ref_cs, ref_state = kda_decode_reference(
        inp["x"], inp["conv_w"], conv, None if case["fused"] else inp["raw_g"],
        inp["raw_beta"], inp["A_log"], inp["dt_bias"], state_f32.copy(), idx,
        inp["output_gate"], inp["norm_weight"], lower_bound=case["lower_bound"],
        conv_bias=inp["conv_bias"], state_layout=case["state_layout"], f_a=inp.get("f_a"),
        f_b_weight=inp.get("f_b_weight"))
    ref_storage = ref_cs if case["conv_layout"] == "cm" else np.ascontiguousarray(
        ref_cs.transpose(0, 2, 1))
    ref = {"ref_out": ref_out, "ref_conv_storage": ref_storage, "ref_state": ref_state,
           "live_slots": np.array(sorted(s for s in idx.tolist() if 0 <= s < slots), np.int64)}
    return arrays, ref


def _recurrent_op_case(case):
    """(arrays for the npz, fp64 reference arrays) of one recurrent case of ops_cases."""
    from kda_recurrent_reference import kda_recurrent_reference, make_inputs
    from kda_reference import bf16_to_f32

    r = _rng(case["seed"])
    H = case["H"]
    varlen = "lens" in case
    if varlen:
        lens, Tcols = case["lens"], case["Tcols"]
        N = len(lens)
        cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        tokens, lead = int(cu[-1]), None
    else:
        N, Tcols = case["N"], case["T"]
        cu, tokens, lead = None, N * Tcols, (N, Tcols)
    slots = 2 * N * Tcols + 3
    bf16 = case["state_dtype"] == "bf16"
    inp = make_inputs(r, tokens, H, slots, lead=lead, g_bf16=case["g_bf16"], state_bf16=bf16,
                      state_layout=case["state_layout"])
    si = r.permutation(slots)[:N * Tcols].reshape(N, Tcols).astype(np.int32)
    acc = None
    if case["accepted"]:
        acc = (np.arange(N) % Tcols + 1).astype(np.int32)  # every value 1..T in turn
    # Padding: a padding token (not the starting column), an out-of-range token slot, a padding
    # sequence (its starting slot < 0), an INT32_MAX slot.
    for n in range(N):
        start = 0 if acc is None else int(acc[n]) - 1
        if n % 3 == 1:
            si[n, :] = -1 if n % 2 else 2**31 - 1
        elif Tcols > 1 and n % 3 == 0:
            si[n, (start + 1) % Tcols] = -1 if n % 2 else slots
    if N == 1 and Tcols > 1:  # the only sequence stays live, with one padding token
        si[0] = r.permutation(slots)[:Tcols]
        si[0, (int(acc[0]) if acc is not None else 1) % Tcols] = -3
    widen = lambda a: bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float32)  # noqa: E731
    ref_o, ref_pool = kda_recurrent_reference(
        widen(inp["q"]), widen(inp["k"]), widen(inp["v"]), widen(inp["g"]), widen(inp["beta"]),
        widen(inp["state"]), si, scale=128 ** -0.5, cu_seqlens=cu, num_accepted=acc,
        A_log=inp["A_log"], dt_bias=inp["dt_bias"],
        lower_bound=-5.0 if case["gate"] == "lb" else None,
        state_layout=case["state_layout"], state_bf16=bf16)
    index = np.int64 if case["index_dtype"] == "i64" else np.int32
    arrays = {name: inp[name] for name in ("q", "k", "v", "g", "beta", "A_log", "dt_bias",
                                           "state")}
    arrays["state_indices"] = si.astype(index)
    if cu is not None:
        arrays["cu_seqlens"] = cu.astype(index)
    if acc is not None:
        arrays["num_accepted_tokens"] = acc.astype(index)
    if case["given_out"]:
        arrays["out"] = np.full(inp["v"].shape, 0x7FC0, np.uint16)
    before = widen(inp["state"]).astype(np.float64)
    written = np.flatnonzero(np.any(ref_pool != before, axis=(1, 2, 3)))
    ref = {"ref_o": ref_o, "ref_state": ref_pool, "live_slots": written.astype(np.int64)}
    return arrays, ref


def ops_cases(out_dir):
    """The kdatile.ops calls of test_gpu_ops.py: writes ops_<case>.npz (inputs, and the fp64
    reference as ref_*), returns (manifest entries, bundle launches). The launches are the
    ops' own (decode_launch / recurrent_launch with target sm_90a, NumPy arrays standing for
    the CUDA tensors), so the bundle holds exactly what the GPU calls select."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python"))
    from ops_cases import DECODE_CASES, RECURRENT_CASES, decode_call, recurrent_call

    from kdatile.ops.decode import decode_launch
    from kdatile.ops.recurrent import recurrent_launch

    entries, launches = {"decode": [], "recurrent": []}, []
    for kind, cases in (("decode", DECODE_CASES), ("recurrent", RECURRENT_CASES)):
        for case in cases:
            arrays, ref = (_decode_op_case if kind == "decode" else _recurrent_op_case)(case)
            data = f"ops_{case['id']}.npz"
            np.savez(os.path.join(out_dir, data), **arrays, **ref)
            stand_ins = {k: a.copy() for k, a in arrays.items()}
            if kind == "decode":
                args, kwargs = decode_call(case, stand_ins, lambda a: a.transpose(0, 2, 1))
                _, launch = decode_launch(*args, fused=case["fused"], target=TARGET, **kwargs)
            else:
                args, kwargs = recurrent_call(case, stand_ins)
                _, launch = recurrent_launch(*args, target=TARGET, **kwargs)
            opts = {} if launch.num_warps is None else {"num_warps": launch.num_warps}
            launches.append((launch.kernel, launch.args, dict(launch.constexprs, **opts)))
            entries[kind].append(dict(case, data=data))
    return entries, launches


def compile_gpu(request, out_dir, case_id, manifest_case):
    """Adds cubin/ptx files (or the errors) to the manifest entry."""
    files, errors = {}, {}
    cubin = os.path.join(out_dir, f"{case_id}.cubin")
    try:
        response = _lib.compile(dict(request, emit="cubin", output=cubin))
        files["cubin"] = os.path.basename(cubin)
        manifest_case["shared_bytes"] = int(response.get("shared_bytes") or 0)
    except kt.CompilationError as e:
        errors["cubin"] = str(e)
    try:
        response = _lib.compile(dict(request, emit="ptx"))
        ptx = os.path.join(out_dir, f"{case_id}.ptx")
        with open(ptx, "w") as f:
            f.write(response["text"])
        files["ptx"] = os.path.basename(ptx)
        manifest_case.setdefault("shared_bytes", int(response.get("shared_bytes") or 0))
    except kt.CompilationError as e:
        errors["ptx"] = str(e)
    manifest_case["files"] = files
    if errors:
        manifest_case["errors"] = errors


def prepare_dsl_case(out_dir, case):
    case_id, fn, args, constexprs, grid, num_warps, rtol, atol = case
    # The CPU reference, on copies.
    cpu_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn[grid](*cpu_args, **constexprs)
    values = fn._bind(args, constexprs)
    key, _ = fn._specialize(values)
    # torch allocations are aligned far beyond 16 bytes: every pointer gets the hint.
    key = tuple(("p", k[1], True) if k[0] == "p" else k for k in key)
    request = fn._request(key, values, TARGET, num_warps)
    params = parse_signature(request["signature"])
    by_name = {p.name: values[p.index] for p in fn.params}
    arrays, expected, arg_list = {}, {}, []
    for p in params:
        v = by_name[p["name"]]
        if p["kind"] == "pointer":
            arrays[p["name"]] = v
            idx = [i for i, jp in enumerate(fn.params) if jp.name == p["name"]][0]
            expected["expected_" + p["name"]] = cpu_args[idx]
            arg_list.append({"name": p["name"], "array": p["name"]})
        else:
            arg_list.append({"name": p["name"], "value": v})
    np.savez(os.path.join(out_dir, f"{case_id}.npz"), **arrays, **expected)
    # Every argument of the @kt.jit launch, for the bundle tests: arrays by name, else values.
    jit_args = [{"name": jp.name, "array": jp.name} if jp.name in arrays
                else {"name": jp.name, "value": values[jp.index]}
                for jp in fn.params if not jp.is_constexpr]
    entry = {"id": case_id, "kernel": fn.__name__, "source": os.path.relpath(fn.filename, ROOT),
             "module": os.path.splitext(os.path.basename(fn.filename))[0],
             "module_dir": os.path.relpath(os.path.dirname(fn.filename), ROOT),
             "jit_args": jit_args,
             "target": TARGET, "signature": request["signature"], "constexprs": constexprs,
             "params": params, "args": arg_list, "grid": list(grid), "num_warps": num_warps,
             "block": [num_warps * WARP, 1, 1], "data": f"{case_id}.npz", "rtol": rtol,
             "atol": atol}
    compile_gpu(request, out_dir, case_id, entry)
    return entry


def prepare_smoke_case(out_dir):
    """The GPU-stage smoke kernel: out = x + alpha * y (reference in NumPy)."""
    path = os.path.join(ROOT, "test", "gpu", "Inputs", "smoke_add.mlir")
    with open(path) as f:
        source = f.read()
    n, alpha = 1000, 0.5
    r = _rng(1)
    x = r.standard_normal(n).astype(np.float32)
    y = r.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    ref = (x + np.float32(alpha) * y).astype(np.float32)
    np.savez(os.path.join(out_dir, "smoke_add.npz"), x=x, y=y, out=out, expected_x=x,
             expected_y=y, expected_out=ref)
    signature = "x=*f32,y=*f32,out=*f32,n=i32,alpha=f32"
    request = {"source": source, "filename": path, "kernel": "smoke_add", "target": TARGET,
               "signature": signature, "num_warps": 8}
    entry = {"id": "smoke_add", "kernel": "smoke_add", "source": os.path.relpath(path, ROOT),
             "target": TARGET, "signature": signature, "constexprs": {},
             "params": parse_signature(signature),
             "args": [{"name": "x", "array": "x"}, {"name": "y", "array": "y"},
                      {"name": "out", "array": "out"}, {"name": "n", "value": n},
                      {"name": "alpha", "value": alpha}],
             "grid": [-(-n // 256), 1, 1], "num_warps": 8, "block": [256, 1, 1],
             "data": "smoke_add.npz", "rtol": 1e-6, "atol": 1e-6}
    compile_gpu(request, out_dir, "smoke_add", entry)
    # Its header, for the C test of the generated launcher.
    header = _lib.compile(dict(request, emit="header"))["text"]
    with open(os.path.join(out_dir, "smoke_add.h"), "w") as f:
        f.write(header)
    return entry


def build_native(out_dir):
    """libkda_gpu_runtime.so (no LLVM) and header_smoke, if a C++ compiler is around."""
    cxx = shutil.which("clang++-22") or shutil.which("clang++") or shutil.which("g++")
    cc = shutil.which("clang-22") or shutil.which("clang") or shutil.which("gcc")
    if not cxx or not cc:
        return {"error": "no C/C++ compiler found"}
    inc = os.path.join(ROOT, "include")
    lib = os.path.join(out_dir, "libkda_gpu_runtime.so")
    sources = [os.path.join(ROOT, p) for p in (
        "lib/CAPI/CAPIGPU.cpp", "lib/Runtime/GPULaunch.cpp", "lib/Runtime/CUDALoader.cpp",
        "lib/Runtime/HIPLoader.cpp")]
    kda_free = os.path.join(out_dir, "kda_free.o")
    try:
        subprocess.run([cc, "-O2", "-fPIC", "-c", os.path.join(ROOT, "test/gpu/kda_free.c"),
                        "-o", kda_free], check=True, capture_output=True, text=True)
        subprocess.run([cxx, "-std=c++17", "-O2", "-fPIC", "-shared", f"-I{inc}", *sources,
                        kda_free, "-ldl", "-lpthread", "-o", lib],
                       check=True, capture_output=True, text=True)
        subprocess.run([cc, "-std=c99", "-O2", "-Wall", "-Werror", f"-I{inc}", f"-I{out_dir}",
                        os.path.join(ROOT, "test/gpu/header_smoke.c"), "-L", out_dir,
                        "-lkda_gpu_runtime", "-ldl", "-lm", "-Wl,-rpath,$ORIGIN", "-o",
                        os.path.join(out_dir, "header_smoke")],
                       check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        return {"error": f"{' '.join(e.cmd[:2])}...: {e.stderr}"}
    finally:
        if os.path.exists(kda_free):
            os.unlink(kda_free)
    return {"runtime_library": "libkda_gpu_runtime.so", "header_smoke": "header_smoke"}


def export_jit_bundle(out_dir, cases, runtime, extra_launches=()):
    """bundle/: the @kt.jit launches of the DSL cases (and extra_launches: the kdatile.ops
    calls') as an ahead-of-time bundle (kt.export_bundle), with the GPU runtime library, for
    KDATILE_BUNDLE on the GPU machine."""
    bundle_dir = os.path.join(out_dir, "bundle")
    shutil.rmtree(bundle_dir, ignore_errors=True)
    launches = [(fn, args, dict(constexprs, num_warps=nw))
                for _, fn, args, constexprs, _, nw, _, _ in cases] + list(extra_launches)
    try:
        exported = kt.export_bundle(bundle_dir, launches, target=TARGET,
                                    runtime=runtime if os.path.isfile(runtime) else None)
    except (kt.CompilationError, RuntimeError, OSError) as e:
        return {"error": str(e)}
    return {"dir": "bundle", "specializations": len(exported)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="artifact directory (created)")
    args = ap.parse_args()
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    cases = [prepare_smoke_case(out_dir)]
    jit_cases = dsl_cases()
    for case in jit_cases:
        cases.append(prepare_dsl_case(out_dir, case))
    native = build_native(out_dir)
    try:
        ops, ops_launches = ops_cases(out_dir)
    except (kt.CompilationError, RuntimeError, ValueError, OSError) as e:
        ops, ops_launches = {"error": f"{type(e).__name__}: {e}"}, []
    bundle = export_jit_bundle(out_dir, jit_cases,
                               os.path.join(out_dir, "libkda_gpu_runtime.so"), ops_launches)
    manifest = {"compiler": _lib.version(), "target": TARGET, "cases": cases,
                "native": native, "bundle": bundle, "ops": ops}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    ok = sum(1 for c in cases if "cubin" in c["files"])
    print(f"{out_dir}: {len(cases)} cases, {ok} with a cubin")
    for c in cases:
        for emit, err in c.get("errors", {}).items():
            print(f"  {c['id']} ({emit}): {err.strip().splitlines()[0]}")
    if "error" in manifest["native"]:
        print(f"  native: {manifest['native']['error']}")
    if "error" in ops:
        print(f"  ops: {ops['error']}")
    else:
        print(f"  ops: {len(ops['decode'])} decode and {len(ops['recurrent'])} recurrent calls "
              f"(ops_*.npz: inputs and fp64 references)")
    if "error" in bundle:
        print(f"  bundle: {bundle['error']}")
    else:
        print(f"  bundle: {bundle['specializations']} @kt.jit specializations in "
              f"{os.path.join(out_dir, 'bundle')}")


if __name__ == "__main__":
    main()
