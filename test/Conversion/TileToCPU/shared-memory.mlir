// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// A program is one host thread: a shared buffer is a 16-byte aligned array on
// the program's stack (an i64 address like a pointer), a slice adds its index
// times the slice's bytes, an asynchronous copy copies element by element at
// once (masked elements read nothing and write zero), and waits and barriers
// disappear. The slot is read back from the same addresses.
// CHECK-LABEL: func.func private @copy_then_load(
// CHECK-SAME: [[BASE:%[^:]*]]: i64, [[N:%[^:]*]]: i32, [[I:%[^:]*]]: i32, [[OUT:%[^:]*]]: i64,
// CHECK: [[PTRS:%.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<8xi64>
// CHECK: [[M:%.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<8xi32>
// CHECK: [[SIZE:%.*]] = llvm.mlir.constant(96 : i64) : i64
// CHECK-NEXT: [[A:%.*]] = llvm.alloca [[SIZE]] x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: [[BUF:%.*]] = llvm.ptrtoint [[A]] : !llvm.ptr to i64
// CHECK-NEXT: [[IW:%.*]] = arith.extsi [[I]] : i32 to i64
// CHECK-NEXT: [[C32:%.*]] = arith.constant 32 : i64
// CHECK-NEXT: [[OFF:%.*]] = arith.muli [[IW]], [[C32]] : i64
// CHECK-NEXT: [[SLOT:%.*]] = arith.addi [[BUF]], [[OFF]] : i64
// CHECK: scf.for [[J:%.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: [[MJ:%.*]] = tensor.extract [[M]][[[J]]] : tensor<8xi1>
// CHECK-NEXT: [[V:%.*]] = scf.if [[MJ]] -> (f32) {
// CHECK-NEXT: [[PJ:%.*]] = tensor.extract [[PTRS]][[[J]]] : tensor<8xi64>
// CHECK-NEXT: [[SRC:%.*]] = llvm.inttoptr [[PJ]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[SRC]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: scf.yield [[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NOT: llvm.load
// CHECK-NEXT: [[Z:%.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.yield [[Z]] : f32
// CHECK-NEXT: }
// CHECK: [[JW:%.*]] = arith.index_cast [[J]] : index to i64
// CHECK: [[LIN:%.*]] = arith.addi %{{.*}}, [[JW]] : i64
// CHECK: [[C4:%.*]] = arith.constant 4 : i64
// CHECK-NEXT: [[BYTES:%.*]] = arith.muli [[LIN]], [[C4]] : i64
// CHECK-NEXT: [[DST:%.*]] = arith.addi [[SLOT]], [[BYTES]] : i64
// CHECK-NEXT: [[DP:%.*]] = llvm.inttoptr [[DST]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store [[V]], [[DP]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NOT: tile.async_wait
// CHECK-NOT: tile.barrier
// CHECK: scf.for
// CHECK: [[RA:%.*]] = arith.addi [[SLOT]], %{{.*}} : i64
// CHECK-NEXT: [[RP:%.*]] = llvm.inttoptr [[RA]] : i64 to !llvm.ptr
// CHECK-NEXT: [[R:%.*]] = llvm.load [[RP]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: tensor.insert [[R]]
// CHECK: return
func.func @copy_then_load(%base: !tile.ptr<f32>, %n: i32, %i: i32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %ps = tile.splat %base : tensor<8x!tile.ptr<f32>>
  %p = tile.addptr %ps, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %ns = tile.splat %n : tensor<8xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<8xi32>
  %buf = tile.alloc_shared : !tile.smem<3x8xf32>
  %slot = tile.smem_index %buf[%i] : !tile.smem<3x8xf32> -> !tile.smem<8xf32>
  tile.async_copy %slot, %p mask %m : !tile.smem<8xf32>, tensor<8x!tile.ptr<f32>>
  tile.async_wait {pending = 0 : i32}
  tile.barrier
  %v = tile.smem_load %slot : !tile.smem<8xf32> -> tensor<8xf32>
  %os = tile.splat %out : tensor<8x!tile.ptr<f32>>
  %o = tile.addptr %os, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %o, %v : tensor<8x!tile.ptr<f32>>
  return
}

// The full CPU pipeline leaves only the LLVM dialect, the buffer an alloca in
// the kernel (one per call, that is per program).
// LLVM-LABEL: llvm.func internal @copy_then_load(
// LLVM: llvm.alloca %{{.*}} x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// LLVM-LABEL: llvm.func @copy_then_load__kda_cpu(
// LLVM: llvm.call @copy_then_load(

// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: scf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast

// -----

// A slice of a 3-D bf16 buffer is 4x8x2 = 64 bytes; its elements are stored
// and loaded row-major with 2-byte accesses.
// CHECK-LABEL: func.func @store_load_bf16(
// CHECK-SAME: [[T:%[^:]*]]: tensor<4x8xbf16>, [[I:%[^:]*]]: i32)
// CHECK: [[SIZE:%.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: [[A:%.*]] = llvm.alloca [[SIZE]] x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: [[BUF:%.*]] = llvm.ptrtoint [[A]] : !llvm.ptr to i64
// CHECK-NEXT: [[IW:%.*]] = arith.extsi [[I]] : i32 to i64
// CHECK-NEXT: [[C64:%.*]] = arith.constant 64 : i64
// CHECK-NEXT: [[OFF:%.*]] = arith.muli [[IW]], [[C64]] : i64
// CHECK-NEXT: [[SLOT:%.*]] = arith.addi [[BUF]], [[OFF]] : i64
// CHECK: scf.for [[R:%.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for [[C:%.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: [[RW:%.*]] = arith.index_cast [[R]] : index to i64
// CHECK-NEXT: [[R0:%.*]] = arith.addi %{{.*}}, [[RW]] : i64
// CHECK-NEXT: [[C8:%.*]] = arith.constant 8 : i64
// CHECK-NEXT: [[R8:%.*]] = arith.muli [[R0]], [[C8]] : i64
// CHECK-NEXT: [[CW:%.*]] = arith.index_cast [[C]] : index to i64
// CHECK-NEXT: [[LIN:%.*]] = arith.addi [[R8]], [[CW]] : i64
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : i64
// CHECK-NEXT: [[BYTES:%.*]] = arith.muli [[LIN]], [[C2]] : i64
// CHECK-NEXT: [[DST:%.*]] = arith.addi [[SLOT]], [[BYTES]] : i64
// CHECK-NEXT: [[E:%.*]] = tensor.extract [[T]][[[R]], [[C]]] : tensor<4x8xbf16>
// CHECK-NEXT: [[DP:%.*]] = llvm.inttoptr [[DST]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store [[E]], [[DP]] {alignment = 2 : i64} : bf16, !llvm.ptr
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> bf16
// CHECK: return
func.func @store_load_bf16(%t: tensor<4x8xbf16>, %i: i32) -> tensor<4x8xbf16> {
  %buf = tile.alloc_shared : !tile.smem<2x4x8xbf16>
  %slot = tile.smem_index %buf[%i] : !tile.smem<2x4x8xbf16> -> !tile.smem<4x8xbf16>
  tile.smem_store %slot, %t : !tile.smem<4x8xbf16>, tensor<4x8xbf16>
  %v = tile.smem_load %slot : !tile.smem<4x8xbf16> -> tensor<4x8xbf16>
  return %v : tensor<4x8xbf16>
}

// -----

// Without a mask every element is read; each alloc_shared is its own array.
// CHECK-LABEL: func.func @copy_unmasked(
// CHECK-SAME: [[P:%[^:]*]]: tensor<16xi64>, [[Q:%[^:]*]]: tensor<16xi64>)
// CHECK: llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.alloca
// CHECK: llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: llvm.alloca
// CHECK-NOT: scf.if
// CHECK: scf.for [[J:%.*]] =
// CHECK-NEXT: [[PJ:%.*]] = tensor.extract [[P]][[[J]]] : tensor<16xi64>
// CHECK-NEXT: [[SRC:%.*]] = llvm.inttoptr [[PJ]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[SRC]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK: llvm.store [[L]], %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT: scf.if
// CHECK-NOT: tile.
// CHECK: return
func.func @copy_unmasked(%p: tensor<16x!tile.ptr<i8>>, %q: tensor<16x!tile.ptr<i32>>) {
  %a = tile.alloc_shared : !tile.smem<16xi8>
  %b = tile.alloc_shared : !tile.smem<16xi32>
  tile.async_copy %a, %p : !tile.smem<16xi8>, tensor<16x!tile.ptr<i8>>
  tile.async_copy %b, %q : !tile.smem<16xi32>, tensor<16x!tile.ptr<i32>>
  tile.async_wait {pending = 1 : i32}
  tile.async_wait {pending = 0 : i32}
  return
}
