// RUN: kda-opt %s --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// The portable dot: A and B go to scratch as f32 (row-major, B after A), then
// one scf.for over K carries every accumulator register through llvm.intr.fma.

// (32x16 + 16x16) f32 = 3072 bytes.
// CHECK: llvm.mlir.global internal @kda_scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<3072 x i8>
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @dot
// CHECK-SAME: (%[[A:.*]]: !llvm.struct<(f16, f16, f16, f16)>, %[[B:.*]]: !llvm.struct<(f16, f16, f16, f16)>, %[[C:.*]]: !llvm.struct<(f32, f32, f32, f32)>) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-DAG: %[[K:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @kda_scratch : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-COUNT-4: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-DAG: %[[C0:.*]] = llvm.extractvalue %[[C]][0]
// CHECK-DAG: %[[C3:.*]] = llvm.extractvalue %[[C]][3]
// CHECK: %[[R:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[ACC0:.*]] = %[[C0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[ACC3:.*]] = %[[C3]]) -> (f32, f32, f32, f32) {
// CHECK: %[[AV:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[BV:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[F0:.*]] = llvm.intr.fma(%[[AV]], %[[BV]], %[[ACC0]]) : (f32, f32, f32) -> f32
// CHECK: llvm.intr.fma
// CHECK: llvm.intr.fma
// CHECK: %[[F3:.*]] = llvm.intr.fma(%[[AV]], %{{.*}}, %[[ACC3]])
// CHECK: scf.yield %[[F0]], %{{.*}}, %{{.*}}, %[[F3]] : f32, f32, f32, f32
// CHECK: llvm.insertvalue %[[R]]#0, %{{.*}}[0]
// CHECK: llvm.insertvalue %[[R]]#3, %{{.*}}[3]
func.func @dot(%a: tensor<32x16xf16, #a>, %b: tensor<16x16xf16, #a>, %c: tensor<32x16xf32, #a>) -> tensor<32x16xf32, #a> {
  %d = tile.dot %a, %b, %c : tensor<32x16xf16, #a>, tensor<16x16xf16, #a> -> tensor<32x16xf32, #a>
  return %d : tensor<32x16xf32, #a>
}
}
