# Errors of the shared-memory builtins (kt.alloc_shared, buffer.index/load/store,
# kt.async_copy, kt.async_wait) and of shared buffers used as tiles, at the
# argument's (or the call's, or the operator's) line and column.
# RUN: not kda-compile %s --kernel swizzle_errors --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SWIZZLE
# RUN: not kda-compile %s --kernel alloc_in_loop --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=IN-LOOP
# RUN: not kda-compile %s --kernel alloc_in_branch --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=IN-BRANCH
# RUN: not kda-compile %s --kernel alloc_in_callee --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=IN-CALLEE
# RUN: not kda-compile %s --kernel runtime_shape --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=RUNTIME-SHAPE
# RUN: not kda-compile %s --kernel empty_shape --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=EMPTY-SHAPE
# RUN: not kda-compile %s --kernel zero_dim --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ZERO-DIM
# RUN: not kda-compile %s --kernel huge_dim --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=HUGE-DIM
# RUN: not kda-compile %s --kernel not_dtype --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NOT-DTYPE
# RUN: not kda-compile %s --kernel bool_dtype --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BOOL-DTYPE
# RUN: not kda-compile %s --kernel not_buffer --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NOT-BUFFER
# RUN: not kda-compile %s --kernel index_rank_1 --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=INDEX-RANK
# RUN: not kda-compile %s --kernel index_float --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=INDEX-FLOAT
# RUN: not kda-compile %s --kernel index_tile --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=INDEX-TILE
# RUN: not kda-compile %s --kernel index_range --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=INDEX-RANGE
# RUN: not kda-compile %s --kernel load_not_layout --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=LOAD-NOT-LAYOUT
# RUN: not kda-compile %s --kernel load_layout_rank --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=LOAD-LAYOUT-RANK
# RUN: not kda-compile %s --kernel store_shape --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=STORE-SHAPE
# RUN: not kda-compile %s --kernel store_bigger --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=STORE-BIGGER
# RUN: not kda-compile %s --kernel store_pointers --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=STORE-PTRS
# RUN: not kda-compile %s --kernel copy_scalar_pointer --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=COPY-SCALAR
# RUN: not kda-compile %s --kernel copy_pointee --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=COPY-POINTEE
# RUN: not kda-compile %s --kernel copy_shape --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=COPY-SHAPE
# RUN: not kda-compile %s --kernel copy_mask_type --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=COPY-MASK-TYPE
# RUN: not kda-compile %s --kernel copy_mask_shape --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=COPY-MASK-SHAPE
# RUN: not kda-compile %s --kernel copy_mask_bigger --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=COPY-MASK-BIGGER
# RUN: not kda-compile %s --kernel wait_runtime --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=WAIT-RUNTIME
# RUN: not kda-compile %s --kernel wait_negative --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=WAIT-NEGATIVE
# RUN: not kda-compile %s --kernel builtin_on_buffer --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BUILTIN
# RUN: not kda-compile %s --kernel binary_on_buffer --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BINARY
# RUN: not kda-compile %s --kernel unary_on_buffer --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=UNARY
# RUN: not kda-compile %s --kernel no_attribute --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NO-ATTR
# RUN: not kda-compile %s --kernel buffer_as_value --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AS-VALUE
# RUN: not kda-compile %s --kernel buffer_as_condition --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AS-COND
# RUN: not kda-compile %s --kernel buffer_in_ifexp --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AS-IFEXP
# RUN: not kda-compile %s --kernel buffer_in_while --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AS-WHILE
# RUN: not kda-compile %s --kernel buffer_in_boolop --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AS-BOOLOP

import kdatile as kt


@kt.jit
def alloc_in_loop(p, n):
    for i in range(n):
        # IN-LOOP: errors_shared_memory.py:[[@LINE+1]]:13: error: kt.alloc_shared() must be called at the top level of the kernel, not in a loop, a branch or a called function (its size is fixed when the kernel is compiled)
        b = kt.alloc_shared((4,), kt.float32)


@kt.jit
def alloc_in_branch(p, n):
    if n > 0:
        # IN-BRANCH: errors_shared_memory.py:[[@LINE+1]]:13: error: kt.alloc_shared() must be called at the top level of the kernel, not in a loop, a branch or a called function
        b = kt.alloc_shared((4,), kt.float32)


@kt.jit
def make_buffer(n):
    # IN-CALLEE: errors_shared_memory.py:[[@LINE+1]]:12: error: kt.alloc_shared() must be called at the top level of the kernel
    return kt.alloc_shared((4,), kt.float32)


@kt.jit
def alloc_in_callee(p, n):
    # IN-CALLEE: errors_shared_memory.py:[[@LINE+1]]:9: note: in call from here
    b = make_buffer(n)


@kt.jit
def runtime_shape(p, n):
    # RUNTIME-SHAPE: errors_shared_memory.py:[[@LINE+1]]:25: error: kt.alloc_shared() shape must be a compile-time constant (constexpr), got a runtime i32
    b = kt.alloc_shared((n, 4), kt.float32)


@kt.jit
def empty_shape(p, n):
    # EMPTY-SHAPE: errors_shared_memory.py:[[@LINE+1]]:25: error: kt.alloc_shared() shape needs at least one dimension
    b = kt.alloc_shared((), kt.float32)


@kt.jit
def zero_dim(p, n):
    # ZERO-DIM: errors_shared_memory.py:[[@LINE+1]]:25: error: kt.alloc_shared() shape must have positive sizes, got [4, 0]
    b = kt.alloc_shared((4, 0), kt.float32)


@kt.jit
def huge_dim(p, n):
    # HUGE-DIM: errors_shared_memory.py:[[@LINE+1]]:25: error: kt.alloc_shared() dimensions must be between 1 and 2^24, got [4, 33554432]
    b = kt.alloc_shared((4, 1 << 25), kt.float32)


@kt.jit
def not_dtype(p, n):
    # NOT-DTYPE: errors_shared_memory.py:[[@LINE+1]]:31: error: kt.alloc_shared() dtype must be a dtype such as kt.float32, got str constant 'f32'
    b = kt.alloc_shared((4,), "f32")


@kt.jit
def bool_dtype(p, n):
    # BOOL-DTYPE: errors_shared_memory.py:[[@LINE+1]]:31: error: kt.alloc_shared() dtype must be an integer or float type of 8 bits or more, got i1
    b = kt.alloc_shared((4,), kt.int1)


@kt.jit
def not_buffer(p, n):
    # NOT-BUFFER: errors_shared_memory.py:[[@LINE+1]]:19: error: kt.async_copy() needs a shared buffer (from kt.alloc_shared), got tile of type tensor<4xi32>
    kt.async_copy(kt.arange(0, 4), p + kt.arange(0, 4))


@kt.jit
def index_rank_1(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # INDEX-RANK: errors_shared_memory.py:[[@LINE+1]]:5: error: buffer.index() needs a buffer of two or more dimensions, got [4]
    b.index(0)


@kt.jit
def index_float(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # INDEX-FLOAT: errors_shared_memory.py:[[@LINE+1]]:13: error: buffer.index() index must be an integer scalar, got float constant 1.0
    b.index(1.0)


@kt.jit
def index_tile(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # INDEX-TILE: errors_shared_memory.py:[[@LINE+1]]:13: error: buffer.index() index must be an integer scalar, got tile of type tensor<2xi32>
    b.index(kt.arange(0, 2))


@kt.jit
def index_range(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # INDEX-RANGE: errors_shared_memory.py:[[@LINE+1]]:13: error: buffer.index() index 2 is out of range for a leading dimension of 2
    b.index(2)


@kt.jit
def load_not_layout(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # LOAD-NOT-LAYOUT: errors_shared_memory.py:[[@LINE+1]]:19: error: layout must be a layout such as kt.BlockedLayout(...), got int constant 1
    b.load(layout=1)


@kt.jit
def load_layout_rank(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # LOAD-LAYOUT-RANK: errors_shared_memory.py:[[@LINE+1]]:19: error: the layout does not fit a tile of type tensor<2x4xf32>: layout #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> has rank 1 but the tile has rank 2
    b.load(layout=kt.BlockedLayout([1], [32], [4], [0]))


@kt.jit
def store_shape(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # STORE-SHAPE: errors_shared_memory.py:[[@LINE+1]]:13: error: incompatible shapes for broadcasting: [8] and [2, 4]
    b.store(kt.arange(0, 8))


@kt.jit
def store_bigger(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # STORE-BIGGER: errors_shared_memory.py:[[@LINE+1]]:13: error: cannot broadcast shape [2, 4] to [4]
    b.store(kt.zeros((2, 4), kt.float32))


@kt.jit
def store_pointers(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # STORE-PTRS: errors_shared_memory.py:[[@LINE+1]]:15: error: buffer.store() cannot store pointers, got tile of type tensor<4x!tile.ptr<f32>>
    b.store(p + kt.arange(0, 4))


@kt.jit
def copy_scalar_pointer(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # COPY-SCALAR: errors_shared_memory.py:[[@LINE+1]]:22: error: kt.async_copy() needs a tile of pointers, got scalar of type !tile.ptr<f32>
    kt.async_copy(b, p)


@kt.jit
def copy_pointee(p, n):
    b = kt.alloc_shared((4,), kt.bfloat16)
    # COPY-POINTEE: errors_shared_memory.py:[[@LINE+1]]:24: error: kt.async_copy() copies bf16 elements into this buffer, got pointers to f32
    kt.async_copy(b, p + kt.arange(0, 4))


@kt.jit
def copy_shape(p, n):
    b = kt.alloc_shared((2, 4), kt.float32)
    # COPY-SHAPE: errors_shared_memory.py:[[@LINE+1]]:24: error: kt.async_copy() pointer tile of shape [8] does not match the buffer shape [2, 4]
    kt.async_copy(b, p + kt.arange(0, 8))


@kt.jit
def copy_mask_type(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # COPY-MASK-TYPE: errors_shared_memory.py:[[@LINE+1]]:48: error: kt.async_copy() mask must be a boolean (i1) scalar or tile, got tile of type tensor<4xi32>
    kt.async_copy(b, p + kt.arange(0, 4), mask=kt.arange(0, 4))


@kt.jit
def copy_mask_shape(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # COPY-MASK-SHAPE: errors_shared_memory.py:[[@LINE+1]]:48: error: incompatible shapes for broadcasting: [8] and [4]
    kt.async_copy(b, p + kt.arange(0, 4), mask=kt.arange(0, 8) < n)


@kt.jit
def copy_mask_bigger(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # COPY-MASK-BIGGER: errors_shared_memory.py:[[@LINE+1]]:48: error: cannot broadcast shape [2, 4] to [4]
    kt.async_copy(b, p + kt.arange(0, 4), mask=kt.zeros((2, 4), kt.int1))


@kt.jit
def wait_runtime(p, n):
    # WAIT-RUNTIME: errors_shared_memory.py:[[@LINE+1]]:19: error: kt.async_wait() pending must be a compile-time constant (constexpr), got a runtime i32
    kt.async_wait(n)


@kt.jit
def wait_negative(p, n):
    # WAIT-NEGATIVE: errors_shared_memory.py:[[@LINE+1]]:27: error: kt.async_wait() pending must be 0 or more, got -1
    kt.async_wait(pending=-1)


@kt.jit
def builtin_on_buffer(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # BUILTIN: errors_shared_memory.py:[[@LINE+1]]:42: error: kt.exp() cannot take a shared buffer; read it into a tile with .load()
    kt.store(p + kt.arange(0, 4), kt.exp(b))


@kt.jit
def binary_on_buffer(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # BINARY: errors_shared_memory.py:[[@LINE+1]]:11: error: '*' cannot take a shared buffer; read it into a tile with .load()
    c = b * 2.0


@kt.jit
def unary_on_buffer(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # UNARY: errors_shared_memory.py:[[@LINE+1]]:9: error: a unary operator cannot take a shared buffer; read it into a tile with .load()
    c = -b


@kt.jit
def no_attribute(p, n):
    b = kt.alloc_shared((4,), kt.float32)
    # NO-ATTR: errors_shared_memory.py:[[@LINE+1]]:9: error: shared buffer has no attribute 'T' (it has shape, dtype, index, load and store)
    c = b.T


# A buffer where a value is expected (a stored value, a condition) is an error,
# not a crash.
@kt.jit
def buffer_as_value(p, n):
    buf = kt.alloc_shared((4, 8), kt.float32)
    other = kt.alloc_shared((4, 8), kt.float32)
    buf.store(other)
# AS-VALUE: errors_shared_memory.py:[[@LINE-1]]:15: error: a shared buffer cannot be used as a value; read it into a tile with .load()


@kt.jit
def buffer_as_condition(p, n):
    buf = kt.alloc_shared((4, 8), kt.float32)
    if buf:
        kt.store(p, 1.0)
# AS-COND: errors_shared_memory.py:[[@LINE-2]]:8: error: a shared buffer cannot be used as a value


@kt.jit
def buffer_in_ifexp(p, n):
    buf = kt.alloc_shared((4, 8), kt.float32)
    kt.store(p, 1.0 if buf else 2.0)
# AS-IFEXP: errors_shared_memory.py:[[@LINE-1]]:17: error: a shared buffer cannot be used as a value


@kt.jit
def buffer_in_while(p, n):
    buf = kt.alloc_shared((4, 8), kt.float32)
    while buf:
        kt.store(p, 1.0)
# AS-WHILE: errors_shared_memory.py:[[@LINE-2]]:11: error: a shared buffer cannot be used as a value


@kt.jit
def buffer_in_boolop(p, n):
    buf = kt.alloc_shared((4, 8), kt.float32)
    if buf and n > 0:
        kt.store(p, 1.0)
# AS-BOOLOP: errors_shared_memory.py:[[@LINE-2]]:8: error: a shared buffer cannot be used as a value


@kt.jit
def swizzle_errors(p, n):
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: kt.alloc_shared() layout must be a shared-memory layout such as kt.SwizzledSharedLayout(...), got
    a = kt.alloc_shared((4, 32), kt.float32, kt.BlockedLayout([1], [32], [4], [0]))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: kt.alloc_shared(): a row of 16 elements does not hold 8 phases of 4-element groups
    b = kt.alloc_shared((4, 16), kt.float32, kt.SwizzledSharedLayout(4, 1, 8, [1, 0]))
    c = kt.alloc_shared((4, 32), kt.float32, kt.SwizzledSharedLayout(4, 1, 8, [1, 0]))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:9: error: buffer.index() cannot take a row of a buffer with a layout
    d = c.index(0)
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:47: error: kt.alloc_shared(): an nvmma_shared buffer needs a multiple of 8 rows, got 4
    f = kt.alloc_shared((4, 64), kt.bfloat16, kt.NVMMASharedLayout(128, 16))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:47: error: kt.alloc_shared(): a row of 32 elements is not whole 128-byte swizzle rows of 64 elements
    g = kt.alloc_shared((8, 32), kt.bfloat16, kt.NVMMASharedLayout(128, 16))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: kt.alloc_shared(): an nvmma_shared layout of 16-bit elements cannot hold 'f32'
    h = kt.alloc_shared((8, 64), kt.float32, kt.NVMMASharedLayout(128, 16))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: invalid kt.NVMMASharedLayout(): nvmma_shared swizzleBytes must be 32, 64 or 128, got 48
    i = kt.alloc_shared((8, 64), kt.float32, kt.NVMMASharedLayout(48, 32))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: kt.alloc_shared(): a padding interval of 256 elements does not divide the 128 elements of the last two dimensions
    j = kt.alloc_shared((4, 32), kt.float32, kt.PaddedSharedLayout(256, 1, [1, 0]))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: kt.alloc_shared(): padded shared buffers are row-major: order must be [1, 0]
    k = kt.alloc_shared((4, 32), kt.float32, kt.PaddedSharedLayout(32, 1, [0, 1]))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:72: error: kt.PaddedSharedLayout() padding must be between 1 and 1024, got 0
    m = kt.alloc_shared((4, 32), kt.float32, kt.PaddedSharedLayout(32, 0, [1, 0]))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:46: error: invalid kt.PaddedSharedLayout(): interval entries must be powers of two, got 24
    o = kt.alloc_shared((4, 32), kt.float32, kt.PaddedSharedLayout(24, 1, [1, 0]))
    # SWIZZLE: errors_shared_memory.py:[[@LINE+1]]:39: error: a shared-memory layout places a kt.alloc_shared buffer, not a tile
    e = kt.zeros((4, 32), kt.float32, kt.SwizzledSharedLayout(4, 1, 8, [1, 0]))
    kt.store(p + kt.arange(0, 4)[:, None] * 32 + kt.arange(0, 32)[None, :], c.load() + e)
