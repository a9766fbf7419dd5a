# kt.make_tensor_descriptor(base, shape, strides, block_shape) is tile.make_tensor_desc (i32
# sizes, i64 strides); kt.async_load / kt.async_store(desc, offsets, buffer) are its block
# copies, expanded (tile-expand-tensor-descs) into masked element copies on targets without a
# block-copy engine. Errors name the argument at its source line and column.
# RUN: kda-compile %s --kernel copy_block --target cpu --signature 'src=*bf16,dst=*bf16,m=i32,n=i32,ld=i32' \
# RUN:   --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel copy_block --target gfx1250 --signature 'src=*bf16,dst=*bf16,m=i32,n=i32,ld=i32' \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=TDM
# RUN: kda-compile %s --kernel copy_padded --target gfx1250 --signature 'src=*bf16,dst=*bf16,m=i32,n=i32,ld=i32' \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=PAD
# RUN: kda-compile %s --kernel copy_swizzled --target sm_90a \
# RUN:   --signature 'src=*bf16:16,m=i32,n=i32,ld=i32:16' --emit tile -o - | FileCheck %s --check-prefix=SWZ
# RUN: kda-compile %s --kernel copy_swizzled --target sm_90a \
# RUN:   --signature 'src=*bf16:16,m=i32,n=i32,ld=i32:16' --emit ptx -o - | FileCheck %s --check-prefix=SWZ-PTX
# RUN: kda-compile %s --kernel copy_elements --target sm_90a \
# RUN:   --signature 'src=*bf16:16,dst=*bf16:16,m=i32,n=i32,ld=i32:16' --emit tile -o - \
# RUN:   | FileCheck %s --check-prefix=ELT
# RUN: kda-compile %s --kernel copy_elements --target sm_90a \
# RUN:   --signature 'src=*bf16:16,dst=*bf16:16,m=i32,n=i32,ld=i32:16' --emit ptx -o - \
# RUN:   | FileCheck %s --check-prefix=ELT-PTX
# RUN: not kda-compile %s --kernel desc_errors --target cpu --signature 'p=*f32,q=*f16,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ERR

import kdatile as kt


# CHECK-LABEL: func.func @copy_block
# CHECK: %[[LD:.*]] = arith.extsi %arg4 : i32 to i64
# CHECK: %[[D:.*]] = tile.make_tensor_desc %arg0, [%arg2, %arg3], [%[[LD]], %{{.*}}] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
# CHECK: tile.async_load %[[D]][%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
# CHECK: tile.async_wait {pending = 0 : i32}
# CHECK: tile.async_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
# On gfx1250 the block copies run on the Tensor Data Mover: each of the 4 waves copies 8 of the
# 32 rows, its descriptor in scalar registers, and waits on the tensor counter.
# TDM-LABEL: copy_block:
# TDM-NOT: global_load
# TDM: tensor_load_to_lds s[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+}}:{{[0-9]+}}]
# TDM: s_wait_tensorcnt 0x0
# TDM: s_barrier_wait
# TDM: tensor_store_from_lds s[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+}}:{{[0-9]+}}]
# TDM: s_wait_tensorcnt 0x0
# TDM-NOT: global_store
# TDM: s_endpgm
@kt.jit
def copy_block(src, dst, m, n, ld):
    a = kt.make_tensor_descriptor(src, (m, n), (ld, 1), (32, 64))
    b = kt.make_tensor_descriptor(dst, [m, n], [ld, 1], [32, 64])
    buf = kt.alloc_shared((32, 64), kt.bfloat16)
    kt.async_load(a, (kt.program_id(0) * 32, 0), buf)
    kt.async_wait(0)
    kt.async_store(b, (kt.program_id(0) * 32, 0), buf)


# The engine pads as it loads: rows of 64 bf16 (32 dwords) and 2 elements (1 dword) of
# padding are group 1's dword 0x1110000 (2-byte data, padding on, interval 2^(4+1) dwords,
# 1 dword); the reads of the padded buffer skip the padding.
# PAD-LABEL: copy_padded:
# PAD: s_mov_b32 s{{[0-9]+}}, 0x1110000
# PAD: tensor_load_to_lds
# PAD: s_wait_tensorcnt 0x0
# PAD: ds_load
# PAD: s_endpgm
@kt.jit
def copy_padded(src, dst, m, n, ld):
    a = kt.make_tensor_descriptor(src, (m, n), (ld, 1), (32, 64))
    buf = kt.alloc_shared((32, 64), kt.bfloat16, kt.PaddedSharedLayout(64, 2, [1, 0]))
    kt.async_load(a, (kt.program_id(0) * 32, 0), buf)
    kt.async_wait(0)
    rows = kt.program_id(0) * 32 + kt.arange(0, 32)
    cols = kt.arange(0, 64)
    kt.store(dst + rows[:, None] * ld + cols[None, :], buf.load(),
             mask=(rows[:, None] < m) & (cols[None, :] < n))


# layout= names the shared layout the blocks land in: the descriptor's type carries it, and
# on sm_90a a 128-byte-swizzled 64 x 128 bf16 block is two TMA boxes of 64 x 64 (one per
# column block) with the tensor map's 128-byte swizzle.
# SWZ-LABEL: func.func @copy_swizzled
# SWZ: tile.make_tensor_desc {{.*}} -> !tile.tensor_desc<64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
# SWZ-PTX-LABEL: .entry copy_swizzled(
# SWZ-PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# SWZ-PTX-NOT: cp.async.bulk.tensor
@kt.jit
def copy_swizzled(src, m, n, ld):
    layout = kt.NVMMASharedLayout(128, 16)
    a = kt.make_tensor_descriptor(src, (m, n), (ld, 1), (64, 128), layout=layout)
    buf = kt.alloc_shared((64, 128), kt.bfloat16, layout)
    kt.async_load(a, (kt.program_id(0) * 64, 0), buf)
    kt.async_wait(0)


# copies="elements": the same block copied by the program's lanes (here element loads and
# shared stores: the column mask is per element), no tensor map, where TMA would take it.
# ELT-LABEL: func.func @copy_elements
# ELT: tile.make_tensor_desc {{.*}} {tile.element_copies}
# ELT-PTX-LABEL: .entry copy_elements(
# ELT-PTX-NOT: cp.async.bulk.tensor
# ELT-PTX: ld.global
# ELT-PTX: st.shared
# ELT-PTX-NOT: cp.async.bulk.tensor
@kt.jit
def copy_elements(src, dst, m, n, ld):
    a = kt.make_tensor_descriptor(src, (m, n), (ld, 1), (64, 128), copies="elements")
    buf = kt.alloc_shared((64, 128), kt.bfloat16)
    kt.async_load(a, (kt.program_id(0) * 64, 0), buf)
    kt.async_wait(0)
    rows = kt.program_id(0) * 64 + kt.arange(0, 64)
    cols = kt.arange(0, 128)
    kt.store(dst + rows[:, None] * ld + cols[None, :], buf.load(),
             mask=(rows[:, None] < m) & (cols[None, :] < n))


@kt.jit
def desc_errors(p, q, n):
    # ERR: tensor_desc.py:[[@LINE+1]]:64: error: kt.make_tensor_descriptor() layout must be a shared-memory layout such as kt.NVMMASharedLayout(...), got
    s = kt.make_tensor_descriptor(p, (n,), (1,), (32,), layout=3)
    # ERR: tensor_desc.py:[[@LINE+1]]:70: error: kt.make_tensor_descriptor(): an nvmma_shared buffer needs a multiple of 8 rows, got 4
    t = kt.make_tensor_descriptor(q, (n, n), (n, 1), (4, 64), layout=kt.NVMMASharedLayout(128, 16))
    nv = kt.make_tensor_descriptor(q, (n, n), (n, 1), (8, 64), layout=kt.NVMMASharedLayout(128, 16))
    plain = kt.alloc_shared((8, 64), kt.float16)
    # ERR: tensor_desc.py:[[@LINE+1]]:31: error: kt.async_load() buffer's layout is not the descriptor's (kt.make_tensor_descriptor's layout): the block would land in another arrangement
    kt.async_load(nv, (0, 0), plain)
    # ERR: tensor_desc.py:[[@LINE+1]]:35: error: kt.make_tensor_descriptor() base must be a pointer to global memory (a kernel argument), got
    x = kt.make_tensor_descriptor(n, (n,), (1,), (32,))
    # ERR: tensor_desc.py:[[@LINE+1]]:50: error: kt.make_tensor_descriptor() block_shape dimensions must be powers of two up to 65536, got [24]
    y = kt.make_tensor_descriptor(p, (n,), (1,), (24,))
    # ERR: tensor_desc.py:[[@LINE+1]]:38: error: kt.make_tensor_descriptor() shape must be a tuple of one integer per block dimension (2), got tuple
    z = kt.make_tensor_descriptor(p, (n,), (1, 1), (8, 8))
    # ERR: tensor_desc.py:[[@LINE+1]]:44: error: kt.make_tensor_descriptor() strides must hold integers, got
    w = kt.make_tensor_descriptor(p, (n,), (1.5,), (8,))
    # ERR: tensor_desc.py:[[@LINE+1]]:50: error: kt.make_tensor_descriptor() block_shape needs 1 to 5 dimensions, got [2, 2, 2, 2, 2, 2]
    v = kt.make_tensor_descriptor(p, (n,), (1,), (2, 2, 2, 2, 2, 2))
    # ERR: tensor_desc.py:[[@LINE+1]]:64: error: kt.make_tensor_descriptor() copies must be "engine" or "elements", got str constant 'lanes'
    w = kt.make_tensor_descriptor(p, (n,), (1,), (32,), copies="lanes")
    d = kt.make_tensor_descriptor(p, (n,), (1,), (32,))
    # ERR: tensor_desc.py:[[@LINE+1]]:28: error: kt.async_load() needs a shared buffer (from kt.alloc_shared), got
    kt.async_load(d, (0,), p)
    buf = kt.alloc_shared((16,), kt.float32)
    # ERR: tensor_desc.py:[[@LINE+1]]:28: error: kt.async_load() buffer of [16] f32 does not hold the descriptor's block of [32] f32
    kt.async_load(d, (0,), buf)
    # ERR: tensor_desc.py:[[@LINE+1]]:19: error: kt.async_load() needs a tensor descriptor (from kt.make_tensor_descriptor), got
    kt.async_load(buf, (0,), buf)
    # A descriptor and its offsets are one value per program (wave-uniform): tiles are not.
    # ERR: tensor_desc.py:[[@LINE+1]]:38: error: kt.make_tensor_descriptor() shape must hold integers, got tile of type tensor<4xi32>
    u = kt.make_tensor_descriptor(p, (kt.arange(0, 4),), (1,), (32,))
    whole = kt.alloc_shared((32,), kt.float32)
    # ERR: tensor_desc.py:[[@LINE+1]]:22: error: kt.async_load() offsets must hold integers, got tile of type tensor<4xi32>
    kt.async_load(d, (kt.arange(0, 4),), whole)
    # ERR: tensor_desc.py:[[@LINE+1]]:23: error: kt.async_store() offsets must be a tuple of one integer per block dimension (1), got tuple
    kt.async_store(d, (0, 1), buf)
    # ERR: tensor_desc.py:[[@LINE+1]]:11: error: '+' cannot take a tensor descriptor; copy its blocks with kt.async_load
    e = d + 1
    # ERR: tensor_desc.py:[[@LINE+1]]:16: error: kt.exp() cannot take a tensor descriptor; copy its blocks with kt.async_load
    f = kt.exp(d)
