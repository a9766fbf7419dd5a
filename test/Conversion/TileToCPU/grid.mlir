// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=PURE

// Program ids and program counts become the six trailing i32 arguments
// (pid_x, pid_y, pid_z, num_x, num_y, num_z); pointer arguments become i64
// addresses; the kernel turns private and loses its tile attributes.

// CHECK-LABEL: func.func private @k(
// CHECK-SAME: [[P:%[^:]*]]: i64,
// CHECK-SAME: [[PIDX:%[^:]*]]: i32, [[PIDY:%[^:]*]]: i32, [[PIDZ:%[^:]*]]: i32, [[NX:%[^:]*]]: i32, [[NY:%[^:]*]]: i32, [[NZ:%[^:]*]]: i32)
// CHECK-NOT: tile.divisibility
// CHECK-NOT: tile.kernel
// CHECK-NOT: tile.program_id
// CHECK-NOT: tile.num_programs
// CHECK: [[A0:%.*]] = arith.addi [[PIDX]], [[PIDY]] : i32
// CHECK: [[A1:%.*]] = arith.addi [[A0]], [[PIDZ]] : i32
// CHECK: [[A2:%.*]] = arith.addi [[A1]], [[NX]] : i32
// CHECK: [[A3:%.*]] = arith.addi [[A2]], [[NY]] : i32
// CHECK: [[A4:%.*]] = arith.addi [[A3]], [[NZ]] : i32
// CHECK: [[W:%.*]] = arith.extsi [[A4]] : i32 to i64
// CHECK: [[B:%.*]] = arith.muli [[W]], %{{.*}} : i64
// CHECK: [[ADDR:%.*]] = arith.addi [[P]], [[B]] : i64
// CHECK: [[PTR:%.*]] = llvm.inttoptr [[ADDR]] : i64 to !llvm.ptr
// CHECK: llvm.store [[A4]], [[PTR]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: return

// The entry point reads argument i from *args[i] and appends the grid.
// CHECK-LABEL: func.func @k__kda_cpu(
// CHECK-SAME: [[ARGS:%[^:]*]]: !llvm.ptr, [[EX:%[^:]*]]: i32, [[EY:%[^:]*]]: i32, [[EZ:%[^:]*]]: i32, [[ENX:%[^:]*]]: i32, [[ENY:%[^:]*]]: i32, [[ENZ:%[^:]*]]: i32)
// CHECK: [[SLOT:%.*]] = llvm.getelementptr [[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: [[VP:%.*]] = llvm.load [[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[PV:%.*]] = llvm.load [[VP]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[PI:%.*]] = llvm.ptrtoint [[PV]] : !llvm.ptr to i64
// CHECK: call @k([[PI]], [[EX]], [[EY]], [[EZ]], [[ENX]], [[ENY]], [[ENZ]]) : (i64, i32, i32, i32, i32, i32, i32) -> ()
// CHECK-NEXT: return
func.func @k(%p: !tile.ptr<i32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %x = tile.program_id 0
  %y = tile.program_id 1
  %z = tile.program_id 2
  %nx = tile.num_programs 0
  %ny = tile.num_programs 1
  %nz = tile.num_programs 2
  %0 = arith.addi %x, %y : i32
  %1 = arith.addi %0, %z : i32
  %2 = arith.addi %1, %nx : i32
  %3 = arith.addi %2, %ny : i32
  %4 = arith.addi %3, %nz : i32
  %q = tile.addptr %p, %4 : !tile.ptr<i32>, i32
  tile.store %q, %4 : !tile.ptr<i32>
  return
}

// The full CPU pipeline leaves only the LLVM dialect.
// LLVM-LABEL: llvm.func internal @k(
// LLVM-SAME: %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// LLVM-LABEL: llvm.func @k__kda_cpu(
// LLVM-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// LLVM: llvm.call @k(

// -----

// Scalar arguments of every kind are unpacked with their own type; i1 is a
// byte in memory. Functions without tile.kernel get no entry point and no
// grid arguments.

// CHECK-LABEL: func.func @helper(
// CHECK-SAME: %{{[^:]*}}: i64) -> i64
// CHECK-NOT: @helper__kda_cpu
func.func @helper(%p: !tile.ptr<f16>) -> !tile.ptr<f16> {
  return %p : !tile.ptr<f16>
}

// CHECK-LABEL: func.func private @scalars(
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: f32, %{{[^:]*}}: i1, %{{[^:]*}}: bf16, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)

// CHECK-LABEL: func.func @scalars__kda_cpu(
// CHECK-SAME: [[ARGS:%[^:]*]]: !llvm.ptr
// CHECK: [[S0:%.*]] = llvm.getelementptr [[ARGS]][0]
// CHECK: [[V0:%.*]] = llvm.load [[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[N:%.*]] = llvm.load [[V0]] : !llvm.ptr -> i32
// CHECK: [[S1:%.*]] = llvm.getelementptr [[ARGS]][1]
// CHECK: [[V1:%.*]] = llvm.load [[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[F:%.*]] = llvm.load [[V1]] : !llvm.ptr -> f32
// CHECK: [[S2:%.*]] = llvm.getelementptr [[ARGS]][2]
// CHECK: [[V2:%.*]] = llvm.load [[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[BYTE:%.*]] = llvm.load [[V2]] : !llvm.ptr -> i8
// CHECK: [[ZERO:%.*]] = arith.constant 0 : i8
// CHECK: [[B:%.*]] = arith.cmpi ne, [[BYTE]], [[ZERO]] : i8
// CHECK: [[S3:%.*]] = llvm.getelementptr [[ARGS]][3]
// CHECK: [[V3:%.*]] = llvm.load [[S3]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[H:%.*]] = llvm.load [[V3]] : !llvm.ptr -> bf16
// CHECK: [[S4:%.*]] = llvm.getelementptr [[ARGS]][4]
// CHECK: [[V4:%.*]] = llvm.load [[S4]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[PP:%.*]] = llvm.load [[V4]] : !llvm.ptr -> !llvm.ptr
// CHECK: [[PA:%.*]] = llvm.ptrtoint [[PP]] : !llvm.ptr to i64
// CHECK: call @scalars([[N]], [[F]], [[B]], [[H]], [[PA]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @scalars(%n: i32, %f: f32, %b: i1, %h: bf16, %p: !tile.ptr<f32>) attributes {tile.kernel} {
  %v = arith.select %b, %f, %f : f32
  %q = tile.addptr %p, %n : !tile.ptr<f32>, i32
  tile.store %q, %v : !tile.ptr<f32>
  return
}

// LLVM-LABEL: llvm.func @helper(
// LLVM-LABEL: llvm.func internal @scalars(
// LLVM-LABEL: llvm.func @scalars__kda_cpu(
// LLVM: llvm.icmp "ne"
// LLVM: llvm.call @scalars(

// Nothing but the LLVM dialect is left anywhere in the output.
// PURE-NOT: func.func
// PURE-NOT: func.call
// PURE-NOT: tile.
// PURE-NOT: tensor.
// PURE-NOT: linalg.
// PURE-NOT: memref.
// PURE-NOT: scf.
// PURE-NOT: cf.
// PURE-NOT: = arith.
// PURE-NOT: unrealized_conversion_cast
