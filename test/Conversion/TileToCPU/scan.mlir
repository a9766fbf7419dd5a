// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM

// A scan on the host: loops over the other dimensions, then the axis from
// its second element, the combiner cloned with the running value before it
// and the element, in place (scalar extract and insert), so no slice is copied.

// CHECK-LABEL: func.func @cumsum_rows
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c8 step %{{.*}} iter_args(%[[T:.*]] = %{{.*}})
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c4 step %[[ONE:.*]] iter_args(%[[U:.*]] = %[[T]])
// CHECK: %[[B:.*]] = arith.subi %[[I]], %[[ONE]]
// CHECK: %[[P:.*]] = tensor.extract %[[U]][%[[B]], %[[J]]]
// CHECK: %[[C:.*]] = tensor.extract %[[U]][%[[I]], %[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[P]], %[[C]] : f32
// CHECK: tensor.insert %[[S]] into %[[U]][%[[I]], %[[J]]]
// LLVM-LABEL: llvm.func @cumsum_rows
// LLVM-NOT: memrefCopy
func.func @cumsum_rows(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<4x8xf32> {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    tile.yield %s : f32
  }
  return %0 : tensor<4x8xf32>
}

// -----

// Reversed: step k visits 6 - k after 7 - k.
// CHECK-LABEL: func.func @cummax_suffix
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c8 step
// CHECK: %[[AT:.*]] = arith.subi %c7, %[[I]]
// CHECK: %[[B:.*]] = arith.addi %[[AT]], %{{.*}}
// CHECK: %[[P:.*]] = tensor.extract %{{.*}}[%[[B]]]
// CHECK: %[[C:.*]] = tensor.extract %{{.*}}[%[[AT]]]
// CHECK: arith.maxsi %[[P]], %[[C]]
func.func @cummax_suffix(%x: tensor<8xi32>) -> tensor<8xi32> {
  %0 = tile.scan %x {axis = 0 : i32, reverse = true} : tensor<8xi32> {
  ^bb0(%acc: i32, %v: i32):
    %m = arith.maxsi %acc, %v : i32
    tile.yield %m : i32
  }
  return %0 : tensor<8xi32>
}

// -----

// Two sources: both are carried, the combiner sees (running a, running b,
// a, b).
// CHECK-LABEL: func.func @affine_pair
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c16 step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
// CHECK-DAG: %[[A1:.*]] = tensor.extract %[[A]][%{{.*}}]
// CHECK-DAG: %[[B1:.*]] = tensor.extract %[[B]][%{{.*}}]
// CHECK-DAG: %[[A2:.*]] = tensor.extract %[[A]][%[[I]]]
// CHECK-DAG: %[[B2:.*]] = tensor.extract %[[B]][%[[I]]]
// CHECK: arith.mulf %[[A1]], %[[A2]]
// CHECK: arith.mulf %[[A2]], %[[B1]]
// CHECK: scf.yield
func.func @affine_pair(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %0:2 = tile.scan %a, %b {axis = 0 : i32, reverse = false} : tensor<16xf32>, tensor<16xf32> {
  ^bb0(%a1: f32, %b1: f32, %a2: f32, %b2: f32):
    %p = arith.mulf %a1, %a2 : f32
    %m = arith.mulf %a2, %b1 : f32
    %s = arith.addf %m, %b2 : f32
    tile.yield %p, %s : f32, f32
  }
  return %0#1 : tensor<16xf32>
}
