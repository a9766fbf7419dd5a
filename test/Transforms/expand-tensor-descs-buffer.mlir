// RUN: kda-opt %s --split-input-file --tile-expand-tensor-descs=engine=buffer | FileCheck %s

// gfx950's buffer engine keeps a copy with the widest lane width proved
// aligned: 16 bytes when the base, the row stride, the innermost offset and
// the innermost dimension are known multiples of 16 bytes; 4 bytes when the
// innermost dimension is only known even (bf16); the copy records it.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tile.async_copy
// CHECK: tile.async_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {kda.copy_vector_bytes = 16 : i64}
// CHECK: tile.async_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {kda.copy_vector_bytes = 16 : i64}
// CHECK: tile.async_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {kda.copy_vector_bytes = 4 : i64}
// CHECK-NOT: tile.async_copy
func.func @kept(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                %m: i32 {tile.divisibility = 16 : i32}, %ld: i64 {tile.divisibility = 16 : i32},
                %even: i32 {tile.divisibility = 2 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  %pid = tile.program_id 0
  %row = arith.muli %pid, %c32 : i32
  tile.async_load %d[%row, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  tile.async_store %d[%row, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  %e = tile.make_tensor_desc %base, [%m, %even], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %e[%row, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  return
}

// -----

// Copies the engine cannot do copy elements: an offset that may be negative,
// a base of unknown alignment, an innermost dimension that may be odd (a
// lane's 4 bytes could straddle the tensor's end), and a padded buffer.
#pad = #tile.padded_shared<{interval = 64, padding = 4, order = [1, 0]}>
// CHECK-LABEL: func.func @expanded
// CHECK-NOT: kda.copy_vector_bytes
// CHECK-COUNT-4: tile.async_copy
// CHECK-NOT: tile.async_load
func.func @expanded(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %any: !tile.ptr<bf16>,
                    %m: i32 {tile.divisibility = 16 : i32}, %odd: i32,
                    %ld: i64 {tile.divisibility = 16 : i32}, %i: i32) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %padded = tile.alloc_shared : !tile.smem<32x64xbf16, #pad>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %d[%i, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  %u = tile.make_tensor_desc %any, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %u[%c0, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  %o = tile.make_tensor_desc %base, [%m, %odd], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %o[%c0, %c0], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  tile.async_load %d[%c0, %c0], %padded : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16, #pad>
  return
}
