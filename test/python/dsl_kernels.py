"""Small DSL kernels used by the tests (DSL-only file: the frontend parses all of it)."""

import kdatile as kt


@kt.jit
def scale_add(x_ptr, out_ptr, n, alpha: kt.float32, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    x = kt.load(x_ptr + offs, mask=mask, other=0.0)
    kt.store(out_ptr + offs, x * alpha + 1.0, mask=mask)


@kt.jit
def fill_scalar(out_ptr, value, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    kt.store(out_ptr + offs, kt.full((BLOCK,), 0, kt.float32) + value)


@kt.jit
def copy_cast(x_ptr, out_ptr, n, BLOCK: kt.constexpr, OUT: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    x = kt.load(x_ptr + offs, mask=mask)
    kt.store(out_ptr + offs, x.to(OUT), mask=mask)


@kt.jit
def scaled_count(out_ptr, n, SCALE: kt.constexpr):
    # n * SCALE is a float product for a float SCALE, even an integral one (4.0).
    offs = kt.arange(0, 2)
    kt.store(out_ptr + offs, kt.full((2,), 1, kt.float32) * (n * SCALE))


@kt.jit
def count_range(out_ptr, start, end, STEP: kt.constexpr):
    total = 0
    for _i in range(start, end, STEP):
        total += 1
    kt.store(out_ptr, total)


@kt.jit
def count_static_range(out_ptr, START: kt.constexpr, END: kt.constexpr, STEP: kt.constexpr):
    total = 0
    for _i in kt.static_range(START, END, STEP):
        total += 1
    kt.store(out_ptr, total)


@kt.jit
def grid_ids(out_ptr):
    px = kt.program_id(0)
    py = kt.program_id(1)
    pz = kt.program_id(2)
    nx = kt.num_programs(0)
    ny = kt.num_programs(1)
    idx = (pz * ny + py) * nx + px
    kt.store(out_ptr + idx, idx + 1)


@kt.jit
def stdlib_ops(x_ptr, out_ptr, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    x = kt.load(x_ptr + offs)
    kt.store(out_ptr + offs, kt.softplus(x))
    kt.store(out_ptr + BLOCK + offs, kt.silu(x))
    kt.store(out_ptr + 2 * BLOCK + offs, kt.l2norm(x))
    kt.store(out_ptr + 3 * BLOCK + offs, kt.l2norm(x, eps=0.5))


@kt.jit
def stdlib_norms(x_ptr, w_ptr, out_ptr, R: kt.constexpr, C: kt.constexpr):
    offs = kt.arange(0, C)
    x = kt.load(x_ptr + offs)
    w = kt.load(w_ptr + offs)
    kt.store(out_ptr + offs, kt.rmsnorm(x, w, 1e-5))
    rows = kt.arange(0, R)
    x2 = kt.load(x_ptr + rows[:, None] * C + offs[None, :])
    base = out_ptr + C + rows[:, None] * C + offs[None, :]
    kt.store(base, kt.l2norm_rows(x2))
    kt.store(base + R * C, kt.rmsnorm_rows(x2, w, 1e-5))


@kt.jit
def annotated_ptrs(x_ptr: kt.pointer_type(kt.float32), out_ptr: kt.pointer, n: kt.int32,
                   BLOCK: kt.constexpr = 16):
    offs = kt.arange(0, BLOCK)
    mask = offs < n
    kt.store(out_ptr + offs, kt.load(x_ptr + offs, mask=mask).to(kt.float64), mask=mask)


@kt.jit
def column_sums(x_ptr, out_ptr, M: kt.constexpr, N: kt.constexpr):
    """out[n] = sum_m x[m, n]: on a GPU the rows are spread over warps, so the
    reduction crosses warps."""
    rows = kt.arange(0, M)
    cols = kt.arange(0, N)
    x = kt.load(x_ptr + rows[:, None] * N + cols[None, :])
    kt.store(out_ptr + cols, kt.sum(x, 0))


@kt.jit
def row_norms_plus(x_ptr, y_ptr, out_ptr, M: kt.constexpr, N: kt.constexpr):
    """out[m] = sqrt(sum_n x[m, n]^2) + y[m]: the reduction result and the
    loaded y live in different layouts on a GPU, so one is converted."""
    rows = kt.arange(0, M)
    cols = kt.arange(0, N)
    x = kt.load(x_ptr + rows[:, None] * N + cols[None, :])
    norms = kt.sqrt(kt.sum(x * x, 1))
    y = kt.load(y_ptr + rows)
    kt.store(out_ptr + rows, norms + y)


@kt.jit
def transpose_add(x_ptr, out_ptr, N: kt.constexpr):
    """out = x + x^T for an [N, N] tile: on a GPU the transposed tile lives on other
    threads than the tile it is added to, so one of the two moves through shared memory."""
    rows = kt.arange(0, N)
    cols = kt.arange(0, N)
    offs = rows[:, None] * N + cols[None, :]
    x = kt.load(x_ptr + offs)
    kt.store(out_ptr + offs, x + kt.trans(x))


@kt.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, out_ptr, M: kt.constexpr, N: kt.constexpr,
                K: kt.constexpr, TF32: kt.constexpr = False):
    """out = c + a @ b for row-major [M, K], [K, N] and fp32 [M, N] tiles: on GPUs with a
    matrix instruction for a's dtype (bf16, f16; fp32 when TF32 allows tf32) the product
    runs on it."""
    rm = kt.arange(0, M)
    rn = kt.arange(0, N)
    rk = kt.arange(0, K)
    a = kt.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = kt.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = kt.load(c_ptr + rm[:, None] * N + rn[None, :])
    kt.store(out_ptr + rm[:, None] * N + rn[None, :], kt.dot(a, b, c, allow_tf32=TF32))


@kt.jit
def scans(x_ptr, i_ptr, sum_ptr, max_ptr, min_ptr, isum_ptr, M: kt.constexpr,
          N: kt.constexpr, REVERSE: kt.constexpr):
    """Inclusive scans of an [M, N] tile: cumsum down the rows, cummax and cummin along
    them (suffix scans with REVERSE), and an int32 cumsum of i down the rows."""
    rm = kt.arange(0, M)
    rn = kt.arange(0, N)
    offs = rm[:, None] * N + rn[None, :]
    x = kt.load(x_ptr + offs)
    kt.store(sum_ptr + offs, kt.cumsum(x, 0, reverse=REVERSE))
    kt.store(max_ptr + offs, kt.cummax(x, axis=1, reverse=REVERSE))
    kt.store(min_ptr + offs, kt.cummin(x, -1, REVERSE))
    kt.store(isum_ptr + offs, kt.cumsum(kt.load(i_ptr + offs), 0, reverse=REVERSE))


@kt.jit
def affine_after(a1, b1, a2, b2):
    """The map x -> a2 (a1 x + b1) + b2: (a1, b1) first, then (a2, b2)."""
    return a1 * a2, a2 * b1 + b2


@kt.jit
def recurrences(a_ptr, b_ptr, prod_ptr, h_ptr, M: kt.constexpr, N: kt.constexpr,
                REVERSE: kt.constexpr):
    """kt.cumprod of a along the rows and, by kt.associative_scan over the pair (a, b),
    the linear recurrence h[t] = a[t] h[t - 1] + b[t] down them (h[t + 1] with
    REVERSE), h = 0 before the first step."""
    offs = kt.arange(0, M)[:, None] * N + kt.arange(0, N)[None, :]
    a = kt.load(a_ptr + offs)
    b = kt.load(b_ptr + offs)
    kt.store(prod_ptr + offs, kt.cumprod(a, 1, reverse=REVERSE))
    _, h = kt.associative_scan((a, b), 0, affine_after, reverse=REVERSE)
    kt.store(h_ptr + offs, h)


ROWS = kt.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
COLS = kt.BlockedLayout([4, 1], [32, 1], [1, 4], [0, 1])


@kt.jit
def explicit_layouts(x_ptr, out_ptr, N: kt.constexpr):
    """out = 2 * x with tiles in explicit layouts and a conversion between them (on the CPU
    layouts mean nothing; on a GPU with 32-lane warps and 4 warps this is a real move)."""
    rows = kt.arange(0, N, layout=kt.SliceLayout(1, ROWS))
    cols = kt.arange(0, N, layout=kt.SliceLayout(0, ROWS))
    offs = rows[:, None] * N + cols[None, :]
    x = kt.load(x_ptr + offs)
    y = kt.convert_layout(x * 2.0, COLS)
    kt.store(out_ptr + kt.convert_layout(offs, COLS), y)


@kt.jit
def last_program_sum(x_ptr, partial_ptr, counter_ptr, out_ptr, BLOCK: kt.constexpr,
                     NPROG: kt.constexpr):
    """The sum of x over every program's block, finished by the last program to arrive: each
    program writes its partial sum, then takes a ticket (acq_rel); the holder of the last
    ticket reads all partials. Tickets count modulo NPROG, so launches need no reset."""
    pid = kt.program_id(0)
    offs = kt.arange(0, BLOCK)
    kt.store(partial_ptr + pid, kt.sum(kt.load(x_ptr + pid * BLOCK + offs), 0))
    ticket = kt.atomic_add(counter_ptr, 1)
    if ticket % NPROG == NPROG - 1:
        kt.store(out_ptr, kt.sum(kt.load(partial_ptr + kt.arange(0, NPROG)), 0))


@kt.jit
def atomic_kinds(i32_ptr, f32_ptr, i64_ptr, olds_ptr):
    """Every kind and semantic: sums, extremes and an exchange chain over the programs."""
    pid = kt.program_id(0)
    kt.atomic_add(i32_ptr, pid, sem="relaxed")
    kt.atomic_add(f32_ptr, 0.5, sem="release", scope="sys")
    kt.atomic_max(i32_ptr + 1, pid, sem="acquire", scope="cta")
    kt.atomic_min(i64_ptr, -pid.to(kt.int64))
    kt.store(olds_ptr + pid, kt.atomic_xchg(i32_ptr + 2, pid))


@kt.jit
def histogram(idx_ptr, bins_ptr, olds_ptr, n, BLOCK: kt.constexpr,
              WRITE_OLDS: kt.constexpr = True):
    """bins[idx[i]] += 1 for i < n with one atomic per element (indices repeat within and
    across programs); with WRITE_OLDS, olds[i] gets the count bins[idx[i]] had just before
    (which depends on the order the atomics ran in)."""
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    m = offs < n
    i = kt.load(idx_ptr + offs, mask=m, other=0)
    old = kt.atomic_add(bins_ptr + i, 1, mask=m, sem="relaxed")
    if WRITE_OLDS:
        kt.store(olds_ptr + offs, old, mask=m)


@kt.jit
def tile_atomic_kinds(i32_ptr, f32_ptr, i64_ptr, xchg_olds_ptr, BLOCK: kt.constexpr,
                      XCHG: kt.constexpr = True):
    """Tile atomics of every kind on BLOCK slots: program p adds p, takes max/min with
    p +- lane and (XCHG) exchanges p in; a masked-off half of the lanes leaves f32
    untouched. Without XCHG every result is independent of the order the atomics ran in."""
    pid = kt.program_id(0)
    offs = kt.arange(0, BLOCK)
    kt.atomic_add(i32_ptr + offs, pid)
    kt.atomic_max(i32_ptr + BLOCK + offs, pid + offs, sem="acquire", scope="cta")
    kt.atomic_min(i64_ptr + offs, (offs - pid).to(kt.int64), sem="release")
    kt.atomic_add(f32_ptr + offs, 0.25, mask=offs < BLOCK // 2, scope="sys")
    if XCHG:
        old = kt.atomic_xchg(i32_ptr + 2 * BLOCK + offs, pid)
        kt.store(xchg_olds_ptr + pid * BLOCK + offs, old)


@kt.jit
def masked_counter(counter_ptr, olds_ptr, WRITE_OLDS: kt.constexpr = True):
    """Even programs add 1 to one counter (a masked scalar atomic); odd ones get 0 back.
    With WRITE_OLDS each program stores what it got back (for even programs this depends on
    the order the atomics ran in)."""
    pid = kt.program_id(0)
    old = kt.atomic_add(counter_ptr, 1, mask=pid % 2 == 0, sem="relaxed")
    if WRITE_OLDS:
        kt.store(olds_ptr + pid, old)


@kt.jit
def atomic_olds(buf_ptr, olds_ptr, slot_ptr, slot_olds_ptr, BLOCK: kt.constexpr):
    """Atomics whose old values do not depend on their order (every address is touched once):
    program p adds lane + 1 to its own BLOCK elements except every third lane (masked: old
    value 0), and exchanges p + 100 into its own slot when p is even (odd: 0 back)."""
    pid = kt.program_id(0)
    offs = kt.arange(0, BLOCK)
    old = kt.atomic_add(buf_ptr + pid * BLOCK + offs, offs + 1, mask=offs % 3 != 0)
    kt.store(olds_ptr + pid * BLOCK + offs, old)
    kt.store(slot_olds_ptr + pid, kt.atomic_xchg(slot_ptr + pid, pid + 100, mask=pid % 2 == 0))


@kt.jit
def rounded_math(x_ptr, y_ptr, out_ptr, BLOCK: kt.constexpr):
    """out[0] = sqrt_rn(x), out[1] = div_rn(x, y), out[2] = x // y: IEEE-rounded everywhere."""
    offs = kt.arange(0, BLOCK)
    x = kt.load(x_ptr + offs)
    y = kt.load(y_ptr + offs)
    kt.store(out_ptr + offs, kt.sqrt_rn(x))
    kt.store(out_ptr + BLOCK + offs, kt.div_rn(x, y))
    kt.store(out_ptr + 2 * BLOCK + offs, x // y)
