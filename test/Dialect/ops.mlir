// RUN: kda-opt %s -split-input-file | kda-opt -split-input-file | FileCheck %s
// RUN: kda-opt %s -split-input-file -mlir-print-op-generic | kda-opt -split-input-file | FileCheck %s

// Round-trip of every tile op and of the pointer and shared buffer types, in
// custom and generic form.

// CHECK-LABEL: func.func @pointer_types
// CHECK-SAME: %{{.*}}: !tile.ptr<f32>
// CHECK-SAME: %{{.*}}: !tile.ptr<bf16, 3>
// CHECK-SAME: %{{.*}}: !tile.ptr<i1>
// CHECK-SAME: %{{.*}}: !tile.ptr<f64>
// CHECK-SAME: %{{.*}}: tensor<4x8x!tile.ptr<f16>>
// CHECK-SAME: -> !tile.ptr<i8>
func.func @pointer_types(%a: !tile.ptr<f32>, %b: !tile.ptr<bf16, 3>,
                         %c: !tile.ptr<i1>, %d: !tile.ptr<f64>,
                         %e: tensor<4x8x!tile.ptr<f16>>,
                         %f: !tile.ptr<i8, 1>) -> !tile.ptr<i8> {
  return %f : !tile.ptr<i8>
}

// -----

// The default address space (1) is elided; others are printed.
// CHECK-LABEL: func.func @address_space_default
// CHECK-SAME: (%{{.*}}: !tile.ptr<i32>, %{{.*}}: !tile.ptr<i32, 0>)
func.func @address_space_default(%a: !tile.ptr<i32, 1>, %b: !tile.ptr<i32, 0>) {
  return
}

// -----

// CHECK-LABEL: func.func @grid
// CHECK: [[P0:%.*]] = tile.program_id 0
// CHECK: [[P2:%.*]] = tile.program_id 2
// CHECK: [[N1:%.*]] = tile.num_programs 1
// CHECK: return [[P0]], [[P2]], [[N1]] : i32, i32, i32
func.func @grid() -> (i32, i32, i32) {
  %0 = tile.program_id 0
  %1 = tile.program_id 2
  %2 = tile.num_programs 1
  return %0, %1, %2 : i32, i32, i32
}

// -----

// CHECK-LABEL: func.func @range
// CHECK: tile.range 0, 128 : tensor<128xi32>
// CHECK: tile.range 4, 12 : tensor<8xi32>
// CHECK: tile.range -4, 4 : tensor<8xi32>
// CHECK: tile.range -8, -4 : tensor<4xi32>
func.func @range() -> (tensor<128xi32>, tensor<8xi32>, tensor<8xi32>, tensor<4xi32>) {
  %0 = tile.range 0, 128 : tensor<128xi32>
  %1 = tile.range 4, 12 : tensor<8xi32>
  // Negative bounds are signed values.
  %2 = tile.range -4, 4 : tensor<8xi32>
  %3 = tile.range -8, -4 : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<128xi32>, tensor<8xi32>, tensor<8xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @splat
// CHECK-SAME: ([[X:%.*]]: f32, [[P:%.*]]: !tile.ptr<bf16>, [[B:%.*]]: i1)
// CHECK: tile.splat [[X]] : tensor<4x8xf32>
// CHECK: tile.splat [[P]] : tensor<16x!tile.ptr<bf16>>
// CHECK: tile.splat [[B]] : tensor<2xi1>
func.func @splat(%x: f32, %p: !tile.ptr<bf16>, %b: i1)
    -> (tensor<4x8xf32>, tensor<16x!tile.ptr<bf16>>, tensor<2xi1>) {
  %0 = tile.splat %x : tensor<4x8xf32>
  %1 = tile.splat %p : tensor<16x!tile.ptr<bf16>>
  %2 = tile.splat %b : tensor<2xi1>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<16x!tile.ptr<bf16>>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: ([[X:%.*]]: tensor<4xf32>, [[Y:%.*]]: tensor<4x8xf32>)
// CHECK: [[E:%.*]] = tile.expand_dims [[X]] {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: tile.broadcast [[E]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: tile.expand_dims [[X]] {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: tile.reshape [[Y]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: tile.reshape [[Y]] : tensor<4x8xf32> -> tensor<2x2x8xf32>
// CHECK: tile.trans [[Y]] {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
func.func @shape_ops(%x: tensor<4xf32>, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<1x4xf32>, tensor<32xf32>, tensor<2x2x8xf32>,
        tensor<8x4xf32>) {
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %b = tile.broadcast %e : tensor<4x1xf32> -> tensor<4x8xf32>
  %e0 = tile.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
  %r = tile.reshape %y : tensor<4x8xf32> -> tensor<32xf32>
  %r3 = tile.reshape %y : tensor<4x8xf32> -> tensor<2x2x8xf32>
  %t = tile.trans %y {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %b, %e0, %r, %r3, %t
      : tensor<4x8xf32>, tensor<1x4xf32>, tensor<32xf32>, tensor<2x2x8xf32>,
        tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @trans_3d
// CHECK: tile.trans %{{.*}} {order = array<i32: 2, 0, 1>} : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
func.func @trans_3d(%x: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
  %t = tile.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
  return %t : tensor<4x2x3xi32>
}

// -----

// CHECK-LABEL: func.func @addptr
// CHECK-SAME: ([[P:%.*]]: !tile.ptr<f32>, [[PS:%.*]]: tensor<128x!tile.ptr<f32>>, [[O:%.*]]: tensor<128xi32>, [[I:%.*]]: i64)
// CHECK: tile.addptr [[PS]], [[O]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK: tile.addptr [[P]], [[I]] : !tile.ptr<f32>, i64
func.func @addptr(%p: !tile.ptr<f32>, %ps: tensor<128x!tile.ptr<f32>>,
                  %o: tensor<128xi32>, %i: i64)
    -> (tensor<128x!tile.ptr<f32>>, !tile.ptr<f32>) {
  %0 = tile.addptr %ps, %o : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %1 = tile.addptr %p, %i : !tile.ptr<f32>, i64
  return %0, %1 : tensor<128x!tile.ptr<f32>>, !tile.ptr<f32>
}

// -----

// CHECK-LABEL: func.func @load
// CHECK-SAME: ([[P:%.*]]: tensor<128x!tile.ptr<f32>>, [[M:%.*]]: tensor<128xi1>, [[O:%.*]]: tensor<128xf32>, [[S:%.*]]: !tile.ptr<bf16>, [[SM:%.*]]: i1, [[SO:%.*]]: bf16)
// CHECK: tile.load [[P]] : tensor<128x!tile.ptr<f32>>
// CHECK: tile.load [[P]] mask [[M]] : tensor<128x!tile.ptr<f32>>
// CHECK: tile.load [[P]] mask [[M]] other [[O]] : tensor<128x!tile.ptr<f32>>
// CHECK: tile.load [[S]] : !tile.ptr<bf16>
// CHECK: tile.load [[S]] mask [[SM]] other [[SO]] : !tile.ptr<bf16>
func.func @load(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>,
                %o: tensor<128xf32>, %s: !tile.ptr<bf16>, %sm: i1, %so: bf16)
    -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, bf16, bf16) {
  %0 = tile.load %p : tensor<128x!tile.ptr<f32>>
  %1 = tile.load %p mask %m : tensor<128x!tile.ptr<f32>>
  %2 = tile.load %p mask %m other %o : tensor<128x!tile.ptr<f32>>
  %3 = tile.load %s : !tile.ptr<bf16>
  %4 = tile.load %s mask %sm other %so : !tile.ptr<bf16>
  return %0, %1, %2, %3, %4
      : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, bf16, bf16
}

// -----

// CHECK-LABEL: func.func @store
// CHECK-SAME: ([[P:%.*]]: tensor<4x8x!tile.ptr<i1>>, [[V:%.*]]: tensor<4x8xi1>, [[M:%.*]]: tensor<4x8xi1>, [[S:%.*]]: !tile.ptr<f16>, [[SV:%.*]]: f16, [[SM:%.*]]: i1)
// CHECK: tile.store [[P]], [[V]] : tensor<4x8x!tile.ptr<i1>>
// CHECK: tile.store [[P]], [[V]] mask [[M]] : tensor<4x8x!tile.ptr<i1>>
// CHECK: tile.store [[S]], [[SV]] : !tile.ptr<f16>
// CHECK: tile.store [[S]], [[SV]] mask [[SM]] : !tile.ptr<f16>
func.func @store(%p: tensor<4x8x!tile.ptr<i1>>, %v: tensor<4x8xi1>,
                 %m: tensor<4x8xi1>, %s: !tile.ptr<f16>, %sv: f16, %sm: i1) {
  tile.store %p, %v : tensor<4x8x!tile.ptr<i1>>
  tile.store %p, %v mask %m : tensor<4x8x!tile.ptr<i1>>
  tile.store %s, %sv : !tile.ptr<f16>
  tile.store %s, %sv mask %sm : !tile.ptr<f16>
  return
}

// -----

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: ([[X:%.*]]: tensor<4x8xf32>, [[Y:%.*]]: tensor<16xi32>)
// CHECK: tile.reduce sum [[X]] {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: tile.reduce max [[X]] {axis = 0 : i32} : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: tile.reduce min [[Y]] {axis = 0 : i32} : tensor<16xi32> -> i32
func.func @reduce(%x: tensor<4x8xf32>, %y: tensor<16xi32>)
    -> (tensor<4xf32>, tensor<8xf32>, i32) {
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tile.reduce max %x {axis = 0 : i32} : tensor<4x8xf32> -> tensor<8xf32>
  %2 = tile.reduce min %y {axis = 0 : i32} : tensor<16xi32> -> i32
  return %0, %1, %2 : tensor<4xf32>, tensor<8xf32>, i32
}

// -----

// CHECK-LABEL: func.func @scan
// CHECK: tile.scan %{{.*}} {axis = 0 : i32, reverse = false} : tensor<4x8xf32> {
// CHECK: arith.addf
// CHECK: tile.yield %{{.*}} : f32
// CHECK: %{{.*}}:2 = tile.scan %{{.*}}, %{{.*}} {axis = 1 : i32, reverse = true} : tensor<4x8xf32>, tensor<4x8xi32> {
func.func @scan(%x: tensor<4x8xf32>, %y: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<4x8xf32> {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    tile.yield %s : f32
  }
  %1:2 = tile.scan %x, %y {axis = 1 : i32, reverse = true} : tensor<4x8xf32>, tensor<4x8xi32> {
  ^bb0(%a0: f32, %b0: i32, %a1: f32, %b1: i32):
    %m = arith.maximumf %a0, %a1 : f32
    %n = arith.maxsi %b0, %b1 : i32
    tile.yield %m, %n : f32, i32
  }
  return %0, %1#1 : tensor<4x8xf32>, tensor<4x8xi32>
}

// -----

// i1 max/min (any/all) are valid.
// CHECK-LABEL: func.func @reduce_i1
// CHECK-SAME: ([[B:%.*]]: tensor<2x8xi1>)
// CHECK: tile.reduce max [[B]] {axis = 1 : i32} : tensor<2x8xi1> -> tensor<2xi1>
// CHECK: tile.reduce min [[B]] {axis = 0 : i32} : tensor<2x8xi1> -> tensor<8xi1>
func.func @reduce_i1(%b: tensor<2x8xi1>) -> (tensor<2xi1>, tensor<8xi1>) {
  %0 = tile.reduce max %b {axis = 1 : i32} : tensor<2x8xi1> -> tensor<2xi1>
  %1 = tile.reduce min %b {axis = 0 : i32} : tensor<2x8xi1> -> tensor<8xi1>
  return %0, %1 : tensor<2xi1>, tensor<8xi1>
}

// -----

// CHECK-LABEL: func.func @dot
// CHECK-SAME: ([[A:%.*]]: tensor<16x32xbf16>, [[B:%.*]]: tensor<32x8xbf16>, [[C:%.*]]: tensor<16x8xf32>, [[F:%.*]]: tensor<16x32xf32>, [[G:%.*]]: tensor<32x8xf32>)
// CHECK: tile.dot [[A]], [[B]], [[C]] : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
// CHECK: tile.dot [[F]], [[G]], [[C]] : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
func.func @dot(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>, %c: tensor<16x8xf32>,
               %f: tensor<16x32xf32>, %g: tensor<32x8xf32>)
    -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
  %1 = tile.dot %f, %g, %c : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @atomics
// CHECK: tile.atomic_rmw add %arg0, %arg1 {sem = acq_rel, scope = gpu} : !tile.ptr<i32>
// CHECK: tile.atomic_rmw xchg %arg2, %arg3 {sem = relaxed, scope = cta} : !tile.ptr<f32>
// CHECK: tile.atomic_rmw max %arg4, %arg5 {sem = release, scope = sys} : !tile.ptr<i64>
func.func @atomics(%a: !tile.ptr<i32>, %b: i32, %c: !tile.ptr<f32>, %d: f32, %e: !tile.ptr<i64>, %f: i64) -> (i32, f32, i64) {
  %0 = tile.atomic_rmw add %a, %b {sem = acq_rel, scope = gpu} : !tile.ptr<i32>
  %1 = tile.atomic_rmw xchg %c, %d {sem = relaxed, scope = cta} : !tile.ptr<f32>
  %2 = tile.atomic_rmw max %e, %f {sem = release, scope = sys} : !tile.ptr<i64>
  return %0, %1, %2 : i32, f32, i64
}

// -----

// CHECK-LABEL: func.func @tile_atomics
// CHECK: tile.atomic_rmw add %arg0, %arg1 mask %arg2 {sem = relaxed, scope = gpu} : tensor<64x!tile.ptr<i32>>
// CHECK: tile.atomic_rmw min %arg0, %arg1 {sem = acquire, scope = cta} : tensor<64x!tile.ptr<i32>>
// CHECK: tile.atomic_rmw add %arg3, %arg4 mask %arg5 {sem = acq_rel, scope = gpu} : !tile.ptr<f32>
func.func @tile_atomics(%p: tensor<64x!tile.ptr<i32>>, %v: tensor<64xi32>, %m: tensor<64xi1>, %s: !tile.ptr<f32>, %x: f32, %b: i1) -> (tensor<64xi32>, tensor<64xi32>, f32) {
  %0 = tile.atomic_rmw add %p, %v mask %m {sem = relaxed, scope = gpu} : tensor<64x!tile.ptr<i32>>
  %1 = tile.atomic_rmw min %p, %v {sem = acquire, scope = cta} : tensor<64x!tile.ptr<i32>>
  %2 = tile.atomic_rmw add %s, %x mask %b {sem = acq_rel, scope = gpu} : !tile.ptr<f32>
  return %0, %1, %2 : tensor<64xi32>, tensor<64xi32>, f32
}

// -----

// The shared buffer type: any rank, integer and float elements of 8 bits or
// more.
// CHECK-LABEL: func.func @smem_types
// A swizzled buffer keeps its layout through slices of its leading dimension.
// CHECK: %[[S:.*]] = tile.alloc_shared : !tile.smem<3x64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
// CHECK: tile.smem_index %[[S]][%{{.*}}] : !tile.smem<3x64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>> -> !tile.smem<64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
// CHECK: tile.alloc_shared : !tile.smem<2x64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
// CHECK: tile.alloc_shared : !tile.smem<128xf32>
// CHECK: tile.alloc_shared : !tile.smem<64x32xbf16>
// CHECK: tile.alloc_shared : !tile.smem<3x16x64xi32>
// CHECK: tile.alloc_shared : !tile.smem<1x1x1x8xi8>
// CHECK: tile.alloc_shared : !tile.smem<4x2xf64>
// CHECK: tile.alloc_shared : !tile.smem<2x8xf16>
// CHECK: tile.alloc_shared : !tile.smem<8xi64>
func.func @smem_types() {
  %c0 = arith.constant 0 : i32
  %s = tile.alloc_shared : !tile.smem<3x64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  %t = tile.smem_index %s[%c0] : !tile.smem<3x64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>> -> !tile.smem<64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  %nv = tile.alloc_shared : !tile.smem<2x64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  %0 = tile.alloc_shared : !tile.smem<128xf32>
  %1 = tile.alloc_shared : !tile.smem<64x32xbf16>
  %2 = tile.alloc_shared : !tile.smem<3x16x64xi32>
  %3 = tile.alloc_shared : !tile.smem<1x1x1x8xi8>
  %4 = tile.alloc_shared : !tile.smem<4x2xf64>
  %5 = tile.alloc_shared : !tile.smem<2x8xf16>
  %6 = tile.alloc_shared : !tile.smem<8xi64>
  return
}

// -----

// Slices of the leading dimension, down to rank 1.
// CHECK-LABEL: func.func @smem_index
// CHECK-SAME: ([[I:%.*]]: i32, [[J:%.*]]: i32)
// CHECK: [[BUF:%.*]] = tile.alloc_shared : !tile.smem<3x2x16x64xbf16>
// CHECK: [[S:%.*]] = tile.smem_index [[BUF]][[[I]]] : !tile.smem<3x2x16x64xbf16> -> !tile.smem<2x16x64xbf16>
// CHECK: [[T:%.*]] = tile.smem_index [[S]][[[J]]] : !tile.smem<2x16x64xbf16> -> !tile.smem<16x64xbf16>
// CHECK: tile.smem_index [[T]][[[I]]] : !tile.smem<16x64xbf16> -> !tile.smem<64xbf16>
func.func @smem_index(%i: i32, %j: i32) {
  %buf = tile.alloc_shared : !tile.smem<3x2x16x64xbf16>
  %s = tile.smem_index %buf[%i] : !tile.smem<3x2x16x64xbf16> -> !tile.smem<2x16x64xbf16>
  %t = tile.smem_index %s[%j] : !tile.smem<2x16x64xbf16> -> !tile.smem<16x64xbf16>
  %u = tile.smem_index %t[%i] : !tile.smem<16x64xbf16> -> !tile.smem<64xbf16>
  return
}

// -----

// Loads and stores of a whole buffer, with or without a layout on the tile.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-LABEL: func.func @smem_load_store
// CHECK-SAME: ([[X:%.*]]: tensor<16x64xf32>, [[Y:%.*]]: tensor<16x64xf32, #{{.*}}>)
// CHECK: [[BUF:%.*]] = tile.alloc_shared : !tile.smem<16x64xf32>
// CHECK: tile.smem_store [[BUF]], [[X]] : !tile.smem<16x64xf32>, tensor<16x64xf32>
// CHECK: tile.smem_store [[BUF]], [[Y]] : !tile.smem<16x64xf32>, tensor<16x64xf32, #{{.*}}>
// CHECK: [[A:%.*]] = tile.smem_load [[BUF]] : !tile.smem<16x64xf32> -> tensor<16x64xf32>
// CHECK: [[B:%.*]] = tile.smem_load [[BUF]] : !tile.smem<16x64xf32> -> tensor<16x64xf32, #{{.*}}>
// CHECK: return [[A]], [[B]]
func.func @smem_load_store(%x: tensor<16x64xf32>, %y: tensor<16x64xf32, #blk>)
    -> (tensor<16x64xf32>, tensor<16x64xf32, #blk>) {
  %buf = tile.alloc_shared : !tile.smem<16x64xf32>
  tile.smem_store %buf, %x : !tile.smem<16x64xf32>, tensor<16x64xf32>
  tile.smem_store %buf, %y : !tile.smem<16x64xf32>, tensor<16x64xf32, #blk>
  %a = tile.smem_load %buf : !tile.smem<16x64xf32> -> tensor<16x64xf32>
  %b = tile.smem_load %buf : !tile.smem<16x64xf32> -> tensor<16x64xf32, #blk>
  return %a, %b : tensor<16x64xf32>, tensor<16x64xf32, #blk>
}

// -----

// Asynchronous copies, with and without a mask, the wait and the barrier.
// CHECK-LABEL: func.func @async_copy
// CHECK-SAME: ([[P:%.*]]: tensor<32x128x!tile.ptr<f32>>, [[M:%.*]]: tensor<32x128xi1>, [[Q:%.*]]: tensor<64x!tile.ptr<i8>>, [[I:%.*]]: i32)
// CHECK: [[BUF:%.*]] = tile.alloc_shared : !tile.smem<2x32x128xf32>
// CHECK: [[SLOT:%.*]] = tile.smem_index [[BUF]][[[I]]] : !tile.smem<2x32x128xf32> -> !tile.smem<32x128xf32>
// CHECK: tile.async_copy [[SLOT]], [[P]] mask [[M]] : !tile.smem<32x128xf32>, tensor<32x128x!tile.ptr<f32>>
// CHECK: [[BYTES:%.*]] = tile.alloc_shared : !tile.smem<64xi8>
// CHECK: tile.async_copy [[BYTES]], [[Q]] : !tile.smem<64xi8>, tensor<64x!tile.ptr<i8>>
// CHECK: tile.async_wait {pending = 1 : i32}
// CHECK: tile.async_wait {pending = 0 : i32}
// CHECK: tile.barrier
func.func @async_copy(%p: tensor<32x128x!tile.ptr<f32>>, %m: tensor<32x128xi1>,
                      %q: tensor<64x!tile.ptr<i8>>, %i: i32) {
  %buf = tile.alloc_shared : !tile.smem<2x32x128xf32>
  %slot = tile.smem_index %buf[%i] : !tile.smem<2x32x128xf32> -> !tile.smem<32x128xf32>
  tile.async_copy %slot, %p mask %m : !tile.smem<32x128xf32>, tensor<32x128x!tile.ptr<f32>>
  %bytes = tile.alloc_shared : !tile.smem<64xi8>
  tile.async_copy %bytes, %q : !tile.smem<64xi8>, tensor<64x!tile.ptr<i8>>
  tile.async_wait {pending = 1 : i32}
  tile.async_wait {pending = 0 : i32}
  tile.barrier
  return
}

// -----

// CHECK-LABEL: func.func @launch_order
// CHECK: tile.program_id
// CHECK-NEXT: tile.wait_prior_launches
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.launch_dependents
func.func @launch_order(%p: !tile.ptr<f32>) -> f32 {
  %pid = tile.program_id 0
  tile.wait_prior_launches
  %v = tile.load %p : !tile.ptr<f32>
  tile.launch_dependents
  return %v : f32
}

// -----

// The next kernel may be let go before this one's wait: neither touches memory.
// CHECK-LABEL: func.func @launch_dependents_first
// CHECK: tile.launch_dependents
// CHECK-NEXT: tile.wait_prior_launches
func.func @launch_dependents_first(%p: !tile.ptr<f32>) -> f32 {
  tile.launch_dependents
  tile.wait_prior_launches
  %v = tile.load %p : !tile.ptr<f32>
  return %v : f32
}

// -----

// CHECK-LABEL: func.func @cluster_sum
// CHECK: tile.cluster_sum %{{.*}} {axis = 2 : i32, size = 4 : i32} : f32
func.func @cluster_sum(%x: f32) -> f32 {
  %s = tile.cluster_sum %x {axis = 2 : i32, size = 4 : i32} : f32
  return %s : f32
}

// -----

// CHECK-LABEL: func.func @dot_tf32
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision tf32 : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
func.func @dot_tf32(%a: tensor<16x8xf32>, %b: tensor<8x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %d = tile.dot %a, %b, %c precision tf32 : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  %e = tile.dot %a, %b, %d precision ieee : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %e : tensor<16x8xf32>
}

// -----

// A product whose operands the matrix unit reads from shared memory.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#acc = #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [4, 1]}>
// CHECK-LABEL: func.func @shared_dot
// CHECK: tile.shared_dot %{{.*}}, %{{.*}}, %{{.*}} : !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>, !tile.smem<64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>> -> tensor<64x128xf32, #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [4, 1]}>>
func.func @shared_dot(%c: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> {
  %a = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %b = tile.alloc_shared : !tile.smem<64x128xbf16, #nv>
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16, #nv>, !tile.smem<64x128xbf16, #nv> -> tensor<64x128xf32, #acc>
  return %d : tensor<64x128xf32, #acc>
}

// -----

// Asynchronous products and the wait for them.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#acc = #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [4, 1]}>
// CHECK-LABEL: func.func @async_dots
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} async : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
// CHECK: tile.shared_dot %{{.*}}, %{{.*}}, %{{.*}} async :
// CHECK: tile.dot_wait %{{.*}} {pending = 1 : i32} : tensor<64x128xf32, #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [4, 1]}>>
func.func @async_dots(%x: tensor<16x16xbf16>, %y: tensor<16x16xf32>, %c: tensor<64x128xf32, #acc>) -> (tensor<16x16xf32>, tensor<64x128xf32, #acc>) {
  %p = tile.dot %x, %x, %y async : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  %a = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %b = tile.alloc_shared : !tile.smem<64x128xbf16, #nv>
  %d = tile.shared_dot %a, %b, %c async : !tile.smem<64x64xbf16, #nv>, !tile.smem<64x128xbf16, #nv> -> tensor<64x128xf32, #acc>
  %w = tile.dot_wait %d {pending = 1 : i32} : tensor<64x128xf32, #acc>
  return %p, %w : tensor<16x16xf32>, tensor<64x128xf32, #acc>
}

// -----

// Tensor descriptors: a strided global tensor read and written in blocks.
// CHECK-LABEL: func.func @tensor_descs
// CHECK: %[[D:.*]] = tile.make_tensor_desc %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] : !tile.ptr<bf16> -> !tile.tensor_desc<64x128xbf16>
// CHECK: tile.async_load %[[D]][%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16>
// CHECK: tile.async_store %[[D]][%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16>
func.func @tensor_descs(%base: !tile.ptr<bf16>, %m: i32, %n: i32, %ld: i64, %i: i32) {
  %c1 = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<64x128xbf16>
  %d = tile.make_tensor_desc %base, [%m, %n], [%ld, %c1] : !tile.ptr<bf16> -> !tile.tensor_desc<64x128xbf16>
  tile.async_load %d[%i, %i], %buf : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16>
  tile.async_store %d[%i, %i], %buf : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16>
  return
}

// -----

// A descriptor may name the shared layout its blocks land in.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @tensor_desc_layout
// CHECK: tile.async_load %{{.*}} : !tile.tensor_desc<64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>, !tile.smem<64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
func.func @tensor_desc_layout(%base: !tile.ptr<bf16>, %m: i32, %ld: i64, %i: i32) {
  %c1 = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<64x128xbf16, #nv>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %c1] : !tile.ptr<bf16> -> !tile.tensor_desc<64x128xbf16, #nv>
  tile.async_load %d[%i, %i], %buf : !tile.tensor_desc<64x128xbf16, #nv>, !tile.smem<64x128xbf16, #nv>
  return
}
