"""Validation errors name the parameter; DSL errors surface as kt.CompilationError."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kdatile as kt
from kdatile import _lib

from conftest import ROOT, requires_lib


@pytest.fixture
def vector_add():
    from vector_add import vector_add

    return vector_add


X = np.zeros(16, np.float32)


def test_too_many_arguments(vector_add):
    with pytest.raises(TypeError, match="takes 5 arguments but 6"):
        vector_add[(1,)](X, X, X, 16, 16, 3)


def test_constexpr_positional(vector_add):
    with pytest.raises(TypeError, match="'BLOCK' is a kt.constexpr"):
        vector_add[(1,)](X, X, X, 16, 16)


def test_missing_constexpr(vector_add):
    with pytest.raises(TypeError, match="missing required constexpr 'BLOCK'"):
        vector_add[(1,)](X, X, X, 16)


def test_missing_argument(vector_add):
    with pytest.raises(TypeError, match="missing required argument 'n'"):
        vector_add[(1,)](X, X, X, BLOCK=16)


def test_unknown_keyword(vector_add):
    with pytest.raises(TypeError, match="unexpected keyword argument 'BLOK'"):
        vector_add[(1,)](X, X, X, 16, BLOK=16)


def test_duplicate_argument(vector_add):
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        vector_add[(1,)](X, X, X, 16, n=3, BLOCK=16)


def test_none_argument(vector_add):
    with pytest.raises(TypeError, match="'y_ptr' is None"):
        vector_add[(1,)](X, None, X, 16, BLOCK=16)


def test_unsupported_dtype(vector_add):
    with pytest.raises(TypeError, match="'x_ptr': unsupported NumPy dtype complex64"):
        vector_add[(1,)](X.astype(np.complex64), X, X, 16, BLOCK=16)
    with pytest.raises(TypeError, match="'out_ptr': unsupported NumPy dtype uint32"):
        vector_add[(1,)](X, X, X.astype(np.uint32), 16, BLOCK=16)


def test_unsupported_scalar(vector_add):
    with pytest.raises(TypeError, match="'n': unsupported type str"):
        vector_add[(1,)](X, X, X, "16", BLOCK=16)
    with pytest.raises(OverflowError, match="'n'"):
        vector_add[(1,)](X, X, X, 2**70, BLOCK=16)


def test_bad_constexpr_value(vector_add):
    with pytest.raises(TypeError, match="constexpr 'BLOCK'"):
        vector_add[(1,)](X, X, X, 16, BLOCK="16")
    with pytest.raises(TypeError, match="constexpr 'BLOCK'"):
        vector_add[(1,)](X, X, X, 16, BLOCK=X)
    with pytest.raises(ValueError, match="constexpr 'BLOCK'"):
        vector_add[(1,)](X, X, X, 16, BLOCK=float("nan"))


def test_array_for_annotated_scalar():
    from dsl_kernels import scale_add

    with pytest.raises(TypeError, match="'alpha' must be a scalar"):
        scale_add[(1,)](X, X, 16, X, BLOCK=16)
    with pytest.raises(TypeError, match="'alpha' must be float32"):
        scale_add[(1,)](X, X, 16, True, BLOCK=16)


def test_torch_device():
    torch = pytest.importorskip("torch", reason="torch is optional and not installed here")
    from vector_add import vector_add

    t = torch.zeros(16, device="meta")
    with pytest.raises(ValueError, match="'y_ptr': tensor is on device 'meta'"):
        vector_add[(1,)](X, t, X, 16, BLOCK=16)


def test_bad_grid(vector_add):
    with pytest.raises(TypeError, match="1 to 3 dimensions"):
        vector_add[(1, 1, 1, 1)](X, X, X, 16, BLOCK=16)
    with pytest.raises(ValueError, match="out of range"):
        vector_add[(-1,)](X, X, X, 16, BLOCK=16)


def test_call_without_grid(vector_add):
    with pytest.raises(RuntimeError, match=r"vector_add\[grid\]"):
        vector_add(X, X, X, 16, BLOCK=16)


def test_builtin_on_host():
    with pytest.raises(RuntimeError, match="only be used inside a @kt.jit kernel"):
        kt.program_id(0)


def test_missing_library(monkeypatch, tmp_path):
    monkeypatch.setattr(_lib, "_lib", None)
    monkeypatch.delenv("KDATILE_LIBRARY", raising=False)
    monkeypatch.setattr(_lib, "SOURCE_TREE_LIBRARY", str(tmp_path / "nope" / "libkda.so"))
    monkeypatch.setattr(_lib, "INSTALLED_LIBRARY", str(tmp_path / "nope2" / "libkda.so"))
    with pytest.raises(RuntimeError, match=r"cannot find libkda.so.*pip install \..*"
                                           r"\.ci/setup.*KDATILE_LIBRARY"):
        _lib.lib()
    monkeypatch.setenv("KDATILE_LIBRARY", str(tmp_path / "missing.so"))
    with pytest.raises(RuntimeError, match="KDATILE_LIBRARY=.*missing.so"):
        _lib.lib()


def test_import_does_not_need_library(tmp_path):
    env = dict(os.environ, KDATILE_LIBRARY=str(tmp_path / "missing.so"),
               PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.path.join(ROOT, "kernels"))
    code = "import kdatile, vector_add, l2norm_rows, delta_rule_step, kdatile.stdlib; print('ok')"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


BAD_KERNEL = """\
import kdatile as kt


@kt.jit
def bad(x_ptr, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    y = kt.load(x_ptr + offs)
    kt.store(x_ptr + offs, y + undefined_name)
"""


def _import_file(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@requires_lib
def test_compilation_error_location(tmp_path):
    path = tmp_path / "bad_kernel.py"
    path.write_text(BAD_KERNEL)
    mod = _import_file(str(path), "bad_kernel")
    with pytest.raises(kt.CompilationError) as info:
        mod.bad[(1,)](X, BLOCK=16)
    text = str(info.value)
    assert text.startswith(f"{path}:8:32: error:"), text
    assert "undefined_name" in text
    lines = text.splitlines()
    src = "    kt.store(x_ptr + offs, y + undefined_name)"
    assert src in lines
    caret = lines[lines.index(src) + 1]
    assert caret.rstrip() == " " * 31 + "^"
    # docs/python.md ("Errors") shows this kernel's error as foo.py's: the same message.
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        doc = next(line for line in f if line.startswith("kernels/foo.py:8:32: error: "))
    assert lines[0].split(": error: ", 1)[1] == doc.strip().split(": error: ", 1)[1]


@requires_lib
def test_compilation_error_in_exec_code():
    """A kernel defined inside a function: its own text is sent with a line offset."""

    def make():
        @kt.jit
        def nested_bad(x_ptr, BLOCK: kt.constexpr):
            offs = kt.arange(0, BLOCK)
            kt.store(x_ptr + offs, also_undefined)  # noqa: F821

        return nested_bad

    import inspect

    kernel = make()
    line = inspect.getsourcelines(make)[1] + 4
    with pytest.raises(kt.CompilationError, match=rf"test_errors.py:{line}:\d+: error:"):
        kernel[(1,)](X, BLOCK=16)


@requires_lib
def test_compilation_error_in_exec_string(tmp_path):
    """exec'd code registered in linecache keeps real line numbers."""
    import linecache

    code = textwrap.dedent(BAD_KERNEL)
    fname = "<generated-kernels>"
    linecache.cache[fname] = (len(code), None, code.splitlines(True), fname)
    ns = {}
    exec(compile(code, fname, "exec"), ns)
    with pytest.raises(kt.CompilationError, match=r"<generated-kernels>:8:\d+: error:"):
        ns["bad"][(1,)](X, BLOCK=16)


def test_pointer_annotations():
    from dsl_kernels import annotated_ptrs

    with pytest.raises(TypeError, match=r"'out_ptr' must be an array or tensor \(kt.pointer\)"):
        annotated_ptrs[(1,)](X, 3, 16)
    with pytest.raises(TypeError, match="'x_ptr' must point to float32, got a NumPy array"):
        annotated_ptrs[(1,)](X.astype(np.float64), X, 16)
    with pytest.raises(TypeError, match="'n' must be a scalar"):
        annotated_ptrs[(1,)](X, X, X)


@requires_lib
def test_pointer_annotations_run():
    from dsl_kernels import annotated_ptrs

    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float64)
    annotated_ptrs[(1,)](x, out, 10)  # BLOCK from its default
    np.testing.assert_array_equal(out, x)


@requires_lib
def test_long_call_chain_is_an_error_not_a_crash(tmp_path):
    """Calls are inlined recursively in the compiler: a chain of 300 helpers is a
    CompilationError at the call past the bound (a chain of 2000 used to overflow its stack
    and kill the process)."""
    depth = 300
    helpers = "".join(f"@kt.jit\ndef f{i}(a):\n    return f{i + 1}(a) + 1\n\n\n"
                      for i in range(depth))
    path = tmp_path / "call_chain.py"
    path.write_text("import kdatile as kt\n\n\n" + helpers + f"@kt.jit\ndef f{depth}(a):\n"
                    "    return a\n\n\n@kt.jit\ndef chain(o, n):\n    kt.store(o, f0(n) * 1.0)\n")
    mod = _import_file(str(path), "call_chain")
    with pytest.raises(kt.CompilationError, match="calls are nested more than 256 deep"):
        mod.chain[(1,)](np.zeros(1, np.float32), 3)


@requires_lib
def test_source_with_a_utf8_byte_order_mark(tmp_path):
    """A BOM before the first line is skipped, as Python does (it read as a name before)."""
    path = tmp_path / "bom_kernel.py"
    path.write_bytes(b"\xef\xbb\xbf" + VALID_KERNEL.encode())
    mod = _import_file(str(path), "bom_kernel")
    x = np.arange(16, dtype=np.float32)
    mod.twice[(1,)](x, BLOCK=16)
    np.testing.assert_array_equal(x, 2 * np.arange(16, dtype=np.float32))


VALID_KERNEL = """\
import kdatile as kt


@kt.jit
def twice(x_ptr, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    kt.store(x_ptr + offs, kt.load(x_ptr + offs) * 2.0)
"""
