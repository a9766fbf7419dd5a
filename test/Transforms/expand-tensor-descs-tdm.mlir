// RUN: kda-opt %s --split-input-file --tile-expand-tensor-descs=engine=tdm | FileCheck %s

// Copies gfx1250's Tensor Data Mover does stay: offsets from program ids,
// constants and their sums and products, a loop counter from 0, and a value
// an enclosing scf.if tested for >= 0.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tile.async_copy
// CHECK: tile.make_tensor_desc
// CHECK: tile.async_load
// CHECK: tile.async_load
// CHECK: tile.async_store
// CHECK-NOT: tile.async_copy
func.func @kept(%base: !tile.ptr<bf16>, %m: i32, %ld: i64, %slot: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  %pid = tile.program_id 0
  %row = arith.muli %pid, %c32 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %col = arith.addi %i, %row : i32
    tile.async_load %d[%row, %col], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  }
  %live = arith.cmpi sge, %slot, %c0 : i32
  %below = arith.cmpi slt, %slot, %m : i32
  %ok = arith.andi %live, %below : i1
  scf.if %ok {
    tile.async_load %d[%slot, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
    tile.async_store %d[%slot, %row], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  }
  return
}

// -----

// An offset that may be negative, a strided last dimension and a swizzled
// buffer copy elements.
#sw = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: func.func @expanded
// CHECK-NOT: tile.async_load
// CHECK-COUNT-3: tile.async_copy
// CHECK-NOT: tile.async_load
func.func @expanded(%base: !tile.ptr<f32>, %m: i32, %ld: i64, %i: i32, %s: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<16x32xf32>
  %swizzled = tile.alloc_shared : !tile.smem<16x32xf32, #sw>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<f32> -> !tile.tensor_desc<16x32xf32>
  tile.async_load %d[%i, %c0], %buf : !tile.tensor_desc<16x32xf32>, !tile.smem<16x32xf32>
  %strided = tile.make_tensor_desc %base, [%m, %m], [%ld, %s] : !tile.ptr<f32> -> !tile.tensor_desc<16x32xf32>
  tile.async_load %strided[%c0, %c0], %buf : !tile.tensor_desc<16x32xf32>, !tile.smem<16x32xf32>
  tile.async_load %d[%c0, %c0], %swizzled : !tile.tensor_desc<16x32xf32>, !tile.smem<16x32xf32, #sw>
  return
}

// -----

// The engine pads a load into a padded buffer of whole dwords (8 bf16 rows of
// 64 plus 2 elements: 32 dwords, then 1); it cannot pad a store, 1 bf16 of
// padding is half a dword, and a 512-dword interval is past its 256.
#pad = #tile.padded_shared<{interval = 64, padding = 2, order = [1, 0]}>
#half = #tile.padded_shared<{interval = 64, padding = 1, order = [1, 0]}>
#wide = #tile.padded_shared<{interval = 1024, padding = 2, order = [1, 0]}>
// CHECK-LABEL: func.func @padded
// CHECK: tile.async_load %{{.*}} : !tile.tensor_desc<8x64xbf16>, !tile.smem<8x64xbf16, #tile.padded_shared<{interval = 64, padding = 2, order = [1, 0]}>>
// CHECK-COUNT-2: tile.async_copy
// CHECK-NOT: tile.async_load
// CHECK: tile.store
func.func @padded(%base: !tile.ptr<bf16>, %m: i32, %ld: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<8x64xbf16, #pad>
  %half = tile.alloc_shared : !tile.smem<8x64xbf16, #half>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<8x64xbf16>
  tile.async_load %d[%c0, %c0], %buf : !tile.tensor_desc<8x64xbf16>, !tile.smem<8x64xbf16, #pad>
  tile.async_load %d[%c0, %c0], %half : !tile.tensor_desc<8x64xbf16>, !tile.smem<8x64xbf16, #half>
  %wbuf = tile.alloc_shared : !tile.smem<8x1024xbf16, #wide>
  %w = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<8x1024xbf16>
  tile.async_load %w[%c0, %c0], %wbuf : !tile.tensor_desc<8x1024xbf16>, !tile.smem<8x1024xbf16, #wide>
  tile.async_store %d[%c0, %c0], %buf : !tile.tensor_desc<8x64xbf16>, !tile.smem<8x64xbf16, #pad>
  return
}
