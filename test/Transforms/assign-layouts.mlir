// RUN: kda-opt %s --split-input-file --tile-assign-layouts=num-warps=4 | FileCheck %s

// Sources get the default blocked layout of their shape and element width
// (128 bits per thread along the fastest dimension; pointers count 64 bits,
// i1 8); the module records the distribution.

// CHECK: module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32}
// CHECK-LABEL: func.func @sources
// CHECK: tile.range 0, 128 : tensor<128xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tile.splat %{{.*}} : tensor<128xf16, #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: arith.constant dense<0.000000e+00> : tensor<16x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: arith.constant dense<true> : tensor<128xi1, #tile.blocked<{sizePerThread = [16], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @sources(%h: f16, %p: !tile.ptr<f32>) {
  %r = tile.range 0, 128 : tensor<128xi32>
  %s = tile.splat %h : tensor<128xf16>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %z = arith.constant dense<0.0> : tensor<16x64xf32>
  %t = arith.constant dense<true> : tensor<128xi1>
  return
}

// -----

// Module attributes already present win over the options.

// CHECK: module attributes {tile.num_warps = 8 : i32, tile.wave_size = 64 : i32}
// CHECK: tile.range 0, 1024 : tensor<1024xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>>
module attributes {tile.num_warps = 8 : i32, tile.wave_size = 64 : i32} {
  func.func @module_attrs() {
    %r = tile.range 0, 1024 : tensor<1024xi32>
    return
  }
}

// -----

// Elementwise ops take their first tile operand's layout; the others are
// converted (the inserted converts are marked tile.implicit).

// CHECK-LABEL: func.func @elementwise
// CHECK: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, [[I32:#tile.blocked<\{sizePerThread = \[4\][^>]*>]]>
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>, [[PTR:#tile.blocked<\{sizePerThread = \[2\][^>]*>]]>
// CHECK: %[[C:.*]] = tile.convert_layout %[[R]] {tile.implicit} : tensor<128xi32, [[I32]]> -> tensor<128xi32, [[PTR]]>
// CHECK: tile.addptr %[[P]], %[[C]] : tensor<128x!tile.ptr<f32>, [[PTR]]>, tensor<128xi32, [[PTR]]>
// CHECK: %[[H:.*]] = tile.splat %{{.*}} : tensor<128xf16, [[F16:#tile.blocked<\{sizePerThread = \[8\][^>]*>]]>
// CHECK: %[[E:.*]] = arith.extf %[[H]] : tensor<128xf16, [[F16]]> to tensor<128xf32, [[F16]]>
// CHECK: %[[F:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[I32]]>
// CHECK: %[[FC:.*]] = tile.convert_layout %[[F]] {tile.implicit} : tensor<128xf32, [[I32]]> -> tensor<128xf32, [[F16]]>
// CHECK: %[[CMP:.*]] = arith.cmpf olt, %[[E]], %[[FC]] : tensor<128xf32, [[F16]]>
// CHECK: arith.select %[[CMP]], %[[E]], %[[FC]] : tensor<128xi1, [[F16]]>, tensor<128xf32, [[F16]]>
func.func @elementwise(%p: !tile.ptr<f32>, %h: f16, %f: f32) {
  %r = tile.range 0, 128 : tensor<128xi32>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %hs = tile.splat %h : tensor<128xf16>
  %e = arith.extf %hs : tensor<128xf16> to tensor<128xf32>
  %fs = tile.splat %f : tensor<128xf32>
  %c = arith.cmpf olt, %e, %fs : tensor<128xf32>
  %s = arith.select %c, %e, %fs : tensor<128xi1>, tensor<128xf32>
  return
}

// -----

// Layouts written in the input are never changed; ops fit around them.

#user = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#user2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: func.func @explicit_layouts_kept
// CHECK: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, [[USER:#tile.blocked<\{sizePerThread = \[1\][^>]*>]]>
// CHECK: %[[A:.*]] = arith.addi %[[R]], %[[R]] : tensor<128xi32, [[USER]]>
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : tensor<128xi32, [[DEF:#tile.blocked<\{sizePerThread = \[4\][^>]*>]]>
// CHECK: tile.convert_layout %[[S]] : tensor<128xi32, [[DEF]]> -> tensor<128xi32, [[USER]]>
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>, [[PTR:#tile.blocked<\{sizePerThread = \[2\][^>]*>]]>
// CHECK: %[[AC:.*]] = tile.convert_layout %[[A]] {tile.implicit} : tensor<128xi32, [[USER]]> -> tensor<128xi32, [[PTR]]>
// CHECK: tile.addptr %[[P]], %[[AC]] : tensor<128x!tile.ptr<f32>, [[PTR]]>, tensor<128xi32, [[PTR]]>
// CHECK: %[[AS:.*]] = tile.convert_layout %[[A]] {tile.implicit} : tensor<128xi32, [[USER]]> -> tensor<128xi32, #tile.slice<{dim = 0, parent = [[USER2:#tile.blocked<\{sizePerThread = \[1, 1\][^>]*>]]}>>
// CHECK: tile.expand_dims %[[AS]] {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = [[USER2]]}>> -> tensor<1x128xi32, [[USER2]]>
func.func @explicit_layouts_kept(%x: i32, %p: !tile.ptr<f32>) {
  %r = tile.range 0, 128 : tensor<128xi32, #user>
  %a = arith.addi %r, %r : tensor<128xi32, #user>
  %s = tile.splat %x : tensor<128xi32>
  %c = tile.convert_layout %s : tensor<128xi32> -> tensor<128xi32, #user>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %a : tensor<128x!tile.ptr<f32>>, tensor<128xi32, #user>
  %e = tile.expand_dims %a {axis = 0 : i32} : tensor<128xi32, #user> -> tensor<1x128xi32, #user2>
  return
}

// -----

// A reduction's result is the slice of its source layout; expanding a slice
// gives back its parent without a conversion, expanding anything else first
// converts to a slice of the result's default layout. Broadcasts keep the
// source layout.

// CHECK-LABEL: func.func @reduce_expand_broadcast
// CHECK: %[[Z:.*]] = arith.constant {{.*}} : tensor<16x64xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\][^>]*>]]>
// CHECK: %[[S:.*]] = tile.reduce sum %[[Z]] {axis = 1 : i32} : tensor<16x64xf32, [[L]]> -> tensor<16xf32, #tile.slice<{dim = 1, parent = [[L]]}>>
// CHECK: %[[E:.*]] = tile.expand_dims %[[S]] {axis = 1 : i32} : tensor<16xf32, #tile.slice<{dim = 1, parent = [[L]]}>> -> tensor<16x1xf32, [[L]]>
// CHECK: tile.broadcast %[[E]] : tensor<16x1xf32, [[L]]> -> tensor<16x64xf32, [[L]]>
// CHECK: %[[R:.*]] = tile.range 0, 64 : tensor<64xi32, [[R1:#tile.blocked<[^>]*>]]>
// CHECK: %[[C:.*]] = tile.convert_layout %[[R]] {tile.implicit} : tensor<64xi32, [[R1]]> -> tensor<64xi32, #tile.slice<{dim = 0, parent = [[D:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\][^>]*>]]}>>
// CHECK: tile.expand_dims %[[C]] {axis = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 0, parent = [[D]]}>> -> tensor<1x64xi32, [[D]]>
func.func @reduce_expand_broadcast() {
  %z = arith.constant dense<1.0> : tensor<16x64xf32>
  %s = tile.reduce sum %z {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  %e = tile.expand_dims %s {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %b = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x64xf32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %re = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  return
}

// -----

// Loads take the pointers' layout (mask and other follow); stores keep the
// value's layout and move pointers and mask to it.

// CHECK-LABEL: func.func @load_store
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<16x64x!tile.ptr<f32>, [[PTR:#tile.blocked<\{sizePerThread = \[1, 2\][^>]*>]]>
// CHECK: %[[M:.*]] = arith.constant dense<true> : tensor<16x64xi1, [[MASK:#tile.blocked<[^>]*>]]>
// CHECK: %[[O:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32, [[F32:#tile.blocked<\{sizePerThread = \[1, 4\][^>]*>]]>
// CHECK-DAG: %[[MC:.*]] = tile.convert_layout %[[M]] {tile.implicit} : tensor<16x64xi1, [[MASK]]> -> tensor<16x64xi1, [[PTR]]>
// CHECK-DAG: %[[OC:.*]] = tile.convert_layout %[[O]] {tile.implicit} : tensor<16x64xf32, [[F32]]> -> tensor<16x64xf32, [[PTR]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] mask %[[MC]] other %[[OC]] : tensor<16x64x!tile.ptr<f32>, [[PTR]]>
// CHECK: %[[S:.*]] = tile.reduce sum %[[V]] {axis = 0 : i32} : tensor<16x64xf32, [[PTR]]> -> tensor<64xf32, [[SL:#tile.slice<\{dim = 0, parent = .*}>]]>
// CHECK: %[[Q:.*]] = tile.splat %{{.*}} : tensor<64x!tile.ptr<f32>, [[QL:#tile.blocked<[^>]*>]]>
// CHECK: %[[QC:.*]] = tile.convert_layout %[[Q]] {tile.implicit} : tensor<64x!tile.ptr<f32>, [[QL]]> -> tensor<64x!tile.ptr<f32>, [[SL]]>
// CHECK: tile.store %[[QC]], %[[S]] : tensor<64x!tile.ptr<f32>, [[SL]]>
func.func @load_store(%p: !tile.ptr<f32>) {
  %ps = tile.splat %p : tensor<16x64x!tile.ptr<f32>>
  %m = arith.constant dense<true> : tensor<16x64xi1>
  %o = arith.constant dense<0.0> : tensor<16x64xf32>
  %v = tile.load %ps mask %m other %o : tensor<16x64x!tile.ptr<f32>>
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<16x64xf32> -> tensor<64xf32>
  %q = tile.splat %p : tensor<64x!tile.ptr<f32>>
  tile.store %q, %s : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// Dot: accumulator and result take the result's default layout; a and b
// keep theirs. Reshape results get their default layout.

// CHECK-LABEL: func.func @dot_reshape
// CHECK: %[[A:.*]] = tile.splat %{{.*}} : tensor<16x32xbf16, [[AL:#tile.blocked<\{sizePerThread = \[1, 8\][^>]*>]]>
// CHECK: %[[B:.*]] = tile.splat %{{.*}} : tensor<32x16xbf16, [[BL:#tile.blocked<\{sizePerThread = \[1, 8\][^>]*>]]>
// CHECK: %[[C:.*]] = tile.splat %{{.*}} : tensor<16x16xf32, [[CL:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[8, 4\][^>]*>]]>
// CHECK: tile.dot %[[A]], %[[B]], %[[C]] : tensor<16x32xbf16, [[AL]]>, tensor<32x16xbf16, [[BL]]> -> tensor<16x16xf32, [[CL]]>
// CHECK: tile.reshape %{{.*}} : tensor<16x16xf32, [[CL]]> -> tensor<256xf32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @dot_reshape(%x: bf16, %f: f32) {
  %a = tile.splat %x : tensor<16x32xbf16>
  %b = tile.splat %x : tensor<32x16xbf16>
  %c = tile.splat %f : tensor<16x16xf32>
  %d = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
  %r = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  return
}

// -----

// Loops carry the layouts of the values entering them; yields that differ
// are converted back.

// CHECK-LABEL: func.func @for_loop
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32, [[F32:#tile.blocked<\{sizePerThread = \[4\][^>]*>]]>
// CHECK: %[[RES:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]], %[[PT:.*]] = %{{.*}}) -> (tensor<128xf32, [[F32]]>, tensor<128x!tile.ptr<f32>, [[PTR:#tile.blocked<\{sizePerThread = \[2\][^>]*>]]>)
// CHECK: %[[V:.*]] = tile.load %[[PT]] : tensor<128x!tile.ptr<f32>, [[PTR]]>
// CHECK: %[[VC:.*]] = tile.convert_layout %[[V]] {tile.implicit} : tensor<128xf32, [[PTR]]> -> tensor<128xf32, [[F32]]>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[VC]] : tensor<128xf32, [[F32]]>
// CHECK: %[[EXP:.*]] = math.exp %[[V]] : tensor<128xf32, [[PTR]]>
// CHECK: %[[N:.*]] = tile.addptr %[[PT]], %{{.*}} : tensor<128x!tile.ptr<f32>, [[PTR]]>
// CHECK: %[[YC:.*]] = tile.convert_layout %[[EXP]] {tile.implicit} : tensor<128xf32, [[PTR]]> -> tensor<128xf32, [[F32]]>
// CHECK: scf.yield %[[YC]], %[[N]] : tensor<128xf32, [[F32]]>, tensor<128x!tile.ptr<f32>, [[PTR]]>
// CHECK: tile.reduce sum %[[RES]]#0 {axis = 0 : i32} : tensor<128xf32, [[F32]]> -> f32
func.func @for_loop(%p: !tile.ptr<f32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %r = tile.range 0, 128 : tensor<128xi32>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %p0 = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %acc, %pe = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %pt = %p0) -> (tensor<128xf32>, tensor<128x!tile.ptr<f32>>) : i32 {
    %v = tile.load %pt : tensor<128x!tile.ptr<f32>>
    %s = arith.addf %a, %v : tensor<128xf32>
    %e = math.exp %v : tensor<128xf32>
    %next = tile.addptr %pt, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    scf.yield %e, %next : tensor<128xf32>, tensor<128x!tile.ptr<f32>>
  }
  %t = tile.reduce sum %acc {axis = 0 : i32} : tensor<128xf32> -> f32
  return %t : f32
}

// -----

// scf.if results take the then-yield layouts; else-yields are converted.
// scf.while carries the entering layouts through both regions.

// CHECK-LABEL: func.func @if_while
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<128xf32, [[PTR:#tile.blocked<\{sizePerThread = \[2\][^>]*>]]>)
// CHECK: scf.yield %{{.*}} : tensor<128xf32, [[PTR]]>
// CHECK: } else {
// CHECK: %[[E:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[F32:#tile.blocked<\{sizePerThread = \[4\][^>]*>]]>
// CHECK: %[[EC:.*]] = tile.convert_layout %[[E]] {tile.implicit} : tensor<128xf32, [[F32]]> -> tensor<128xf32, [[PTR]]>
// CHECK: scf.yield %[[EC]] : tensor<128xf32, [[PTR]]>
// CHECK: scf.while (%[[W:.*]] = %[[IF]]) : (tensor<128xf32, [[PTR]]>) -> tensor<128xf32, [[PTR]]>
// CHECK: scf.condition(%{{.*}}) %[[W]] : tensor<128xf32, [[PTR]]>
// CHECK: ^bb0(%[[X:.*]]: tensor<128xf32, [[PTR]]>):
// CHECK: %[[Y:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[F32]]>
// CHECK: %[[YC:.*]] = tile.convert_layout %[[Y]] {tile.implicit} : tensor<128xf32, [[F32]]> -> tensor<128xf32, [[PTR]]>
// CHECK: scf.yield %[[YC]] : tensor<128xf32, [[PTR]]>
func.func @if_while(%c: i1, %p: !tile.ptr<f32>, %f: f32) {
  %r = scf.if %c -> tensor<128xf32> {
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
    %v = tile.load %ps : tensor<128x!tile.ptr<f32>>
    scf.yield %v : tensor<128xf32>
  } else {
    %s = tile.splat %f : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  %w = scf.while (%x = %r) : (tensor<128xf32>) -> tensor<128xf32> {
    scf.condition(%c) %x : tensor<128xf32>
  } do {
  ^bb0(%x: tensor<128xf32>):
    %y = tile.splat %f : tensor<128xf32>
    scf.yield %y : tensor<128xf32>
  }
  return
}
