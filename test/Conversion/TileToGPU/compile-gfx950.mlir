// RUN: kda-compile %s --kernel k --target gfx950 --emit asm | FileCheck %s
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm | grep -c ds_bpermute_b32 | FileCheck %s --check-prefix=SHFL
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm | grep -c "s_barrier$" | FileCheck %s --check-prefix=BAR

// The full GPU path from tile IR to gfx950 assembly: exp, a lane butterfly,
// a cross-warp reduction through shared memory, masked loads.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 1024 : tensor<1024xi32, #l>
  %ps = tile.splat %p : tensor<1024x!tile.ptr<f32>, #l>
  %pp = tile.addptr %ps, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
  %ns = tile.splat %n : tensor<1024xi32, #l>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
  %v = tile.load %pp mask %m : tensor<1024x!tile.ptr<f32>, #l>
  %e = math.exp %v : tensor<1024xf32, #l>
  %s = tile.reduce sum %e {axis = 0 : i32} : tensor<1024xf32, #l> -> f32
  tile.store %p, %s : !tile.ptr<f32>
  return
}
}

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// CHECK-NOT: s_swappc
// CHECK: v_exp_f32
// CHECK: .amdhsa_group_segment_fixed_size 16
// CHECK: .max_flat_workgroup_size: 256
// CHECK: .wavefront_size: 64

// One exchange per lane bit of a wave64, and the two barriers of the
// cross-warp step (the scheduler may interleave them with the exchanges),
// and one before the scalar store through %p, which the tile was loaded
// through by other threads (the ordering analysis cannot tell the addresses
// apart).
// SHFL: {{^}}6{{$}}
// BAR: {{^}}3{{$}}
