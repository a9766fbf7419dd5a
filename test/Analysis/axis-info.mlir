// RUN: kda-opt %s --split-input-file --test-print-axis-info | FileCheck %s

// The 1-D pattern: offs = pid * BLOCK + arange(BLOCK), mask = offs < n.

// CHECK-LABEL: func.func @block_1d
// CHECK: tile.range 0, 128 {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 128>, divisibility = array<i64: 1073741824>}}
// CHECK: arith.muli {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 128>}} : i32
// CHECK: tile.splat {{.*}} {tile.axis_info = {constancy = array<i64: 128>, contiguity = array<i64: 1>, divisibility = array<i64: 128>}} : tensor<128xi32>
// CHECK: arith.addi {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 128>, divisibility = array<i64: 128>}}
// CHECK: tile.splat %arg2 {tile.axis_info = {constancy = array<i64: 128>, contiguity = array<i64: 1>, divisibility = array<i64: 16>}}
// CHECK: arith.cmpi slt, {{.*}} {tile.axis_info = {constancy = array<i64: 16>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}}
// CHECK: arith.cmpi sle, {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}}
// CHECK: tile.splat %arg0 {tile.axis_info = {constancy = array<i64: 128>, contiguity = array<i64: 1>, divisibility = array<i64: 16>}}
// CHECK: tile.addptr {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 128>, divisibility = array<i64: 16>}}
// CHECK: tile.load {{.*}} {tile.vector_width = 4 : i32}
// CHECK: tile.load {{.*}} {tile.vector_width = 1 : i32}
// CHECK: tile.splat %arg1 {tile.axis_info = {constancy = array<i64: 128>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}}
// CHECK: tile.store {{.*}} {tile.vector_width = 1 : i32}
func.func @block_1d(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id 0
  %r = tile.range 0, 128 : tensor<128xi32>
  %c128 = arith.constant 128 : i32
  %base = arith.muli %pid, %c128 : i32
  %b = tile.splat %base : tensor<128xi32>
  %offs = arith.addi %b, %r : tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<128xi32>
  %mle = arith.cmpi sle, %offs, %ns : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %p mask %m : tensor<128x!tile.ptr<f32>>
  %v2 = tile.load %p mask %mle : tensor<128x!tile.ptr<f32>>
  %ys = tile.splat %y : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ys, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %q, %v : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// 2-D: rows * stride + cols. Along the columns the pointers run 64
// elements with 16-byte aligned starts; along the rows nothing runs and
// each row start is only known to be 4-byte aligned.

// CHECK-LABEL: func.func @block_2d
// CHECK: tile.expand_dims {{.*}} {axis = 1 : i32, tile.axis_info = {constancy = array<i64: 1, 1>, contiguity = array<i64: 16, 1>, divisibility = array<i64: 1073741824, 1>}}
// CHECK: arith.muli {{.*}} {tile.axis_info = {constancy = array<i64: 1, 1>, contiguity = array<i64: 1, 1>, divisibility = array<i64: 16, 16>}}
// CHECK: tile.broadcast {{.*}} {tile.axis_info = {constancy = array<i64: 1, 64>, contiguity = array<i64: 1, 1>, divisibility = array<i64: 16, 16>}}
// CHECK: tile.broadcast {{.*}} {tile.axis_info = {constancy = array<i64: 16, 1>, contiguity = array<i64: 1, 64>, divisibility = array<i64: 1, 1073741824>}}
// CHECK: arith.addi {{.*}} {tile.axis_info = {constancy = array<i64: 1, 1>, contiguity = array<i64: 1, 64>, divisibility = array<i64: 1, 16>}}
// CHECK: tile.addptr {{.*}} {tile.axis_info = {constancy = array<i64: 1, 1>, contiguity = array<i64: 1, 64>, divisibility = array<i64: 4, 16>}}
// CHECK: tile.load {{.*}} {tile.vector_width = 4 : i32}
func.func @block_2d(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
  %rm = tile.range 0, 16 : tensor<16xi32>
  %rn = tile.range 0, 64 : tensor<64xi32>
  %em = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %s = tile.splat %stride : tensor<16x1xi32>
  %om = arith.muli %em, %s : tensor<16x1xi32>
  %en = tile.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bm = tile.broadcast %om : tensor<16x1xi32> -> tensor<16x64xi32>
  %bn = tile.broadcast %en : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %bm, %bn : tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %off : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %v = tile.load %p : tensor<16x64x!tile.ptr<f32>>
  return
}

// -----

// Division and remainder by powers of two, shifts, extensions, masks
// combined with and, select.

// CHECK-LABEL: func.func @int_ops
// CHECK: arith.divsi {{.*}} {tile.axis_info = {constancy = array<i64: 8>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}}
// CHECK: arith.remsi {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 8>, divisibility = array<i64: 1073741824>}}
// CHECK: arith.shli {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 4>}}
// CHECK: arith.extsi {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 64>, divisibility = array<i64: 1073741824>}}
// CHECK: arith.andi {{.*}} {tile.axis_info = {constancy = array<i64: 8>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}}
// CHECK: arith.select {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 8>, divisibility = array<i64: 8>}}
// CHECK: arith.subi {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 64>, divisibility = array<i64: 1073741824>}}
// CHECK: arith.subi {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}}
func.func @int_ops(%n: i32 {tile.divisibility = 8 : i32}) {
  %r = tile.range 0, 64 : tensor<64xi32>
  %c8 = arith.constant dense<8> : tensor<64xi32>
  %c2 = arith.constant dense<2> : tensor<64xi32>
  %d = arith.divsi %r, %c8 : tensor<64xi32>
  %m = arith.remsi %r, %c8 : tensor<64xi32>
  %s = arith.shli %r, %c2 : tensor<64xi32>
  %e = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  %ns = tile.splat %n : tensor<64xi32>
  %lt = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %ge = arith.cmpi sge, %r, %c8 : tensor<64xi32>
  %both = arith.andi %lt, %ge : tensor<64xi1>
  %sel = arith.select %both, %r, %m : tensor<64xi1>, tensor<64xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %sub = arith.subi %r, %z : tensor<64xi32>
  %neg = arith.subi %z, %r : tensor<64xi32>
  return
}

// -----

// Loop-carried pointers that advance by a multiple of their alignment keep
// it; the induction variable is as aligned as its start and step.

// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} {
// CHECK: tile.load {{.*}} {tile.vector_width = 4 : i32}
// CHECK: tile.addptr {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 128>, divisibility = array<i64: 16>}}
// CHECK: arith.muli {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 32>}} : i32
// CHECK: } {tile.axis_info = [{constancy = array<i64: 1>, contiguity = array<i64: 128>, divisibility = array<i64: 16>}, {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 1>}]}
func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant dense<128> : tensor<128xi32>
  %r = tile.range 0, 128 : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %res:2 = scf.for %i = %c0 to %n step %c16 iter_args(%p = %p0, %k = %n) -> (tensor<128x!tile.ptr<f32>>, i32) : i32 {
    %v = tile.load %p : tensor<128x!tile.ptr<f32>>
    %q = tile.addptr %p, %c128 : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %i2 = arith.muli %i, %c2 : i32
    %k2 = arith.addi %k, %i2 : i32
    scf.yield %q, %k2 : tensor<128x!tile.ptr<f32>>, i32
  }
  return
}

// -----

// Alignment hints (kt.multiple_of, kt.max_contiguous) add to what is proved:
// a row offset from a runtime stride, and a gather index the author knows
// comes in runs of 4; without them both loads are scalar.

// CHECK-LABEL: func.func @hints
// CHECK: arith.muli {{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 1>, divisibility = array<i64: 4>}, tile.multiple_of = array<i64: 4>} : i32
// CHECK: tile.load {{.*}} {tile.vector_width = 4 : i32}
// CHECK: tile.load %{{.*}} {tile.axis_info = {constancy = array<i64: 1>, contiguity = array<i64: 4>, divisibility = array<i64: 16>}, tile.max_contiguous = array<i64: 4>, tile.multiple_of = array<i64: 16>, tile.vector_width = 4 : i32}
// CHECK: tile.load {{.*}} {tile.vector_width = 4 : i32}
func.func @hints(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %idx: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %stride: i32) {
  %pid = tile.program_id 0
  %start = arith.muli %pid, %stride {tile.multiple_of = array<i64: 4>} : i32
  %row = tile.addptr %x, %start : !tile.ptr<f32>, i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %rows = tile.splat %row : tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %rows, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>>
  %ip = tile.splat %idx : tensor<128x!tile.ptr<i32>>
  %ips = tile.addptr %ip, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %g = tile.load %ips {tile.max_contiguous = array<i64: 4>, tile.multiple_of = array<i64: 16>} : tensor<128x!tile.ptr<i32>>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %xs, %g : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %w = tile.load %q : tensor<128x!tile.ptr<f32>>
  return
}
