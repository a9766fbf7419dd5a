"""Every kernel of kernels/ (and the GPU-stage smoke kernel) on CUDA vs the CPU target.

The code objects and the CPU results come from test/gpu/prepare.py (build machine); here they
run through the pure-ctypes driver runner on torch tensors and torch's current stream.
"""

import ast
import importlib
import os
import sys

import numpy as np
import pytest

from conftest import MANIFEST, artifact_dir

CASES = (MANIFEST or {}).get("cases", [])
IDS = [c["id"] for c in CASES]


def _image(case, kind):
    files = case.get("files", {})
    if kind not in files:
        err = case.get("errors", {}).get(kind, "not compiled")
        lines = [line for line in err.strip().splitlines() if line.strip()]
        pytest.skip(f"{case['id']}: no {kind}: {' / '.join(lines[:2])}")
    with open(os.path.join(artifact_dir(), files[kind]), "rb") as f:
        return f.read()


def _data(torch, case):
    """(device tensors by name, expected arrays by name, host originals by name)."""
    data = np.load(os.path.join(artifact_dir(), case["data"]))
    host = {k: data[k] for k in data.files if not k.startswith("expected_")}
    expected = {k[len("expected_"):]: data[k] for k in data.files if k.startswith("expected_")}
    # NumPy has no bf16: uint16 arrays hold bf16 bit patterns (kdatile's convention).
    tensors = {k: _to_torch(torch, v).cuda() for k, v in host.items()}
    return tensors, expected, host


def _to_torch(torch, array):
    t = torch.from_numpy(array.copy())
    return t.view(torch.bfloat16) if array.dtype == np.uint16 else t


def _numbers(torch, tensor_or_array):
    """fp32 values of a result (bf16 bit patterns decoded), for comparisons."""
    if isinstance(tensor_or_array, np.ndarray):
        a = tensor_or_array
        if a.dtype == np.uint16:
            return (a.astype(np.uint32) << 16).view(np.float32)
        return a
    t = tensor_or_array
    if t.dtype == torch.bfloat16:
        return t.float().cpu().numpy()
    return t.cpu().numpy()


def _values(case, tensors):
    return [tensors[a["array"]].data_ptr() if "array" in a else a["value"] for a in case["args"]]


def _launch(runner, torch, case, fn, tensors):
    runner.launch(fn, case["grid"], case["block"], case["params"], _values(case, tensors),
                  shared_bytes=case.get("shared_bytes", 0),
                  stream=torch.cuda.current_stream().cuda_stream)


@pytest.mark.parametrize("kind", ["cubin", "ptx"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_kernel_matches_cpu(torch_cuda, manifest, runner, case, kind):
    torch = torch_cuda
    fn = runner.load(_image(case, kind), case["kernel"])
    tensors, expected, _ = _data(torch, case)
    _launch(runner, torch, case, fn, tensors)
    torch.cuda.synchronize()
    for name, want in expected.items():
        got = _numbers(torch, tensors[name])
        np.testing.assert_allclose(got, _numbers(torch, want), rtol=case["rtol"],
                                   atol=case["atol"],
                                   err_msg=f"{case['id']} ({kind}): '{name}' differs from the "
                                           "CPU target")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_graph_replay_matches_eager(torch_cuda, manifest, runner, case):
    """Capture into a CUDA graph; a replay is bit-identical to the eager launch."""
    torch = torch_cuda
    kind = "cubin" if "cubin" in case.get("files", {}) else "ptx"
    fn = runner.load(_image(case, kind), case["kernel"])  # loaded before capture
    tensors, _, host = _data(torch, case)

    def reset():
        for name, t in tensors.items():
            t.copy_(_to_torch(torch, host[name]))

    _launch(runner, torch, case, fn, tensors)
    torch.cuda.synchronize()
    eager = {k: t.clone() for k, t in tensors.items()}

    reset()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        stream = torch.cuda.current_stream().cuda_stream
        assert runner.capture_status(stream) == 1
        _launch(runner, torch, case, fn, tensors)
    assert runner.capture_status(torch.cuda.current_stream().cuda_stream) == 0
    for _ in range(2):
        reset()
        graph.replay()
        torch.cuda.synchronize()
        for name, t in tensors.items():
            assert torch.equal(t, eager[name]), f"{case['id']}: replay of '{name}' differs"


# Kernel files of DSL helpers only (nothing to launch): covered through the kernels that import
# them, directly or through another kernel file.
HELPER_FILES = {"gates"}


def _imported_kernel_files(root, name):
    """The kernel files that kernels/<name>.py imports (`from gates import ...`, `import
    gates`)."""
    with open(os.path.join(root, name + ".py")) as f:
        tree = ast.parse(f.read())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
    return {m for m in modules if os.path.isfile(os.path.join(root, m + ".py"))}


def test_manifest_has_every_kernel(manifest):
    """prepare.py covers every kernel file in kernels/ (ran where the repo is complete): a DSL
    case, or the launches of a kdatile.ops call checked against its fp64 reference; a file of
    helpers only (HELPER_FILES) through the covered kernels that import it."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "kernels")
    if not os.path.isdir(root):
        pytest.skip("kernels/ not present")
    kernels = {os.path.splitext(f)[0] for f in os.listdir(root) if f.endswith(".py")}
    covered = {c["kernel"] for c in manifest["cases"]}
    covered |= set((manifest.get("ops") or {}).get("kernels", []))
    reached, todo = set(), sorted(covered & kernels)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += sorted(_imported_kernel_files(root, name))
    covered |= HELPER_FILES & reached
    assert kernels <= covered, f"kernels without a GPU case: {sorted(kernels - covered)}"


# -- @kt.jit launches from the ahead-of-time bundle (KDATILE_BUNDLE) -----------------------------
# prepare.py exported every @kt.jit case with kt.export_bundle into <artifacts>/bundle, with a
# copy of libkda_gpu_runtime.so: here the kernels run as `kernel[grid](cuda tensors, CONST=...)`
# without libkda (no LLVM on this machine).

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
JIT_CASES = [c for c in CASES if "jit_args" in c]
JIT_IDS = [c["id"] for c in JIT_CASES]


@pytest.fixture
def bundle(manifest, monkeypatch):
    """KDATILE_BUNDLE set to the artifacts' bundle; returns the kdatile module."""
    info = manifest.get("bundle") or {}
    if "dir" not in info:
        pytest.skip(f"no bundle in the artifacts: {info.get('error', 'rerun prepare.py')}")
    path = os.path.join(artifact_dir(), info["dir"])
    monkeypatch.setenv("KDATILE_BUNDLE", path)
    monkeypatch.delenv("KDATILE_GPU_RUNTIME", raising=False)
    python_dir = os.path.join(ROOT, "python")
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    import kdatile

    return kdatile


def _jit_kernel(case):
    module_dir = os.path.join(ROOT, case["module_dir"])
    if module_dir not in sys.path:
        sys.path.insert(0, module_dir)
    return getattr(importlib.import_module(case["module"]), case["kernel"])


def _jit_launch(fn, case, tensors):
    args = [tensors[a["array"]] if "array" in a else a["value"] for a in case["jit_args"]]
    fn[tuple(case["grid"])](*args, num_warps=case["num_warps"], **case["constexprs"])


@pytest.mark.parametrize("case", JIT_CASES, ids=JIT_IDS)
def test_jit_bundle_matches_cpu(torch_cuda, bundle, case):
    """`kernel[grid](cuda tensors, CONST=...)` runs the bundled cubin and matches the CPU."""
    torch, kt = torch_cuda, bundle
    fn = _jit_kernel(case)
    tensors, expected, _ = _data(torch, case)
    compiles = kt.cache_stats()["compiles"]
    _jit_launch(fn, case, tensors)
    torch.cuda.synchronize()
    assert kt.cache_stats()["compiles"] == compiles, "the bundle launch compiled something"
    kernels = [s.kernel for s in fn._memory.values()
               if isinstance(s.kernel, kt.bundle.BundleKernel)]
    assert kernels, f"{case['id']}: not launched from the bundle"
    assert all(k.image_kind == "cubin" for k in kernels), "a cubin fell back to PTX"
    for name, want in expected.items():
        got = _numbers(torch, tensors[name])
        np.testing.assert_allclose(got, _numbers(torch, want), rtol=case["rtol"],
                                   atol=case["atol"],
                                   err_msg=f"{case['id']} (@kt.jit, bundle): '{name}' differs "
                                           "from the CPU target")


@pytest.mark.parametrize("case", JIT_CASES, ids=JIT_IDS)
def test_jit_bundle_graph_replay(torch_cuda, bundle, case):
    """A @kt.jit launch captured into a CUDA graph replays bit-identically to eager."""
    torch = torch_cuda
    fn = _jit_kernel(case)
    tensors, _, host = _data(torch, case)

    def reset():
        for name, t in tensors.items():
            t.copy_(_to_torch(torch, host[name]))

    _jit_launch(fn, case, tensors)  # eager: also loads the code object before capture
    torch.cuda.synchronize()
    eager = {k: t.clone() for k, t in tensors.items()}
    reset()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        _jit_launch(fn, case, tensors)
    for _ in range(2):
        reset()
        graph.replay()
        torch.cuda.synchronize()
        for name, t in tensors.items():
            assert torch.equal(t, eager[name]), f"{case['id']}: replay of '{name}' differs"


def test_jit_bundle_missing_specialization(torch_cuda, bundle):
    """A specialization that was not exported is a clear error, not a compile."""
    kt = bundle
    case = next((c for c in JIT_CASES if c["kernel"] == "vector_add"), None)
    if case is None:
        pytest.skip("no vector_add case")
    fn = _jit_kernel(case)
    tensors, _, _ = _data(torch_cuda, case)
    with pytest.raises(kt.BundleError, match=r"not in the bundle.*BLOCK=512"):
        _jit_launch(fn, dict(case, constexprs={"BLOCK": 512}), tensors)


def test_early_launch_sees_the_previous_kernels_writes(torch_cuda, bundle):
    """A kernel with kt.wait_prior_launches, launched early (programmatic stream serialization)
    right behind the kernel that writes its input, reads what that kernel wrote: a chain of 40
    launches, each doubling the previous one's output, eagerly and replayed from a CUDA graph,
    ends exactly at x * 2^40 (with early launches off as well)."""
    torch, kt = torch_cuda, bundle
    case = next((c for c in JIT_CASES if c["id"].startswith("scale_after_prior_n")), None)
    if case is None:
        pytest.skip("no scale_after_prior case in the artifacts")
    fn = _jit_kernel(case)
    n = case["jit_args"][2]["value"]
    x = torch.randn(n, device="cuda")
    a, b = x.clone(), torch.empty_like(x)

    def chain():
        for i in range(40):
            src, dst = (a, b) if i % 2 == 0 else (b, a)
            fn[tuple(case["grid"])](src, dst, n, 2.0, num_warps=case["num_warps"],
                                    **case["constexprs"])

    want = x * 2.0 ** 40
    chain()
    torch.cuda.synchronize()
    kernels = [s.kernel for s in fn._memory.values()]
    assert kernels and all(k.early_launch for k in kernels), "not launched early"
    # The runtime takes the flag (an older one would launch in order, and prove nothing here).
    assert hasattr(importlib.import_module("kdatile._lib")._gpu_lib(), "kda_gpu_launch_ex")
    assert torch.equal(a, want)
    a.copy_(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        chain()
    for _ in range(3):
        a.copy_(x)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(a, want), "a replayed early launch read a stale input"
    previous = kt.gpu.set_early_launch(False)
    try:
        a.copy_(x)
        chain()
        torch.cuda.synchronize()
        assert torch.equal(a, want)
    finally:
        kt.gpu.set_early_launch(previous)
