"""Tensor descriptors (kt.make_tensor_descriptor) and block copies (kt.async_load,
kt.async_store) on the CPU target against NumPy: blocks inside, across and outside the
tensor's edges, negative offsets, 16-bit and fp32 elements, a 3-D strided view. Outside
elements read as zeros and are never written."""

import numpy as np
import pytest

import tensor_desc_kernels as tk

from conftest import requires_lib

pytestmark = requires_lib


def reference_block(src, r0, c0, bm, bn):
    block = np.zeros((bm, bn), src.dtype)
    m, n = src.shape
    for r in range(bm):
        for c in range(bn):
            if 0 <= r0 + r < m and 0 <= c0 + c < n:
                block[r, c] = src[r0 + r, c0 + c]
    return block


@pytest.mark.parametrize("dtype", [np.float32, np.uint16], ids=["f32", "bf16"])
@pytest.mark.parametrize("m, n, off_m, off_n", [(32, 64, 0, 0), (37, 50, 0, 0),
                                                (37, 50, -5, 7), (20, 30, 13, -40)])
def test_block_round_trip(dtype, m, n, off_m, off_n):
    bm, bn, grid = 16, 32, (3, 2)
    rng = np.random.default_rng(m * n + off_m)
    pad = 3  # row strides wider than the rows
    src_full = rng.integers(1, 60000, size=(m, n + pad)).astype(dtype)
    if dtype == np.float32:
        src_full = rng.standard_normal((m, n + pad)).astype(np.float32)
    src = src_full[:, :n]
    blocks = np.full((grid[0] * grid[1], bm, bn), 7, dtype)
    sentinel = np.array(12345, dtype)
    dst_full = np.full((m, n + 2), sentinel, dtype)
    tk.block_round_trip[grid](src_full, blocks, dst_full, m, n, n + pad, n + 2, off_m, off_n,
                              BM=bm, BN=bn)
    expected_dst = np.full((m, n + 2), sentinel, dtype)
    for i in range(grid[0]):
        for j in range(grid[1]):
            r0, c0 = i * bm + off_m, j * bn + off_n
            block = reference_block(src, r0, c0, bm, bn)
            np.testing.assert_array_equal(blocks[i * grid[1] + j], block)
            for r in range(bm):
                for c in range(bn):
                    if 0 <= r0 + r < m and 0 <= c0 + c < n:
                        expected_dst[r0 + r, c0 + c] = block[r, c]
    np.testing.assert_array_equal(dst_full, expected_dst)


def test_strided_3d():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 5, 9)).astype(np.float32)
    view = base.transpose(2, 0, 1)  # [9, 6, 5], strides (1, 45, 9) elements
    a, b, c = view.shape
    out = np.full((4, 4, 8), np.nan, np.float32)
    tk.strided_3d[(1,)](base, out, a, b, c, 1, 45, 9, BA=4, BB=4, BC=8)
    expected = np.zeros((4, 4, 8), np.float32)
    for i in range(4):
        for j in range(4):
            for k in range(8):
                x, y, z = 1 + i, -1 + j, 2 + k
                if 0 <= x < a and 0 <= y < b and 0 <= z < c:
                    expected[i, j, k] = view[x, y, z]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.uint16], ids=["f32", "bf16"])
@pytest.mark.parametrize("off_m, off_n", [(0, 0), (-5, 16), (13, -48), (7, 3)])
def test_shifted_copy(dtype, off_m, off_n):
    m, n, bm, bn, grid = 37, 50, 16, 32, (3, 2)
    rng = np.random.default_rng(abs(off_m * 100 + off_n))
    src = rng.integers(1, 60000, size=(m, 64)).astype(dtype)
    dst = np.full((m, 64), 12345, dtype)
    tk.shifted_copy[grid](src, dst, m, n, 64, 64, off_m, off_n, BM=bm, BN=bn)
    want = np.full((m, 64), 12345, dtype)
    for i in range(grid[0]):
        for j in range(grid[1]):
            block = reference_block(src[:, :n], i * bm + off_m, j * bn + off_n, bm, bn)
            rows, cols = min(bm, m - i * bm), min(bn, n - j * bn)
            want[i * bm:i * bm + rows, j * bn:j * bn + cols] = block[:rows, :cols]
    np.testing.assert_array_equal(dst, want)


def _sm90a_params(kernel, stride, **options):
    """The sm_90a compile's parameters for a [8, 64] bf16 block copy with row strides
    `stride` and offsets (0, 0)."""
    from kdatile import _lib

    src = np.zeros((8, 64), np.uint16)
    args = [src, src, 8, 64, stride, stride, 0, 0]
    if kernel is tk.block_round_trip:
        args.insert(1, np.zeros((6, 16, 32), np.uint16))
    spec = kernel.specialize(*args, BM=16, BN=32, target="sm_90a")
    return _lib.compile(dict(spec.request(), emit="ptx", **options))["params"]


def test_sm90a_tensor_maps_are_hidden_parameters():
    """Rows of whole 16-byte units on aligned tensors, offsets known to be whole 16 bytes
    (and, for stores, not negative): the descriptors become TMA tensor maps, hidden parameters
    after the kernel's own, with the recipes the runtime evaluates: [2-byte elements, rank 2,
    base argument 0 or 1, no swizzle, block 16 x 32, shape M and N (arguments 2, 3), row
    stride (argument 4 or 5)]."""
    params = _sm90a_params(tk.shifted_copy, 64)
    maps = [p for p in params if p["kind"] == "tensor_map"]
    assert [p["kind"] for p in params[:8]] == ["pointer"] * 2 + ["scalar"] * 6
    assert [p["recipe"] for p in maps] == [
        [2, 2, 0, 0, 16, 32, 2, 1, 2, 2, 1, 3, 2, 1, 4],
        [2, 2, 1, 0, 16, 32, 2, 1, 2, 2, 1, 3, 2, 1, 5]]
    # A store at offsets of unknown sign stores elements: only the load's map.
    assert [p["recipe"][2] for p in _sm90a_params(tk.block_round_trip, 64)
            if p["kind"] == "tensor_map"] == [0]
    # Strides of 53 elements are not whole 16 bytes; block_copies=elements copies elements.
    assert not [p for p in _sm90a_params(tk.shifted_copy, 53) if p["kind"] == "tensor_map"]
    assert not [p for p in _sm90a_params(tk.shifted_copy, 64, block_copies="elements")
                if p["kind"] == "tensor_map"]


def test_gpu_kernel_builds_tensor_maps_apart():
    """A GPUKernel's caller passes the kernel's own parameters; the tensor maps are the
    launch's (a bundle keeps them all)."""
    from kdatile import gpu

    params = [{"name": "p", "kind": "pointer", "dtype": "bf16"},
              {"name": "n", "kind": "scalar", "dtype": "i32"},
              {"name": "tensor_map_0", "kind": "tensor_map", "recipe": [2, 1, 0, 0, 64, 2, 1, 1]}]
    k = gpu.GPUKernel("k", "cuda", "sm_90a", b"", "cubin", params, 4)
    assert [p["name"] for p in k.params] == ["p", "n"]
    assert [p["name"] for p in k.all_params] == ["p", "n", "tensor_map_0"]


@pytest.mark.parametrize("target", ["sm_90a", "gfx950", "gfx1250"])
def test_block_copy_engines_match_the_compiler(target):
    """gpu.BLOCK_COPY_ENGINES (what the ops decide launches by) names the targets whose
    compiler keeps a block copy for an engine: a tensor map on sm_90a, a Tensor Data Mover copy
    on gfx1250 (the store, at program offsets), buffer stores on gfx950."""
    from kdatile import _lib, gpu

    src = np.zeros((8, 64), np.uint16)
    spec = tk.shifted_copy.specialize(src, src, 8, 64, 64, 64, 0, 0, BM=16, BN=32,
                                      target=target)
    response = _lib.compile(dict(spec.request(), emit="asm" if target != "sm_90a" else "ptx"))
    engine = None
    if any(p["kind"] == "tensor_map" for p in response["params"]):
        engine = "tma"
    elif "tensor_store_from_lds" in response["text"]:
        engine = "tdm"
    elif "buffer_store_dword" in response["text"]:
        engine = "buffer"
    assert gpu.BLOCK_COPY_ENGINES.get(target) == engine


def test_tensor_map_errors_name_the_argument():
    """A launch whose tensor map TMA cannot take (checked before the driver is asked) raises a
    ValueError naming the tensor's argument: a misaligned base, a dimension of 0."""
    from kdatile import gpu

    params = [{"name": "state", "kind": "pointer", "dtype": "f32"},
              {"name": "n", "kind": "scalar", "dtype": "i32"},
              {"name": "tensor_map_0", "kind": "tensor_map",
               "recipe": [4, 1, 0, 0, 64, 2, 1, 1]}]
    k = gpu.GPUKernel("k", "cuda", "sm_90a", b"", "cubin", params, 4)
    with pytest.raises(ValueError, match="argument 'state'.*not a multiple of 16 bytes"):
        k._get_tensor_maps([0x1008, 100])
    with pytest.raises(ValueError, match="argument 'state'.*dimension 0 of the tensor is 0"):
        k._get_tensor_maps([0x1000, 0])
