"""Argument passing: dtypes, scalars, grids, specialization, torch tensors."""

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib

pytestmark = requires_lib


def _bf16_bits(x):
    """Round-to-nearest-even fp32 -> bf16 bit patterns (uint16)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def test_scalar_annotation_and_int_specialization():
    from dsl_kernels import scale_add

    x = np.arange(40, dtype=np.float32)
    out = np.zeros(48, np.float32)
    scale_add[(3,)](x, out, 40, 2, BLOCK=16)  # int 2 passed to an f32 parameter
    np.testing.assert_array_equal(out[:40], x * 2 + 1)
    assert not out[40:].any()
    out[:] = 0
    scale_add[(1,)](x, out, 1, 0.5, BLOCK=16)  # n == 1 becomes a constexpr
    assert out[0] == 1.0 and not out[1:].any()


@pytest.mark.parametrize("value", [2.5, 7, np.float32(-1.25), np.float64(3.0), np.int64(9)])
def test_scalars(value):
    from dsl_kernels import fill_scalar

    out = np.zeros(8, np.float32)
    fill_scalar[(1,)](out, value, BLOCK=8)
    np.testing.assert_array_equal(out, np.float32(value))


def test_large_int_is_i64():
    from dsl_kernels import fill_scalar

    out = np.zeros(8, np.float32)
    fill_scalar[(1,)](out, 2**40, BLOCK=8)
    np.testing.assert_array_equal(out, np.float32(2**40))


@pytest.mark.parametrize("src,dst", [
    (np.float32, np.float64), (np.float64, np.float32), (np.float32, np.float16),
    (np.int32, np.float32), (np.float32, np.int32), (np.int64, np.int8), (np.int16, np.int64),
])
def test_dtypes(src, dst):
    from dsl_kernels import copy_cast

    n = 37
    x = (np.arange(n) - 10).astype(src)
    out = np.zeros(n, dst)
    copy_cast[(kt.cdiv(n, 16),)](x, out, n, BLOCK=16, OUT=np.dtype(dst))
    np.testing.assert_array_equal(out, x.astype(dst))


def test_bf16_as_uint16():
    from dsl_kernels import copy_cast

    n = 20
    x = np.linspace(-3, 3, n, dtype=np.float32)
    bits = _bf16_bits(x)
    out = np.zeros(n, np.float32)
    copy_cast[(1,)](bits, out, n, BLOCK=32, OUT=kt.float32)
    np.testing.assert_array_equal(out, _bf16_to_f32(bits))
    back = np.zeros(n, np.uint16)
    copy_cast[(1,)](out, back, n, BLOCK=32, OUT=kt.bfloat16)
    np.testing.assert_array_equal(back, bits)


def test_bool_arrays_are_bytes():
    from dsl_kernels import copy_cast

    n = 19
    x = (np.arange(n) % 3 == 0)
    out = np.zeros(n, np.int32)
    copy_cast[(1,)](x, out, n, BLOCK=32, OUT=kt.int32)
    np.testing.assert_array_equal(out, x.astype(np.int32))
    back = np.zeros(n, np.bool_)
    copy_cast[(1,)](out, back, n, BLOCK=32, OUT=kt.int1)
    np.testing.assert_array_equal(back, x)


@pytest.mark.parametrize("grid", [(5,), (4, 3), (2, 3, 4)])
def test_grid_dims(grid):
    from dsl_kernels import grid_ids

    total = int(np.prod(grid))
    out = np.zeros(total + 1, np.int32)
    grid_ids[grid](out)
    np.testing.assert_array_equal(out[:total], np.arange(1, total + 1))
    assert out[total] == 0


def test_stdlib():
    from dsl_kernels import stdlib_ops

    x = np.linspace(-30, 30, 64, dtype=np.float32)
    out = np.zeros(4 * 64, np.float32)
    stdlib_ops[(1,)](x, out, BLOCK=64)
    xd = x.astype(np.float64)
    softplus = np.where(xd > 20, xd, np.log1p(np.exp(np.minimum(xd, 20))))
    np.testing.assert_allclose(out[:64], softplus, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[64:128], xd / (1 + np.exp(-xd)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[128:192], xd / np.sqrt(np.sum(xd * xd) + 1e-6), rtol=1e-5)
    np.testing.assert_allclose(out[192:], xd / np.sqrt(np.sum(xd * xd) + 0.5), rtol=1e-5)


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch", reason="torch is optional and not installed here")
    from vector_add import vector_add

    n = 300
    x = torch.randn(n)
    y = torch.randn(n)
    out = torch.empty(n)
    vector_add[(kt.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
    assert torch.equal(out, x + y)
    from dsl_kernels import copy_cast

    xb = x.to(torch.bfloat16)
    back = torch.empty(n)
    copy_cast[(kt.cdiv(n, 128),)](xb, back, n, BLOCK=128, OUT=torch.float32)
    assert torch.equal(back, xb.float())


def test_stdlib_norms():
    from dsl_kernels import stdlib_norms

    R, C = 4, 32
    rng = np.random.default_rng(3)
    x = rng.standard_normal((R, C)).astype(np.float32)
    w = rng.standard_normal(C).astype(np.float32)
    out = np.zeros(C + 2 * R * C, np.float32)
    stdlib_norms[(1,)](x, w, out, R=R, C=C)
    xd, wd = x.astype(np.float64), w.astype(np.float64)
    rms = xd[0] / np.sqrt(np.mean(xd[0] ** 2) + 1e-5) * wd
    np.testing.assert_allclose(out[:C], rms, rtol=1e-5, atol=1e-6)
    l2 = xd / np.sqrt(np.sum(xd * xd, axis=1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out[C:C + R * C].reshape(R, C), l2, rtol=1e-5, atol=1e-6)
    rms_rows = xd / np.sqrt(np.mean(xd * xd, axis=1, keepdims=True) + 1e-5) * wd
    np.testing.assert_allclose(out[C + R * C:].reshape(R, C), rms_rows, rtol=1e-5, atol=1e-6)


def test_read_only_arrays_only_where_the_kernel_only_reads(tmp_path):
    """A read-only array is fine for a pointer the kernel only loads from, and refused, naming
    the argument, for one it stores through (a read-only memory map would kill the process, a
    view of bytes would modify them)."""
    from dsl_kernels import copy_cast

    x = np.arange(8, dtype=np.float32)
    x.flags.writeable = False
    out = np.zeros(8, np.float32)
    copy_cast[(1,)](x, out, 8, BLOCK=8, OUT=kt.float32)
    np.testing.assert_array_equal(out, x)
    np.save(tmp_path / "out.npy", out)
    for frozen in (np.load(tmp_path / "out.npy", mmap_mode="r"),
                   np.frombuffer(out.tobytes(), np.float32)):
        with pytest.raises(ValueError, match="argument 'out_ptr' is a read-only array, but "
                                             "kernel 'copy_cast' stores through it"):
            copy_cast[(1,)](x, frozen, 8, BLOCK=8, OUT=kt.float32)


def test_compiler_reports_written_pointers():
    from kdatile import _lib

    from dsl_kernels import copy_cast

    x = np.zeros(8, np.float32)
    spec = copy_cast.specialize(x, x, 8, BLOCK=8, OUT=kt.float32)
    params = _lib.compile(dict(spec.request(), emit="tile"))["params"]
    assert [(p["name"], p["written"]) for p in params] == [
        ("x_ptr", False), ("out_ptr", True), ("n", False)]
