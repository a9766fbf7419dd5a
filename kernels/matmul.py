"""c = a @ b for row-major a [M, K] and b [K, N] of 16-bit floats, accumulated in fp32 and
stored in c's dtype. One program per BLOCK_M x BLOCK_N tile of c (grid (cdiv(M, BLOCK_M),
cdiv(N, BLOCK_N))); the K loop streams BLOCK_K-wide slices of a and b through a ring of
STAGES shared-memory slots by asynchronous copies, STAGES - 1 of them in flight while the
matrix instructions consume the oldest (cp.async on sm_90a; on the CPU and AMD targets the
copies complete at once). Each slot holds its slice as BLOCK_K / KS steps of KS along K, one
product per step. The slots take kt.operand_swizzle's layout: on sm_90a, when 4-warp
warpgroups divide BLOCK_M, wgmma reads each step where it lies in shared memory; otherwise
each step is read into registers (8x8 matrix loads on sm_90a), which the swizzle keeps free of
bank conflicts, and smaller steps keep a warp's operands small beside its accumulator. Rows,
columns and K past the matrix are masked: zeros in, nothing out."""

import kdatile as kt


@kt.jit
def _copy_slice(a_slot, b_slot, a_ptr, b_ptr, rm, rn, k0, M, N, K, stride_am, stride_bk,
                BLOCK_K: kt.constexpr, KS: kt.constexpr):
    """Starts copying a[rm, k0:k0+BLOCK_K] and b[k0:k0+BLOCK_K, rn] into one slot of the
    rings, step by step of KS along K (2 * BLOCK_K / KS copies: as many groups)."""
    for j in kt.static_range(BLOCK_K // KS):
        rk = k0 + j * KS + kt.arange(0, KS)
        kt.async_copy(a_slot.index(j), a_ptr + rm[:, None] * stride_am + rk[None, :],
                      mask=(rm[:, None] < M) & (rk[None, :] < K))
        kt.async_copy(b_slot.index(j), b_ptr + rk[:, None] * stride_bk + rn[None, :],
                      mask=(rk[:, None] < K) & (rn[None, :] < N))


@kt.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: kt.constexpr, BLOCK_N: kt.constexpr, BLOCK_K: kt.constexpr,
           STAGES: kt.constexpr, KS: kt.constexpr = 32, DTYPE: kt.constexpr = kt.bfloat16):
    kt.static_assert(STAGES >= 2, "matmul needs at least two shared-memory stages")
    kt.static_assert(BLOCK_K % KS == 0, "BLOCK_K must be a multiple of KS")
    steps = BLOCK_K // KS
    rm = kt.program_id(0) * BLOCK_M + kt.arange(0, BLOCK_M)
    rn = kt.program_id(1) * BLOCK_N + kt.arange(0, BLOCK_N)
    a_ring = kt.alloc_shared((STAGES, steps, BLOCK_M, KS), DTYPE, kt.operand_swizzle(KS, DTYPE))
    b_ring = kt.alloc_shared((STAGES, steps, KS, BLOCK_N), DTYPE,
                             kt.operand_swizzle(BLOCK_N, DTYPE))
    for s in kt.static_range(STAGES - 1):
        _copy_slice(a_ring.index(s), b_ring.index(s), a_ptr, b_ptr, rm, rn, s * BLOCK_K,
                    M, N, K, stride_am, stride_bk, BLOCK_K, KS)
    acc = kt.zeros((BLOCK_M, BLOCK_N), kt.float32)
    for kb in range(kt.cdiv(K, BLOCK_K)):
        # Slice kb has landed (2 * steps copies per slice), and every thread is done with
        # the slot the next copies overwrite.
        kt.async_wait(2 * steps * (STAGES - 2))
        ahead = kb + STAGES - 1
        _copy_slice(a_ring.index(ahead % STAGES), b_ring.index(ahead % STAGES), a_ptr, b_ptr,
                    rm, rn, ahead * BLOCK_K, M, N, K, stride_am, stride_bk, BLOCK_K, KS)
        a_slot = a_ring.index(kb % STAGES)
        b_slot = b_ring.index(kb % STAGES)
        for j in kt.static_range(steps):
            acc = kt.dot(a_slot.index(j).load(), b_slot.index(j).load(), acc)
    kt.async_wait(0)
    kt.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
