// LLVM-dialect kernels with NVVM ops through the NVPTX back end: PTX for
// sm_90a (sm_90 is an alias).
// RUN: kda-compile %s --kernel k --target sm_90a --emit ptx | FileCheck %s
// RUN: kda-compile %s --kernel k --target sm_90 --emit asm | FileCheck %s
// RUN: kda-compile %s --kernel k --target sm_90a --emit llvm | FileCheck %s --check-prefix=IR

// CHECK: .version 8.1
// CHECK: .target sm_90a
// CHECK: .address_size 64
// CHECK: .visible .entry k(
// CHECK: .maxntid 128, 1, 1
// CHECK: mov.u32 {{.*}}%tid.x
// CHECK: ld.global.v4
// CHECK: ex2.approx.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: bar.sync 0
// CHECK: st.global.v4
// CHECK-NOT: __nv_

// IR: target triple = "nvptx64-nvidia-cuda"
// IR: define ptx_kernel void @k(

module {
  llvm.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %idx = llvm.sext %tid : i32 to i64
    %p = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xf32>
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
    %e = llvm.intr.exp2(%v) {fastmathFlags = #llvm.fastmath<afn>} : (vector<4xf32>) -> vector<4xf32>
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %x = llvm.extractelement %e[%c0 : i64] : vector<4xf32>
    %mask = llvm.mlir.constant(-1 : i32) : i32
    %off = llvm.mlir.constant(16 : i32) : i32
    %clamp = llvm.mlir.constant(31 : i32) : i32
    %y = nvvm.shfl.sync bfly %mask, %x, %off, %clamp : f32 -> f32
    nvvm.barrier0
    %r = llvm.insertelement %y, %e[%c0 : i64] : vector<4xf32>
    %q = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %r, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
    llvm.return
  }
}
