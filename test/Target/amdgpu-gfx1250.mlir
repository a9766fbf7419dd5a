// gfx1250 is wave32: the kernel descriptor and metadata say so.
// RUN: kda-compile %s --kernel k --target gfx1250 --emit asm | FileCheck %s
// RUN: kda-compile %s --kernel k --target gfx1250 --emit asm --stats 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250
// CHECK-LABEL: k:
// CHECK: global_load_b128
// CHECK: v_exp_f32
// CHECK-NOT: __ocml
// CHECK: global_store_b128
// CHECK: .amdhsa_kernel k
// CHECK: .amdhsa_wavefront_size32 1
// CHECK: .wavefront_size: 32

// STATS: resource usage of kernel 'k' (gfx1250, wave32)
// STATS: VGPRs
// STATS: SGPRs
// STATS: VGPR spills {{ *}}0
// STATS: occupancy {{ *[0-9]+}}  waves/SIMD

module {
  llvm.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {rocdl.kernel, rocdl.max_flat_work_group_size = 128 : i32} {
    %tid = rocdl.workitem.id.x : i32
    %idx = llvm.sext %tid : i32 to i64
    %p = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xf32>
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
    %e = llvm.intr.exp2(%v) {fastmathFlags = #llvm.fastmath<afn>} : (vector<4xf32>) -> vector<4xf32>
    %q = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %e, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
    llvm.return
  }
}
