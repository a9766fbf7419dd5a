"""Row-wise L2 normalisation of an [M, N] fp32 matrix: out[m, :] = x[m, :] / sqrt(sum x^2 + eps).

One program per BLOCK_M rows; BLOCK_N is a power of two >= N (N need not be one). Rows are
addressed through their strides (in elements), so views with padded rows work.
"""

import kdatile as kt


@kt.jit
def l2norm_rows(x_ptr, out_ptr, M, N, stride_xm, stride_om, eps,
                BLOCK_M: kt.constexpr, BLOCK_N: kt.constexpr):
    pid = kt.program_id(0)
    rows = pid * BLOCK_M + kt.arange(0, BLOCK_M)
    cols = kt.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = kt.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    sq = kt.sum(x * x, 1)
    y = x * kt.rsqrt(sq + eps)[:, None]
    kt.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y, mask=mask)
