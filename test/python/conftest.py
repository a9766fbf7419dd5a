"""pytest setup: the package and kernels from the source tree, a private on-disk cache."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for sub in ("python", "kernels", os.path.join("test", "python")):
    path = os.path.join(ROOT, sub)
    if path not in sys.path:
        sys.path.insert(0, path)

import kdatile._lib as _kdalib  # noqa: E402


def _library_available() -> bool:
    try:
        _kdalib.library_path()
        return True
    except RuntimeError:
        return False


HAVE_LIB = _library_available()
KDA_COMPILE = os.path.join(ROOT, "build", "bin", "kda-compile")

requires_lib = pytest.mark.skipif(
    not HAVE_LIB, reason="libkda.so is not built (ninja -C build) and KDATILE_LIBRARY is unset"
)

# The ways the ops' bad-array tests break an array argument (bad_array).
BAD_ARRAY_PROBLEMS = ["rank", "size", "dtype", "type"]


def fake_device(monkeypatch, names=None, device="cuda:0"):
    """Makes the ops see the arguments `names` (all of them when None) on `device`:
    kdatile.ops.validation.describe reports it in their metadata, so the device checks and the
    GPU launch shapes run without a GPU. The arrays stay NumPy ones, so the launch counts no
    clusters and no asynchronous copies (the choices that ask the GPU's target; a named target
    in recurrent_launch / decode_launch tests those)."""
    from kdatile.ops import validation

    describe = validation.describe

    def on_device(arg, value, optional=False):
        info = describe(arg, value, optional=optional)
        if info is not None and (names is None or arg in names):
            info.device = device
        return info

    monkeypatch.setattr(validation, "describe", on_device)


def bad_array(a, problem):
    """`a` (a NumPy array) broken one way: an extra dimension ("rank"), the last dimension
    one too large ("size"), a neighbouring dtype ("dtype"), or a nested list ("type")."""
    import numpy as np

    if problem == "rank":
        return a[..., None]
    if problem == "size":
        shape = list(a.shape)
        shape[-1] += 1
        return np.zeros(shape, a.dtype)
    if problem == "dtype":
        wrong = {np.uint16: np.int16, np.float32: np.float64, np.int32: np.int16}
        return a.astype(wrong[a.dtype.type])
    return a.tolist()


@pytest.fixture(scope="session", autouse=True)
def _session_cache_dir(tmp_path_factory):
    """Every test session compiles into its own cache directory."""
    old = os.environ.get("KDATILE_CACHE_DIR")
    os.environ["KDATILE_CACHE_DIR"] = str(tmp_path_factory.mktemp("kdatile-cache"))
    yield
    if old is None:
        os.environ.pop("KDATILE_CACHE_DIR", None)
    else:
        os.environ["KDATILE_CACHE_DIR"] = old
