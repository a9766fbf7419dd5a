// RUN: kda-opt %s --convert-tile-to-cpu --canonicalize -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM

// A tile load followed by a store to overlapping addresses (p[i+1] = p[i]):
// every element must be read before the first element is written. The load
// is a loop filling a tensor that ends before the store loop starts, and
// canonicalization must not fold the tensor.extract of the store back into
// the load (which would read p[i+1] after writing it).

// CHECK-LABEL: func.func private @shift_right(
// CHECK-NOT: llvm.store
// CHECK: [[E:%.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NOT: llvm.store
// CHECK: [[LOADED:%.*]] = scf.for [[I:%.*]] = {{.*}} iter_args([[ACC:%.*]] = [[E]]) -> (tensor<4xf32>) {
// CHECK-NEXT: [[A:%.*]] = tensor.extract %{{.*}}[[[I]]] : tensor<4xi64>
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[PTR]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: [[INS:%.*]] = tensor.insert [[L]] into [[ACC]][[[I]]] : tensor<4xf32>
// CHECK-NEXT: scf.yield [[INS]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: llvm.load
// CHECK: scf.for [[J:%.*]] = {{.*}} {
// CHECK-NOT: llvm.load
// CHECK-DAG: [[B:%.*]] = tensor.extract %{{.*}}[[[J]]] : tensor<4xi64>
// CHECK-DAG: [[V:%.*]] = tensor.extract [[LOADED]][[[J]]] : tensor<4xf32>
// CHECK-NOT: llvm.load
// CHECK: [[SPTR:%.*]] = llvm.inttoptr [[B]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store [[V]], [[SPTR]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NOT: llvm.load
// CHECK: return
func.func @shift_right(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 4 : tensor<4xi32>
  %ps = tile.splat %p : tensor<4x!tile.ptr<f32>>
  %q0 = tile.addptr %ps, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %v = tile.load %q0 : tensor<4x!tile.ptr<f32>>
  %c1 = arith.constant dense<1> : tensor<4xi32>
  %r1 = arith.addi %r, %c1 : tensor<4xi32>
  %q1 = tile.addptr %ps, %r1 : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %q1, %v : tensor<4x!tile.ptr<f32>>
  return
}

// In the LLVM output the user load (the only 4-byte-aligned f32 load) sits in
// the body of one loop; its back edge is followed by the exit block, and the
// user store (the only 4-byte-aligned f32 store) comes after it, storing a
// value re-read from the buffer rather than the loaded value itself.
// LLVM-LABEL: llvm.func internal @shift_right(
// LLVM-NOT: llvm.store {{.*}}{alignment = 4 : i64} : f32
// LLVM: [[L:%.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM-NOT: {{^ *\^bb}}
// LLVM-NOT: llvm.store {{.*}}{alignment = 4 : i64} : f32
// LLVM: llvm.br ^[[HDR:bb[0-9]+]](
// LLVM-NEXT: ^{{bb[0-9]+}}:
// LLVM-NOT: llvm.load {{.*}}{alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM-NOT: llvm.store [[L]], {{.*}}{alignment = 4 : i64}
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// LLVM-NOT: llvm.load {{.*}}{alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM-NOT: llvm.store {{.*}}{alignment = 4 : i64} : f32
// LLVM-LABEL: llvm.func @shift_right__kda_cpu(

// -----

// The same with masks, and with the store going through the same addresses
// in reverse order (p[3-i] = p[i]): still all loads first.
// CHECK-LABEL: func.func private @reverse_masked(
// CHECK-NOT: llvm.store
// CHECK: [[LOADED:%.*]] = scf.for [[I:%.*]] = {{.*}} iter_args([[ACC:%.*]] = %{{.*}}) -> (tensor<4xf32>) {
// CHECK-NOT: llvm.store
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: } else {
// CHECK-NOT: llvm.load
// CHECK: }
// CHECK-NOT: llvm.store
// CHECK: tensor.insert %{{.*}} into [[ACC]][[[I]]] : tensor<4xf32>
// CHECK-NEXT: scf.yield %{{.*}} : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: llvm.load
// CHECK: scf.for [[J:%.*]] = {{.*}} {
// CHECK-NOT: llvm.load
// CHECK: [[V:%.*]] = tensor.extract [[LOADED]][[[J]]] : tensor<4xf32>
// CHECK-NOT: llvm.load
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: llvm.load
// CHECK: llvm.store [[V]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT: llvm.load
// CHECK: return
func.func @reverse_masked(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 4 : tensor<4xi32>
  %ns = tile.splat %n : tensor<4xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<4xi32>
  %ps = tile.splat %p : tensor<4x!tile.ptr<f32>>
  %q0 = tile.addptr %ps, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %v = tile.load %q0 mask %m : tensor<4x!tile.ptr<f32>>
  // -3..0 negated: 3, 2, 1, 0.
  %rev = tile.range -3, 1 : tensor<4xi32>
  %z = arith.constant dense<0> : tensor<4xi32>
  %idx = arith.subi %z, %rev : tensor<4xi32>
  %q1 = tile.addptr %ps, %idx : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %q1, %v mask %m : tensor<4x!tile.ptr<f32>>
  return
}

// LLVM-LABEL: llvm.func internal @reverse_masked(
// LLVM-NOT: llvm.store {{.*}}{alignment = 4 : i64} : f32
// LLVM: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM-NOT: llvm.store {{.*}}{alignment = 4 : i64} : f32
// LLVM: llvm.br ^{{bb[0-9]+}}(
// LLVM-NOT: llvm.load {{.*}}{alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// LLVM-NOT: llvm.load {{.*}}{alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM-LABEL: llvm.func @reverse_masked__kda_cpu(
