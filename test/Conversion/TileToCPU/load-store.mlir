// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// Masked load with 'other': a loop over the tile filling a tensor.empty
// through tensor.insert; each element's llvm.load sits in the then-branch of
// an scf.if on that element's mask, and the else-branch yields 'other'.
// CHECK-LABEL: func.func @load_mask_other(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>, [[M:%[^:]*]]: tensor<4xi1>, [[O:%[^:]*]]: tensor<4xf32>)
// CHECK-NOT: tensor.generate
// CHECK-DAG: [[C0:%.*]] = arith.constant 0 : index
// CHECK-DAG: [[C1:%.*]] = arith.constant 1 : index
// CHECK-DAG: [[C4:%.*]] = arith.constant 4 : index
// CHECK-DAG: [[E:%.*]] = tensor.empty() : tensor<4xf32>
// CHECK: [[G:%.*]] = scf.for [[I:%.*]] = [[C0]] to [[C4]] step [[C1]] iter_args([[ACC:%.*]] = [[E]]) -> (tensor<4xf32>) {
// CHECK-NEXT: [[MI:%.*]] = tensor.extract [[M]][[[I]]] : tensor<4xi1>
// CHECK-NEXT: [[V:%.*]] = scf.if [[MI]] -> (f32) {
// CHECK-NEXT: [[A:%.*]] = tensor.extract [[P]][[[I]]] : tensor<4xi64>
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[PTR]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: scf.yield [[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NOT: llvm.load
// CHECK-NEXT: [[OI:%.*]] = tensor.extract [[O]][[[I]]] : tensor<4xf32>
// CHECK-NEXT: scf.yield [[OI]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[INS:%.*]] = tensor.insert [[V]] into [[ACC]][[[I]]] : tensor<4xf32>
// CHECK-NEXT: scf.yield [[INS]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return [[G]]
func.func @load_mask_other(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %v = tile.load %p mask %m other %o : tensor<4x!tile.ptr<f32>>
  return %v : tensor<4xf32>
}

// -----

// Masked load without 'other': masked-off lanes read as zero. bf16 loads are
// 2-byte aligned. A 2-D tile is a nest of two loops threading the tensor.
// CHECK-LABEL: func.func @load_mask_2d(
// CHECK-SAME: [[P:%[^:]*]]: tensor<2x4xi64>, [[M:%[^:]*]]: tensor<2x4xi1>)
// CHECK-NOT: tensor.generate
// CHECK-DAG: [[C0:%.*]] = arith.constant 0 : index
// CHECK-DAG: [[C1:%.*]] = arith.constant 1 : index
// CHECK-DAG: [[C2:%.*]] = arith.constant 2 : index
// CHECK-DAG: [[C4:%.*]] = arith.constant 4 : index
// CHECK-DAG: [[E:%.*]] = tensor.empty() : tensor<2x4xbf16>
// CHECK: [[R:%.*]] = scf.for [[I:%.*]] = [[C0]] to [[C2]] step [[C1]] iter_args([[ACC0:%.*]] = [[E]]) -> (tensor<2x4xbf16>) {
// CHECK-NEXT: [[R1:%.*]] = scf.for [[J:%.*]] = [[C0]] to [[C4]] step [[C1]] iter_args([[ACC1:%.*]] = [[ACC0]]) -> (tensor<2x4xbf16>) {
// CHECK-NEXT: [[MI:%.*]] = tensor.extract [[M]][[[I]], [[J]]] : tensor<2x4xi1>
// CHECK-NEXT: [[V:%.*]] = scf.if [[MI]] -> (bf16) {
// CHECK-NEXT: [[A:%.*]] = tensor.extract [[P]][[[I]], [[J]]] : tensor<2x4xi64>
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[PTR]] {alignment = 2 : i64} : !llvm.ptr -> bf16
// CHECK-NEXT: scf.yield [[L]] : bf16
// CHECK-NEXT: } else {
// CHECK-NOT: llvm.load
// CHECK-NEXT: [[Z:%.*]] = arith.constant 0.000000e+00 : bf16
// CHECK-NEXT: scf.yield [[Z]] : bf16
// CHECK-NEXT: }
// CHECK-NEXT: [[INS:%.*]] = tensor.insert [[V]] into [[ACC1]][[[I]], [[J]]] : tensor<2x4xbf16>
// CHECK-NEXT: scf.yield [[INS]] : tensor<2x4xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield [[R1]] : tensor<2x4xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]]
func.func @load_mask_2d(%p: tensor<2x4x!tile.ptr<bf16>>, %m: tensor<2x4xi1>) -> tensor<2x4xbf16> {
  %v = tile.load %p mask %m : tensor<2x4x!tile.ptr<bf16>>
  return %v : tensor<2x4xbf16>
}

// -----

// Unmasked load: no scf.if.
// CHECK-LABEL: func.func @load_unmasked(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>)
// CHECK-NOT: tensor.generate
// CHECK: [[E:%.*]] = tensor.empty() : tensor<4xi32>
// CHECK: [[R:%.*]] = scf.for [[I:%.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args([[ACC:%.*]] = [[E]]) -> (tensor<4xi32>) {
// CHECK-NEXT: [[A:%.*]] = tensor.extract [[P]][[[I]]] : tensor<4xi64>
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[PTR]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: [[INS:%.*]] = tensor.insert [[L]] into [[ACC]][[[I]]] : tensor<4xi32>
// CHECK-NEXT: scf.yield [[INS]] : tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]]
func.func @load_unmasked(%p: tensor<4x!tile.ptr<i32>>) -> tensor<4xi32> {
  %v = tile.load %p : tensor<4x!tile.ptr<i32>>
  return %v : tensor<4xi32>
}

// -----

// i1 lives in memory as a byte: load i8 and compare with zero.
// CHECK-LABEL: func.func @load_i1(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>)
// CHECK-NOT: tensor.generate
// CHECK: [[E:%.*]] = tensor.empty() : tensor<4xi1>
// CHECK: [[R:%.*]] = scf.for [[I:%.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args([[ACC:%.*]] = [[E]]) -> (tensor<4xi1>) {
// CHECK-NEXT: [[A:%.*]] = tensor.extract [[P]][[[I]]] : tensor<4xi64>
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK-NEXT: [[B:%.*]] = llvm.load [[PTR]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT: [[Z:%.*]] = arith.constant 0 : i8
// CHECK-NEXT: [[C:%.*]] = arith.cmpi ne, [[B]], [[Z]] : i8
// CHECK-NEXT: [[INS:%.*]] = tensor.insert [[C]] into [[ACC]][[[I]]] : tensor<4xi1>
// CHECK-NEXT: scf.yield [[INS]] : tensor<4xi1>
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]]
func.func @load_i1(%p: tensor<4x!tile.ptr<i1>>) -> tensor<4xi1> {
  %v = tile.load %p : tensor<4x!tile.ptr<i1>>
  return %v : tensor<4xi1>
}

// -----

// Scalar loads: plain, and masked with 'other'.
// CHECK-LABEL: func.func @load_scalar(
// CHECK-SAME: [[P:%[^:]*]]: i64, [[Q:%[^:]*]]: i64, [[M:%[^:]*]]: i1, [[O:%[^:]*]]: i32) -> (f64, i32)
// CHECK: [[PP:%.*]] = llvm.inttoptr [[P]] : i64 to !llvm.ptr
// CHECK: [[V:%.*]] = llvm.load [[PP]] {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK: [[W:%.*]] = scf.if [[M]] -> (i32) {
// CHECK-NEXT: [[QP:%.*]] = llvm.inttoptr [[Q]] : i64 to !llvm.ptr
// CHECK-NEXT: [[L:%.*]] = llvm.load [[QP]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: scf.yield [[L]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield [[O]] : i32
// CHECK-NEXT: }
// CHECK: return [[V]], [[W]] : f64, i32
func.func @load_scalar(%p: !tile.ptr<f64>, %q: !tile.ptr<i32>, %m: i1, %o: i32) -> (f64, i32) {
  %v = tile.load %p : !tile.ptr<f64>
  %w = tile.load %q mask %m other %o : !tile.ptr<i32>
  return %v, %w : f64, i32
}

// -----

// Scalar i1 load, masked without 'other': byte load under the mask, false
// otherwise.
// CHECK-LABEL: func.func @load_scalar_i1(
// CHECK-SAME: [[P:%[^:]*]]: i64, [[M:%[^:]*]]: i1) -> i1
// CHECK: [[R:%.*]] = scf.if [[M]] -> (i1) {
// CHECK-NEXT: [[PP:%.*]] = llvm.inttoptr [[P]] : i64 to !llvm.ptr
// CHECK-NEXT: [[B:%.*]] = llvm.load [[PP]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT: [[Z:%.*]] = arith.constant 0 : i8
// CHECK-NEXT: [[C:%.*]] = arith.cmpi ne, [[B]], [[Z]] : i8
// CHECK-NEXT: scf.yield [[C]] : i1
// CHECK-NEXT: } else {
// CHECK-NEXT: [[F:%.*]] = arith.constant false
// CHECK-NEXT: scf.yield [[F]] : i1
// CHECK-NEXT: }
// CHECK: return [[R]] : i1
func.func @load_scalar_i1(%p: !tile.ptr<i1>, %m: i1) -> i1 {
  %v = tile.load %p mask %m : !tile.ptr<i1>
  return %v : i1
}

// -----

// Masked store: a loop nest over the tile; each element's llvm.store sits
// inside an scf.if on its mask.
// CHECK-LABEL: func.func @store_mask_2d(
// CHECK-SAME: [[P:%[^:]*]]: tensor<2x4xi64>, [[V:%[^:]*]]: tensor<2x4xf32>, [[M:%[^:]*]]: tensor<2x4xi1>)
// CHECK-DAG: [[C0:%.*]] = arith.constant 0 : index
// CHECK-DAG: [[C1:%.*]] = arith.constant 1 : index
// CHECK-DAG: [[C2:%.*]] = arith.constant 2 : index
// CHECK-DAG: [[C4:%.*]] = arith.constant 4 : index
// CHECK: scf.for [[I:%.*]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT: scf.for [[J:%.*]] = [[C0]] to [[C4]] step [[C1]] {
// CHECK-DAG: [[A:%.*]] = tensor.extract [[P]][[[I]], [[J]]] : tensor<2x4xi64>
// CHECK-DAG: [[X:%.*]] = tensor.extract [[V]][[[I]], [[J]]] : tensor<2x4xf32>
// CHECK-DAG: [[MI:%.*]] = tensor.extract [[M]][[[I]], [[J]]] : tensor<2x4xi1>
// CHECK: scf.if [[MI]] {
// CHECK-NEXT: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store [[X]], [[PTR]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @store_mask_2d(%p: tensor<2x4x!tile.ptr<f32>>, %v: tensor<2x4xf32>, %m: tensor<2x4xi1>) {
  tile.store %p, %v mask %m : tensor<2x4x!tile.ptr<f32>>
  return
}

// -----

// Unmasked store of i1 (zero-extended to a byte), and a masked scalar store.
// CHECK-LABEL: func.func @store_i1_and_scalar(
// CHECK-SAME: [[P:%[^:]*]]: tensor<4xi64>, [[V:%[^:]*]]: tensor<4xi1>, [[S:%[^:]*]]: i64, [[X:%[^:]*]]: i8, [[M:%[^:]*]]: i1)
// CHECK: scf.for [[I:%.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT: scf.if
// CHECK-DAG: [[A:%.*]] = tensor.extract [[P]][[[I]]] : tensor<4xi64>
// CHECK-DAG: [[B:%.*]] = tensor.extract [[V]][[[I]]] : tensor<4xi1>
// CHECK: [[PTR:%.*]] = llvm.inttoptr [[A]] : i64 to !llvm.ptr
// CHECK: [[BYTE:%.*]] = arith.extui [[B]] : i1 to i8
// CHECK: llvm.store [[BYTE]], [[PTR]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NEXT: scf.if [[M]] {
// CHECK-NEXT: [[SP:%.*]] = llvm.inttoptr [[S]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.store [[X]], [[SP]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @store_i1_and_scalar(%p: tensor<4x!tile.ptr<i1>>, %v: tensor<4xi1>, %s: !tile.ptr<i8>, %x: i8, %sm: i1) {
  tile.store %p, %v : tensor<4x!tile.ptr<i1>>
  tile.store %s, %x mask %sm : !tile.ptr<i8>
  return
}

// -----

// A masked copy kernel through the whole CPU pipeline: the f32 load is
// reached only through a conditional branch on a loaded i1 mask element.
// CHECK-LABEL: func.func private @copy_kernel(
// CHECK-NOT: tile.
// CHECK-LABEL: func.func @copy_kernel__kda_cpu(
func.func @copy_kernel(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0
  %c4 = arith.constant 4 : i32
  %base = arith.muli %pid, %c4 : i32
  %r = tile.range 0, 4 : tensor<4xi32>
  %bs = tile.splat %base : tensor<4xi32>
  %off = arith.addi %bs, %r : tensor<4xi32>
  %ns = tile.splat %n : tensor<4xi32>
  %m = arith.cmpi slt, %off, %ns : tensor<4xi32>
  %xs = tile.splat %x : tensor<4x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %off : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %v = tile.load %xp mask %m : tensor<4x!tile.ptr<f32>>
  %ys = tile.splat %y : tensor<4x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %off : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %yp, %v mask %m : tensor<4x!tile.ptr<f32>>
  return
}

// LLVM-LABEL: llvm.func internal @copy_kernel(
// LLVM: [[M:%.*]] = llvm.load %{{.*}} : !llvm.ptr -> i1
// LLVM-NEXT: llvm.cond_br [[M]], ^[[BB:bb[0-9]+]], ^{{bb[0-9]+}}
// LLVM-NEXT: ^[[BB]]:
// LLVM-NOT: {{^ *\^bb}}
// LLVM: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// LLVM-LABEL: llvm.func @copy_kernel__kda_cpu(
// LLVM: llvm.call @copy_kernel(

// PURE-NOT: func.func
// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: linalg.
// PURE-NOT: memref.
// PURE-NOT: bufferization.
// PURE-NOT: scf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast
