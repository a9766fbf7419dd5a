// Tiles carried through scf.for (accumulators, advancing pointer tiles) bufferize
// and lower to LLVM: each iteration may yield a fresh buffer.
// RUN: kda-opt %s --split-input-file --kda-cpu-pipeline | FileCheck %s

// CHECK-LABEL: llvm.func internal @pointer_tile_loop(
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: llvm.fadd
// CHECK-LABEL: llvm.func @pointer_tile_loop__kda_cpu(
func.func @pointer_tile_loop(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 4 : tensor<4xi32>
  %xs = tile.splat %x : tensor<4x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %four = arith.constant dense<4> : tensor<4xi32>
  %acc, %pe = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %p = %p0) -> (tensor<4xf32>, tensor<4x!tile.ptr<f32>>) : i32 {
    %v = tile.load %p : tensor<4x!tile.ptr<f32>>
    %a2 = arith.addf %a, %v : tensor<4xf32>
    %q = tile.addptr %p, %four : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
    scf.yield %a2, %q : tensor<4xf32>, tensor<4x!tile.ptr<f32>>
  }
  %ys = tile.splat %y : tensor<4x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %yp, %acc : tensor<4x!tile.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @accumulator_loop(
// CHECK: llvm.fadd
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
func.func @accumulator_loop(%y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<4xf32>) : i32 {
    %a2 = arith.addf %a, %one : tensor<4xf32>
    scf.yield %a2 : tensor<4xf32>
  }
  %r = tile.range 0, 4 : tensor<4xi32>
  %ys = tile.splat %y : tensor<4x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %yp, %acc : tensor<4x!tile.ptr<f32>>
  return
}
