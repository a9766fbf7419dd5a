# kt.alloc_shared makes one tile.alloc_shared at the kernel's top; buf.index(i)
# is tile.smem_index with an i32 index; buf.load() / buf.store(x) read and
# write the whole buffer (x is broadcast and cast to it); kt.async_copy takes a
# tile of pointers of the buffer's shape and a mask broadcast to it;
# kt.async_wait(pending=0) and kt.barrier() are their ops. buf.shape and
# buf.dtype are compile-time values.
# RUN: kda-compile %s --kernel pipeline --target cpu --signature 'src=*f32,dst=*f32,n=i32' \
# RUN:   -D BLOCK=32 -D STAGES=3 --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel store_load --target cpu --signature 'src=*f32,dst=*f32,s=i32' \
# RUN:   -D BLOCK=32 --emit tile -o - | FileCheck %s --check-prefix=STORE
# RUN: kda-compile %s --kernel slots --target cpu --signature 'src=*f32,dst=*i8,i=i64' \
# RUN:   -D USE_EXTRA=1 --emit tile -o - | FileCheck %s --check-prefix=SLOTS
# RUN: kda-compile %s --kernel swizzled --target cpu --signature 'src=*bf16,dst=*bf16' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=SWIZZLED
# RUN: kda-compile %s --kernel operand_buffers --target cpu --signature 'dst=*f32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=OPERANDS

import kdatile as kt


# CHECK-LABEL: func.func @pipeline
# CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
# CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
# CHECK: %[[BUF:.*]] = tile.alloc_shared : !tile.smem<3x32x64xf32>
# CHECK: %[[S0:.*]] = tile.smem_index %[[BUF]][%[[C0]]] : !tile.smem<3x32x64xf32> -> !tile.smem<32x64xf32>
# CHECK: %[[P0:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
# CHECK: %[[M0:.*]] = tile.broadcast %{{.*}} : tensor<32x1xi1> -> tensor<32x64xi1>
# CHECK: tile.async_copy %[[S0]], %[[P0]] mask %[[M0]] : !tile.smem<32x64xf32>, tensor<32x64x!tile.ptr<f32>>
# CHECK: scf.for
# CHECK: tile.async_wait {pending = 1 : i32}
# CHECK: %[[NEXT:.*]] = arith.remsi %{{.*}}, %[[C3]] : i32
# CHECK: %[[SN:.*]] = tile.smem_index %[[BUF]][%[[NEXT]]] : !tile.smem<3x32x64xf32> -> !tile.smem<32x64xf32>
# CHECK: tile.async_copy %[[SN]], %{{.*}} mask %{{.*}} : !tile.smem<32x64xf32>, tensor<32x64x!tile.ptr<f32>>
# CHECK: %[[CUR:.*]] = arith.remsi %{{.*}}, %[[C3]] : i32
# CHECK: %[[SC:.*]] = tile.smem_index %[[BUF]][%[[CUR]]] : !tile.smem<3x32x64xf32> -> !tile.smem<32x64xf32>
# CHECK: %[[X:.*]] = tile.smem_load %[[SC]] : !tile.smem<32x64xf32> -> tensor<32x64xf32>
# CHECK: tile.store %{{.*}}, %[[X]] mask %{{.*}} : tensor<32x64x!tile.ptr<f32>>
# CHECK: }
# CHECK-NEXT: tile.async_wait {pending = 0 : i32}
# CHECK-NEXT: tile.barrier
# CHECK-NEXT: return
@kt.jit
def pipeline(src, dst, n, BLOCK: kt.constexpr, STAGES: kt.constexpr):
    buf = kt.alloc_shared((STAGES, BLOCK, 64), kt.float32)
    kt.static_assert(buf.shape == (STAGES, BLOCK, 64))
    kt.static_assert(buf.dtype == kt.float32)
    kt.static_assert(buf.index(0).shape == (BLOCK, 64))
    rows = kt.arange(0, BLOCK)
    cols = kt.arange(0, 64)
    kt.async_copy(buf.index(0), src + rows[:, None] * 64 + cols[None, :], mask=(rows < n)[:, None])
    for b in range(kt.cdiv(n, BLOCK)):
        kt.async_wait(STAGES - 2)
        r = (b + 1) * BLOCK + rows
        kt.async_copy(buf.index((b + 1) % STAGES), src + r[:, None] * 64 + cols[None, :],
                      mask=r[:, None] < n)
        x = buf.index(b % STAGES).load()
        r0 = b * BLOCK + rows
        kt.store(dst + r0[:, None] * 64 + cols[None, :], x, mask=(r0 < n)[:, None])
    kt.async_wait()
    kt.barrier()


@kt.jit
def fill(buf, value):
    buf.store(value)


# A [BLOCK, 1] f32 tile is cast and broadcast into a bf16 buffer; a load takes
# the layout it is given; a buffer can be passed to a @kt.jit function, and a
# runtime scalar stored into an int32 buffer is splat.
# STORE-LABEL: func.func @store_load
# STORE: %[[H:.*]] = tile.alloc_shared : !tile.smem<32x4xbf16>
# STORE: %[[T:.*]] = arith.truncf %{{.*}} : tensor<32x1xf32> to tensor<32x1xbf16>
# STORE: %[[B:.*]] = tile.broadcast %[[T]] : tensor<32x1xbf16> -> tensor<32x4xbf16>
# STORE: tile.smem_store %[[H]], %[[B]] : !tile.smem<32x4xbf16>, tensor<32x4xbf16>
# STORE: tile.smem_load %[[H]] : !tile.smem<32x4xbf16> -> tensor<32x4xbf16, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>
# STORE: %[[I:.*]] = tile.alloc_shared : !tile.smem<32xi32>
# STORE: %[[S:.*]] = tile.splat %arg2 : tensor<32xi32>
# STORE: tile.smem_store %[[I]], %[[S]] : !tile.smem<32xi32>, tensor<32xi32>
# STORE: tile.smem_load %[[I]] : !tile.smem<32xi32> -> tensor<32xi32>
@kt.jit
def store_load(src, dst, s, BLOCK: kt.constexpr):
    h = kt.alloc_shared((BLOCK, 4), kt.bfloat16)
    kt.static_assert(h.dtype == kt.bfloat16)
    rows = kt.arange(0, BLOCK)
    h.store(kt.load(src + rows)[:, None])
    y = h.load(layout=kt.BlockedLayout([1, 4], [32, 1], [4, 1], [1, 0]))
    ib = kt.alloc_shared((BLOCK,), kt.int32)
    fill(ib, s)
    kt.store(dst + rows, ib.load() + kt.sum(y, 1))


# Buffers in a tuple, one made under a constexpr branch (still at the top
# level); an i64 index is truncated to i32; a slot chosen at run time is an
# scf.if yielding the buffer slice.
# SLOTS-LABEL: func.func @slots
# SLOTS: %[[A:.*]] = tile.alloc_shared : !tile.smem<2x16xi8>
# SLOTS: %[[B:.*]] = tile.alloc_shared : !tile.smem<2x16xi8>
# SLOTS: %[[E:.*]] = tile.alloc_shared : !tile.smem<16xf16>
# SLOTS: tile.smem_store %[[E]], %{{.*}} : !tile.smem<16xf16>, tensor<16xf16>
# SLOTS: %[[I:.*]] = arith.trunci %arg2 : i64 to i32
# SLOTS: %[[BI:.*]] = tile.smem_index %[[B]][%[[I]]] : !tile.smem<2x16xi8> -> !tile.smem<16xi8>
# SLOTS: %[[V:.*]] = arith.trunci %{{.*}} : tensor<16xi32> to tensor<16xi8>
# SLOTS: tile.smem_store %[[BI]], %[[V]] : !tile.smem<16xi8>, tensor<16xi8>
# SLOTS: %[[SLOT:.*]] = scf.if %{{.*}} -> (!tile.smem<16xi8>) {
# SLOTS: %[[A1:.*]] = tile.smem_index %[[A]][%{{.*}}] : !tile.smem<2x16xi8> -> !tile.smem<16xi8>
# SLOTS: scf.yield %[[A1]] : !tile.smem<16xi8>
# SLOTS: } else {
# SLOTS: scf.yield %[[BI]] : !tile.smem<16xi8>
# SLOTS: tile.smem_load %[[SLOT]] : !tile.smem<16xi8> -> tensor<16xi8>
@kt.jit
def slots(src, dst, i: kt.int64, USE_EXTRA: kt.constexpr):
    offs = kt.arange(0, 16)
    bufs = (kt.alloc_shared((2, 16), kt.int8), kt.alloc_shared((2, 16), kt.int8))
    if USE_EXTRA:
        extra = kt.alloc_shared((16,), kt.float16)
        extra.store(kt.load(src + offs))
    bufs[1].index(i).store(offs)
    if i > 0:
        slot = bufs[0].index(1)
    else:
        slot = bufs[1].index(i)
    kt.store(dst + offs, slot.load())


# kt.alloc_shared(..., layout=kt.SwizzledSharedLayout(...)) places the buffer's rows; its
# slices keep the layout, and the host ignores it.
# SWIZZLED-LABEL: func.func @swizzled
# SWIZZLED: tile.alloc_shared : !tile.smem<2x16x64xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
# SWIZZLED: tile.smem_index %{{.*}} -> !tile.smem<16x64xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
@kt.jit
def swizzled(src, dst):
    buf = kt.alloc_shared((2, 16, 64), kt.bfloat16, layout=kt.SwizzledSharedLayout(8, 1, 8, [1, 0]))
    offs = kt.arange(0, 16)[:, None] * 64 + kt.arange(0, 64)[None, :]
    kt.async_copy(buf.index(1), src + offs)
    kt.async_wait(0)
    kt.store(dst + offs, buf.index(1).load())


# kt.NVMMASharedLayout(swizzle_byte_width, element_bitwidth) places a buffer as NVIDIA's
# matrix unit reads it; kt.operand_swizzle picks it, at the widest swizzle dividing the row,
# for rows of whole 32-byte groups, and a kt.SwizzledSharedLayout for shorter rows.
# OPERANDS-LABEL: func.func @operand_buffers
# OPERANDS: tile.alloc_shared : !tile.smem<64x64xf16, #tile.nvmma_shared<{swizzleBytes = 64, elementBits = 16}>>
# OPERANDS: tile.alloc_shared : !tile.smem<3x16x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
# OPERANDS: tile.alloc_shared : !tile.smem<16x48xbf16, #tile.nvmma_shared<{swizzleBytes = 32, elementBits = 16}>>
# OPERANDS: tile.alloc_shared : !tile.smem<16x8xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]}>>
@kt.jit
def operand_buffers(dst):
    a = kt.alloc_shared((64, 64), kt.float16, layout=kt.NVMMASharedLayout(64, 16))
    b = kt.alloc_shared((3, 16, 128), kt.bfloat16, kt.operand_swizzle(128, kt.bfloat16))
    c = kt.alloc_shared((16, 48), kt.bfloat16, kt.operand_swizzle(48, kt.bfloat16))
    d = kt.alloc_shared((16, 8), kt.bfloat16, kt.operand_swizzle(8, kt.bfloat16))
    total = kt.sum(kt.sum(a.load().to(kt.float32), 1), 0) + kt.sum(kt.sum(
        b.index(1).load().to(kt.float32), 1), 0)
    total += kt.sum(kt.sum(c.load().to(kt.float32), 1), 0)
    kt.store(dst, total + kt.sum(kt.sum(d.load().to(kt.float32), 1), 0))
