"""Parts of the package that need no compiler: dtypes, grids, signatures, requests."""

import numpy as np
import pytest

import kdatile as kt
from kdatile.runtime import normalize_grid, parse_signature


def test_dtypes():
    assert kt.float32.name == "float32" and kt.float32.short == "f32"
    assert kt.bfloat16.short == "bf16" and kt.int1.short == "i1"
    assert kt.language.to_dtype(np.float16) is kt.float16
    assert kt.language.to_dtype(np.dtype(np.bool_)) is kt.int1
    assert kt.language.to_dtype("bf16") is kt.bfloat16
    assert kt.float32 == "f32" and kt.float32 != kt.float64


def test_cdiv():
    assert kt.cdiv(10, 4) == 3 and kt.cdiv(8, 4) == 2 and kt.cdiv(0, 4) == 0


def test_grid():
    assert normalize_grid((3,)) == (3, 1, 1)
    assert normalize_grid((3, 2)) == (3, 2, 1)
    assert normalize_grid(lambda m: (m["n"] // 2, 2, 2), {"n": 8}) == (4, 2, 2)
    assert normalize_grid((np.int64(5),)) == (5, 1, 1)
    with pytest.raises(TypeError):
        normalize_grid(())
    with pytest.raises(TypeError):
        normalize_grid((1.5,))


def test_parse_signature():
    assert parse_signature("x=*f32:16, n=i32:16, eps=f32") == [
        {"name": "x", "kind": "pointer", "dtype": "f32"},
        {"name": "n", "kind": "scalar", "dtype": "i32"},
        {"name": "eps", "kind": "scalar", "dtype": "f32"},
    ]
    with pytest.raises(ValueError, match="bad signature"):
        parse_signature("x=*q32")


def test_request_specialization():
    from vector_add import vector_add

    x = np.zeros(64, np.float32)
    unaligned = np.zeros(65, np.float32)[1:]

    def request(*args, **kw):
        return vector_add.specialize(*args, **kw).request()

    r = request(x, unaligned, x, 32, BLOCK=128)
    assert r["signature"] == "x_ptr=*f32:16,y_ptr=*f32,out_ptr=*f32:16,n=i32:16"
    assert r["constexprs"] == {"BLOCK": 128}
    assert r["kernel"] == "vector_add" and r["filename"].endswith("kernels/vector_add.py")
    assert "def vector_add" in r["source"] and r.get("line_offset", 0) == 0
    r = request(x, x, x, 1, BLOCK=128)
    assert r["signature"] == "x_ptr=*f32:16,y_ptr=*f32:16,out_ptr=*f32:16"
    assert r["constexprs"] == {"n": 1, "BLOCK": 128}
    r = request(x, x, x, 2**33, BLOCK=kt.bfloat16)
    assert r["signature"].endswith("n=i64:16") and r["constexprs"] == {"BLOCK": "bf16"}
    r = request(x, x, x, 7, BLOCK=True)
    assert r["signature"].endswith("n=i32") and r["constexprs"] == {"BLOCK": True}
    r = request(x.astype(np.uint16), x.astype(np.bool_), x.astype(np.int64), np.int64(3),
                BLOCK=0.5)
    assert r["signature"] == "x_ptr=*bf16:16,y_ptr=*i1:16,out_ptr=*i64:16,n=i64"
    # Floats are tagged: JSON would read an integral float (2.0) as an int.
    assert r["constexprs"] == {"BLOCK": {"float": 0.5}}


def test_kernel_keys_differ():
    from vector_add import vector_add

    x = np.zeros(64, np.float32)
    keys = set()
    for n, block in [(5, 128), (5, 64), (16, 64), (1, 64)]:
        keys.add(vector_add.specialize(x, x, x, n, BLOCK=block).key)
    # 1 vs True vs 1.0 as constexprs are different kernels
    for block in (1, True, 1.0):
        keys.add(vector_add.specialize(x, x, x, 5, BLOCK=block).key)
    assert len(keys) == 7


def test_stdlib_imports_as_python():
    from kdatile import stdlib

    for name in ("softplus", "silu", "l2norm", "rmsnorm", "operand_swizzle"):
        assert isinstance(getattr(stdlib, name), kt.JITFunction)
    assert kt.l2norm is stdlib.l2norm
