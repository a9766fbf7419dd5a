"""The kdatile DSL standard library, written in the DSL.

The C++ frontend parses this file and resolves `kt.<name>` in kernels to the functions here
when `<name>` is not a builtin; calls are inlined. The file also imports as plain Python.
"""

import kdatile as kt


@kt.jit
def softplus(x):
    """log(1 + exp(x)), and x itself for x > 20 (where the two agree in fp32)."""
    return kt.where(x > 20.0, x, kt.log(1.0 + kt.exp(kt.minimum(x, 20.0))))


@kt.jit
def silu(x):
    """x * sigmoid(x)."""
    return x * kt.sigmoid(x)


@kt.jit
def l2norm(x, eps: kt.constexpr = 1e-6):
    """x / sqrt(sum(x^2) + eps) of a 1-D tile (padding lanes must hold 0)."""
    kt.static_assert(len(x.shape) == 1, "kt.l2norm normalizes a 1-D tile; for the rows of a "
                     "2-D tile use kt.l2norm_rows")
    return x * kt.rsqrt(kt.sum(x * x, 0) + eps)


@kt.jit
def rmsnorm(x, weight, eps: kt.constexpr):
    """x * rsqrt(mean(x^2) + eps) * weight of a 1-D tile; the mean is over the whole tile."""
    kt.static_assert(len(x.shape) == 1, "kt.rmsnorm normalizes a 1-D tile; for the rows of a "
                     "2-D tile use kt.rmsnorm_rows")
    return x * kt.rsqrt(kt.sum(x * x, 0) / x.shape[0] + eps) * weight


@kt.jit
def l2norm_rows(x, eps: kt.constexpr = 1e-6):
    """l2norm of every row of a 2-D tile."""
    kt.static_assert(len(x.shape) == 2, "kt.l2norm_rows normalizes the rows of a 2-D tile")
    return x * kt.rsqrt(kt.sum(x * x, 1) + eps)[:, None]


@kt.jit
def rmsnorm_rows(x, weight, eps: kt.constexpr):
    """rmsnorm of every row of a 2-D tile; `weight` is a 1-D tile over the columns."""
    kt.static_assert(len(x.shape) == 2, "kt.rmsnorm_rows normalizes the rows of a 2-D tile")
    return x * kt.rsqrt(kt.sum(x * x, 1) / x.shape[1] + eps)[:, None] * weight[None, :]


@kt.jit
def operand_swizzle(cols: kt.constexpr, dtype: kt.constexpr):
    """The shared-memory layout of buffers of `cols` elements of `dtype` per row read as
    matrix operands. Rows of whole 32-byte groups take kt.NVMMASharedLayout at the widest
    swizzle (32, 64 or 128 bytes) that divides them: the matrix unit of sm_90a (wgmma) reads
    it in place, and any 8 consecutive rows read at one 16-byte offset (8x8 matrix loads)
    land on 8 distinct bank groups; such a buffer needs a multiple of 8 rows. Other rows take
    a kt.SwizzledSharedLayout of 16-byte groups XORed with the row."""
    nbytes = dtype.primitive_bitwidth // 8
    row_bytes = cols * nbytes
    if row_bytes % 32 == 0:
        swizzle = 128 if row_bytes % 128 == 0 else (64 if row_bytes % 64 == 0 else 32)
        return kt.NVMMASharedLayout(swizzle, dtype.primitive_bitwidth)
    per_phase = max(1, 128 // row_bytes)
    return kt.SwizzledSharedLayout(16 // nbytes, per_phase, 8 // per_phase, [1, 0])
