// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s

// On the host a cluster's programs run on threads of their own, and a cluster
// sum calls the launcher's exchange (CPULauncher.h) with the value and the
// number of the sum, which meets them. The kernel takes the exchange as a
// last, hidden argument, which its entry point reads from the argument array
// after the runtime arguments; the module records the cluster shape, and the
// compiled kernel exports it beside its entry point.
// CHECK: module attributes {kda.cluster_shape = array<i32: 1, 1, 4>
// CHECK: llvm.mlir.global external constant @sum_in_clusters__kda_cluster_shape(dense<[1, 1, 4]> : tensor<3xi32>)
// CHECK-LABEL: func.func private @sum_in_clusters(
// CHECK-SAME: %[[X:[^:]*]]: f32, %{{[^:]*}}: i64, {{.*}}, %[[EXCHANGE:[^:]*]]: !llvm.ptr)
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[SUM:.*]] = llvm.call %[[EXCHANGE]](%[[X]], %[[ZERO]]) : !llvm.ptr, (f32, i32) -> f32
// CHECK: llvm.store %[[SUM]]
// CHECK-LABEL: func.func @sum_in_clusters__kda_cpu(
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %arg0[2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[AT:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[FN:.*]] = llvm.load %[[AT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: call @sum_in_clusters({{.*}}, %[[FN]])
module {
func.func @sum_in_clusters(%x: f32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %s = tile.cluster_sum %x {axis = 2 : i32, size = 4 : i32} : f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}
}

// -----

// A cluster of one program is the value itself: no hidden argument, no shape.
// CHECK-NOT: kda.cluster_shape
// CHECK-NOT: __kda_cluster_shape
// CHECK-LABEL: func.func private @cluster_of_one(
// CHECK-SAME: %[[X:[^:]*]]: f32, %{{[^:]*}}: i64, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)
// CHECK-NOT: llvm.call
// CHECK: llvm.store %[[X]]
module {
func.func @cluster_of_one(%x: f32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  %s = tile.cluster_sum %x {axis = 0 : i32, size = 1 : i32} : f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}
}
