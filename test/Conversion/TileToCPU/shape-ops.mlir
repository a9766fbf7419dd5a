// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// range: a tensor.generate yielding index + start.
// CHECK-LABEL: func.func @range
// CHECK: [[G:%.*]] = tensor.generate {
// CHECK-NEXT: ^bb0([[I:%.*]]: index):
// CHECK-NEXT: [[C:%.*]] = arith.index_cast [[I]] : index to i32
// CHECK-NEXT: [[S:%.*]] = arith.constant 4 : i32
// CHECK-NEXT: [[V:%.*]] = arith.addi [[C]], [[S]] : i32
// CHECK-NEXT: tensor.yield [[V]] : i32
// CHECK-NEXT: } : tensor<8xi32>
// CHECK: return [[G]]
func.func @range() -> tensor<8xi32> {
  %0 = tile.range 4, 12 : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// A negative start is a signed value, not its unsigned reinterpretation.
// CHECK-LABEL: func.func @range_negative
// CHECK: [[G:%.*]] = tensor.generate {
// CHECK-NEXT: ^bb0([[I:%.*]]: index):
// CHECK-NEXT: [[C:%.*]] = arith.index_cast [[I]] : index to i32
// CHECK-NEXT: [[S:%.*]] = arith.constant -4 : i32
// CHECK-NEXT: [[V:%.*]] = arith.addi [[C]], [[S]] : i32
// CHECK-NEXT: tensor.yield [[V]] : i32
// CHECK-NEXT: } : tensor<8xi32>
// CHECK: return [[G]]
func.func @range_negative() -> tensor<8xi32> {
  %0 = tile.range -4, 4 : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// splat: tensor.splat; a tile of pointers is a tile of i64 addresses.
// CHECK-LABEL: func.func @splat(
// CHECK-SAME: [[X:%[^:]*]]: f32, [[P:%[^:]*]]: i64) -> (tensor<4x8xf32>, tensor<16xi64>)
// CHECK: [[A:%.*]] = tensor.splat [[X]] : tensor<4x8xf32>
// CHECK: [[B:%.*]] = tensor.splat [[P]] : tensor<16xi64>
// CHECK: return [[A]], [[B]]
func.func @splat(%x: f32, %p: !tile.ptr<f32>) -> (tensor<4x8xf32>, tensor<16x!tile.ptr<f32>>) {
  %0 = tile.splat %x : tensor<4x8xf32>
  %1 = tile.splat %p : tensor<16x!tile.ptr<f32>>
  return %0, %1 : tensor<4x8xf32>, tensor<16x!tile.ptr<f32>>
}

// -----

// broadcast: each element reads index 0 along the size-1 source dimensions
// and the result index elsewhere.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4x1xf32>
// CHECK: [[G:%.*]] = tensor.generate {
// CHECK-NEXT: ^bb0([[I:%.*]]: index, [[J:%.*]]: index):
// CHECK-NEXT: [[Z:%.*]] = arith.constant 0 : index
// CHECK-NEXT: [[E:%.*]] = tensor.extract [[X]][[[I]], [[Z]]] : tensor<4x1xf32>
// CHECK-NEXT: tensor.yield [[E]] : f32
// CHECK-NEXT: } : tensor<4x8xf32>
// CHECK: return [[G]]
func.func @broadcast(%x: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<4x1xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_ptr_leading(
// CHECK-SAME: [[X:%[^:]*]]: tensor<1x8xi64>
// CHECK: tensor.generate {
// CHECK-NEXT: ^bb0([[I:%.*]]: index, [[J:%.*]]: index):
// CHECK-NEXT: [[Z:%.*]] = arith.constant 0 : index
// CHECK-NEXT: tensor.extract [[X]][[[Z]], [[J]]] : tensor<1x8xi64>
// CHECK: } : tensor<4x8xi64>
func.func @broadcast_ptr_leading(%x: tensor<1x8x!tile.ptr<bf16>>) -> tensor<4x8x!tile.ptr<bf16>> {
  %0 = tile.broadcast %x : tensor<1x8x!tile.ptr<bf16>> -> tensor<4x8x!tile.ptr<bf16>>
  return %0 : tensor<4x8x!tile.ptr<bf16>>
}

// -----

// expand_dims: tensor.expand_shape of a 1-D tile.
// CHECK-LABEL: func.func @expand_dims(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4xf32>
// CHECK: [[A:%.*]] = tensor.expand_shape [[X]] {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK: [[B:%.*]] = tensor.expand_shape [[X]] {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: return [[A]], [[B]]
func.func @expand_dims(%x: tensor<4xf32>) -> (tensor<4x1xf32>, tensor<1x4xf32>) {
  %0 = tile.expand_dims %x {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %1 = tile.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
  return %0, %1 : tensor<4x1xf32>, tensor<1x4xf32>
}

// -----

// expand_dims of a 2-D tile goes through a row-major 1-D view.
// CHECK-LABEL: func.func @expand_dims_2d(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4x8xi32>
// CHECK: [[F:%.*]] = tensor.collapse_shape [[X]] {{\[\[}}0, 1]] : tensor<4x8xi32> into tensor<32xi32>
// CHECK: [[E:%.*]] = tensor.expand_shape [[F]] {{\[\[}}0, 1, 2]] output_shape [4, 1, 8] : tensor<32xi32> into tensor<4x1x8xi32>
// CHECK: return [[E]]
func.func @expand_dims_2d(%x: tensor<4x8xi32>) -> tensor<4x1x8xi32> {
  %0 = tile.expand_dims %x {axis = 1 : i32} : tensor<4x8xi32> -> tensor<4x1x8xi32>
  return %0 : tensor<4x1x8xi32>
}

// -----

// reshape: collapse to 1-D, then expand to the result shape (row-major).
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4x8xf32>
// CHECK: [[A:%.*]] = tensor.collapse_shape [[X]] {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: [[F:%.*]] = tensor.collapse_shape [[X]] {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: [[B:%.*]] = tensor.expand_shape [[F]] {{\[\[}}0, 1, 2]] output_shape [2, 2, 8] : tensor<32xf32> into tensor<2x2x8xf32>
// CHECK: return [[A]], [[B]]
func.func @reshape(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<2x2x8xf32>) {
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tile.reshape %x : tensor<4x8xf32> -> tensor<2x2x8xf32>
  return %0, %1 : tensor<32xf32>, tensor<2x2x8xf32>
}

// -----

// trans: linalg.transpose with the same permutation
// (result.shape[i] = src.shape[order[i]]).
// CHECK-LABEL: func.func @trans(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4x8xf32>, [[Y:%[^:]*]]: tensor<2x3x4xi64>
// CHECK: [[E0:%.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: [[T0:%.*]] = linalg.transpose ins([[X]] : tensor<4x8xf32>) outs([[E0]] : tensor<8x4xf32>) permutation = [1, 0]
// CHECK: [[E1:%.*]] = tensor.empty() : tensor<4x2x3xi64>
// CHECK: [[T1:%.*]] = linalg.transpose ins([[Y]] : tensor<2x3x4xi64>) outs([[E1]] : tensor<4x2x3xi64>) permutation = [2, 0, 1]
// CHECK: return [[T0]], [[T1]]
func.func @trans(%x: tensor<4x8xf32>, %y: tensor<2x3x4x!tile.ptr<f32>>)
    -> (tensor<8x4xf32>, tensor<4x2x3x!tile.ptr<f32>>) {
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tile.trans %y {order = array<i32: 2, 0, 1>} : tensor<2x3x4x!tile.ptr<f32>> -> tensor<4x2x3x!tile.ptr<f32>>
  return %0, %1 : tensor<8x4xf32>, tensor<4x2x3x!tile.ptr<f32>>
}

// -----

// A kernel using every shape op, through the whole CPU pipeline.
// CHECK-LABEL: func.func private @shapes_kernel(
// CHECK-NOT: tile.
// CHECK-LABEL: func.func @shapes_kernel__kda_cpu(
func.func @shapes_kernel(%out: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %e = tile.expand_dims %r {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %b = tile.broadcast %e : tensor<1x8xi32> -> tensor<4x8xi32>
  %t = tile.trans %b {order = array<i32: 1, 0>} : tensor<4x8xi32> -> tensor<8x4xi32>
  %f = tile.reshape %t : tensor<8x4xi32> -> tensor<32xi32>
  %ps = tile.splat %out : tensor<32x!tile.ptr<i32>>
  %r32 = tile.range 0, 32 : tensor<32xi32>
  %q = tile.addptr %ps, %r32 : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  tile.store %q, %f : tensor<32x!tile.ptr<i32>>
  return
}

// LLVM-LABEL: llvm.func @range()
// LLVM-LABEL: llvm.func @range_negative()
// LLVM: llvm.mlir.constant(-4 : i32) : i32
// LLVM-LABEL: llvm.func @splat(
// LLVM-LABEL: llvm.func @broadcast(
// LLVM-LABEL: llvm.func @broadcast_ptr_leading(
// LLVM-LABEL: llvm.func @expand_dims(
// LLVM-LABEL: llvm.func @expand_dims_2d(
// LLVM-LABEL: llvm.func @reshape(
// LLVM-LABEL: llvm.func @trans(
// LLVM-LABEL: llvm.func internal @shapes_kernel(
// LLVM-SAME: %{{.*}}: i64
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// LLVM-LABEL: llvm.func @shapes_kernel__kda_cpu(
// LLVM: llvm.call @shapes_kernel(

// PURE-NOT: func.func
// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: linalg.
// PURE-NOT: memref.
// PURE-NOT: bufferization.
// PURE-NOT: scf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast
