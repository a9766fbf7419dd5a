// RUN: kda-compile %s --kernel k --target gfx1250 --emit asm | FileCheck %s
// RUN: kda-compile %s --kernel k --target gfx1250 --emit asm | grep -c ds_bpermute_b32 | FileCheck %s --check-prefix=SHFL
// RUN: kda-compile %s --kernel k --target gfx1250 --emit asm | grep -c "s_barrier_wait -1" | FileCheck %s --check-prefix=BAR

// The full GPU path from tile IR to gfx1250 assembly: exp, a lane butterfly,
// a cross-warp reduction through shared memory, masked loads.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #l>
  %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
  %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
  %ns = tile.splat %n : tensor<512xi32, #l>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #l>
  %v = tile.load %pp mask %m : tensor<512x!tile.ptr<f32>, #l>
  %e = math.exp %v : tensor<512xf32, #l>
  %s = tile.reduce sum %e {axis = 0 : i32} : tensor<512xf32, #l> -> f32
  tile.store %p, %s : !tile.ptr<f32>
  return
}
}

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
// CHECK-NOT: s_swappc
// CHECK: v_exp_f32
// CHECK: .amdhsa_group_segment_fixed_size 16
// CHECK: .amdhsa_wavefront_size32 1
// CHECK: .max_flat_workgroup_size: 128
// CHECK: .wavefront_size: 32

// One exchange per lane bit of a wave32, and the two barriers of the
// cross-warp step (the scheduler may interleave them with the exchanges),
// and one before the scalar store through %p, which the tile was loaded
// through by other threads (the ordering analysis cannot tell the addresses
// apart).
// SHFL: {{^}}5{{$}}
// BAR: {{^}}3{{$}}
