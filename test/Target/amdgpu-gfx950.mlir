// LLVM-dialect GPU kernels (the output of the GPU lowering) through the
// AMDGPU back end for gfx950 (wave64).
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm | FileCheck %s
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm --code-object-version=5 | FileCheck %s --check-prefix=COV5
// RUN: kda-compile %s --kernel k --target gfx950 --emit llvm | FileCheck %s --check-prefix=IR
// RUN: kda-compile %s --kernel k --target gfx950 --emit gpu | FileCheck %s --check-prefix=GPU
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm --stats 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx950
// CHECK: .amdhsa_code_object_version 6
// CHECK-LABEL: k:
// 128-bit global load from a vector<4xf32> load with align 16.
// CHECK: global_load_dwordx4
// llvm.intr.exp2 becomes the hardware exp, no library call.
// CHECK: v_exp_f32
// CHECK-NOT: __ocml
// CHECK: ds_bpermute_b32
// CHECK: s_barrier
// CHECK: global_store_dwordx4
// CHECK: .amdhsa_kernel k
// CHECK: .amdhsa_group_segment_fixed_size 1024
// CHECK: .max_flat_workgroup_size: 256
// CHECK: .wavefront_size: 64

// COV5: .amdhsa_code_object_version 5

// IR: target triple = "amdgcn-amd-amdhsa"
// IR: define amdgpu_kernel void @k(
// IR: "amdgpu-flat-work-group-size"="1,256"

// GPU: llvm.func @k({{.*}} attributes {{.*}}rocdl.kernel

// STATS: resource usage of kernel 'k' (gfx950, wave64)
// STATS-NEXT: VGPRs {{ *[0-9]+$}}
// STATS-NEXT: AGPRs {{ *0$}}
// STATS-NEXT: SGPRs {{ *[0-9]+$}}
// STATS-NEXT: LDS {{ *}}1024  bytes/workgroup
// STATS-NEXT: scratch {{ *}}0  bytes/lane
// STATS-NEXT: VGPR spills {{ *}}0
// STATS-NEXT: SGPR spills {{ *}}0
// STATS-NEXT: occupancy {{ *[0-9]+}}  waves/SIMD

module {
  llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>

  llvm.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {rocdl.kernel, rocdl.max_flat_work_group_size = 256 : i32} {
    %tid = rocdl.workitem.id.x : i32
    %idx = llvm.sext %tid : i32 to i64
    %p = llvm.getelementptr %in[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xf32>
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
    %e = llvm.intr.exp2(%v) : (vector<4xf32>) -> vector<4xf32>
    // Exchange lane values: lane i reads lane i^1 (byte address * 4).
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %x = llvm.extractelement %e[%c0 : i64] : vector<4xf32>
    %xi = llvm.bitcast %x : f32 to i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %two = llvm.mlir.constant(2 : i32) : i32
    %peer = llvm.xor %tid, %one : i32
    %addr = llvm.shl %peer, %two : i32
    %yi = rocdl.ds_bpermute %addr, %xi : (i32, i32) -> i32
    %y = llvm.bitcast %yi : i32 to f32
    // Through LDS, with a barrier.
    %lds = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %slot = llvm.getelementptr %lds[0, %idx] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<256 x f32>
    llvm.store %y, %slot : f32, !llvm.ptr<3>
    rocdl.s.barrier
    %c255 = llvm.mlir.constant(255 : i64) : i64
    %ridx = llvm.sub %c255, %idx : i64
    %rslot = llvm.getelementptr %lds[0, %ridx] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<256 x f32>
    %z = llvm.load %rslot : !llvm.ptr<3> -> f32
    %r = llvm.insertelement %z, %e[%c0 : i64] : vector<4xf32>
    %q = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xf32>
    llvm.store %r, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
    llvm.return
  }
}
