// --emit cubin runs ptxas -v; --stats prints what it reports.
// REQUIRES: ptxas
// RUN: kda-compile %s --kernel k --target sm_90a --emit cubin -o %t.cubin --stats 2>&1 | FileCheck %s
// RUN: llvm-readelf -h %t.cubin | FileCheck %s --check-prefix=ELF
// RUN: kda-compile %s --kernel k --target sm_90a --emit ptx --stats -o %t.ptx 2>&1 | FileCheck %s
// RUN: kda-compile %s --kernel k --target sm_90 -o %t2.cubin
// RUN: llvm-readelf -h %t2.cubin | FileCheck %s --check-prefix=ELF

// CHECK: resource usage of kernel 'k' (sm_90a, warp 32)
// CHECK-NEXT: registers {{ *[0-9]+}}  per thread
// CHECK-NEXT: shared memory {{ *}}512  bytes/block (static)
// CHECK-NEXT: stack frame {{ *}}0  bytes/thread
// CHECK-NEXT: spill stores {{ *}}0  bytes
// CHECK-NEXT: spill loads {{ *}}0  bytes
// CHECK-NEXT: barriers {{ *}}1
// CHECK-NEXT: occupancy {{ *}}64  warps/SM (warp limit)

// ELF: Machine: {{.*}}CUDA

module {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>

  llvm.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %idx = llvm.sext %tid : i32 to i64
    %p = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %e = llvm.intr.exp2(%v) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
    %lds = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %slot = llvm.getelementptr %lds[0, %idx] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x f32>
    llvm.store %e, %slot : f32, !llvm.ptr<3>
    nvvm.barrier0
    %c127 = llvm.mlir.constant(127 : i64) : i64
    %ridx = llvm.sub %c127, %idx : i64
    %rslot = llvm.getelementptr %lds[0, %ridx] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x f32>
    %z = llvm.load %rslot : !llvm.ptr<3> -> f32
    %q = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %z, %q : f32, !llvm.ptr<1>
    llvm.return
  }
}
