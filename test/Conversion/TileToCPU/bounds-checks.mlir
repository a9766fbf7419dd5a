// RUN: kda-opt %s --convert-tile-to-cpu=check-bounds -split-input-file | FileCheck %s
// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s --check-prefix=OFF

// With check-bounds, the kernel takes the bounds table after the grid
// arguments (its entry reads it from args[n] after the n runtime
// arguments) and exports that it does; each access is checked against the
// extent of the argument its pointer derives from (words 4 + 2i, 5 + 2i;
// an access whose end would wrap around is outside) and, outside it,
// reports its source position through the table's first word and is
// skipped.

// CHECK-DAG: llvm.mlir.global internal constant @[[SITE:__kda_str_[0-9]+]]("{{.*}}bounds-checks.mlir:{{[0-9]+}}:{{[0-9]+}}: kt.store\00")
// CHECK-DAG: llvm.mlir.global external constant @k__kda_bounds_checked(1 : i32)
// CHECK-LABEL: func.func private @k(
// CHECK-SAME: %{{[^:]*}}: i64, [[Q:%[^:]*]]: i64, %{{[^:]*}}: f32,
// CHECK-SAME: %{{[^:]*}}: i32, [[TABLE:%[^:]*]]: !llvm.ptr) attributes {llvm.linkage = #llvm.linkage<internal>} {
// CHECK: [[END:%.*]] = arith.addi [[ADDR:%.*]], %{{.*}} : i64
// CHECK: [[NOWRAP:%.*]] = arith.cmpi uge, [[END]], [[ADDR]] : i64
// CHECK: [[LO_SLOT:%.*]] = llvm.getelementptr [[TABLE]][6] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: [[LO:%.*]] = llvm.load [[LO_SLOT]] : !llvm.ptr -> i64
// CHECK: [[HI_SLOT:%.*]] = llvm.getelementptr [[TABLE]][7] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: [[HI:%.*]] = llvm.load [[HI_SLOT]] : !llvm.ptr -> i64
// CHECK: arith.cmpi uge, [[ADDR]], [[LO]] : i64
// CHECK: arith.cmpi ule, [[END]], [[HI]] : i64
// CHECK: [[OK:%.*]] = arith.andi %{{.*}}, [[NOWRAP]] : i1
// CHECK: scf.if [[OK]]
// CHECK:   llvm.store
// CHECK: } else {
// CHECK:   [[S:%.*]] = llvm.mlir.addressof @[[SITE]]
// CHECK:   [[REPORT:%.*]] = llvm.load [[TABLE]] : !llvm.ptr -> !llvm.ptr
// CHECK:   llvm.call [[REPORT]]([[TABLE]], [[S]], {{.*}}) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i64, i32) -> ()
// CHECK-LABEL: func.func @k__kda_cpu(
// CHECK: [[SLOT:%.*]] = llvm.getelementptr %arg0[3] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: [[T:%.*]] = llvm.load [[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: call @k({{.*}}, [[T]])

// OFF-NOT: __kda_bounds_checked
// OFF-NOT: llvm.call
module {
  func.func @k(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %v: f32) attributes {tile.kernel} {
    %r = tile.range 0, 4 : tensor<4xi32>
    %qs = tile.splat %q : tensor<4x!tile.ptr<f32>>
    %a = tile.addptr %qs, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
    %vs = tile.splat %v : tensor<4xf32>
    tile.store %a, %vs : tensor<4x!tile.ptr<f32>>
    return
  }
}

// -----

// A pointer that may derive from either of two arguments is in bounds in
// either extent, and reports argument -1.

// CHECK-LABEL: func.func private @either(
// CHECK: llvm.getelementptr %{{.*}}[4] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.getelementptr %{{.*}}[6] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: arith.ori
// CHECK: %[[MINUS1:.*]] = arith.constant -1 : i32
// CHECK: llvm.call %{{.*}}(%{{.*}}, %{{.*}}, %{{.*}}, %[[MINUS1]])
module {
  func.func @either(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %c: i1) attributes {tile.kernel} {
    %s = arith.select %c, %p, %q : !tile.ptr<f32>
    %x = tile.load %s : !tile.ptr<f32>
    tile.store %p, %x : !tile.ptr<f32>
    return
  }
}
