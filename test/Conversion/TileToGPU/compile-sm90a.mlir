// RUN: kda-compile %s --kernel k --target sm_90a --emit asm | FileCheck %s

// The full GPU path from tile IR to sm_90a assembly: exp, a lane butterfly,
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

// CHECK: .visible .entry k(
// CHECK: .maxntid 128, 1, 1
// CHECK-NOT: call
// CHECK: ex2.approx.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-NOT: shfl.sync
// CHECK: bar.sync 0;
// CHECK: bar.sync 0;
