// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// Float reductions: linalg.reduce over the axis into an init filled with the
// identity (0, -inf, +inf); max/min propagate NaN (maximumf/minimumf).
// CHECK-LABEL: func.func @reduce_float(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4x8xf32>
// CHECK: [[E0:%.*]] = tensor.empty() : tensor<4xf32>
// CHECK: [[Z:%.*]] = arith.constant 0.000000e+00 : f32
// CHECK: [[I0:%.*]] = linalg.fill ins([[Z]] : f32) outs([[E0]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK: [[SUM:%.*]] = linalg.reduce ins([[X]] : tensor<4x8xf32>) outs([[I0]] : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT: ([[A:%.*]]: f32, [[B:%.*]]: f32) {
// CHECK-NEXT: [[S:%.*]] = arith.addf [[A]], [[B]] : f32
// CHECK-NEXT: linalg.yield [[S]] : f32
// CHECK: [[E1:%.*]] = tensor.empty() : tensor<8xf32>
// CHECK: [[NINF:%.*]] = arith.constant 0xFF800000 : f32
// CHECK: [[I1:%.*]] = linalg.fill ins([[NINF]] : f32) outs([[E1]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK: [[MAX:%.*]] = linalg.reduce ins([[X]] : tensor<4x8xf32>) outs([[I1]] : tensor<8xf32>) dimensions = [0]
// CHECK-NEXT: ([[A:%.*]]: f32, [[B:%.*]]: f32) {
// CHECK-NEXT: [[M:%.*]] = arith.maximumf [[A]], [[B]] : f32
// CHECK-NEXT: linalg.yield [[M]] : f32
// CHECK: [[E2:%.*]] = tensor.empty() : tensor<4xf32>
// CHECK: [[PINF:%.*]] = arith.constant 0x7F800000 : f32
// CHECK: [[I2:%.*]] = linalg.fill ins([[PINF]] : f32) outs([[E2]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK: [[MIN:%.*]] = linalg.reduce ins([[X]] : tensor<4x8xf32>) outs([[I2]] : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT: ([[A:%.*]]: f32, [[B:%.*]]: f32) {
// CHECK-NEXT: [[M:%.*]] = arith.minimumf [[A]], [[B]] : f32
// CHECK-NEXT: linalg.yield [[M]] : f32
// CHECK: return [[SUM]], [[MAX]], [[MIN]]
func.func @reduce_float(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) {
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tile.reduce max %x {axis = 0 : i32} : tensor<4x8xf32> -> tensor<8xf32>
  %2 = tile.reduce min %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<8xf32>, tensor<4xf32>
}

// -----

// Integer reductions are signed: identities 0, INT_MIN, INT_MAX.
// CHECK-LABEL: func.func @reduce_int(
// CHECK-SAME: [[X:%[^:]*]]: tensor<4x8xi32>
// CHECK: [[Z:%.*]] = arith.constant 0 : i32
// CHECK: [[I0:%.*]] = linalg.fill ins([[Z]] : i32) outs(%{{.*}} : tensor<4xi32>)
// CHECK: [[SUM:%.*]] = linalg.reduce ins([[X]] : tensor<4x8xi32>) outs([[I0]] : tensor<4xi32>) dimensions = [1]
// CHECK-NEXT: ([[A:%.*]]: i32, [[B:%.*]]: i32) {
// CHECK-NEXT: [[S:%.*]] = arith.addi [[A]], [[B]] : i32
// CHECK-NEXT: linalg.yield [[S]] : i32
// CHECK: [[LO:%.*]] = arith.constant -2147483648 : i32
// CHECK: [[I1:%.*]] = linalg.fill ins([[LO]] : i32) outs(%{{.*}} : tensor<8xi32>)
// CHECK: [[MAX:%.*]] = linalg.reduce ins([[X]] : tensor<4x8xi32>) outs([[I1]] : tensor<8xi32>) dimensions = [0]
// CHECK-NEXT: ([[A:%.*]]: i32, [[B:%.*]]: i32) {
// CHECK-NEXT: [[M:%.*]] = arith.maxsi [[A]], [[B]] : i32
// CHECK-NEXT: linalg.yield [[M]] : i32
// CHECK: [[HI:%.*]] = arith.constant 2147483647 : i32
// CHECK: [[I2:%.*]] = linalg.fill ins([[HI]] : i32) outs(%{{.*}} : tensor<4xi32>)
// CHECK: [[MIN:%.*]] = linalg.reduce ins([[X]] : tensor<4x8xi32>) outs([[I2]] : tensor<4xi32>) dimensions = [1]
// CHECK-NEXT: ([[A:%.*]]: i32, [[B:%.*]]: i32) {
// CHECK-NEXT: [[M:%.*]] = arith.minsi [[A]], [[B]] : i32
// CHECK-NEXT: linalg.yield [[M]] : i32
// CHECK: return [[SUM]], [[MAX]], [[MIN]]
func.func @reduce_int(%x: tensor<4x8xi32>) -> (tensor<4xi32>, tensor<8xi32>, tensor<4xi32>) {
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<4x8xi32> -> tensor<4xi32>
  %1 = tile.reduce max %x {axis = 0 : i32} : tensor<4x8xi32> -> tensor<8xi32>
  %2 = tile.reduce min %x {axis = 1 : i32} : tensor<4x8xi32> -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<8xi32>, tensor<4xi32>
}

// -----

// Reducing a 1-D tile yields a scalar: a rank-0 linalg.reduce, then extract.
// CHECK-LABEL: func.func @reduce_to_scalar(
// CHECK-SAME: [[X:%[^:]*]]: tensor<16xf16>, [[Y:%[^:]*]]: tensor<8xi64>) -> (f16, i64)
// CHECK: [[E:%.*]] = tensor.empty() : tensor<f16>
// CHECK: [[Z:%.*]] = arith.constant 0.000000e+00 : f16
// CHECK: [[I:%.*]] = linalg.fill ins([[Z]] : f16) outs([[E]] : tensor<f16>) -> tensor<f16>
// CHECK: [[R:%.*]] = linalg.reduce ins([[X]] : tensor<16xf16>) outs([[I]] : tensor<f16>) dimensions = [0]
// CHECK: arith.addf
// CHECK: [[S:%.*]] = tensor.extract [[R]][] : tensor<f16>
// CHECK: [[E2:%.*]] = tensor.empty() : tensor<i64>
// CHECK: [[LO:%.*]] = arith.constant -9223372036854775808 : i64
// CHECK: [[I2:%.*]] = linalg.fill ins([[LO]] : i64) outs([[E2]] : tensor<i64>) -> tensor<i64>
// CHECK: [[R2:%.*]] = linalg.reduce ins([[Y]] : tensor<8xi64>) outs([[I2]] : tensor<i64>) dimensions = [0]
// CHECK: arith.maxsi
// CHECK: [[S2:%.*]] = tensor.extract [[R2]][] : tensor<i64>
// CHECK: return [[S]], [[S2]] : f16, i64
func.func @reduce_to_scalar(%x: tensor<16xf16>, %y: tensor<8xi64>) -> (f16, i64) {
  %0 = tile.reduce sum %x {axis = 0 : i32} : tensor<16xf16> -> f16
  %1 = tile.reduce max %y {axis = 0 : i32} : tensor<8xi64> -> i64
  return %0, %1 : f16, i64
}

// -----

// i1 reductions: signed max/min would treat true as -1, so max is "any"
// (arith.ori from false) and min is "all" (arith.andi from true).
// CHECK-LABEL: func.func @reduce_i1(
// CHECK-SAME: [[B:%[^:]*]]: tensor<8xi1>, [[C:%[^:]*]]: tensor<2x8xi1>) -> (i1, i1, tensor<2xi1>, tensor<8xi1>)
// CHECK: [[E0:%.*]] = tensor.empty() : tensor<i1>
// CHECK: [[F:%.*]] = arith.constant false
// CHECK: [[I0:%.*]] = linalg.fill ins([[F]] : i1) outs([[E0]] : tensor<i1>) -> tensor<i1>
// CHECK: [[R0:%.*]] = linalg.reduce ins([[B]] : tensor<8xi1>) outs([[I0]] : tensor<i1>) dimensions = [0]
// CHECK-NEXT: ([[IN0:%.*]]: i1, [[ACC0:%.*]]: i1) {
// CHECK-NEXT: [[O0:%.*]] = arith.ori [[IN0]], [[ACC0]] : i1
// CHECK-NEXT: linalg.yield [[O0]] : i1
// CHECK: [[S0:%.*]] = tensor.extract [[R0]][] : tensor<i1>
// CHECK: [[E1:%.*]] = tensor.empty() : tensor<i1>
// CHECK: [[T:%.*]] = arith.constant true
// CHECK: [[I1:%.*]] = linalg.fill ins([[T]] : i1) outs([[E1]] : tensor<i1>) -> tensor<i1>
// CHECK: [[R1:%.*]] = linalg.reduce ins([[B]] : tensor<8xi1>) outs([[I1]] : tensor<i1>) dimensions = [0]
// CHECK-NEXT: ([[IN1:%.*]]: i1, [[ACC1:%.*]]: i1) {
// CHECK-NEXT: [[A1:%.*]] = arith.andi [[IN1]], [[ACC1]] : i1
// CHECK-NEXT: linalg.yield [[A1]] : i1
// CHECK: [[S1:%.*]] = tensor.extract [[R1]][] : tensor<i1>
// CHECK: [[E2:%.*]] = tensor.empty() : tensor<2xi1>
// CHECK: [[F2:%.*]] = arith.constant false
// CHECK: [[I2:%.*]] = linalg.fill ins([[F2]] : i1) outs([[E2]] : tensor<2xi1>) -> tensor<2xi1>
// CHECK: [[R2:%.*]] = linalg.reduce ins([[C]] : tensor<2x8xi1>) outs([[I2]] : tensor<2xi1>) dimensions = [1]
// CHECK-NEXT: ([[IN2:%.*]]: i1, [[ACC2:%.*]]: i1) {
// CHECK-NEXT: [[O2:%.*]] = arith.ori [[IN2]], [[ACC2]] : i1
// CHECK-NEXT: linalg.yield [[O2]] : i1
// CHECK: [[E3:%.*]] = tensor.empty() : tensor<8xi1>
// CHECK: [[T3:%.*]] = arith.constant true
// CHECK: [[I3:%.*]] = linalg.fill ins([[T3]] : i1) outs([[E3]] : tensor<8xi1>) -> tensor<8xi1>
// CHECK: [[R3:%.*]] = linalg.reduce ins([[C]] : tensor<2x8xi1>) outs([[I3]] : tensor<8xi1>) dimensions = [0]
// CHECK-NEXT: ([[IN3:%.*]]: i1, [[ACC3:%.*]]: i1) {
// CHECK-NEXT: [[A3:%.*]] = arith.andi [[IN3]], [[ACC3]] : i1
// CHECK-NEXT: linalg.yield [[A3]] : i1
// CHECK: return [[S0]], [[S1]], [[R2]], [[R3]] : i1, i1, tensor<2xi1>, tensor<8xi1>
// CHECK-NOT: arith.maxsi
// CHECK-NOT: arith.minsi
func.func @reduce_i1(%b: tensor<8xi1>, %c: tensor<2x8xi1>) -> (i1, i1, tensor<2xi1>, tensor<8xi1>) {
  %0 = tile.reduce max %b {axis = 0 : i32} : tensor<8xi1> -> i1
  %1 = tile.reduce min %b {axis = 0 : i32} : tensor<8xi1> -> i1
  %2 = tile.reduce max %c {axis = 1 : i32} : tensor<2x8xi1> -> tensor<2xi1>
  %3 = tile.reduce min %c {axis = 0 : i32} : tensor<2x8xi1> -> tensor<8xi1>
  return %0, %1, %2, %3 : i1, i1, tensor<2xi1>, tensor<8xi1>
}

// -----

// dot: linalg.matmul accumulating into the f32 acc; bf16 operands are
// widened to f32 first, f32 operands are used as they are.
// CHECK-LABEL: func.func @dot(
// CHECK-SAME: [[A:%[^:]*]]: tensor<16x32xbf16>, [[B:%[^:]*]]: tensor<32x8xbf16>, [[C:%[^:]*]]: tensor<16x8xf32>, [[F:%[^:]*]]: tensor<16x32xf32>, [[G:%[^:]*]]: tensor<32x8xf32>)
// CHECK: [[AW:%.*]] = arith.extf [[A]] : tensor<16x32xbf16> to tensor<16x32xf32>
// CHECK: [[BW:%.*]] = arith.extf [[B]] : tensor<32x8xbf16> to tensor<32x8xf32>
// CHECK: [[D0:%.*]] = linalg.matmul ins([[AW]], [[BW]] : tensor<16x32xf32>, tensor<32x8xf32>) outs([[C]] : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NOT: arith.extf
// CHECK: [[D1:%.*]] = linalg.matmul ins([[F]], [[G]] : tensor<16x32xf32>, tensor<32x8xf32>) outs([[C]] : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK: return [[D0]], [[D1]]
func.func @dot(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>, %c: tensor<16x8xf32>,
               %f: tensor<16x32xf32>, %g: tensor<32x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
  %1 = tile.dot %f, %g, %c : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @dot_f16(
// CHECK-SAME: [[A:%[^:]*]]: tensor<4x2xf16>, [[B:%[^:]*]]: tensor<2x4xf16>, [[C:%[^:]*]]: tensor<4x4xf32>)
// CHECK: [[AW:%.*]] = arith.extf [[A]] : tensor<4x2xf16> to tensor<4x2xf32>
// CHECK: [[BW:%.*]] = arith.extf [[B]] : tensor<2x4xf16> to tensor<2x4xf32>
// CHECK: linalg.matmul ins([[AW]], [[BW]] : tensor<4x2xf32>, tensor<2x4xf32>) outs([[C]] : tensor<4x4xf32>)
func.func @dot_f16(%a: tensor<4x2xf16>, %b: tensor<2x4xf16>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tile.dot %a, %b, %c : tensor<4x2xf16>, tensor<2x4xf16> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A kernel that loads bf16 tiles, multiplies them, reduces the rows and
// stores the result, through the whole CPU pipeline.
// CHECK-LABEL: func.func private @matmul_rowsum(
// CHECK: linalg.matmul
// CHECK: linalg.reduce
// CHECK-LABEL: func.func @matmul_rowsum__kda_cpu(
func.func @matmul_rowsum(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<bf16>, %po: !tile.ptr<f32>) attributes {tile.kernel} {
  %r4 = tile.range 0, 4 : tensor<4xi32>
  %as = tile.splat %pa : tensor<4x!tile.ptr<bf16>>
  %ap = tile.addptr %as, %r4 : tensor<4x!tile.ptr<bf16>>, tensor<4xi32>
  %a1 = tile.load %ap : tensor<4x!tile.ptr<bf16>>
  %a = tile.reshape %a1 : tensor<4xbf16> -> tensor<2x2xbf16>
  %bs = tile.splat %pb : tensor<4x!tile.ptr<bf16>>
  %bp = tile.addptr %bs, %r4 : tensor<4x!tile.ptr<bf16>>, tensor<4xi32>
  %b1 = tile.load %bp : tensor<4x!tile.ptr<bf16>>
  %b = tile.reshape %b1 : tensor<4xbf16> -> tensor<2x2xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : tensor<2x2xf32>
  %d = tile.dot %a, %b, %acc : tensor<2x2xbf16>, tensor<2x2xbf16> -> tensor<2x2xf32>
  %s = tile.reduce sum %d {axis = 1 : i32} : tensor<2x2xf32> -> tensor<2xf32>
  %m = tile.reduce max %s {axis = 0 : i32} : tensor<2xf32> -> f32
  tile.store %po, %m : !tile.ptr<f32>
  return
}

// Float max/min are expanded to NaN-propagating compare/selects.
// LLVM-LABEL: llvm.func @reduce_float(
// LLVM: llvm.fadd %{{.*}}, %{{.*}} : f32
// LLVM: llvm.fcmp "ugt" %{{.*}}, %{{.*}} : f32
// LLVM: llvm.fcmp "uno" %{{.*}}, %{{.*}} : f32
// LLVM: llvm.fcmp "ult" %{{.*}}, %{{.*}} : f32
// LLVM: llvm.fcmp "uno" %{{.*}}, %{{.*}} : f32
// LLVM-LABEL: llvm.func @reduce_int(
// LLVM: llvm.add %{{.*}}, %{{.*}} : i32
// LLVM: llvm.icmp "sgt" %{{.*}}, %{{.*}} : i32
// LLVM: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// A narrow float leaves host code as the i16 of its bits (legalize-host-narrow-floats).
// LLVM-LABEL: llvm.func @reduce_to_scalar(
// LLVM-SAME: -> !llvm.struct<(i16, i64)>
// LLVM-LABEL: llvm.func @reduce_i1(
// LLVM-NOT: llvm.icmp {{.*}} : i1
// LLVM: llvm.or %{{.*}}, %{{.*}} : i1
// LLVM-NOT: llvm.icmp {{.*}} : i1
// LLVM: llvm.and %{{.*}}, %{{.*}} : i1
// LLVM-NOT: llvm.icmp {{.*}} : i1
// LLVM: llvm.or %{{.*}}, %{{.*}} : i1
// LLVM-NOT: llvm.icmp {{.*}} : i1
// LLVM: llvm.and %{{.*}}, %{{.*}} : i1
// LLVM-NOT: llvm.icmp {{.*}} : i1
// LLVM-LABEL: llvm.func @dot(
// LLVM: llvm.fmul %{{.*}}, %{{.*}} : f32
// LLVM-NEXT: llvm.fadd %{{.*}}, %{{.*}} : f32
// LLVM-LABEL: llvm.func @dot_f16(
// LLVM-NOT: f16
// LLVM: llvm.zext %{{.*}} : i16 to i32
// LLVM-NOT: f16
// LLVM-LABEL: llvm.func internal @matmul_rowsum(
// LLVM: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
// LLVM: llvm.fmul %{{.*}}, %{{.*}} : f32
// LLVM: llvm.fcmp "ugt" %{{.*}}, %{{.*}} : f32
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// LLVM-LABEL: llvm.func @matmul_rowsum__kda_cpu(
// LLVM: llvm.call @matmul_rowsum(

// PURE-NOT: func.func
// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: linalg.
// PURE-NOT: memref.
// PURE-NOT: bufferization.
// PURE-NOT: scf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast
