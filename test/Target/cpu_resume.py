# A CPU compile resumes from its own tile IR or LLVM-dialect output; a module without the
# named kernel is an error.
# RUN: kda-compile %s --kernel k --target cpu --signature 'o=*f32' --emit tile -o %t.tile.mlir
# RUN: kda-compile %t.tile.mlir --kernel k --target cpu --emit llvm -o - | FileCheck %s
# RUN: kda-compile %s --kernel k --target cpu --signature 'o=*f32' --emit mlir -o %t.llvm.mlir
# RUN: kda-compile %t.llvm.mlir --kernel k --target cpu --emit llvm -o - | FileCheck %s
# RUN: not kda-compile %t.llvm.mlir --kernel other --target cpu --emit llvm 2>&1 \
# RUN:   | FileCheck %s --check-prefix=MISSING

# CHECK: define {{.*}}void @k__kda_cpu(
# MISSING: error: the module has no tile kernel 'other'

import kdatile.language as kt


@kt.jit
def k(o):
    kt.store(o, 1.0)
