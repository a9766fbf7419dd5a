// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s

// A tile prints element by element in row-major order: one printf per
// element with the program ids, the element's coordinates and its value
// widened to f64; the format names the prefix and the operand.

// CHECK-DAG: llvm.mlir.global internal constant @[[FMT:__kda_str_[0-9]+]]("pid (%d, %d, %d) idx (%d, %d) acc (operand 1): %.9g\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[FMT0:__kda_str_[0-9]+]]("pid (%d, %d, %d) acc (operand 0): %d\0A\00")
// CHECK-DAG: llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-LABEL: func.func private @k(
// CHECK-SAME: [[N:%[^:]*]]: i32, %{{[^:]*}}: bf16, [[PX:%[^:]*]]: i32, [[PY:%[^:]*]]: i32, [[PZ:%[^:]*]]: i32,
// CHECK: [[F0:%.*]] = llvm.mlir.addressof @[[FMT0]]
// CHECK: llvm.call @printf([[F0]], [[PX]], [[PY]], [[PZ]], [[N]])
// CHECK: scf.for [[I:%[^ ]*]] = %{{.*}} to %c2
// CHECK: scf.for [[J:%[^ ]*]] = %{{.*}} to %c4
// CHECK: [[E:%.*]] = tensor.extract %{{.*}}{{\[}}[[I]], [[J]]] : tensor<2x4xbf16>
// CHECK: [[F:%.*]] = llvm.mlir.addressof @[[FMT]]
// CHECK-DAG: [[II:%.*]] = arith.index_cast [[I]] : index to i32
// CHECK-DAG: [[JJ:%.*]] = arith.index_cast [[J]] : index to i32
// CHECK: [[W:%.*]] = llvm.fpext [[E]] : bf16 to f32
// CHECK: [[D:%.*]] = llvm.fpext [[W]] : f32 to f64
// CHECK: llvm.call @printf([[F]], [[PX]], [[PY]], [[PZ]], [[II]], [[JJ]], [[D]]) vararg(!llvm.func<i32 (ptr, ...)>)
module {
  func.func @k(%n: i32, %v: bf16) attributes {tile.kernel} {
    %x = tile.splat %v : tensor<2x4xbf16>
    tile.print "acc" %n, %x : i32, tensor<2x4xbf16>
    return
  }
}

// -----

// A scalar prints once, without coordinates; hex prints the bits, and a
// '%' in the prefix prints as itself.

// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("pid (%d, %d, %d) 5%%: 0x%llx\0A\00")
// CHECK-LABEL: func.func private @h(
// CHECK-NOT: scf.for
// CHECK: [[B:%.*]] = llvm.bitcast %{{.*}} : f64 to i64
// CHECK: llvm.call @printf(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, [[B]])
module {
  func.func @h(%v: f64) attributes {tile.kernel} {
    tile.print "5%" %v : f64 {hex}
    return
  }
}
