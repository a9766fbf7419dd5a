// RUN: kda-opt %s --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s --check-prefix=NV
// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx1250 --canonicalize --cse | FileCheck %s --check-prefix=AMD

// 64 elements over 32 lanes x 2 registers: warps 1-3 hold replicas and stay
// silent (the guard is warp == 0); each register prints its coordinate
// (lane coordinate + register offset). NVIDIA passes the arguments to
// vprintf in one stack buffer per argument layout, allocated at the entry;
// a scalar prints from thread 0.

// NV-DAG: llvm.mlir.global internal constant @[[FX:__kda_str_[0-9]+]]("pid (%d, %d, %d) idx (%d) x: %.9g\0A\00")
// NV-DAG: llvm.mlir.global internal constant @[[FV:__kda_str_[0-9]+]]("pid (%d, %d, %d) v: 0x%x\0A\00")
// NV-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// NV-LABEL: func.func @k(
// NV-COUNT-1: llvm.alloca {{.*}} x !llvm.struct<(i32, i32, i32, i32, f64)>
// NV-NOT: llvm.alloca {{.*}} x !llvm.struct<(i32, i32, i32, i32, f64)>
// NV-DAG: %[[PX:.*]] = nvvm.read.ptx.sreg.ctaid.x
// NV-DAG: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// NV: %[[WARP0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// NV: scf.if %[[WARP0]] {
// NV:   llvm.fpext %{{.*}} : f32 to f64
// NV:   llvm.store %[[PX]]
// NV:   llvm.call @vprintf(%{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> i32
// NV: scf.if %[[WARP0]] {
// NV:   llvm.call @vprintf
// NV: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %{{.*}} : i32
// NV: scf.if %[[T0]] {
// NV:   llvm.bitcast %{{.*}} : f32 to i32
// NV:   llvm.call @vprintf

// AMD-DAG: llvm.mlir.global internal constant @{{.*}}("pid (%d, %d, %d) idx (%d) x: %.9g\0A\00") {addr_space = 4 : i32}
// AMD-DAG: llvm.func @printf(!llvm.ptr<4>, ...) -> i32
// AMD-LABEL: func.func @k(
// AMD: rocdl.workgroup.id.x
// AMD: llvm.call @printf(%{{.*}}) vararg(!llvm.func<i32 (ptr<4>, ...)>) : (!llvm.ptr<4>, i32, i32, i32, i32, f64) -> i32
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @k(%v: f32) attributes {tile.kernel} {
    %x = tile.splat %v : tensor<64xf32, #b>
    tile.print "x" %x : tensor<64xf32, #b>
    tile.print "v" %v : f32 {hex}
    return
  }
}
