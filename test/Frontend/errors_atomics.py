# Errors of the atomic builtins, at the argument's line and column.
# RUN: not kda-compile %s --kernel not_ptr --target cpu --signature 'c=*i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NOT-PTR
# RUN: not kda-compile %s --kernel bad_sem --target cpu --signature 'c=*i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SEM
# RUN: not kda-compile %s --kernel bad_scope --target cpu --signature 'c=*i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SCOPE
# RUN: not kda-compile %s --kernel float_max --target cpu --signature 'f=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=FLOAT-MAX
# RUN: not kda-compile %s --kernel bf16_ptr --target cpu --signature 'h=*bf16' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BF16
# RUN: not kda-compile %s --kernel tile_val --target cpu --signature 'c=*i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=TILE-VAL
# RUN: not kda-compile %s --kernel val_shape --target cpu --signature 'c=*i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=VAL-SHAPE
# RUN: not kda-compile %s --kernel mask_type --target cpu --signature 'c=*i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=MASK-TYPE

import kdatile as kt


@kt.jit
def not_ptr(c):
    # NOT-PTR: errors_atomics.py:[[@LINE+1]]:19: error: kt.atomic_add() needs a pointer or a tile of pointers, got {{.*}}
    kt.atomic_add(kt.arange(0, 4), 1)


@kt.jit
def bad_sem(c):
    # SEM: errors_atomics.py:[[@LINE+1]]:29: error: kt.atomic_add() sem must be "relaxed", "acquire", "release" or "acq_rel", got "seq_cst"
    kt.atomic_add(c, 1, sem="seq_cst")


@kt.jit
def bad_scope(c):
    # SCOPE: errors_atomics.py:[[@LINE+1]]:31: error: kt.atomic_add() scope must be "cta", "gpu" or "sys", got "device"
    kt.atomic_add(c, 1, scope="device")


@kt.jit
def float_max(f):
    # FLOAT-MAX: errors_atomics.py:[[@LINE+1]]:5: error: kt.atomic_max() needs an integer pointee; f32 supports atomic_add and atomic_xchg
    kt.atomic_max(f, 1.0)


@kt.jit
def bf16_ptr(h):
    # BF16: errors_atomics.py:[[@LINE+1]]:19: error: kt.atomic_add() supports pointers to i32, i64 and f32, got a pointer to bf16
    kt.atomic_add(h, 1.0)


@kt.jit
def tile_val(c):
    # TILE-VAL: errors_atomics.py:[[@LINE+1]]:22: error: kt.atomic_add() val must be a scalar for a scalar pointer, got {{.*}}
    kt.atomic_add(c, kt.arange(0, 4))


@kt.jit
def val_shape(c):
    # VAL-SHAPE: errors_atomics.py:[[@LINE+1]]:40: error: incompatible shapes for broadcasting: [4] and [8]
    kt.atomic_add(c + kt.arange(0, 4), kt.arange(0, 8))


@kt.jit
def mask_type(c):
    # MASK-TYPE: errors_atomics.py:[[@LINE+1]]:48: error: kt.atomic_max() mask must be a boolean (i1) scalar or tile, got {{.*}}
    kt.atomic_max(c + kt.arange(0, 4), 1, mask=kt.arange(0, 4))
