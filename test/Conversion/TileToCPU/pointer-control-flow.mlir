// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// Pointers flowing through ops of other dialects: arith.select, scf.for,
// scf.if and scf.while convert once their pointer types become i64.

// CHECK-LABEL: func.func @select_ptr(
// CHECK-SAME: [[C:%[^:]*]]: i1, [[A:%[^:]*]]: i64, [[B:%[^:]*]]: i64) -> i64
// CHECK-NEXT: [[S:%.*]] = arith.select [[C]], [[A]], [[B]] : i64
// CHECK-NEXT: return [[S]] : i64
func.func @select_ptr(%c: i1, %a: !tile.ptr<f32>, %b: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %s = arith.select %c, %a, %b : !tile.ptr<f32>
  return %s : !tile.ptr<f32>
}

// -----

// CHECK-LABEL: func.func @select_ptr_tile(
// CHECK-SAME: [[C:%[^:]*]]: tensor<4xi1>, [[A:%[^:]*]]: tensor<4xi64>, [[B:%[^:]*]]: tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT: [[S:%.*]] = arith.select [[C]], [[A]], [[B]] : tensor<4xi1>, tensor<4xi64>
// CHECK-NEXT: return [[S]] : tensor<4xi64>
func.func @select_ptr_tile(%c: tensor<4xi1>, %a: tensor<4x!tile.ptr<f32>>, %b: tensor<4x!tile.ptr<f32>>) -> tensor<4x!tile.ptr<f32>> {
  %s = arith.select %c, %a, %b : tensor<4xi1>, tensor<4x!tile.ptr<f32>>
  return %s : tensor<4x!tile.ptr<f32>>
}

// -----

// A pointer carried by scf.for: an i64 iter_arg advanced by 4 bytes per step.
// CHECK-LABEL: func.func @for_ptr(
// CHECK-SAME: [[A:%[^:]*]]: i64, [[N:%[^:]*]]: index) -> i64
// CHECK: [[R:%.*]] = scf.for %{{.*}} = %{{.*}} to [[N]] step %{{.*}} iter_args([[P:%.*]] = [[A]]) -> (i64) {
// CHECK: [[Q:%.*]] = arith.addi [[P]], %{{.*}} : i64
// CHECK-NEXT: scf.yield [[Q]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]] : i64
func.func @for_ptr(%a: !tile.ptr<f32>, %n: index) -> !tile.ptr<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a) -> (!tile.ptr<f32>) {
    %q = tile.addptr %p, %one : !tile.ptr<f32>, i32
    scf.yield %q : !tile.ptr<f32>
  }
  return %r : !tile.ptr<f32>
}

// -----

// scf.if yielding a pointer.
// CHECK-LABEL: func.func @if_ptr(
// CHECK-SAME: [[C:%[^:]*]]: i1, [[A:%[^:]*]]: i64, [[B:%[^:]*]]: i64) -> i64
// CHECK-NEXT: [[R:%.*]] = scf.if [[C]] -> (i64) {
// CHECK-NEXT: scf.yield [[A]] : i64
// CHECK-NEXT: } else {
// CHECK: [[Q:%.*]] = arith.addi [[B]], %{{.*}} : i64
// CHECK-NEXT: scf.yield [[Q]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]] : i64
func.func @if_ptr(%c: i1, %a: !tile.ptr<f32>, %b: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %r = scf.if %c -> (!tile.ptr<f32>) {
    scf.yield %a : !tile.ptr<f32>
  } else {
    %one = arith.constant 1 : i32
    %q = tile.addptr %b, %one : !tile.ptr<f32>, i32
    scf.yield %q : !tile.ptr<f32>
  }
  return %r : !tile.ptr<f32>
}

// -----

// scf.if yielding a tile of pointers, then loading through it.
// CHECK-LABEL: func.func @if_ptr_tile(
// CHECK-SAME: [[C:%[^:]*]]: i1, [[A:%[^:]*]]: tensor<4xi64>, [[B:%[^:]*]]: tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT: [[R:%.*]] = scf.if [[C]] -> (tensor<4xi64>) {
// CHECK-NEXT: scf.yield [[A]] : tensor<4xi64>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield [[B]] : tensor<4xi64>
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK: [[ADDR:%.*]] = tensor.extract [[R]][%{{.*}}] : tensor<4xi64>
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[ADDR]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.load [[PTR]] {alignment = 4 : i64} : !llvm.ptr -> f32
func.func @if_ptr_tile(%c: i1, %a: tensor<4x!tile.ptr<f32>>, %b: tensor<4x!tile.ptr<f32>>) -> tensor<4xf32> {
  %r = scf.if %c -> (tensor<4x!tile.ptr<f32>>) {
    scf.yield %a : tensor<4x!tile.ptr<f32>>
  } else {
    scf.yield %b : tensor<4x!tile.ptr<f32>>
  }
  %v = tile.load %r : tensor<4x!tile.ptr<f32>>
  return %v : tensor<4xf32>
}

// -----

// scf.while walking a pointer until the value it points at reaches %n.
// CHECK-LABEL: func.func @while_ptr(
// CHECK-SAME: [[A:%[^:]*]]: i64, [[N:%[^:]*]]: i32) -> i64
// CHECK-NEXT: [[R:%.*]] = scf.while ([[P:%.*]] = [[A]]) : (i64) -> i64 {
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[P]] : i64 to !llvm.ptr
// CHECK-NEXT: [[V:%.*]] = llvm.load [[PTR]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: [[C:%.*]] = arith.cmpi slt, [[V]], [[N]] : i32
// CHECK-NEXT: scf.condition([[C]]) [[P]] : i64
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0([[P2:%.*]]: i64):
// CHECK: [[Q:%.*]] = arith.addi [[P2]], %{{.*}} : i64
// CHECK-NEXT: scf.yield [[Q]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]] : i64
func.func @while_ptr(%a: !tile.ptr<i32>, %n: i32) -> !tile.ptr<i32> {
  %r = scf.while (%p = %a) : (!tile.ptr<i32>) -> !tile.ptr<i32> {
    %v = tile.load %p : !tile.ptr<i32>
    %c = arith.cmpi slt, %v, %n : i32
    scf.condition(%c) %p : !tile.ptr<i32>
  } do {
  ^bb0(%p: !tile.ptr<i32>):
    %one = arith.constant 1 : i32
    %q = tile.addptr %p, %one : !tile.ptr<i32>, i32
    scf.yield %q : !tile.ptr<i32>
  }
  return %r : !tile.ptr<i32>
}

// -----

// Kernels: a store through a pointer advanced in a loop, and a store through
// a selected pointer, through the whole CPU pipeline.
// CHECK-LABEL: func.func private @store_loop(
// CHECK-SAME: [[A:%[^:]*]]: i64, [[N:%[^:]*]]: i32,
// CHECK: scf.for %{{.*}} = %{{.*}} to [[N]] step %{{.*}} iter_args([[P:%.*]] = [[A]]) -> (i64) : i32 {
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[P]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store %{{.*}}, [[PTR]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: scf.yield %{{.*}} : i64
// CHECK-LABEL: func.func @store_loop__kda_cpu(
func.func @store_loop(%a: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a) -> (!tile.ptr<f32>) : i32 {
    tile.store %p, %v : !tile.ptr<f32>
    %q = tile.addptr %p, %c1 : !tile.ptr<f32>, i32
    scf.yield %q : !tile.ptr<f32>
  }
  return
}

// CHECK-LABEL: func.func private @store_select(
// CHECK-SAME: [[A:%[^:]*]]: i64, [[B:%[^:]*]]: i64, [[C:%[^:]*]]: i1,
// CHECK: [[S:%.*]] = arith.select [[C]], [[A]], [[B]] : i64
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[S]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store %{{.*}}, [[PTR]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-LABEL: func.func @store_select__kda_cpu(
func.func @store_select(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: i1) attributes {tile.kernel} {
  %v = arith.constant 1.0 : f32
  %p = arith.select %c, %a, %b : !tile.ptr<f32>
  tile.store %p, %v : !tile.ptr<f32>
  return
}

// LLVM-LABEL: llvm.func @select_ptr(
// LLVM-SAME: %{{.*}}: i1, %{{.*}}: i64, %{{.*}}: i64) -> i64
// LLVM: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
// LLVM-LABEL: llvm.func @select_ptr_tile(
// LLVM-LABEL: llvm.func @for_ptr(
// LLVM-LABEL: llvm.func @if_ptr(
// LLVM-LABEL: llvm.func @if_ptr_tile(
// LLVM-LABEL: llvm.func @while_ptr(
// LLVM-LABEL: llvm.func internal @store_loop(
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// LLVM-LABEL: llvm.func @store_loop__kda_cpu(
// LLVM: llvm.call @store_loop(
// LLVM-LABEL: llvm.func internal @store_select(
// LLVM: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// LLVM-LABEL: llvm.func @store_select__kda_cpu(
// LLVM: llvm.call @store_select(

// PURE-NOT: func.func
// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: linalg.
// PURE-NOT: memref.
// PURE-NOT: bufferization.
// PURE-NOT: scf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast
