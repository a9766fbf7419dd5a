// RUN: kda-opt %s --split-input-file --tile-remove-layout-conversions | FileCheck %s

#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#c = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Two conversions in a row become one; a round trip becomes none.

// CHECK-LABEL: func.func @convert_of_convert
// CHECK-SAME: (%[[X:.*]]: tensor<128xf32, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[X]] {tile.implicit} : tensor<128xf32, #tile.blocked<{sizePerThread = [4]{{.*}}> -> tensor<128xf32, #tile.blocked<{sizePerThread = [1]
// CHECK-NEXT: return %[[C]], %[[X]]
func.func @convert_of_convert(%x: tensor<128xf32, #a>) -> (tensor<128xf32, #c>, tensor<128xf32, #a>) {
  %0 = tile.convert_layout %x {tile.implicit} : tensor<128xf32, #a> -> tensor<128xf32, #b>
  %1 = tile.convert_layout %0 {tile.implicit} : tensor<128xf32, #b> -> tensor<128xf32, #c>
  %2 = tile.convert_layout %0 {tile.implicit} : tensor<128xf32, #b> -> tensor<128xf32, #a>
  return %1, %2 : tensor<128xf32, #c>, tensor<128xf32, #a>
}

// -----

#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#c = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A conversion the user wrote is kept (the implicit one after it may still
// go when it can); an implicit one before a user's is bypassed.

// CHECK-LABEL: func.func @user_converts_stay
// CHECK-SAME: (%[[X:[^:]*]]:
// CHECK-NEXT: %[[U:.*]] = tile.convert_layout %[[X]] : {{.*}} -> tensor<128xf32, #tile.blocked<{sizePerThread = [2]
// CHECK-NEXT: %[[I:.*]] = tile.convert_layout %[[U]] {tile.implicit} : {{.*}} -> tensor<128xf32, #tile.blocked<{sizePerThread = [1]
// CHECK-NEXT: %[[U2:.*]] = tile.convert_layout %[[X]] : tensor<128xf32, #tile.blocked<{sizePerThread = [4]{{.*}}> -> tensor<128xf32, #tile.blocked<{sizePerThread = [1]
// CHECK-NEXT: return %[[I]], %[[U2]]
func.func @user_converts_stay(%x: tensor<128xf32, #a>) -> (tensor<128xf32, #c>, tensor<128xf32, #c>) {
  %0 = tile.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
  %1 = tile.convert_layout %0 {tile.implicit} : tensor<128xf32, #b> -> tensor<128xf32, #c>
  %2 = tile.convert_layout %x {tile.implicit} : tensor<128xf32, #a> -> tensor<128xf32, #b>
  %3 = tile.convert_layout %2 : tensor<128xf32, #b> -> tensor<128xf32, #c>
  return %1, %3 : tensor<128xf32, #c>, tensor<128xf32, #c>
}

// -----

// Over a 32-element tile these two layouts place every element on the same
// lane (the warps hold copies): converting between them moves nothing, so
// even the user's conversions go when their producer can be rebuilt or
// their user is another conversion.

#w = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#o = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [8], warpsPerCTA = [4], order = [0]}>

// CHECK-LABEL: func.func @noop_user_converts
// CHECK-SAME: (%[[X:[^:]*]]:
// CHECK-NEXT: %[[R:.*]] = tile.range 0, 32 : tensor<32xi32, #tile.slice<
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[X]] : tensor<32xf32, #tile.blocked<{sizePerThread = [1]{{.*}}> -> tensor<32xf32, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT: return %[[R]], %[[C]]
func.func @noop_user_converts(%x: tensor<32xf32, #w>) -> (tensor<32xi32, #s>, tensor<32xf32, #o>) {
  %r = tile.range 0, 32 : tensor<32xi32, #w>
  %0 = tile.convert_layout %r : tensor<32xi32, #w> -> tensor<32xi32, #s>
  %1 = tile.convert_layout %x : tensor<32xf32, #w> -> tensor<32xf32, #s>
  %2 = tile.convert_layout %1 : tensor<32xf32, #s> -> tensor<32xf32, #o>
  return %0, %2 : tensor<32xi32, #s>, tensor<32xf32, #o>
}

// -----

#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A user's conversion that moves data stays even over a cheap producer.

// CHECK-LABEL: func.func @user_convert_of_range
// CHECK-NEXT: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, #tile.blocked<{sizePerThread = [4]
// CHECK-NEXT: tile.convert_layout %[[R]] :
func.func @user_convert_of_range() -> tensor<128xi32, #b> {
  %r = tile.range 0, 128 : tensor<128xi32, #a>
  %0 = tile.convert_layout %r : tensor<128xi32, #a> -> tensor<128xi32, #b>
  return %0 : tensor<128xi32, #b>
}

// -----

#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Pointer arithmetic is rebuilt in the layout its user needs; an op that
// keeps using the old layout keeps its copy, a value that is not cheap (a
// load) is converted.

// CHECK-LABEL: func.func @rematerialize
// CHECK-SAME: (%[[P:[^:]*]]: !tile.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-DAG: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, [[A:#tile.blocked<\{sizePerThread = \[4\][^>]*>]]>
// CHECK-DAG: %[[RB:.*]] = tile.range 0, 128 : tensor<128xi32, [[B:#tile.blocked<\{sizePerThread = \[2\][^>]*>]]>
// CHECK-DAG: %[[NS:.*]] = tile.splat %[[N]] : tensor<128xi32, [[A]]>
// CHECK-DAG: %[[NSB:.*]] = tile.splat %[[N]] : tensor<128xi32, [[B]]>
// CHECK-DAG: %[[O:.*]] = arith.addi %[[R]], %[[NS]] : tensor<128xi32, [[A]]>
// CHECK-DAG: %[[OB:.*]] = arith.addi %[[RB]], %[[NSB]] : tensor<128xi32, [[B]]>
// CHECK-DAG: %[[MB:.*]] = arith.cmpi slt, %[[OB]], %[[NSB]] : tensor<128xi32, [[B]]>
// CHECK-DAG: %[[PS:.*]] = tile.splat %[[P]] : tensor<128x!tile.ptr<f32>, [[B]]>
// CHECK-DAG: %[[Q:.*]] = tile.addptr %[[PS]], %[[OB]] : tensor<128x!tile.ptr<f32>, [[B]]>, tensor<128xi32, [[B]]>
// CHECK-DAG: %[[V:.*]] = tile.load %[[Q]] mask %[[MB]] : tensor<128x!tile.ptr<f32>, [[B]]>
// CHECK-DAG: %[[VA:.*]] = tile.convert_layout %[[V]] {tile.implicit} : tensor<128xf32, [[B]]> -> tensor<128xf32, [[A]]>
// CHECK-DAG: %[[F:.*]] = arith.sitofp %[[O]] : tensor<128xi32, [[A]]> to tensor<128xf32, [[A]]>
// CHECK-DAG: arith.addf %[[VA]], %[[F]] : tensor<128xf32, [[A]]>
// CHECK-NOT: tile.convert_layout
func.func @rematerialize(%p: !tile.ptr<f32>, %n: i32) -> tensor<128xf32, #a> {
  %r = tile.range 0, 128 : tensor<128xi32, #a>
  %ns = tile.splat %n : tensor<128xi32, #a>
  %o = arith.addi %r, %ns : tensor<128xi32, #a>
  %m = arith.cmpi slt, %o, %ns : tensor<128xi32, #a>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #b>
  %oc = tile.convert_layout %o {tile.implicit} : tensor<128xi32, #a> -> tensor<128xi32, #b>
  %q = tile.addptr %ps, %oc : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %mc = tile.convert_layout %m {tile.implicit} : tensor<128xi1, #a> -> tensor<128xi1, #b>
  %v = tile.load %q mask %mc : tensor<128x!tile.ptr<f32>, #b>
  %va = tile.convert_layout %v {tile.implicit} : tensor<128xf32, #b> -> tensor<128xf32, #a>
  %f = arith.sitofp %o : tensor<128xi32, #a> to tensor<128xf32, #a>
  %s = arith.addf %va, %f : tensor<128xf32, #a>
  return %s : tensor<128xf32, #a>
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#p = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

// Through expand_dims (whose source becomes a slice of the new layout) and
// broadcast; a recomputed op sits next to its original, outside the loop.

// CHECK-LABEL: func.func @expand_broadcast_loop
// CHECK: tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 0, parent = [[P:#tile.blocked<\{sizePerThread = \[1, 2\][^>]*>]]}>>
// CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 0, parent = [[P]]}>> -> tensor<1x64xi32, [[P]]>
// CHECK: tile.broadcast %{{.*}} : tensor<1x64xi32, [[P]]> -> tensor<16x64xi32, [[P]]>
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout
// CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<f32>, [[P]]>, tensor<16x64xi32, [[P]]>
func.func @expand_broadcast_loop(%p: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rg = tile.range 0, 64 : tensor<64xi32, #r>
  %rs = tile.convert_layout %rg {tile.implicit} : tensor<64xi32, #r> -> tensor<64xi32, #tile.slice<{dim = 0, parent = #l}>>
  %e = tile.expand_dims %rs {axis = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
  %b = tile.broadcast %e : tensor<1x64xi32, #l> -> tensor<16x64xi32, #l>
  %ps = tile.splat %p : tensor<16x64x!tile.ptr<f32>, #p>
  %z = arith.constant dense<0.0> : tensor<16x64xf32, #p>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %bc = tile.convert_layout %b {tile.implicit} : tensor<16x64xi32, #l> -> tensor<16x64xi32, #p>
    %q = tile.addptr %ps, %bc : tensor<16x64x!tile.ptr<f32>, #p>, tensor<16x64xi32, #p>
    tile.store %q, %z : tensor<16x64x!tile.ptr<f32>, #p>
  }
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Rematerialization looks back at most 8 ops.

// CHECK-LABEL: func.func @too_deep
// CHECK: tile.convert_layout %{{.*}} {tile.implicit}
func.func @too_deep(%n: i32) -> tensor<128xi32, #b> {
  %0 = tile.splat %n : tensor<128xi32, #a>
  %1 = arith.addi %0, %0 : tensor<128xi32, #a>
  %2 = arith.addi %1, %1 : tensor<128xi32, #a>
  %3 = arith.addi %2, %2 : tensor<128xi32, #a>
  %4 = arith.addi %3, %3 : tensor<128xi32, #a>
  %5 = arith.addi %4, %4 : tensor<128xi32, #a>
  %6 = arith.addi %5, %5 : tensor<128xi32, #a>
  %7 = arith.addi %6, %6 : tensor<128xi32, #a>
  %8 = arith.addi %7, %7 : tensor<128xi32, #a>
  %9 = arith.addi %8, %8 : tensor<128xi32, #a>
  %c = tile.convert_layout %9 {tile.implicit} : tensor<128xi32, #a> -> tensor<128xi32, #b>
  return %c : tensor<128xi32, #b>
}
