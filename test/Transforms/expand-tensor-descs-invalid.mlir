// RUN: kda-opt %s --tile-expand-tensor-descs -verify-diagnostics

// The portable copies need the descriptor's base, shape and strides: a
// descriptor that is not made in the function (a function argument here)
// cannot be expanded.
func.func @argument(%d: !tile.tensor_desc<8xf32>, %i: i32) {
  %buf = tile.alloc_shared : !tile.smem<8xf32>
  // expected-error @below {{needs a descriptor made by tile.make_tensor_desc in the same function}}
  tile.async_load %d[%i], %buf : !tile.tensor_desc<8xf32>, !tile.smem<8xf32>
  return
}
