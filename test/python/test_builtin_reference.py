"""The builtins as Python sees them come from the compiler's one table: every kt.X a kernel can
call exists in Python with the table's signature and reference (help(kt.X)), the names used by
the shipped kernels all resolve, and host calls raise."""

import inspect
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import kdatile as kt
from kdatile import _lib

from conftest import requires_lib

pytestmark = requires_lib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def table() -> list[dict]:
    return [e for e in json.loads(_lib.builtin_table()) if e["kind"] == "function"]


def test_every_builtin_is_reachable_with_its_reference():
    entries = table()
    assert {"load", "store", "dot", "device_print", "zeros_like"} <= {e["name"] for e in entries}
    for e in entries:
        fn = kt.language.builtins()[e["name"]]
        assert "kt." + fn.__name__ + str(inspect.signature(fn)) == e["signature"]
        # Layouts, kt.cdiv, kt.static_range and kt.constexpr also work on the host, as
        # Python definitions; every other builtin is the table's function.
        python_defined = e["name"] in vars(kt.language)
        assert (getattr(kt, e["name"]) is fn) != python_defined
        doc = inspect.getdoc(fn)
        assert " ".join(e["summary"].split()) in " ".join(doc.split())
        assert e["name"] in kt.__all__
        assert e["name"] in dir(kt)


def test_help_shows_signature_and_semantics():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    text = subprocess.run(
        [sys.executable, "-c", "import kdatile as kt; help(kt.sum)"],
        capture_output=True, text=True, check=True, env=env).stdout
    assert "sum(input, axis=None, keep_dims=False, dtype=None)" in text
    assert "Example:" in text


def test_names_used_by_shipped_kernels_resolve():
    used = set()
    for path in [*ROOT.glob("kernels/*.py"), *ROOT.glob("docs/examples/*.py"),
                 ROOT / "python/kdatile/stdlib.py"]:
        used |= set(re.findall(r"\bkt\.([A-Za-z_]\w*)", path.read_text()))
    missing = sorted(n for n in used if not hasattr(kt, n))
    assert not missing


def test_star_import_brings_the_builtins():
    namespace: dict = {}
    exec("from kdatile import *", namespace)
    assert namespace["device_print"] is kt.device_print
    assert namespace["jit"] is kt.jit


def test_host_call_raises():
    with pytest.raises(RuntimeError, match=r"kt.load can only be used inside a @kt.jit kernel"):
        kt.load(0)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'cumsum_all'"):
        kt.cumsum_all  # noqa: B018


def test_builtins_need_the_compiler_library(tmp_path):
    code = ("import kdatile as kt\n"
            "print(hasattr(kt, 'jit'), hasattr(kt, 'load'))\n"
            "try:\n    kt.load\nexcept AttributeError as e:\n    print(e)\n")
    env = {"KDATILE_LIBRARY": str(tmp_path / "missing.so"), "PYTHONPATH": str(ROOT / "python")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.splitlines()
    assert out[0] == "True False"
    assert "the builtins are defined by the compiler" in out[1]
