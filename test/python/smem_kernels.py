"""DSL kernels of test_shared_memory.py: shared buffers and asynchronous copies (DSL-only file:
the frontend parses all of it)."""

import kdatile as kt


@kt.jit
def pipelined_copy(src, dst, n, ld, BLOCK: kt.constexpr, COLS: kt.constexpr,
                   STAGES: kt.constexpr):
    """dst[:n, cols] = src[:n, cols] for this program's COLS columns (of ld per row), BLOCK rows
    at a time through a ring of STAGES slots: STAGES - 1 copies are in flight, each wait leaves
    STAGES - 2 of them pending. The copy into a slot is issued after the wait that follows the
    slot's last read, so the wait's barrier protects it."""
    buf = kt.alloc_shared((STAGES, BLOCK, COLS), kt.float32)
    rows = kt.arange(0, BLOCK)
    cols = kt.program_id(0) * COLS + kt.arange(0, COLS)
    for s in kt.static_range(STAGES - 1):
        r = s * BLOCK + rows
        kt.async_copy(buf.index(s), src + r[:, None] * ld + cols[None, :], mask=r[:, None] < n)
    for b in range(kt.cdiv(n, BLOCK)):
        kt.async_wait(STAGES - 2)
        ahead = b + STAGES - 1
        r = ahead * BLOCK + rows
        kt.async_copy(buf.index(ahead % STAGES), src + r[:, None] * ld + cols[None, :],
                      mask=r[:, None] < n)
        x = buf.index(b % STAGES).load()
        r0 = b * BLOCK + rows
        kt.store(dst + r0[:, None] * ld + cols[None, :], x, mask=r0[:, None] < n)
    kt.async_wait(0)


@kt.jit
def store_load(x_ptr, out_ptr, s, i, BLOCK: kt.constexpr, W: kt.constexpr):
    """Whole-buffer stores read back: a runtime f32 scalar, an i32 scalar (converted), a
    [BLOCK, 1] column, a [W] row and a full [BLOCK, W] tile, each broadcast to the buffer; then
    the two slots of a [2, BLOCK, W] buffer, which do not overlap."""
    buf = kt.alloc_shared((BLOCK, W), kt.float32)
    rows = kt.arange(0, BLOCK)
    cols = kt.arange(0, W)
    tile = rows[:, None] * W + cols[None, :]
    size = BLOCK * W
    buf.store(s)
    kt.store(out_ptr + tile, buf.load())
    buf.store(i)
    kt.store(out_ptr + size + tile, buf.load())
    buf.store(kt.load(x_ptr + rows)[:, None])
    kt.store(out_ptr + 2 * size + tile, buf.load())
    buf.store(kt.load(x_ptr + cols))
    kt.store(out_ptr + 3 * size + tile, buf.load())
    buf.store(kt.load(x_ptr + tile))
    kt.store(out_ptr + 4 * size + tile, buf.load())
    two = kt.alloc_shared((2, BLOCK, W), kt.float32)
    two.index(1).store(kt.load(x_ptr + tile) + 1.0)
    two.index(0).store(kt.load(x_ptr + tile) * 2.0)
    kt.store(out_ptr + 5 * size + tile, two.index(1).load())
    kt.store(out_ptr + 6 * size + tile, two.index(0).load())


@kt.jit
def typed_copy(x_ptr, out_ptr, n, BLOCK: kt.constexpr):
    """out[:n] = x[:n] through slot 1 of a [2, BLOCK] buffer of x's element type, by an
    asynchronous copy and back through a store into slot 0."""
    buf = kt.alloc_shared((2, BLOCK), x_ptr.dtype.element_ty)
    kt.static_assert(buf.dtype == x_ptr.dtype.element_ty)
    offs = kt.arange(0, BLOCK)
    kt.async_copy(buf.index(1), x_ptr + offs, mask=offs < n)
    kt.async_wait()
    buf.index(0).store(buf.index(1).load())
    kt.store(out_ptr + offs, buf.index(0).load(), mask=offs < n)


@kt.jit
def convert_store(x_ptr, bf16_ptr, i32_ptr, BLOCK: kt.constexpr):
    """f32 tiles stored into bf16 and int32 buffers are converted like .to()."""
    offs = kt.arange(0, BLOCK)
    x = kt.load(x_ptr + offs)
    h = kt.alloc_shared((BLOCK,), kt.bfloat16)
    h.store(x)
    kt.store(bf16_ptr + offs, h.load())
    w = kt.alloc_shared((BLOCK,), kt.int32)
    w.store(x)
    kt.store(i32_ptr + offs, w.load())


@kt.jit
def masked_copy(x_ptr, out_ptr, n, BLOCK: kt.constexpr):
    """A buffer filled with 7 is overwritten by masked copies: zeros where the mask is false.
    Rows of out: a tile mask (offs < n, every third lane off), mask=False, a runtime scalar
    mask that is false, one that is true."""
    dt: kt.constexpr = x_ptr.dtype.element_ty
    buf = kt.alloc_shared((4, BLOCK), dt)
    offs = kt.arange(0, BLOCK)
    buf.store(n * 0 + 7)
    kt.async_copy(buf.index(0), x_ptr + offs, mask=(offs < n) & (offs % 3 != 0))
    kt.async_copy(buf.index(1), x_ptr + offs, mask=False)
    kt.async_copy(buf.index(2), x_ptr + offs, mask=n < 0)
    kt.async_copy(buf.index(3), x_ptr + offs, mask=n >= 0)
    kt.async_wait(0)
    rows = kt.arange(0, 4)
    kt.store(out_ptr + rows[:, None] * BLOCK + offs[None, :], buf.load())


@kt.jit
def shape_dtype(out_ptr, R: kt.constexpr, C: kt.constexpr):
    """buf.shape and buf.dtype are compile-time: static_asserts, tile sizes, stored values."""
    buf = kt.alloc_shared((3, R, C), kt.int16)
    kt.static_assert(buf.shape == (3, R, C))
    kt.static_assert(len(buf.shape) == 3)
    kt.static_assert(buf.index(2).shape == (R, C))
    kt.static_assert(buf.dtype == kt.int16)
    kt.static_assert(buf.index(0).dtype == kt.int16)
    kt.static_assert(kt.zeros(buf.index(0).shape, buf.dtype).dtype == kt.int16)
    rows = kt.arange(0, buf.shape[1])
    cols = kt.arange(0, buf.shape[2])
    buf.index(2).store(rows[:, None] * C + cols[None, :])
    kt.store(out_ptr + 3 + rows[:, None] * C + cols[None, :], buf.index(2).load().to(kt.int32))
    kt.store(out_ptr, buf.shape[0])
    kt.store(out_ptr + 1, buf.shape[1])
    kt.store(out_ptr + 2, buf.shape[2])


@kt.jit
def wrong_shape(out_ptr, R: kt.constexpr):
    buf = kt.alloc_shared((R, 4), kt.float32)
    kt.static_assert(buf.shape[0] == 8, "the buffer needs 8 rows")
    kt.store(out_ptr + kt.arange(0, 4), buf.index(0).load())


@kt.jit
def chosen_slots(x_ptr, out_ptr, n, BLOCK: kt.constexpr):
    """Slots picked at run time: out[b] = x[b] + the slot (b % 2) holding the previous block,
    the slot variable carried through the loop and chosen by an if."""
    buf = kt.alloc_shared((2, BLOCK), kt.float32)
    offs = kt.arange(0, BLOCK)
    buf.index(1).store(0.0 * kt.load(x_ptr + offs))
    prev = buf.index(1)
    for b in range(n):
        x = kt.load(x_ptr + b * BLOCK + offs)
        kt.store(out_ptr + b * BLOCK + offs, x + prev.load())
        if b % 2 == 0:
            cur = buf.index(0)
        else:
            cur = buf.index(1)
        cur.store(x)
        prev = cur


@kt.jit
def padded_dot(a_ptr, b_ptr, c_ptr, M: kt.constexpr, N: kt.constexpr, K: kt.constexpr,
               PAD: kt.constexpr):
    """c = a @ b (fp32) for one bf16 [M, K] x [K, N] pair staged through shared buffers whose
    rows are padded by PAD elements (kt.PaddedSharedLayout): the copies, the operand reads
    (8x8 matrix loads on sm_90a when PAD keeps 16-byte rows) and the product see the same
    elements as without padding."""
    a_buf = kt.alloc_shared((M, K), kt.bfloat16, kt.PaddedSharedLayout(K, PAD, [1, 0]))
    b_buf = kt.alloc_shared((K, N), kt.bfloat16, kt.PaddedSharedLayout(N, PAD, [1, 0]))
    rm = kt.arange(0, M)
    rn = kt.arange(0, N)
    rk = kt.arange(0, K)
    kt.async_copy(a_buf, a_ptr + rm[:, None] * K + rk[None, :])
    kt.async_copy(b_buf, b_ptr + rk[:, None] * N + rn[None, :])
    kt.async_wait(0)
    acc = kt.dot(a_buf.load(), b_buf.load(), kt.zeros((M, N), kt.float32))
    kt.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@kt.jit
def padded_transpose(src, dst, R: kt.constexpr, C: kt.constexpr, PAD: kt.constexpr):
    """dst [C, R] = src [R, C]^T for each program's slice of src [programs, R, C], through a
    two-slot fp32 buffer padded by PAD elements per row: slot 1 holds the tile, slot 0 its
    double, so the slots must not overlap."""
    buf = kt.alloc_shared((2, R, C), kt.float32, kt.PaddedSharedLayout(C, PAD, [1, 0]))
    rows = kt.arange(0, R)
    cols = kt.arange(0, C)
    pid = kt.program_id(0)
    tile = kt.load(src + pid * R * C + rows[:, None] * C + cols[None, :])
    buf.index(1).store(tile)
    buf.index(0).store(tile * 2.0)
    out = dst + pid * 2 * R * C + cols[None, :] * R + rows[:, None]
    kt.store(out, buf.index(1).load())
    kt.store(out + R * C, buf.index(0).load())
