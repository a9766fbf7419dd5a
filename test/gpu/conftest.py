"""GPU tests: step 2 of test/gpu/prepare.py's artifacts, on a machine with an NVIDIA GPU.

Not part of CI. Everything here is skipped without torch + CUDA, or without the artifact
directory ($KDA_GPU_ARTIFACTS, default test/gpu/artifacts).
"""

import ctypes
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def artifact_dir() -> str:
    return os.path.abspath(os.environ.get("KDA_GPU_ARTIFACTS", os.path.join(HERE, "artifacts")))


def load_manifest():
    path = os.path.join(artifact_dir(), "manifest.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


MANIFEST = load_manifest()


@pytest.fixture(scope="session")
def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


@pytest.fixture(scope="session")
def manifest():
    if MANIFEST is None:
        pytest.skip(f"no manifest.json in {artifact_dir()}: run python3 test/gpu/prepare.py "
                    "--out DIR on the build machine and set KDA_GPU_ARTIFACTS=DIR")
    return MANIFEST


@pytest.fixture
def bundle_kdatile(torch_cuda, manifest, monkeypatch):
    """This checkout's kdatile (python/) with KDATILE_BUNDLE set to the artifacts' bundle, so
    its ops launch the prepared kernels; returns the kdatile module."""
    info = manifest.get("bundle") or {}
    if "dir" not in info:
        pytest.skip(f"no bundle in the artifacts: {info.get('error', 'rerun prepare.py')}")
    monkeypatch.setenv("KDATILE_BUNDLE", os.path.join(artifact_dir(), info["dir"]))
    monkeypatch.delenv("KDATILE_GPU_RUNTIME", raising=False)
    python_dir = os.path.join(ROOT, "python")
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    import kdatile
    import kdatile.ops  # noqa: F401

    return kdatile


@pytest.fixture(scope="session")
def runner(torch_cuda):
    from cuda_runner import CudaRunner

    torch_cuda.zeros(1, device="cuda")  # torch's context first: the runner uses it
    runner = CudaRunner()
    native = (MANIFEST or {}).get("native", {})
    if "runtime_library" in native:  # builds the tensor maps of TMA kernels
        runner.tensor_map_runtime = ctypes.CDLL(os.path.join(artifact_dir(),
                                                             native["runtime_library"]))
    return runner
