// Errors of the targets: unknown targets, emits a target cannot produce,
// binary emits without -o, modules without the kernel, CPU-only modes.
// RUN: not kda-compile %s --kernel k --target gfx942 --emit asm 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not kda-compile %s --kernel k --target gfx950 --emit hsaco 2>&1 | FileCheck %s --check-prefix=NO-O
// RUN: not kda-compile %s --kernel k --target gfx950 2>&1 | FileCheck %s --check-prefix=NO-O
// RUN: not kda-compile %s --kernel k --target sm_90a --emit cubin 2>&1 | FileCheck %s --check-prefix=NO-O-CUBIN
// RUN: not kda-compile %s --kernel k --target gfx950 --emit ptx 2>&1 | FileCheck %s --check-prefix=PTX-ON-AMD
// RUN: not kda-compile %s --kernel k --target sm_90a --emit hsaco -o %t 2>&1 | FileCheck %s --check-prefix=HSACO-ON-NV
// RUN: not kda-compile %s --kernel k --target cpu --emit cubin -o %t 2>&1 | FileCheck %s --check-prefix=CUBIN-ON-CPU
// RUN: not kda-compile %s --kernel k --target gfx950 --code-object-version=3 --emit asm 2>&1 | FileCheck %s --check-prefix=COV
// RUN: not kda-compile %s --kernel missing --target gfx950 --emit asm 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not kda-compile %s --kernel k --target sm_90a --emit ptx 2>&1 | FileCheck %s --check-prefix=VENDOR
// RUN: not kda-compile %s --kernel k --target sm_90a --check-bounds --emit ptx 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not kda-compile %s --kernel k --target gfx950 --check-bounds --emit asm 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not kda-compile %s --kernel k --target cpu --emit llvm 2>&1 | FileCheck %s --check-prefix=CPU-MISSING

// TARGET: error: unsupported --target 'gfx942' (supported: cpu, gfx950, gfx1250, sm_90a)
// NO-O: error: --emit hsaco writes a binary file: give -o FILE
// NO-O-CUBIN: error: --emit cubin writes a binary file: give -o FILE
// PTX-ON-AMD: error: --emit ptx is not available for target gfx950 (expected tile, gpu, llvm, asm, obj or hsaco)
// HSACO-ON-NV: error: --emit hsaco is not available for target sm_90a
// CUBIN-ON-CPU: error: --emit cubin is not available for target cpu
// COV: error: --code-object-version must be 5 or 6
// MISSING: error: the GPU module has no llvm.func kernel 'missing'
// VENDOR: error: function 'k' is not marked nvvm.kernel, so it is no kernel for sm_90a
// BOUNDS: error: --check-bounds is a cpu-target mode; target {{sm_90a|gfx950}} does not check accesses
// CPU-MISSING: error: the module has no tile kernel 'k' (a func.func with the tile.kernel attribute) and no entry point 'k__kda_cpu'

module {
  llvm.func @k(%x: !llvm.ptr<1>) attributes {rocdl.kernel} {
    llvm.return
  }
}
