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
