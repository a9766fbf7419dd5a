// RUN: kda-opt %s --split-input-file --tile-assign-layouts=num-warps=4 | FileCheck %s
// RUN: kda-opt %s --split-input-file --tile-assign-layouts=num-warps=4 --tile-remove-layout-conversions \
// RUN:   | FileCheck %s --check-prefix=CLEAN

// Each function has ONE default layout per rank: getDefaultBlockedLayout of
// the layout-less shape of that rank whose global accesses move the most
// bytes (with the widest element among its tiles), else of the function's
// largest layout-less tile of that rank (most elements; the first one on
// ties), with that tile's element width (up to 128 bits per
// thread along the fastest dimension, but no more elements than spread the
// tile over every thread; pointer tiles count their pointee's width, i1
// counts 8 bits). Every source of that rank gets it, whatever its own shape
// and element type: smaller tiles wrap around it. The module records the
// distribution.

// All 1-D tiles here have 128 elements, so the first one (the i32 range)
// decides: one element per thread (128 over 128 threads), for the f16,
// pointer and i1 tiles too.
// The only 2-D tile decides the 2-D default.

// CHECK: module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32}
// CHECK-LABEL: func.func @sources
// CHECK: tile.range 0, 128 : tensor<128xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tile.splat %{{.*}} : tensor<128xf16, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: arith.constant dense<0.000000e+00> : tensor<16x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: arith.constant dense<true> : tensor<128xi1, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
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
// CHECK: tile.range 0, 1024 : tensor<1024xi32, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>>
module attributes {tile.num_warps = 8 : i32, tile.wave_size = 64 : i32} {
  func.func @module_attrs() {
    %r = tile.range 0, 1024 : tensor<1024xi32>
    return
  }
}

// -----

// An elementwise op whose result is not cheap takes its group's layout: the
// add and the mul share a group with the reduction result %s, so both are in
// its slice, and the splat (cheap: it joins no group and keeps the default)
// is converted to it, once (the conversion is reused; inserted converts are
// marked tile.implicit). A cheap elementwise result (extf, cmpf and select
// of splats) takes its first tile operand's layout.

// CHECK-LABEL: func.func @elementwise
// CHECK: %[[Z:.*]] = arith.constant {{.*}} : tensor<16x128xf32, [[L2:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[1, 32\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: %[[S:.*]] = tile.reduce sum %[[Z]] {axis = 0 : i32} : tensor<16x128xf32, [[L2]]> -> tensor<128xf32, [[SL:#tile.slice<\{dim = 0, parent = .*}>]]>
// CHECK: %[[F:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[DEF:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: %[[FC:.*]] = tile.convert_layout %[[F]] {tile.implicit} : tensor<128xf32, [[DEF]]> -> tensor<128xf32, [[SL]]>
// CHECK-NOT: tile.convert_layout
// CHECK: arith.addf %[[FC]], %[[S]] : tensor<128xf32, [[SL]]>
// CHECK-NOT: tile.convert_layout
// CHECK: arith.mulf %[[S]], %[[FC]] : tensor<128xf32, [[SL]]>
// CHECK: %[[H:.*]] = tile.splat %{{.*}} : tensor<128xf16, [[DEF]]>
// CHECK: %[[E:.*]] = arith.extf %[[H]] : tensor<128xf16, [[DEF]]> to tensor<128xf32, [[DEF]]>
// CHECK: %[[CMP:.*]] = arith.cmpf olt, %[[E]], %[[F]] : tensor<128xf32, [[DEF]]>
// CHECK: arith.select %[[CMP]], %[[E]], %[[F]] : tensor<128xi1, [[DEF]]>, tensor<128xf32, [[DEF]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @elementwise(%h: f16, %f: f32) {
  %z = arith.constant dense<1.0> : tensor<16x128xf32>
  %s = tile.reduce sum %z {axis = 0 : i32} : tensor<16x128xf32> -> tensor<128xf32>
  %fs = tile.splat %f : tensor<128xf32>
  %a = arith.addf %fs, %s : tensor<128xf32>
  %b = arith.mulf %s, %fs : tensor<128xf32>
  %hs = tile.splat %h : tensor<128xf16>
  %e = arith.extf %hs : tensor<128xf16> to tensor<128xf32>
  %c = arith.cmpf olt, %e, %fs : tensor<128xf32>
  %x = arith.select %c, %e, %fs : tensor<128xi1>, tensor<128xf32>
  return
}

// -----

// A pointer tile is laid out for its pointee: a tile of !tile.ptr<f32> gets
// the same layout as an f32 tile of its shape (the width of the pointee, not
// of 64-bit addresses), so pointers, i32 offsets, the i1 mask, the
// loaded f32 values and the f32 tiles they meet share one layout: addptr,
// load, the arithmetic and the store need no conversion.

// CHECK-LABEL: func.func @pointer_and_f32_share
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>, [[L:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, [[L]]>
// CHECK: %[[Q:.*]] = tile.addptr %[[P]], %[[R]] : tensor<128x!tile.ptr<f32>, [[L]]>, tensor<128xi32, [[L]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : tensor<128xi32, [[L]]>
// CHECK: %[[V:.*]] = tile.load %[[Q]] mask %[[M]] : tensor<128x!tile.ptr<f32>, [[L]]>
// CHECK: %[[F:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[L]]>
// CHECK: %[[S:.*]] = arith.addf %[[V]], %[[F]] : tensor<128xf32, [[L]]>
// CHECK: tile.store %[[Q]], %[[S]] mask %[[M]] : tensor<128x!tile.ptr<f32>, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @pointer_and_f32_share(%p: !tile.ptr<f32>, %n: i32, %f: f32) {
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %r = tile.range 0, 128 : tensor<128xi32>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %v = tile.load %q mask %m : tensor<128x!tile.ptr<f32>>
  %fs = tile.splat %f : tensor<128xf32>
  %s = arith.addf %v, %fs : tensor<128xf32>
  tile.store %q, %s mask %m : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// The pointee's width, not the address width: !tile.ptr<f16> gives 8 per
// thread (128 / 16), as an f16 tile would.

// CHECK-LABEL: func.func @pointer_pointee_width
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<256x!tile.ptr<f16>, [[L:#tile.blocked<\{sizePerThread = \[2\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: %[[R:.*]] = tile.range 0, 256 : tensor<256xi32, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[Q:.*]] = tile.addptr %[[P]], %[[R]] : tensor<256x!tile.ptr<f16>, [[L]]>, tensor<256xi32, [[L]]>
// CHECK: tile.load %[[Q]] : tensor<256x!tile.ptr<f16>, [[L]]>
func.func @pointer_pointee_width(%p: !tile.ptr<f16>) {
  %ps = tile.splat %p : tensor<256x!tile.ptr<f16>>
  %r = tile.range 0, 256 : tensor<256xi32>
  %q = tile.addptr %ps, %r : tensor<256x!tile.ptr<f16>>, tensor<256xi32>
  %v = tile.load %q : tensor<256x!tile.ptr<f16>>
  return
}

// -----

// Layouts written in the input are never changed; ops fit around them.

#user = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#user2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: func.func @explicit_layouts_kept
// CHECK: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, [[USER:#tile.blocked<\{sizePerThread = \[2\][^>]*>]]>
// CHECK: %[[A:.*]] = arith.addi %[[R]], %[[R]] : tensor<128xi32, [[USER]]>
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : tensor<128xi32, [[DEF:#tile.blocked<\{sizePerThread = \[1\][^>]*>]]>
// CHECK: tile.convert_layout %[[S]] : tensor<128xi32, [[DEF]]> -> tensor<128xi32, [[USER]]>
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>, [[DEF]]>
// CHECK: %[[AC:.*]] = tile.convert_layout %[[A]] {tile.implicit} : tensor<128xi32, [[USER]]> -> tensor<128xi32, [[DEF]]>
// CHECK: tile.addptr %[[P]], %[[AC]] : tensor<128x!tile.ptr<f32>, [[DEF]]>, tensor<128xi32, [[DEF]]>
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

// Tiles written with a layout do not compete for the default: the only
// layout-less 1-D tile ([16] f16) decides the 1-D default even though a
// [1024] i32 tile with a written layout is larger.

#user = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @explicit_tiles_not_anchors
// CHECK: tile.range 0, 1024 : tensor<1024xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tile.splat %{{.*}} : tensor<16xf16, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @explicit_tiles_not_anchors(%h: f16) {
  %r = tile.range 0, 1024 : tensor<1024xi32, #user>
  %s = tile.splat %h : tensor<16xf16>
  return
}

// -----

// A reduction's result is the slice of its source layout; expanding a slice
// gives back its parent without a conversion. A tile expanded by expand_dims
// prefers the slice of the expanded result's layout (here the rank's
// default), so the range is created in it and needs no conversion either.
// Broadcasts keep the source layout. The 2-D default is made for [16, 64]
// f32 (the first of the two 1024-element tiles).

// CHECK-LABEL: func.func @reduce_expand_broadcast
// CHECK: %[[Z:.*]] = arith.constant {{.*}} : tensor<16x64xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: %[[S:.*]] = tile.reduce sum %[[Z]] {axis = 1 : i32} : tensor<16x64xf32, [[L]]> -> tensor<16xf32, #tile.slice<{dim = 1, parent = [[L]]}>>
// CHECK: %[[E:.*]] = tile.expand_dims %[[S]] {axis = 1 : i32} : tensor<16xf32, #tile.slice<{dim = 1, parent = [[L]]}>> -> tensor<16x1xf32, [[L]]>
// CHECK: tile.broadcast %[[E]] : tensor<16x1xf32, [[L]]> -> tensor<16x64xf32, [[L]]>
// CHECK: %[[R:.*]] = tile.range 0, 64 : tensor<64xi32, #tile.slice<{dim = 0, parent = [[L]]}>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims %[[R]] {axis = 0 : i32} : tensor<64xi32, #tile.slice<{dim = 0, parent = [[L]]}>> -> tensor<1x64xi32, [[L]]>
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

// Tiles that broadcast into each other share the rank's default, made for
// the largest one ([128, 128] f32): the [128, 1] and [1, 128] sources wrap
// around it, their broadcasts keep it, and the add needs no conversion.
// (Each shape's own default would lay [128, 1] out as 1 x 1 per thread,
// threads [32, 1], and the add would need a conversion.)

// CHECK-LABEL: func.func @broadcast_shares_layout
// CHECK: %[[A:.*]] = arith.constant dense<1.000000e+00> : tensor<128x1xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[1, 32\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: %[[B:.*]] = tile.splat %{{.*}} : tensor<1x128xf32, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[AB:.*]] = tile.broadcast %[[A]] : tensor<128x1xf32, [[L]]> -> tensor<128x128xf32, [[L]]>
// CHECK: %[[BB:.*]] = tile.broadcast %[[B]] : tensor<1x128xf32, [[L]]> -> tensor<128x128xf32, [[L]]>
// CHECK: arith.addf %[[AB]], %[[BB]] : tensor<128x128xf32, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @broadcast_shares_layout(%f: f32) {
  %a = arith.constant dense<1.0> : tensor<128x1xf32>
  %b = tile.splat %f : tensor<1x128xf32>
  %ab = tile.broadcast %a : tensor<128x1xf32> -> tensor<128x128xf32>
  %bb = tile.broadcast %b : tensor<1x128xf32> -> tensor<128x128xf32>
  %s = arith.addf %ab, %bb : tensor<128x128xf32>
  return
}

// -----

// The largest tile decides, not the first: the [16] f16 splat comes first
// but the [1024] f32 splat is larger, so both get its default (1024 over
// 128 threads: 8 per thread would fit 128 bits only for f16, so 4 x 32-bit;
// the [16] f16 tile's own default would be 1 per thread).

// CHECK-LABEL: func.func @largest_tile_decides
// CHECK: tile.splat %{{.*}} : tensor<16xf16, [[L:#tile.blocked<\{sizePerThread = \[4\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: tile.splat %{{.*}} : tensor<1024xf32, [[L]]>
func.func @largest_tile_decides(%h: f16, %f: f32) {
  %a = tile.splat %h : tensor<16xf16>
  %b = tile.splat %f : tensor<1024xf32>
  return
}

// -----

// The same in 2-D, one element width: [64, 64] f32 decides (threads
// [2, 16]; [16, 16]'s own default would have threads [8, 4]).

// CHECK-LABEL: func.func @largest_tile_decides_2d
// CHECK: tile.splat %{{.*}} : tensor<16x16xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: tile.splat %{{.*}} : tensor<64x64xf32, [[L]]>
func.func @largest_tile_decides_2d(%f: f32) {
  %a = tile.splat %f : tensor<16x16xf32>
  %b = tile.splat %f : tensor<64x64xf32>
  return
}

// -----

// On a tie in element count the first tile decides, with its shape and
// element width: [32, 32] f16 (8 per thread, threads [8, 4]), not
// [16, 64] f32 (4 per thread, threads [2, 16]).

// CHECK-LABEL: func.func @tie_first_decides
// CHECK: tile.splat %{{.*}} : tensor<32x32xf16, [[L:#tile.blocked<\{sizePerThread = \[1, 8\], threadsPerWarp = \[8, 4\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: tile.splat %{{.*}} : tensor<16x64xf32, [[L]]>
func.func @tie_first_decides(%h: f16, %f: f32) {
  %a = tile.splat %h : tensor<32x32xf16>
  %b = tile.splat %f : tensor<16x64xf32>
  return
}

// -----

// i1 tiles count 8 bits (masks are bytes in registers): a [1024] i1 mask as
// the largest tile gives 8 per thread (1024 over 128 threads; 128 bits would
// be 16), and the smaller i32 range and the comparison's i1 result share it.

// CHECK-LABEL: func.func @i1_decides
// CHECK: %[[M:.*]] = arith.constant dense<true> : tensor<1024xi1, [[L:#tile.blocked<\{sizePerThread = \[8\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32, [[L]]>
// CHECK: %[[N:.*]] = tile.splat %{{.*}} : tensor<128xi32, [[L]]>
// CHECK: arith.cmpi slt, %[[R]], %[[N]] : tensor<128xi32, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @i1_decides(%n: i32) {
  %m = arith.constant dense<true> : tensor<1024xi1>
  %r = tile.range 0, 128 : tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %c = arith.cmpi slt, %r, %ns : tensor<128xi32>
  return
}

// -----

// An i1 tile that is not the largest takes the default of the tile that is:
// the [32, 64] comparison result uses the [32, 64] f32 layout (4 per
// thread), not what an i1 tile would decide. A pointer to i1 counts 8 bits
// too.

// CHECK-LABEL: func.func @i1_follows
// CHECK: %[[X:.*]] = tile.splat %{{.*}} : tensor<32x64xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: %[[Y:.*]] = arith.constant dense<0.000000e+00> : tensor<32x64xf32, [[L]]>
// CHECK: arith.cmpf olt, %[[X]], %[[Y]] : tensor<32x64xf32, [[L]]>
// CHECK: tile.splat %{{.*}} : tensor<256x!tile.ptr<i1>, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @i1_follows(%f: f32, %p: !tile.ptr<i1>) {
  %x = tile.splat %f : tensor<32x64xf32>
  %y = arith.constant dense<0.0> : tensor<32x64xf32>
  %c = arith.cmpf olt, %x, %y : tensor<32x64xf32>
  %ps = tile.splat %p : tensor<256x!tile.ptr<i1>>
  return
}

// -----

// A load's result takes its group's layout and its pointers, mask and other
// are converted to it; stores keep the value's layout and move pointers and
// mask to it. Here the pointers, mask and other are cheap (they join no
// group) and the loaded tile's group prefers the 2-D default (made for
// [16, 64] f32 pointees), which they have too: no conversion. The stored
// value is a reduction's slice; the 1-D pointers (cheap, the 1-D default)
// are converted to it.

// CHECK-LABEL: func.func @load_store
// CHECK: %[[P:.*]] = tile.splat %{{.*}} : tensor<16x64x!tile.ptr<f32>, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: %[[M:.*]] = arith.constant dense<true> : tensor<16x64xi1, [[L]]>
// CHECK: %[[O:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[V:.*]] = tile.load %[[P]] mask %[[M]] other %[[O]] : tensor<16x64x!tile.ptr<f32>, [[L]]>
// CHECK: %[[S:.*]] = tile.reduce sum %[[V]] {axis = 0 : i32} : tensor<16x64xf32, [[L]]> -> tensor<64xf32, [[SL:#tile.slice<\{dim = 0, parent = .*}>]]>
// CHECK: %[[Q:.*]] = tile.splat %{{.*}} : tensor<64x!tile.ptr<f32>, [[QL:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
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

// Dot: accumulator and result take the rank's default; a and b keep theirs.
// The 2-D default here is made for the largest tile, [16, 32] bf16 (the
// first of the two 512-element operands): 4 per thread (512 elements over
// 128 threads), which the f32 accumulator shares, so it needs no conversion. Reshape results get the
// default of their rank.

// CHECK-LABEL: func.func @dot_reshape
// CHECK: %[[A:.*]] = tile.splat %{{.*}} : tensor<16x32xbf16, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[4, 8\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: %[[B:.*]] = tile.splat %{{.*}} : tensor<32x16xbf16, [[L]]>
// CHECK: %[[C:.*]] = tile.splat %{{.*}} : tensor<16x16xf32, [[L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.dot %[[A]], %[[B]], %[[C]] : tensor<16x32xbf16, [[L]]>, tensor<32x16xbf16, [[L]]> -> tensor<16x16xf32, [[L]]>
// CHECK: tile.reshape %{{.*}} : tensor<16x16xf32, [[L]]> -> tensor<256xf32, #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
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
// are converted back. Here the accumulator enters as a reduction's slice,
// the pointers in the 1-D default.
//
// In the body, the carried accumulator and the carried pointers are both tied
// to the load's group (addf, load). Their entering layouts were given by the
// walk, not written in the input, so no rule 1 applies and the group takes
// the default; the accumulator is converted to it, the yield back to the
// slice. (Groups used to be resolved with the walk's layouts counted as
// written, in hash order, so the body came out in either layout from run to
// run: these checks pin it.)

// CHECK-LABEL: func.func @for_loop
// CHECK: %[[Z:.*]] = tile.reduce sum %{{.*}} {axis = 0 : i32} : {{.*}} -> tensor<128xf32, [[SL:#tile.slice<\{dim = 0, parent = .*}>]]>
// CHECK: %[[P0:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>, [[DEF:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>, tensor<128xi32, [[DEF]]>
// CHECK: %[[RES:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]], %[[PT:.*]] = %[[P0]]) -> (tensor<128xf32, [[SL]]>, tensor<128x!tile.ptr<f32>, [[DEF]]>)
// CHECK: %[[V:.*]] = tile.load %[[PT]] : tensor<128x!tile.ptr<f32>, [[DEF]]>
// CHECK: %[[AC:.*]] = tile.convert_layout %[[ACC]] {tile.implicit} : tensor<128xf32, [[SL]]> -> tensor<128xf32, [[DEF]]>
// CHECK: arith.addf %[[AC]], %[[V]] : tensor<128xf32, [[DEF]]>
// CHECK: %[[E:.*]] = math.exp %[[V]] : tensor<128xf32, [[DEF]]>
// CHECK: %[[EC:.*]] = tile.convert_layout %[[E]] {tile.implicit} : tensor<128xf32, [[DEF]]> -> tensor<128xf32, [[SL]]>
// CHECK: scf.yield %[[EC]], %{{.*}} : tensor<128xf32, [[SL]]>, tensor<128x!tile.ptr<f32>, [[DEF]]>
// CHECK: tile.reduce sum %[[RES]]#0 {axis = 0 : i32} : tensor<128xf32, [[SL]]> -> f32
func.func @for_loop(%p: !tile.ptr<f32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z2 = arith.constant dense<0.0> : tensor<4x128xf32>
  %z = tile.reduce sum %z2 {axis = 0 : i32} : tensor<4x128xf32> -> tensor<128xf32>
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
// scf.while carries the entering layouts through both regions. The
// then-branch yields a reduction's slice; the splats get the 1-D default and
// are converted to it.

// CHECK-LABEL: func.func @if_while
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<128xf32, [[SL:#tile.slice<\{dim = 0, parent = .*}>]]>)
// CHECK: scf.yield %{{.*}} : tensor<128xf32, [[SL]]>
// CHECK: } else {
// CHECK: %[[E:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[DEF:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: %[[EC:.*]] = tile.convert_layout %[[E]] {tile.implicit} : tensor<128xf32, [[DEF]]> -> tensor<128xf32, [[SL]]>
// CHECK: scf.yield %[[EC]] : tensor<128xf32, [[SL]]>
// CHECK: scf.while (%[[W:.*]] = %[[IF]]) : (tensor<128xf32, [[SL]]>) -> tensor<128xf32, [[SL]]>
// CHECK: scf.condition(%{{.*}}) %[[W]] : tensor<128xf32, [[SL]]>
// CHECK: ^bb0(%[[X:.*]]: tensor<128xf32, [[SL]]>):
// CHECK: %[[Y:.*]] = tile.splat %{{.*}} : tensor<128xf32, [[DEF]]>
// CHECK: %[[YC:.*]] = tile.convert_layout %[[Y]] {tile.implicit} : tensor<128xf32, [[DEF]]> -> tensor<128xf32, [[SL]]>
// CHECK: scf.yield %[[YC]] : tensor<128xf32, [[SL]]>
func.func @if_while(%c: i1, %f: f32) {
  %r = scf.if %c -> tensor<128xf32> {
    %z = arith.constant dense<1.0> : tensor<4x128xf32>
    %v = tile.reduce sum %z {axis = 0 : i32} : tensor<4x128xf32> -> tensor<128xf32>
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

// -----

// A range shared by two loads whose results need different slices: the
// range is cheap and joins no group, so it does not tie the loads together.
// Each loaded tile is expanded (axis 0 and axis 1) into the group of the
// [64, 64] add, which prefers the 2-D default L, so each load's result is
// its own slice of L and is expanded without a conversion; only the cheap
// pointers are converted (to each slice), and the clean-up rematerializes
// the range, splats and addptrs in each slice, leaving no conversion.

// CHECK-LABEL: func.func @range_shared_by_loads
// CHECK: %[[R:.*]] = tile.range 0, 64 : tensor<64xi32, [[DEF:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: %[[QA:.*]] = tile.addptr %{{.*}}, %[[R]] : tensor<64x!tile.ptr<f32>, [[DEF]]>
// CHECK: %[[QAC:.*]] = tile.convert_layout %[[QA]] {tile.implicit} : tensor<64x!tile.ptr<f32>, [[DEF]]> -> tensor<64x!tile.ptr<f32>, [[S0:#tile.slice<\{dim = 0, parent = (#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>)\}>]]>
// CHECK: %[[VA:.*]] = tile.load %[[QAC]] : tensor<64x!tile.ptr<f32>, [[S0]]>
// CHECK: %[[QB:.*]] = tile.addptr %{{.*}}, %[[R]] : tensor<64x!tile.ptr<f32>, [[DEF]]>
// CHECK: %[[QBC:.*]] = tile.convert_layout %[[QB]] {tile.implicit} : tensor<64x!tile.ptr<f32>, [[DEF]]> -> tensor<64x!tile.ptr<f32>, [[S1:#tile.slice<\{dim = 1, parent = #tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>\}>]]>
// CHECK: %[[VB:.*]] = tile.load %[[QBC]] : tensor<64x!tile.ptr<f32>, [[S1]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims %[[VA]] {axis = 0 : i32} : tensor<64xf32, [[S0]]> -> tensor<1x64xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: tile.expand_dims %[[VB]] {axis = 1 : i32} : tensor<64xf32, [[S1]]> -> tensor<64x1xf32, [[L]]>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<64x64xf32, [[L]]>
// CHECK: return

// CLEAN-LABEL: func.func @range_shared_by_loads
// CLEAN-NOT: tile.convert_layout
// CLEAN-DAG: %[[R0:.*]] = tile.range 0, 64 : tensor<64xi32, [[S0:#tile.slice<\{dim = 0, parent = [^>]*>}>]]>
// CLEAN-DAG: %[[R1:.*]] = tile.range 0, 64 : tensor<64xi32, [[S1:#tile.slice<\{dim = 1, parent = [^>]*>}>]]>
// CLEAN-NOT: tile.convert_layout
// CLEAN: %[[QA:.*]] = tile.addptr %{{.*}}, %[[R0]] : tensor<64x!tile.ptr<f32>, [[S0]]>
// CLEAN: tile.load %[[QA]] : tensor<64x!tile.ptr<f32>, [[S0]]>
// CLEAN: %[[QB:.*]] = tile.addptr %{{.*}}, %[[R1]] : tensor<64x!tile.ptr<f32>, [[S1]]>
// CLEAN: tile.load %[[QB]] : tensor<64x!tile.ptr<f32>, [[S1]]>
// CLEAN-NOT: tile.convert_layout
// CLEAN: return
func.func @range_shared_by_loads(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %o: !tile.ptr<f32>) {
  %r = tile.range 0, 64 : tensor<64xi32>
  %pa = tile.splat %a : tensor<64x!tile.ptr<f32>>
  %qa = tile.addptr %pa, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %va = tile.load %qa : tensor<64x!tile.ptr<f32>>
  %pb = tile.splat %b : tensor<64x!tile.ptr<f32>>
  %qb = tile.addptr %pb, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %vb = tile.load %qb : tensor<64x!tile.ptr<f32>>
  %ea = tile.expand_dims %va {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %eb = tile.expand_dims %vb {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %ba = tile.broadcast %ea : tensor<1x64xf32> -> tensor<64x64xf32>
  %bb = tile.broadcast %eb : tensor<64x1xf32> -> tensor<64x64xf32>
  %s = arith.addf %ba, %bb : tensor<64x64xf32>
  %po = tile.splat %o : tensor<64x64x!tile.ptr<f32>>
  tile.store %po, %s : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A load whose result feeds expand_dims: the loaded tile's group prefers the
// slice of the expanded result's layout (the 2-D default, made for
// [32, 64] f32), so the load produces the slice and the expand needs no
// conversion; the cheap pointers are converted to the slice instead.

// CHECK-LABEL: func.func @load_expanded
// CHECK: %[[Q:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<f32>, [[DEF:#tile.blocked<\{sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\], order = \[0\]\}>]]>
// CHECK: %[[QC:.*]] = tile.convert_layout %[[Q]] {tile.implicit} : tensor<32x!tile.ptr<f32>, [[DEF]]> -> tensor<32x!tile.ptr<f32>, [[S1:#tile.slice<\{dim = 1, parent = (#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>)\}>]]>
// CHECK: %[[V:.*]] = tile.load %[[QC]] : tensor<32x!tile.ptr<f32>, [[S1]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[E:.*]] = tile.expand_dims %[[V]] {axis = 1 : i32} : tensor<32xf32, [[S1]]> -> tensor<32x1xf32, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[2, 16\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: tile.broadcast %[[E]] : tensor<32x1xf32, [[L]]> -> tensor<32x64xf32, [[L]]>
// CHECK: return
func.func @load_expanded(%p: !tile.ptr<f32>) {
  %r = tile.range 0, 32 : tensor<32xi32>
  %ps = tile.splat %p : tensor<32x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %v = tile.load %q : tensor<32x!tile.ptr<f32>>
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %b = tile.broadcast %e : tensor<32x1xf32> -> tensor<32x64xf32>
  return
}

// -----

// A group with a reduction result and a load: the add ties the loaded tile
// to the row sums %s, so the group prefers the reduction's slice and the
// load adopts it: neither the loaded tile nor the reduction result is
// converted. Only the cheap pointers are (once, reused by the store).

// CHECK-LABEL: func.func @reduction_and_load
// CHECK: %[[S:.*]] = tile.reduce sum %{{.*}} {axis = 0 : i32} : tensor<16x64xf32, [[L:#tile.blocked<[^>]*>]]> -> tensor<64xf32, [[SL:#tile.slice<\{dim = 0, parent = #tile.blocked<[^>]*>\}>]]>
// CHECK: %[[Q:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>, [[DEF:#tile.blocked<\{sizePerThread = \[1\][^>]*>]]>
// CHECK: %[[QC:.*]] = tile.convert_layout %[[Q]] {tile.implicit} : tensor<64x!tile.ptr<f32>, [[DEF]]> -> tensor<64x!tile.ptr<f32>, [[SL]]>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[V:.*]] = tile.load %[[QC]] : tensor<64x!tile.ptr<f32>, [[SL]]>
// CHECK: %[[A:.*]] = arith.addf %[[V]], %[[S]] : tensor<64xf32, [[SL]]>
// CHECK: tile.store %[[QC]], %[[A]] : tensor<64x!tile.ptr<f32>, [[SL]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @reduction_and_load(%p: !tile.ptr<f32>) {
  %x = arith.constant dense<1.0> : tensor<16x64xf32>
  %s = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32> -> tensor<64xf32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %ps = tile.splat %p : tensor<64x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %q : tensor<64x!tile.ptr<f32>>
  %a = arith.addf %v, %s : tensor<64xf32>
  tile.store %q, %a : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// The 2-D default follows the shape that moves the most bytes through global
// memory, not the largest tile: a [128, 32] block loaded and stored twice
// (64 KiB) outweighs a [128, 128] bf16 weight loaded once (32 KiB), so the
// block gets 8 lanes across its 32 columns (no lane holds a copy) and the
// weight wraps around that layout. With the largest tile deciding, the block
// took the weight's 32 lanes x 4 columns: each element on 4 lanes. The
// block's f32 math sets the width (4 elements per thread) for the bf16
// weight's pointers too.
// CHECK-LABEL: func.func @anchor_by_traffic
// CHECK: tile.load %{{.*}} : tensor<128x128x!tile.ptr<bf16>, [[L:#tile.blocked<\{sizePerThread = \[1, 4\], threadsPerWarp = \[4, 8\], warpsPerCTA = \[4, 1\], order = \[1, 0\]\}>]]>
// CHECK: tile.load %{{.*}} : tensor<128x32x!tile.ptr<f32>, [[L]]>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<128x32x!tile.ptr<f32>, [[L]]>
// CHECK: tile.load %{{.*}} : tensor<128x32x!tile.ptr<f32>, [[L]]>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<128x32x!tile.ptr<f32>, [[L]]>
func.func @anchor_by_traffic(%pw: !tile.ptr<bf16>, %ps: !tile.ptr<f32>) {
  %w = tile.splat %pw : tensor<128x128x!tile.ptr<bf16>>
  %s = tile.splat %ps : tensor<128x32x!tile.ptr<f32>>
  %x = tile.load %w : tensor<128x128x!tile.ptr<bf16>>
  %a = tile.load %s : tensor<128x32x!tile.ptr<f32>>
  %b = arith.addf %a, %a : tensor<128x32xf32>
  tile.store %s, %b : tensor<128x32x!tile.ptr<f32>>
  %c = tile.load %s : tensor<128x32x!tile.ptr<f32>>
  tile.store %s, %c : tensor<128x32x!tile.ptr<f32>>
  return
}

// -----

// A traffic anchor's width comes from the elements its accesses move and its
// float tiles compute on, not from index tiles: a bf16 copy with i32 offsets
// keeps 8 bf16 (16 bytes) per thread.
// CHECK-LABEL: func.func @anchor_width_ignores_offsets
// CHECK: tile.load %{{.*}} : tensor<64x64x!tile.ptr<bf16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @anchor_width_ignores_offsets(%src: !tile.ptr<bf16>, %dst: !tile.ptr<bf16>) {
  %off = arith.constant dense<0> : tensor<64x64xi32>
  %ps = tile.splat %src : tensor<64x64x!tile.ptr<bf16>>
  %p = tile.addptr %ps, %off : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %x = tile.load %p : tensor<64x64x!tile.ptr<bf16>>
  %qs = tile.splat %dst : tensor<64x64x!tile.ptr<bf16>>
  %q = tile.addptr %qs, %off : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  tile.store %q, %x : tensor<64x64x!tile.ptr<bf16>>
  return
}
