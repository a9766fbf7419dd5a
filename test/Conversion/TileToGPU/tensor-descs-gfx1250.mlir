// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 --canonicalize --cse | FileCheck %s

// A 32x64 bf16 block load on 4 waves: each wave loads 8 rows with one
// tensor_load_to_lds whose descriptor is built from readfirstlane'd dwords
// (data size 1 = 2-byte elements: 0x10000; tile_dim0 64 in the high half of
// group 1's dword 3; tile_dim1 8 rows), then the wait for it and a barrier.
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32} {
// CHECK-LABEL: func.func @load
// CHECK-DAG: llvm.mlir.constant(65536 : i32) : i32
// CHECK-DAG: llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG: llvm.mlir.constant(-2147483648 : i32) : i32
// CHECK: rocdl.readfirstlane
// CHECK: rocdl.tensor.load.to.lds %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} cachepolicy 0 : vector<4xi32>, vector<8xi32>
// CHECK-NOT: rocdl.tensor.load.to.lds
// CHECK: rocdl.s.wait.tensorcnt 1
// CHECK: rocdl.s.barrier
func.func @load(%base: !tile.ptr<bf16>, %m: i32, %ld: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %d[%c0, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  tile.async_wait {pending = 1 : i32}
  return
}
}

// -----

// A store waits for itself; a block of 2 rows on 4 waves splits the rows over
// 2 waves, and the other two issue theirs with the predicate off (the
// predicate compares the wave index with 2).
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32} {
// CHECK-LABEL: func.func @store
// CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// CHECK: rocdl.tensor.store.from.lds
// CHECK-NEXT: rocdl.s.wait.tensorcnt 0
func.func @store(%base: !tile.ptr<f32>, %m: i32, %ld: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<2x128xf32>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<f32> -> !tile.tensor_desc<2x128xf32>
  tile.async_store %d[%c0, %c0], %buf : !tile.tensor_desc<2x128xf32>, !tile.smem<2x128xf32>
  return
}
}

// -----

// A load into a padded buffer: group 1's dword 0 holds the data size and the
// padding (enable bit 20; interval 2^(3+1) = 16 dwords = one 32-element bf16
// row at bit 22; 1 dword at bit 25 as 0): 0x10000 | 0x100000 | 3 << 22 =
// 0xD10000. The buffer takes 16 rows of 34 elements (1088 bytes); the 4
// waves take 4 rows each, and each wave's LDS start is its first element's
// index plus 2 elements of padding per row before it.
#pad = #tile.padded_shared<{interval = 32, padding = 2, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32} {
// CHECK: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1088 x i8>
// CHECK-LABEL: func.func @padded_load
// CHECK-DAG: llvm.mlir.constant(13697024 : i32) : i32
// CHECK: rocdl.readfirstlane
// CHECK: %[[INT:.*]] = llvm.lshr %[[OFF:.*]], %{{.*}} : i32
// CHECK: %[[PAD:.*]] = llvm.mul %[[INT]], %{{.*}} : i32
// CHECK: llvm.add %[[OFF]], %[[PAD]] : i32
// CHECK: rocdl.tensor.load.to.lds
func.func @padded_load(%base: !tile.ptr<bf16>, %m: i32, %ld: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<16x32xbf16, #pad>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x32xbf16>
  tile.async_load %d[%c0, %c0], %buf : !tile.tensor_desc<16x32xbf16>, !tile.smem<16x32xbf16, #pad>
  tile.async_wait {pending = 0 : i32}
  return
}
}
