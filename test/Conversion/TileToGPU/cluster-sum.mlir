// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s
// RUN: kda-opt %s --split-input-file --kda-gpu-lower=target=sm_90a | FileCheck %s --check-prefix=ATTRS

// A cluster sum on sm_90a: the module records the cluster shape; the kernel's
// entry has thread 0 initialize the exchange buffer's barrier (one arrival),
// then a cluster barrier publishes it. At the sum, thread 0 arrives expecting
// 4 bytes per program, threads 0-3 push the value into slot `rank` of program
// `tid` (mapa + st.async counting bytes on that program's barrier), every
// thread waits for the barrier's phase, and the four slots are added in rank
// order.
// CHECK: module attributes {kda.cluster_shape = array<i32: 1, 1, 4>
// CHECK: llvm.mlir.global internal @kda_smem_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<24 x i8>
// CHECK-LABEL: func.func @sum_in_clusters
// CHECK: %[[INIT:.*]] = llvm.mlir.addressof @kda_smem_0 : !llvm.ptr<3>
// CHECK: scf.if
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.init %[[INIT]], %[[ONE]]
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[BUF:.*]] = llvm.mlir.addressof @kda_smem_0 : !llvm.ptr<3>
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: scf.if
// CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[BUF]], %[[BYTES]]
// CHECK: %[[SLOTS:.*]] = llvm.getelementptr %[[BUF]][8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %[[SLOTS]][%[[RANK]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.inline_asm has_side_effects {{.*}}mapa.shared::cluster.u32 slot, $0, $3;{{.*}}mapa.shared::cluster.u32 bar, $1, $3;{{.*}}@p st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [slot], $2, [bar];
// CHECK: llvm.inline_asm has_side_effects {{.*}}mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [$0], 0;
// CHECK: %[[S0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[S1:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[A1:.*]] = llvm.fadd %[[S0]], %[[S1]] : f32
// CHECK: %[[S2:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[A2:.*]] = llvm.fadd %[[A1]], %[[S2]] : f32
// CHECK: %[[S3:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[A3:.*]] = llvm.fadd %[[A2]], %[[S3]] : f32
// CHECK: llvm.store %[[A3]]
// The kernel runs in clusters of 1x1x4 (.reqnctapercluster in PTX).
// ATTRS: llvm.func @sum_in_clusters
// ATTRS-SAME: nvvm.cluster_dim = array<i32: 1, 1, 4>
module attributes {tile.num_warps = 4 : i32} {
func.func @sum_in_clusters(%x: f32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %s = tile.cluster_sum %x {axis = 2 : i32, size = 4 : i32} : f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}
}

// -----

// Two sums (one under a branch): a buffer each, both barriers initialized at
// the entry before the one cluster barrier.
// CHECK-LABEL: func.func @two_sums
// CHECK: %[[B1:.*]] = llvm.mlir.addressof @kda_smem_0
// CHECK: %[[B2:.*]] = llvm.mlir.addressof @kda_smem_1
// CHECK: scf.if
// CHECK: nvvm.mbarrier.init %[[B1]]
// CHECK: nvvm.mbarrier.init %[[B2]]
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive.relaxed
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
// CHECK-NOT: nvvm.cluster
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-NOT: nvvm.cluster
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-NOT: nvvm.cluster
// ATTRS-LABEL: llvm.func @two_sums
// ATTRS-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
module attributes {tile.num_warps = 4 : i32} {
func.func @two_sums(%x: f32, %c: i1, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %s = tile.cluster_sum %x {axis = 0 : i32, size = 2 : i32} : f32
  %t = scf.if %c -> f32 {
    %u = tile.cluster_sum %s {axis = 0 : i32, size = 2 : i32} : f32
    scf.yield %u : f32
  } else {
    scf.yield %s : f32
  }
  tile.store %out, %t : !tile.ptr<f32>
  return
}
}

// -----

// The wait for the other programs' buffers goes before the op of the entry
// block that holds the first sum (every path meets it once), after the loads
// ahead of it.
// CHECK-LABEL: func.func @sum_under_a_branch
// CHECK: nvvm.cluster.arrive.relaxed
// CHECK-NOT: nvvm.cluster.wait
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: nvvm.cluster.wait {aligned}
// CHECK-NEXT: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx
module attributes {tile.num_warps = 4 : i32} {
func.func @sum_under_a_branch(%p: !tile.ptr<f32>, %c: i1) attributes {tile.kernel} {
  %x = tile.load %p : !tile.ptr<f32>
  %t = scf.if %c -> f32 {
    %u = tile.cluster_sum %x {axis = 0 : i32, size = 2 : i32} : f32
    scf.yield %u : f32
  } else {
    scf.yield %x : f32
  }
  tile.store %p, %t : !tile.ptr<f32>
  return
}
}

// -----

// A cluster of one program is the program's own value: no exchange, no
// cluster shape.
// CHECK-LABEL: func.func @cluster_of_one
// CHECK-NOT: nvvm.cluster
// CHECK-NOT: kda_smem
// CHECK: llvm.store %arg0
// ATTRS-LABEL: llvm.func @cluster_of_one
// ATTRS-NOT: nvvm.cluster_dim
module attributes {tile.num_warps = 4 : i32} {
func.func @cluster_of_one(%x: f32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %s = tile.cluster_sum %x {axis = 1 : i32, size = 1 : i32} : f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}
}
