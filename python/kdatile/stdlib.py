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
    return x * kt.rsqrt(kt.sum(x * x, 0) + eps)


@kt.jit
def rmsnorm(x, weight, eps: kt.constexpr):
    """x * rsqrt(mean(x^2) + eps) * weight of a 1-D tile; the mean is over the whole tile."""
    return x * kt.rsqrt(kt.sum(x * x, 0) / x.shape[0] + eps) * weight


@kt.jit
def l2norm_rows(x, eps: kt.constexpr = 1e-6):
    """l2norm of every row of a 2-D tile."""
    return x * kt.rsqrt(kt.sum(x * x, 1) + eps)[:, None]


@kt.jit
def rmsnorm_rows(x, weight, eps: kt.constexpr):
    """rmsnorm of every row of a 2-D tile; `weight` is a 1-D tile over the columns."""
    return x * kt.rsqrt(kt.sum(x * x, 1) / x.shape[1] + eps)[:, None] * weight[None, :]


@kt.jit
def operand_swizzle(cols: kt.constexpr, dtype: kt.constexpr):
    """A kt.SwizzledSharedLayout for row-major buffers of `cols` elements of `dtype` per row
    read as matrix operands: 16-byte groups XORed with the row, so that any 8 consecutive
    rows read at one group offset land on 8 distinct 16-byte bank groups (rows of 128 bytes or
    more each take a phase; shorter ones share it with their neighbours in 128 bytes)."""
    nbytes = dtype.primitive_bitwidth // 8
    per_phase = max(1, 128 // (cols * nbytes))
    return kt.SwizzledSharedLayout(16 // nbytes, per_phase, 8 // per_phase, [1, 0])
