// RUN: kda-opt %s --split-input-file --tile-expand-tensor-descs --canonicalize | FileCheck %s

// A block load becomes a masked copy of the block's pointers: each index
// offset + i_d in [0, shape_d), base + sum_d index_d * stride_d in 64 bits.
// CHECK-LABEL: func.func @load
// CHECK-NOT: tile.make_tensor_desc
// CHECK-DAG: %[[R0:.*]] = tile.range 0, 16 : tensor<16xi32>
// CHECK-DAG: %[[R1:.*]] = tile.range 0, 32 : tensor<32xi32>
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK-DAG: arith.extsi %{{.*}} : tensor<16xi32> to tensor<16xi64>
// CHECK-DAG: arith.muli %{{.*}} : tensor<16xi64>
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi64>
// CHECK: tile.async_copy %{{.*}}, %[[P]] mask %{{.*}} : !tile.smem<16x32xf32>, tensor<16x32x!tile.ptr<f32>>
func.func @load(%base: !tile.ptr<f32>, %m: i32, %n: i32, %ld: i64, %i: i32, %j: i32) {
  %c1 = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<16x32xf32>
  %d = tile.make_tensor_desc %base, [%m, %n], [%ld, %c1] : !tile.ptr<f32> -> !tile.tensor_desc<16x32xf32>
  tile.async_load %d[%i, %j], %buf : !tile.tensor_desc<16x32xf32>, !tile.smem<16x32xf32>
  return
}

// -----

// A block store reads the buffer and stores under the same mask.
// CHECK-LABEL: func.func @store
// CHECK: %[[V:.*]] = tile.smem_load %{{.*}} : !tile.smem<64xbf16> -> tensor<64xbf16>
// CHECK: tile.store %{{.*}}, %[[V]] mask %{{.*}} : tensor<64x!tile.ptr<bf16>>
func.func @store(%base: !tile.ptr<bf16>, %m: i32, %s: i64, %i: i32) {
  %buf = tile.alloc_shared : !tile.smem<64xbf16>
  %d = tile.make_tensor_desc %base, [%m], [%s] : !tile.ptr<bf16> -> !tile.tensor_desc<64xbf16>
  tile.async_store %d[%i], %buf : !tile.tensor_desc<64xbf16>, !tile.smem<64xbf16>
  return
}
