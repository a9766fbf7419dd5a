// GPU kernels fuse a * b + c into one fma (TargetOptions::AllowFPOpFusion =
// Fast, kda::getGPUKernelTargetOptions), as Triton and nvcc do by default.
// RUN: kda-compile %s --kernel k --target sm_90a --emit ptx | FileCheck %s --check-prefix=NV
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm | FileCheck %s --check-prefix=AMD

// NV: fma.rn.f32
// NV-NOT: mul.rn.f32
// AMD: v_{{fmac|fma}}_f32
// AMD-NOT: v_mul_f32

module {
  llvm.func @k(%p: !llvm.ptr<1>, %a: f32, %b: f32, %c: f32) attributes {nvvm.kernel, rocdl.kernel} {
    %m = llvm.fmul %a, %b : f32
    %s = llvm.fadd %m, %c : f32
    llvm.store %s, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}
