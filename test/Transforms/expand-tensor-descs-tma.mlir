// RUN: kda-opt %s --split-input-file --tile-expand-tensor-descs=engine=tma | FileCheck %s

// The tensor memory accelerator copies a kernel's blocks when the host can
// build the tensor map: the base is a kernel argument known to be 16-byte
// aligned, the shape and strides are computed from kernel arguments, and
// every stride but the last is a multiple of 16 bytes. The recipe:
// [element bytes 2, rank 2, base argument 0, block 32 64, shape m (argument
// 1) and 2 * n (argument 2 times 2), stride ld (argument 3 extended)].
// Load offsets may have any sign (the engine fills zeros outside), store
// offsets are known non-negative, and the innermost is a known multiple of
// 16 bytes (the engine faults on others); a store's rows are whole 16-byte
// units (2 * n elements of 2 bytes, n a multiple of 4).
// CHECK-LABEL: func.func @kept
// CHECK: tile.make_tensor_desc {{.*}} {kda.tensor_map = array<i64: 2, 2, 0, 0, 32, 64, 2, 1, 1, 5, 1, 2, 0, 2, 4, 2, 1, 3>}
// CHECK-NOT: tile.async_copy
// CHECK: tile.async_load
// CHECK: tile.async_store
func.func @kept(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %m: i32, %n: i32 {tile.divisibility = 4 : i64}, %ld: i32 {tile.divisibility = 8 : i64}, %i: i32) attributes {tile.kernel} {
  %c2 = arith.constant 2 : i32
  %one = arith.constant 1 : i64
  %cols = arith.muli %n, %c2 : i32
  %ld64 = arith.extsi %ld : i32 to i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %cols], [%ld64, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  %neg = arith.subi %c2, %i : i32
  %c8 = arith.constant 8 : i32
  %col = arith.muli %i, %c8 : i32
  tile.async_load %d[%neg, %col], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  %pid = tile.program_id 0
  %pcol = arith.muli %pid, %c8 : i32
  tile.async_store %d[%pid, %pcol], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  return
}

// -----

// Element copies: a base not known to be aligned, a stride not known to be
// whole 16 bytes, a shape read from memory, a row of 4 bf16 (8 bytes), a
// swizzled buffer, an innermost offset not known to be 16 bytes, a block
// of 512 columns (TMA boxes take at most 256 per dimension), and a function
// that is not a kernel.
#sw = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: func.func @expanded
// CHECK-NOT: kda.tensor_map
// CHECK-COUNT-7: tile.async_copy
// CHECK-NOT: tile.async_load
func.func @expanded(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %loose: !tile.ptr<bf16>, %m: i32, %ld: i64 {tile.divisibility = 8 : i64}, %odd: i64, %sizes: !tile.ptr<i32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<16x64xbf16>
  %a = tile.make_tensor_desc %loose, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x64xbf16>
  tile.async_load %a[%c0, %c0], %buf : !tile.tensor_desc<16x64xbf16>, !tile.smem<16x64xbf16>
  %b = tile.make_tensor_desc %base, [%m, %m], [%odd, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x64xbf16>
  tile.async_load %b[%c0, %c0], %buf : !tile.tensor_desc<16x64xbf16>, !tile.smem<16x64xbf16>
  %size = tile.load %sizes : !tile.ptr<i32>
  %c = tile.make_tensor_desc %base, [%size, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x64xbf16>
  tile.async_load %c[%c0, %c0], %buf : !tile.tensor_desc<16x64xbf16>, !tile.smem<16x64xbf16>
  %narrow = tile.alloc_shared : !tile.smem<16x4xbf16>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x4xbf16>
  tile.async_load %d[%c0, %c0], %narrow : !tile.tensor_desc<16x4xbf16>, !tile.smem<16x4xbf16>
  %swizzled = tile.alloc_shared : !tile.smem<16x64xbf16, #sw>
  %e = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x64xbf16>
  tile.async_load %e[%c0, %c0], %swizzled : !tile.tensor_desc<16x64xbf16>, !tile.smem<16x64xbf16, #sw>
  %c4 = arith.constant 4 : i32
  %f = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<16x64xbf16>
  tile.async_load %f[%c0, %c4], %buf : !tile.tensor_desc<16x64xbf16>, !tile.smem<16x64xbf16>
  %wide = tile.alloc_shared : !tile.smem<2x512xbf16>
  %g = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<2x512xbf16>
  tile.async_load %g[%c0, %c0], %wide : !tile.tensor_desc<2x512xbf16>, !tile.smem<2x512xbf16>
  return
}

// -----

// Stores at an offset of unknown sign (TMA stores fault at negative
// coordinates) or into rows not known to be whole 16-byte units store
// elements.
// CHECK-LABEL: func.func @element_stores
// CHECK-NOT: kda.tensor_map
// CHECK-COUNT-2: tile.store
func.func @element_stores(%base: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %m: i32 {tile.divisibility = 4 : i64}, %n: i32, %i: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i64
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<8x64xf32>
  %d = tile.make_tensor_desc %base, [%m, %m], [%c64, %one] : !tile.ptr<f32> -> !tile.tensor_desc<8x64xf32>
  tile.async_store %d[%i, %c0], %buf : !tile.tensor_desc<8x64xf32>, !tile.smem<8x64xf32>
  %e = tile.make_tensor_desc %base, [%m, %n], [%c64, %one] : !tile.ptr<f32> -> !tile.tensor_desc<8x64xf32>
  tile.async_store %e[%c0, %c0], %buf : !tile.tensor_desc<8x64xf32>, !tile.smem<8x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @helper
// CHECK-NOT: kda.tensor_map
// CHECK: tile.async_copy
func.func @helper(%base: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i64
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<8x4xf32>
  %d = tile.make_tensor_desc %base, [%m, %m], [%c4, %one] : !tile.ptr<f32> -> !tile.tensor_desc<8x4xf32>
  tile.async_load %d[%c0, %c0], %buf : !tile.tensor_desc<8x4xf32>, !tile.smem<8x4xf32>
  return
}

// -----

// Into an nvmma_shared buffer TMA copies one column block at a time with the
// layout's swizzle: a 64x128 bf16 block into a 128-byte-swizzled buffer is
// boxes of [64, 64] (128-byte rows), swizzle 128 in the recipe. A 32-byte
// swizzle of bf16 (16 columns) fits the same way; a swizzled buffer whose
// leading dimension is not 1 and whose block spans two column blocks cannot
// be boxed contiguously, and copies elements.
#nv128 = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#nv32 = #tile.nvmma_shared<{swizzleBytes = 32, elementBits = 16}>
// CHECK-LABEL: func.func @swizzled
// CHECK: tile.make_tensor_desc {{.*}} {kda.tensor_map = array<i64: 2, 2, 0, 128, 64, 64, 2, 1, 1, 2, 1, 2, 2, 1, 3>}
// CHECK: tile.make_tensor_desc {{.*}} {kda.tensor_map = array<i64: 2, 2, 0, 32, 64, 16, 2, 1, 1, 2, 1, 2, 2, 1, 3>}
// CHECK-COUNT-1: tile.async_copy
// CHECK-NOT: tile.async_copy
func.func @swizzled(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %m: i32, %n: i32,
                    %ld: i64 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %a = tile.alloc_shared : !tile.smem<64x128xbf16, #nv128>
  %d = tile.make_tensor_desc %base, [%m, %n], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<64x128xbf16>
  tile.async_load %d[%c0, %c0], %a : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16, #nv128>
  %b = tile.alloc_shared : !tile.smem<64x32xbf16, #nv32>
  %e = tile.make_tensor_desc %base, [%m, %n], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<64x32xbf16>
  tile.async_load %e[%c0, %c0], %b : !tile.tensor_desc<64x32xbf16>, !tile.smem<64x32xbf16, #nv32>
  %c = tile.alloc_shared : !tile.smem<2x8x128xbf16, #nv128>
  %f = tile.make_tensor_desc %base, [%m, %m, %n], [%ld, %ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<2x8x128xbf16>
  tile.async_load %f[%c0, %c0, %c0], %c : !tile.tensor_desc<2x8x128xbf16>, !tile.smem<2x8x128xbf16, #nv128>
  return
}

// -----

// A descriptor marked for element copies (kt.make_tensor_descriptor(
// copies="elements")) gets no tensor map: its copies are expanded though
// TMA could take them.
// CHECK-LABEL: func.func @elements
// CHECK-NOT: kda.tensor_map
// CHECK: tile.async_copy
// CHECK-NOT: tile.async_load
func.func @elements(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %m: i32, %n: i32, %ld: i32 {tile.divisibility = 8 : i64}) attributes {tile.kernel} {
  %one = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %ld64 = arith.extsi %ld : i32 to i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %n], [%ld64, %one] {tile.element_copies} : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %d[%c0, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  return
}
