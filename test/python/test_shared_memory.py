"""Shared buffers and asynchronous copies on the CPU target (each program has its own buffer on
its stack and copies at once), against NumPy. GPU lowering: test/Conversion/TileToGPU."""

import subprocess
import textwrap

import numpy as np
import pytest

import kdatile as kt
import smem_kernels as sk
from kda_reference import bf16_to_f32, f32_to_bf16

from conftest import KDA_COMPILE, requires_lib

pytestmark = requires_lib


def random_bits(rng, shape):
    """float32 arrays of arbitrary bit patterns (NaN payloads, infinities, denormals): a copy
    must move bits, not values."""
    return rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("n", [1, 5, 31, 32, 33, 100, 128])
def test_pipelined_copy(n, stages):
    block, cols, nprog = 32, 16, 3
    ld = cols * nprog
    rng = np.random.default_rng(n * 10 + stages)
    src = random_bits(rng, (n, ld))
    # Rows past n must not be written: a sentinel block below the destination.
    dst = np.full((n + block, ld), -1, np.int32).view(np.float32)
    sk.pipelined_copy[(nprog,)](src, dst, n, ld, BLOCK=block, COLS=cols, STAGES=stages)
    np.testing.assert_array_equal(dst[:n].view(np.uint32), src.view(np.uint32))
    np.testing.assert_array_equal(dst[n:].view(np.int32), -1)


def test_store_load_round_trip():
    block, w = 8, 4
    rng = np.random.default_rng(0)
    x = rng.standard_normal(block * w).astype(np.float32)
    out = np.full((7, block, w), np.nan, np.float32)
    sk.store_load[(2,)](x, out, 2.5, -3, BLOCK=block, W=w)
    tile = x.reshape(block, w)
    np.testing.assert_array_equal(out[0], 2.5)
    np.testing.assert_array_equal(out[1], -3.0)
    np.testing.assert_array_equal(out[2], np.broadcast_to(x[:block, None], (block, w)))
    np.testing.assert_array_equal(out[3], np.broadcast_to(x[None, :w], (block, w)))
    np.testing.assert_array_equal(out[4], tile)
    np.testing.assert_array_equal(out[5], tile + np.float32(1))
    np.testing.assert_array_equal(out[6], tile * np.float32(2))


@pytest.mark.parametrize("dtype", [np.uint16, np.int32, np.float32, np.int8, np.float16,
                                   np.float64, np.int64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [3, 64])
def test_typed_copy(dtype, n):
    """uint16 arrays are bf16 bit patterns: a bf16 buffer moves them unchanged. Integers are
    random bits; floats random values, signed zeros, infinities and quiet NaNs (the host
    back end quiets signaling bf16 NaNs in any load or store, shared buffer or not)."""
    block = 64
    rng = np.random.default_rng(n)
    if dtype == np.uint16:
        values = rng.standard_normal(block).astype(np.float32)
        values[:4] = [-0.0, np.inf, -np.inf, np.nan]
        x = f32_to_bf16(values)
    elif np.dtype(dtype).kind == "f":
        x = rng.standard_normal(block).astype(dtype)
        x[:4] = [-0.0, np.inf, -np.inf, np.nan]
    else:
        bits = rng.integers(0, 256, size=block * np.dtype(dtype).itemsize, dtype=np.uint8)
        x = bits.view(dtype).copy()
    out = np.zeros(block, dtype)
    sk.typed_copy[(1,)](x, out, n, BLOCK=block)
    np.testing.assert_array_equal(out[:n].view(np.uint8), x[:n].view(np.uint8))
    np.testing.assert_array_equal(out[n:].view(np.uint8), 0)


def test_store_converts():
    block = 64
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(block) * 100).astype(np.float32)
    h = np.zeros(block, np.uint16)
    w = np.zeros(block, np.int32)
    sk.convert_store[(1,)](x, h, w, BLOCK=block)
    np.testing.assert_array_equal(h, f32_to_bf16(x))
    np.testing.assert_array_equal(w, np.trunc(x).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint16],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [0, 10, 64])
def test_masked_copy_writes_zeros(dtype, n):
    """The buffer held 7s: masked elements become 0, not the old value (bf16 as uint16)."""
    block = 64
    x = np.arange(block) + 100
    x = f32_to_bf16(x.astype(np.float32)) if dtype == np.uint16 else x.astype(dtype)
    out = np.full((4, block), 99, dtype)
    sk.masked_copy[(1,)](x, out, n, BLOCK=block)
    lanes = np.arange(block)
    live = (lanes < n) & (lanes % 3 != 0)
    zero = np.zeros(block, dtype)
    np.testing.assert_array_equal(out[0], np.where(live, x, zero))
    np.testing.assert_array_equal(out[1], zero)
    np.testing.assert_array_equal(out[2], zero)
    np.testing.assert_array_equal(out[3], x)


def test_shape_and_dtype_at_compile_time():
    r, c = 4, 8
    out = np.full(3 + r * c, -1, np.int32)
    sk.shape_dtype[(1,)](out, R=r, C=c)
    np.testing.assert_array_equal(out[:3], [3, r, c])
    np.testing.assert_array_equal(out[3:], np.arange(r * c))


def test_shape_static_assert_fails():
    out = np.zeros(4, np.float32)
    with pytest.raises(kt.CompilationError, match="static assertion failed: the buffer needs 8 "
                                                  "rows"):
        sk.wrong_shape[(1,)](out, R=4)
    sk.wrong_shape[(1,)](out, R=8)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_slots_chosen_at_run_time(n):
    block = 16
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, block)).astype(np.float32)
    out = np.zeros((n, block), np.float32)
    sk.chosen_slots[(1,)](x, out, n, BLOCK=block)
    prev = np.vstack([np.zeros((1, block), np.float32), x[:-1]])
    np.testing.assert_array_equal(out, x + prev)


CONSTANT_STORE = """\
import kdatile as kt


@kt.jit
def k(out_ptr):
    buf = kt.alloc_shared((4, 8), kt.float32)
    buf.store(1.5)
    kt.store(out_ptr + kt.arange(0, 8), buf.index(0).load())
"""


def test_store_compile_time_constant(tmp_path):
    path = tmp_path / "constant_store.py"
    path.write_text(textwrap.dedent(CONSTANT_STORE))
    proc = subprocess.run([KDA_COMPILE, str(path), "--kernel", "k", "--target", "cpu",
                           "--signature", "out_ptr=*f32", "--emit", "tile", "-o", "-"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "tile.smem_store" in proc.stdout


@pytest.mark.parametrize("block, stages, dynamic", [(32, 2, 0), (64, 3, 3 * 64 * 128 * 4)])
def test_sm90a_shared_memory_beyond_48k_is_dynamic(block, stages, dynamic):
    """On sm_90a, shared memory beyond the 48 KiB a static allocation may take lives in one
    dynamically sized allocation whose size the compiler reports: the JIT passes it at launch
    (and the runtime opts the function in). PTX needs no ptxas, so this runs everywhere."""
    from kdatile import _lib

    args = (np.zeros((8, 256), np.float32), np.zeros((8, 256), np.float32), 8, 256)
    constexprs = {"BLOCK": block, "COLS": 128, "STAGES": stages}
    request = sk.pipelined_copy.specialize(*args, **constexprs, target="sm_90a",
                                           num_warps=4).request()
    response = _lib.compile(dict(request, emit="ptx"))
    assert int(response.get("shared_bytes") or 0) == dynamic
    ptx = response["text"]
    assert (".extern .shared .align 16 .b8 kda_dynamic_smem[]" in ptx) == (dynamic > 0)


@pytest.mark.parametrize("pad", [1, 4, 8])
def test_padded_dot(pad):
    """kt.dot of operands read from padded buffers: bf16 products summed in fp32."""
    m = n = k = 64
    rng = np.random.default_rng(pad)
    a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
    b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
    c = np.zeros((m, n), np.float32)
    sk.padded_dot[(1,)](a, b, c, M=m, N=n, K=k, PAD=pad)
    want = bf16_to_f32(a).astype(np.float64) @ bf16_to_f32(b).astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("pad", [1, 3, 4])
def test_padded_transpose(pad):
    r, cols, programs = 16, 32, 3
    rng = np.random.default_rng(pad)
    src = rng.standard_normal((programs, r, cols)).astype(np.float32)
    dst = np.zeros((programs, 2, cols, r), np.float32)
    sk.padded_transpose[(programs,)](src, dst, R=r, C=cols, PAD=pad)
    np.testing.assert_array_equal(dst[:, 0], src.transpose(0, 2, 1))
    np.testing.assert_array_equal(dst[:, 1], 2 * src.transpose(0, 2, 1))
