// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM

// A scan on the host: loops over the other dimensions, then the axis from
// its second element, each element combined with the running one before it
// in place (scalar extract and insert), so no slice is copied.

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
  %0 = tile.scan sum %x {axis = 0 : i32, reverse = false} : tensor<4x8xf32>
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
  %0 = tile.scan max %x {axis = 0 : i32, reverse = true} : tensor<8xi32>
  return %0 : tensor<8xi32>
}
