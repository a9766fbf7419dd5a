// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file -verify-diagnostics

// Inputs convert-tile-to-cpu rejects.

// Kernel arguments are passed by value through an argument array: tiles
// cannot be.
// expected-error @below {{'func.func' op kernel argument #0 has type 'tensor<4xf32>'; kernels take scalars and pointers only}}
func.func @kernel_tile_arg(%x: tensor<4xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op kernel argument #1 has type 'tensor<4x!tile.ptr<f32>>'; kernels take scalars and pointers only}}
func.func @kernel_pointer_tile_arg(%p: !tile.ptr<f32>, %x: tensor<4x!tile.ptr<f32>>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op kernel argument #0 has type 'index'; kernels take scalars and pointers only}}
func.func @kernel_index_arg(%i: index) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op kernels return nothing}}
func.func @kernel_result(%p: !tile.ptr<f32>) -> i32 attributes {tile.kernel} {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

// Program ids and counts come from the launch grid, which only kernels have.
func.func @program_id_outside_kernel() -> i32 {
  // expected-error @below {{'tile.program_id' op needs a grid: use it in a 'tile.kernel' function}}
  %0 = tile.program_id 0
  return %0 : i32
}

// -----

func.func @num_programs_outside_kernel() -> i32 {
  // expected-error @below {{'tile.num_programs' op needs a grid: use it in a 'tile.kernel' function}}
  %0 = tile.num_programs 2
  return %0 : i32
}

// -----

// Also when nested in a region.
func.func @program_id_nested_outside_kernel(%c: i1) -> i32 {
  %r = scf.if %c -> i32 {
    // expected-error @below {{'tile.program_id' op needs a grid: use it in a 'tile.kernel' function}}
    %0 = tile.program_id 1
    scf.yield %0 : i32
  } else {
    %z = arith.constant 0 : i32
    scf.yield %z : i32
  }
  return %r : i32
}

// -----

// Shared buffers live on the stack of the host thread running the program.
func.func @huge_buffer() attributes {tile.kernel} {
  // expected-error @below {{'tile.alloc_shared' op needs 4194304 bytes; shared buffers on the host are limited to 1048576 bytes per program}}
  // expected-error @below {{failed to legalize operation 'tile.alloc_shared'}}
  %b = tile.alloc_shared : !tile.smem<1024x1024xf32>
  return
}
