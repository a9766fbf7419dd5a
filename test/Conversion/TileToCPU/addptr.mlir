// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// addptr: offsets count elements; the address advances by
// sext(offset) * sizeof(pointee) bytes.

// CHECK-LABEL: func.func @addptr_f32(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>, [[O:%[^:]*]]: tensor<4xi32>) -> tensor<4xi64>
// CHECK: [[W:%.*]] = arith.extsi [[O]] : tensor<4xi32> to tensor<4xi64>
// CHECK: [[SZ:%.*]] = arith.constant dense<4> : tensor<4xi64>
// CHECK: [[B:%.*]] = arith.muli [[W]], [[SZ]] : tensor<4xi64>
// CHECK: [[R:%.*]] = arith.addi [[P]], [[B]] : tensor<4xi64>
// CHECK: return [[R]]
func.func @addptr_f32(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xi32>) -> tensor<4x!tile.ptr<f32>> {
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  return %0 : tensor<4x!tile.ptr<f32>>
}

// -----

// CHECK-LABEL: func.func @addptr_bf16(
// CHECK-SAME: [[P:%[^:]*]]: tensor<2x4xi64>, [[O:%[^:]*]]: tensor<2x4xi32>)
// CHECK: [[W:%.*]] = arith.extsi [[O]] : tensor<2x4xi32> to tensor<2x4xi64>
// CHECK: [[SZ:%.*]] = arith.constant dense<2> : tensor<2x4xi64>
// CHECK: [[B:%.*]] = arith.muli [[W]], [[SZ]] : tensor<2x4xi64>
// CHECK: arith.addi [[P]], [[B]] : tensor<2x4xi64>
func.func @addptr_bf16(%p: tensor<2x4x!tile.ptr<bf16>>, %o: tensor<2x4xi32>) -> tensor<2x4x!tile.ptr<bf16>> {
  %0 = tile.addptr %p, %o : tensor<2x4x!tile.ptr<bf16>>, tensor<2x4xi32>
  return %0 : tensor<2x4x!tile.ptr<bf16>>
}

// -----

// i1 is stored as one byte.
// CHECK-LABEL: func.func @addptr_i1(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>, [[O:%[^:]*]]: tensor<4xi32>)
// CHECK: [[W:%.*]] = arith.extsi [[O]] : tensor<4xi32> to tensor<4xi64>
// CHECK: [[SZ:%.*]] = arith.constant dense<1> : tensor<4xi64>
// CHECK: [[B:%.*]] = arith.muli [[W]], [[SZ]] : tensor<4xi64>
// CHECK: arith.addi [[P]], [[B]] : tensor<4xi64>
func.func @addptr_i1(%p: tensor<4x!tile.ptr<i1>>, %o: tensor<4xi32>) -> tensor<4x!tile.ptr<i1>> {
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<i1>>, tensor<4xi32>
  return %0 : tensor<4x!tile.ptr<i1>>
}

// -----

// Scalar pointer, narrow offset, 8-byte pointee.
// CHECK-LABEL: func.func @addptr_scalar_f64(
// CHECK-SAME: [[P:%[^:]*]]: i64, [[O:%[^:]*]]: i16) -> i64
// CHECK: [[W:%.*]] = arith.extsi [[O]] : i16 to i64
// CHECK: [[SZ:%.*]] = arith.constant 8 : i64
// CHECK: [[B:%.*]] = arith.muli [[W]], [[SZ]] : i64
// CHECK: [[R:%.*]] = arith.addi [[P]], [[B]] : i64
// CHECK: return [[R]] : i64
func.func @addptr_scalar_f64(%p: !tile.ptr<f64>, %o: i16) -> !tile.ptr<f64> {
  %0 = tile.addptr %p, %o : !tile.ptr<f64>, i16
  return %0 : !tile.ptr<f64>
}

// -----

// i64 offsets need no extension; i1 offsets are zero-extended.
// CHECK-LABEL: func.func @addptr_offset_widths(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>, [[O64:%[^:]*]]: tensor<4xi64>, [[OB:%[^:]*]]: tensor<4xi1>)
// CHECK-NOT: arith.extsi
// CHECK: [[SZ:%.*]] = arith.constant dense<2> : tensor<4xi64>
// CHECK: [[B:%.*]] = arith.muli [[O64]], [[SZ]] : tensor<4xi64>
// CHECK: [[A:%.*]] = arith.addi [[P]], [[B]] : tensor<4xi64>
// CHECK: [[WB:%.*]] = arith.extui [[OB]] : tensor<4xi1> to tensor<4xi64>
// CHECK: [[SZ2:%.*]] = arith.constant dense<2> : tensor<4xi64>
// CHECK: [[B2:%.*]] = arith.muli [[WB]], [[SZ2]] : tensor<4xi64>
// CHECK: [[A2:%.*]] = arith.addi [[P]], [[B2]] : tensor<4xi64>
// CHECK: return [[A]], [[A2]]
func.func @addptr_offset_widths(%p: tensor<4x!tile.ptr<f16>>, %o64: tensor<4xi64>, %ob: tensor<4xi1>)
    -> (tensor<4x!tile.ptr<f16>>, tensor<4x!tile.ptr<f16>>) {
  %0 = tile.addptr %p, %o64 : tensor<4x!tile.ptr<f16>>, tensor<4xi64>
  %1 = tile.addptr %p, %ob : tensor<4x!tile.ptr<f16>>, tensor<4xi1>
  return %0, %1 : tensor<4x!tile.ptr<f16>>, tensor<4x!tile.ptr<f16>>
}

// -----

// A kernel advancing a pointer tile, through the whole CPU pipeline: the
// bf16 addresses advance by 2 bytes per element.
// CHECK-LABEL: func.func private @addptr_kernel(
// CHECK-SAME: [[P:%[^:]*]]: i64,
// CHECK: [[SP:%.*]] = tensor.splat [[P]] : tensor<8xi64>
// CHECK: arith.constant dense<2> : tensor<8xi64>
// CHECK: arith.addi [[SP]], %{{.*}} : tensor<8xi64>
func.func @addptr_kernel(%p: !tile.ptr<bf16>, %v: bf16) attributes {tile.kernel} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %ps = tile.splat %p : tensor<8x!tile.ptr<bf16>>
  %q = tile.addptr %ps, %r : tensor<8x!tile.ptr<bf16>>, tensor<8xi32>
  %vs = tile.splat %v : tensor<8xbf16>
  tile.store %q, %vs : tensor<8x!tile.ptr<bf16>>
  return
}

// LLVM-LABEL: llvm.func @addptr_f32(
// LLVM-LABEL: llvm.func @addptr_bf16(
// LLVM-LABEL: llvm.func @addptr_i1(
// LLVM-LABEL: llvm.func @addptr_scalar_f64(
// LLVM-SAME: %{{.*}}: i64, %{{.*}}: i16) -> i64
// LLVM: llvm.sext %{{.*}} : i16 to i64
// LLVM-LABEL: llvm.func @addptr_offset_widths(
// LLVM-LABEL: llvm.func internal @addptr_kernel(
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : {{(bf16|i16)}}, !llvm.ptr
// LLVM-LABEL: llvm.func @addptr_kernel__kda_cpu(
// LLVM: llvm.call @addptr_kernel(

// PURE-NOT: func.func
// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: linalg.
// PURE-NOT: memref.
// PURE-NOT: bufferization.
// PURE-NOT: scf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast
