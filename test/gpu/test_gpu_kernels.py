"""Every kernel of kernels/ (and the GPU-stage smoke kernel) on CUDA vs the CPU target.

The code objects and the CPU results come from test/gpu/prepare.py (build machine); here they
run through the pure-ctypes driver runner on torch tensors and torch's current stream.
"""

import os

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
    tensors = {k: torch.from_numpy(v.copy()).cuda() for k, v in host.items()}
    return tensors, expected, host


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
        got = tensors[name].cpu().numpy()
        np.testing.assert_allclose(got, want, rtol=case["rtol"], atol=case["atol"],
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
            t.copy_(torch.from_numpy(host[name]))

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


def test_manifest_has_every_kernel(manifest):
    """prepare.py covers every kernel file in kernels/ (ran where the repo is complete)."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "kernels")
    if not os.path.isdir(root):
        pytest.skip("kernels/ not present")
    kernels = {os.path.splitext(f)[0] for f in os.listdir(root) if f.endswith(".py")}
    covered = {c["kernel"] for c in manifest["cases"]}
    assert kernels <= covered, f"kernels without a GPU case: {sorted(kernels - covered)}"
