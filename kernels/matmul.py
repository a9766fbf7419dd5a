"""c = a @ b for row-major a [M, K] and b [K, N] of 16-bit floats, accumulated in fp32 and
stored in c's dtype. One program per BLOCK_M x BLOCK_N tile of c (grid (cdiv(M, BLOCK_M),
cdiv(N, BLOCK_N))); the K loop streams BLOCK_K-wide slices of a and b through a ring of
STAGES shared-memory slots by tensor-descriptor block copies, STAGES - 1 of them in flight
while the matrix instructions consume the oldest (TMA on sm_90a, one thread per block, into
the swizzle the matrix unit reads; elsewhere the target's copies, which into these swizzled
slots complete at once). One slice of products stays in flight while the next is issued
(asynchronous wgmma on sm_90a; elsewhere products complete at once). Each slot holds its
slice as BLOCK_K / KS steps of KS along K, one product per step. The slots take
kt.operand_swizzle's layout: on sm_90a, when 4-warp warpgroups divide BLOCK_M, wgmma reads
each step where it lies in shared memory; otherwise each step is read into registers (8x8
matrix loads on sm_90a), which the swizzle keeps free of bank conflicts, and smaller steps
keep a warp's operands small beside its accumulator. Rows, columns and K past the matrix
read as zeros (the copies' bounds) and are not stored."""

import kdatile as kt


@kt.jit
def _copy_slice(a_slot, b_slot, a_desc, b_desc, m0, n0, k0, BLOCK_K: kt.constexpr,
                KS: kt.constexpr):
    """Starts copying a[m0:, k0:k0+BLOCK_K] and b[k0:k0+BLOCK_K, n0:] into one slot of the
    rings, step by step of KS along K (2 * BLOCK_K / KS copies: as many groups)."""
    for j in kt.static_range(BLOCK_K // KS):
        kt.async_load(a_desc, (m0, k0 + j * KS), a_slot.index(j))
        kt.async_load(b_desc, (k0 + j * KS, n0), b_slot.index(j))


@kt.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: kt.constexpr, BLOCK_N: kt.constexpr, BLOCK_K: kt.constexpr,
           STAGES: kt.constexpr, KS: kt.constexpr = 32, DTYPE: kt.constexpr = kt.bfloat16):
    kt.static_assert(STAGES >= 2, "matmul needs at least two shared-memory stages")
    kt.static_assert(BLOCK_K % KS == 0, "BLOCK_K must be a multiple of KS")
    steps = BLOCK_K // KS
    m0 = kt.program_id(0) * BLOCK_M
    n0 = kt.program_id(1) * BLOCK_N
    a_layout = kt.operand_swizzle(KS, DTYPE)
    b_layout = kt.operand_swizzle(BLOCK_N, DTYPE)
    a_desc = kt.make_tensor_descriptor(a_ptr, (M, K), (stride_am, 1), (BLOCK_M, KS),
                                       layout=a_layout)
    b_desc = kt.make_tensor_descriptor(b_ptr, (K, N), (stride_bk, 1), (KS, BLOCK_N),
                                       layout=b_layout)
    a_ring = kt.alloc_shared((STAGES, steps, BLOCK_M, KS), DTYPE, a_layout)
    b_ring = kt.alloc_shared((STAGES, steps, KS, BLOCK_N), DTYPE, b_layout)
    for s in kt.static_range(STAGES - 1):
        _copy_slice(a_ring.index(s), b_ring.index(s), a_desc, b_desc, m0, n0, s * BLOCK_K,
                    BLOCK_K, KS)
    acc = kt.zeros((BLOCK_M, BLOCK_N), kt.float32)
    for kb in range(kt.cdiv(K, BLOCK_K)):
        # Slice kb has landed (2 * steps copies per slice).
        kt.async_wait(2 * steps * (STAGES - 2))
        a_slot = a_ring.index(kb % STAGES)
        b_slot = b_ring.index(kb % STAGES)
        # Slice kb's products stay in flight (one group per step) while the previous
        # slice's finish; then every thread is done with that slice's slot, which the
        # next copies overwrite.
        for j in kt.static_range(steps):
            acc = kt.dot(a_slot.index(j).load(), b_slot.index(j).load(), acc, is_async=True)
        acc = kt.dot_wait(acc, steps)
        kt.barrier()
        ahead = kb + STAGES - 1
        _copy_slice(a_ring.index(ahead % STAGES), b_ring.index(ahead % STAGES), a_desc,
                    b_desc, m0, n0, ahead * BLOCK_K, BLOCK_K, KS)
    acc = kt.dot_wait(acc, 0)
    kt.async_wait(0)
    rm = m0 + kt.arange(0, BLOCK_M)
    rn = n0 + kt.arange(0, BLOCK_N)
    kt.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
