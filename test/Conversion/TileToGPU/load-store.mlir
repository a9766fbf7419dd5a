// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --cse | FileCheck %s

// Each register's load runs under an scf.if on its own mask register and
// yields `other` (or zero) otherwise; stores are guarded the same way.

#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @masked
// CHECK-SAME: (%[[P:.*]]: !llvm.struct<(ptr<1>, ptr<1>)>, %[[M:.*]]: !llvm.struct<(i1, i1)>, %[[O:.*]]: !llvm.struct<(f16, f16)>)
// CHECK-DAG: %[[P0:.*]] = llvm.extractvalue %[[P]][0]
// CHECK-DAG: %[[P1:.*]] = llvm.extractvalue %[[P]][1]
// CHECK-DAG: %[[M0:.*]] = llvm.extractvalue %[[M]][0]
// CHECK-DAG: %[[M1:.*]] = llvm.extractvalue %[[M]][1]
// CHECK-DAG: %[[O0:.*]] = llvm.extractvalue %[[O]][0]
// CHECK-DAG: %[[O1:.*]] = llvm.extractvalue %[[O]][1]
// CHECK: %[[A0:.*]] = scf.if %[[M0]] -> (f16) {
// CHECK-NEXT: %[[L0:.*]] = llvm.load %[[P0]] {alignment = 2 : i64} : !llvm.ptr<1> -> f16
// CHECK-NEXT: scf.yield %[[L0]] : f16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[O0]] : f16
// CHECK: %[[A1:.*]] = scf.if %[[M1]] -> (f16) {
// CHECK-NEXT: %[[L1:.*]] = llvm.load %[[P1]] {alignment = 2 : i64} : !llvm.ptr<1> -> f16
// CHECK-NEXT: scf.yield %[[L1]] : f16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[O1]] : f16
// Without `other`, masked-off registers are zero.
// CHECK: %[[Z:.*]] = llvm.mlir.zero : f16
// CHECK: scf.if %[[M0]] -> (f16) {
// CHECK-NEXT: llvm.load %[[P0]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[Z]] : f16
// CHECK: scf.if %[[M1]] -> (f16) {
// CHECK-NEXT: llvm.load %[[P1]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[Z]] : f16
// The layout holds every element once: the store is guarded by the mask only.
// CHECK-NOT: llvm.icmp
// CHECK: scf.if %[[M0]] {
// CHECK-NEXT: llvm.store %{{.*}}, %[[P0]] {alignment = 2 : i64} : f16, !llvm.ptr<1>
// CHECK: scf.if %[[M1]] {
// CHECK-NEXT: llvm.store %{{.*}}, %[[P1]] {alignment = 2 : i64} : f16, !llvm.ptr<1>
func.func @masked(%p: tensor<256x!tile.ptr<f16>, #l>, %m: tensor<256xi1, #l>, %o: tensor<256xf16, #l>) -> (tensor<256xf16, #l>, tensor<256xf16, #l>) {
  %a = tile.load %p mask %m other %o : tensor<256x!tile.ptr<f16>, #l>
  %b = tile.load %p mask %m : tensor<256x!tile.ptr<f16>, #l>
  tile.store %p, %a mask %m : tensor<256x!tile.ptr<f16>, #l>
  return %a, %b : tensor<256xf16, #l>, tensor<256xf16, #l>
}
}

// -----

// 32 elements over a 64-element block: lane bit 4 and both warp bits hold
// copies, so only threads with (lane & 16) == 0 and (warp & 3) == 0 store.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @replicated
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// CHECK: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[LB:.*]] = llvm.and %[[LANE]], %[[C16]] : i32
// CHECK: %[[LOK:.*]] = llvm.icmp "eq" %[[LB]], %{{.*}} : i32
// CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[WB:.*]] = llvm.and %[[WARP]], %[[C3]] : i32
// CHECK: %[[WOK:.*]] = llvm.icmp "eq" %[[WB]], %{{.*}} : i32
// CHECK: %[[OWN:.*]] = llvm.and %[[LOK]], %[[WOK]] : i1
// CHECK: scf.if %[[OWN]] {
// CHECK-NEXT: llvm.store %{{.*}} : i32, !llvm.ptr<1>
// CHECK: scf.if %[[OWN]] {
// CHECK-NEXT: llvm.store %{{.*}} : i32, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: return
func.func @replicated(%p: tensor<32x!tile.ptr<i32>, #l>, %v: tensor<32xi32, #l>) {
  tile.store %p, %v : tensor<32x!tile.ptr<i32>, #l>
  return
}
}

// -----

// A scalar store: every thread holds the value, thread 0 stores it.
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr<1>, %[[V:.*]]: f32)
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]] : i32
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: llvm.store %[[V]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @scalar(%p: !tile.ptr<f32>, %v: f32) {
  tile.store %p, %v : !tile.ptr<f32>
  return
}
}

// -----

// addptr advances each register's pointer by its offset, in elements of the
// pointee type (i1 as bytes); scalar pointers too.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @addptr
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr<1>, %[[Q:.*]]: !llvm.struct<(ptr<1>, ptr<1>)>, %[[O:.*]]: !llvm.struct<(i32, i32)>, %[[N:.*]]: i64)
// CHECK: llvm.getelementptr %[[P]][%[[N]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
// CHECK-DAG: %[[Q0:.*]] = llvm.extractvalue %[[Q]][0]
// CHECK-DAG: %[[Q1:.*]] = llvm.extractvalue %[[Q]][1]
// CHECK-DAG: %[[O0:.*]] = llvm.extractvalue %[[O]][0]
// CHECK-DAG: %[[O1:.*]] = llvm.extractvalue %[[O]][1]
// CHECK: llvm.getelementptr %[[Q0]][%[[O0]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
// CHECK: llvm.getelementptr %[[Q1]][%[[O1]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
func.func @addptr(%p: !tile.ptr<f64>, %q: tensor<256x!tile.ptr<i1>, #l>, %o: tensor<256xi32, #l>, %n: i64) -> (!tile.ptr<f64>, tensor<256x!tile.ptr<i1>, #l>) {
  %a = tile.addptr %p, %n : !tile.ptr<f64>, i64
  %b = tile.addptr %q, %o : tensor<256x!tile.ptr<i1>, #l>, tensor<256xi32, #l>
  return %a, %b : !tile.ptr<f64>, tensor<256x!tile.ptr<i1>, #l>
}
}

// -----

// i1 elements are loaded as bytes and compared with zero.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @load_i1
// CHECK: %[[B:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: llvm.icmp "ne" %[[B]], %{{.*}} : i8
func.func @load_i1(%p: tensor<256x!tile.ptr<i1>, #l>) -> tensor<256xi1, #l> {
  %a = tile.load %p : tensor<256x!tile.ptr<i1>, #l>
  return %a : tensor<256xi1, #l>
}
}
