// RUN: kda-opt %s --split-input-file --tile-assign-layouts --verify-diagnostics

// expected-error @below {{tile-assign-layouts: tile arguments and results need an explicit layout (inline callees first), got 'tensor<128xf32>'}}
func.func @tile_argument(%x: tensor<128xf32>) {
  return
}

// -----

// expected-error @below {{tile-assign-layouts: num_warps (3) and wave_size (32) must be powers of two}}
module attributes {tile.num_warps = 3 : i32} {
  func.func @bad_warps() {
    return
  }
}

// -----

func.func @unknown_op(%x: f32) {
  // expected-error @below {{'tensor.empty' op tile-assign-layouts: no rule gives a layout to 'tensor<128xf32>'}}
  %e = tensor.empty() : tensor<128xf32>
  return
}
