"""DSL kernels of test_tensor_desc.py: tensor descriptors and block copies."""

import kdatile as kt


@kt.jit
def block_round_trip(src, blocks, dst, M, N, stride_src, stride_dst, off_m, off_n,
                     BM: kt.constexpr, BN: kt.constexpr):
    """Program (i, j) loads the BM x BN block of src [M, N] at (i * BM + off_m, j * BN +
    off_n), offsets of any sign, stores the buffer densely to blocks[i, j] (zeros where the
    block leaves src) and writes it back to the same block of dst (nothing outside dst)."""
    i = kt.program_id(0)
    j = kt.program_id(1)
    src_desc = kt.make_tensor_descriptor(src, (M, N), (stride_src, 1), (BM, BN))
    dst_desc = kt.make_tensor_descriptor(dst, (M, N), (stride_dst, 1), (BM, BN))
    buf = kt.alloc_shared((BM, BN), src.dtype.element_ty)
    kt.async_load(src_desc, (i * BM + off_m, j * BN + off_n), buf)
    kt.async_wait(0)
    rm = kt.arange(0, BM)
    rn = kt.arange(0, BN)
    first = (i * kt.num_programs(1) + j) * BM * BN
    kt.store(blocks + first + rm[:, None] * BN + rn[None, :], buf.load())
    kt.async_store(dst_desc, (i * BM + off_m, j * BN + off_n), buf)


@kt.jit
def strided_3d(src, out, A, B, C, sa, sb, sc, BA: kt.constexpr, BB: kt.constexpr,
               BC: kt.constexpr):
    """One block of a 3-D tensor with arbitrary element strides (a transposed view), at
    (1, -1, 2), stored densely to out [BA, BB, BC]."""
    desc = kt.make_tensor_descriptor(src, (A, B, C), (sa, sb, sc), (BA, BB, BC))
    buf = kt.alloc_shared((BA, BB, BC), kt.float32)
    kt.async_load(desc, (1, -1, 2), buf)
    kt.async_wait(0)
    ra = kt.arange(0, BA)
    rb = kt.arange(0, BB)
    rc = kt.arange(0, BC)
    offs = ra[:, None, None] * BB * BC + rb[None, :, None] * BC + rc[None, None, :]
    kt.store(out + offs, buf.load())


@kt.jit
def shifted_copy(src, dst, M, N, stride_src, stride_dst, off_m, off_n, BM: kt.constexpr,
                 BN: kt.constexpr):
    """dst[i * BM:, j * BN:] (a BM x BN block, nothing written outside dst [M, N]) = the block
    of src [M, N] at (i * BM + off_m, j * BN + off_n), zeros where it leaves src: loads at
    offsets of any sign, stores at program offsets (never negative)."""
    i = kt.program_id(0)
    j = kt.program_id(1)
    src_desc = kt.make_tensor_descriptor(src, (M, N), (stride_src, 1), (BM, BN))
    dst_desc = kt.make_tensor_descriptor(dst, (M, N), (stride_dst, 1), (BM, BN))
    buf = kt.alloc_shared((BM, BN), src.dtype.element_ty)
    kt.async_load(src_desc, (i * BM + off_m, j * BN + off_n), buf)
    kt.async_wait(0)
    kt.async_store(dst_desc, (i * BM, j * BN), buf)
