// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx950 --canonicalize --cse | FileCheck %s

// gfx950 (wave64): lane = tid & 63, warp = tid >> 6; lane exchanges are
// ds_bpermute reading byte address (lane ^ offset) * 4; the barriers of
// exchanges through LDS wait for the wave's LDS accesses (s_waitcnt
// lgkmcnt(0) = 49279) and meet at s_barrier, between wavefront-scope fences
// that keep the compiler from moving accesses across but wait for nothing
// (workgroup-scope ones would wait for the global loads in flight).

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @sum
// CHECK-DAG: %[[C63:.*]] = llvm.mlir.constant(63 : i32)
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-DAG: %[[C32:.*]] = llvm.mlir.constant(32 : i32)
// CHECK: %[[TID:.*]] = rocdl.workitem.id.x : i32
// CHECK: %[[LANE:.*]] = llvm.and %[[TID]], %[[C63]] : i32
// CHECK: %[[O1:.*]] = llvm.xor %[[LANE]], %[[C1]] : i32
// CHECK: %[[A1:.*]] = llvm.shl %[[O1]], %[[C2]] : i32
// CHECK: rocdl.ds_bpermute %[[A1]], %{{.*}} : (i32, i32) -> i32
// CHECK: arith.addf
// CHECK: %[[O2:.*]] = llvm.xor %[[LANE]], %[[C2]] : i32
// CHECK: %[[A2:.*]] = llvm.shl %[[O2]], %[[C2]] : i32
// CHECK: rocdl.ds_bpermute %[[A2]]
// CHECK: %[[O4:.*]] = llvm.xor %[[LANE]], %[[C4]] : i32
// CHECK: rocdl.ds_bpermute
// CHECK: %[[O8:.*]] = llvm.xor %[[LANE]], %[[C8]] : i32
// CHECK: rocdl.ds_bpermute
// CHECK: %[[O16:.*]] = llvm.xor %[[LANE]], %[[C16]] : i32
// CHECK: rocdl.ds_bpermute
// CHECK: %[[O32:.*]] = llvm.xor %[[LANE]], %[[C32]] : i32
// CHECK: rocdl.ds_bpermute
// CHECK-NOT: rocdl.ds_bpermute
// Then across the 4 warps through LDS.
// CHECK: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @sum(%x: tensor<256xf32, #b>) -> f32 {
  %s = tile.reduce sum %x {axis = 0 : i32} : tensor<256xf32, #b> -> f32
  return %s : f32
}
}

// -----

// A layout conversion through LDS: 64x64 f16, rows padded by one word (64 x 66
// x 2 = 8448 bytes).
// CHECK: llvm.mlir.global internal @kda_scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8448 x i8>
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @convert
// CHECK-SAME: !llvm.struct<(f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16)>
// CHECK: rocdl.workitem.id.x
// CHECK: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-COUNT-16: llvm.store %{{.*}} : f16, !llvm.ptr<3>
// CHECK-NEXT: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-NOT: llvm.store
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
func.func @convert(%x: tensor<64x64xf16, #a>) -> tensor<64x64xf16, #c> {
  %t = tile.convert_layout %x : tensor<64x64xf16, #a> -> tensor<64x64xf16, #c>
  return %t : tensor<64x64xf16, #c>
}
}
