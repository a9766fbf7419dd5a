# kt.multiple_of / kt.max_contiguous record facts the compiler cannot prove on the value's
# defining op, for the axis analysis: here a row offset from a runtime stride that the caller
# keeps a multiple of 4, which lets the row's loads and stores be 16-byte vectors on sm_90a.
# DEFINE: %{sig} = --signature 'x_ptr=*f32:16,y_ptr=*f32:16,stride=i32' -D N=512
# RUN: kda-compile %s --kernel row_copy --target sm_90a %{sig} -D HINT=True --emit tile \
# RUN:   -o - | FileCheck %s --check-prefix=IR
# RUN: kda-compile %s --kernel row_copy --target sm_90a %{sig} -D HINT=True --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=HINTED
# RUN: kda-compile %s --kernel row_copy --target sm_90a %{sig} -D HINT=False --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=PLAIN
# RUN: not kda-compile %s --kernel bad_value --target cpu %{sig} -D HINT=True --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=POW2
# RUN: not kda-compile %s --kernel bad_param --target cpu %{sig} -D HINT=True --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=PARAM
# RUN: not kda-compile %s --kernel bad_rank --target cpu %{sig} -D HINT=True --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=RANK
# RUN: not kda-compile %s --kernel bad_float --target cpu %{sig} -D HINT=True --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=FLOAT

import kdatile as kt


@kt.jit
def row_copy(x_ptr, y_ptr, stride, N: kt.constexpr, HINT: kt.constexpr):
    offs = kt.arange(0, N)
    start = kt.program_id(0) * stride
    if HINT:
        start = kt.multiple_of(start, 4)
        offs = kt.max_contiguous(offs, N)
    kt.store(y_ptr + start + offs, kt.load(x_ptr + start + offs))


# IR-DAG: arith.muli {{.*}} {tile.multiple_of = array<i64: 4>} : i32
# IR-DAG: tile.range 0, 512 {tile.max_contiguous = array<i64: 512>}
# HINTED: ld.global.v4.b32
# HINTED: st.global.v4.b32
# PLAIN-NOT: ld.global.v4
# PLAIN: ld.global.b32


@kt.jit
def bad_value(x_ptr, y_ptr, stride, N: kt.constexpr, HINT: kt.constexpr):
    kt.store(y_ptr, kt.load(x_ptr + kt.multiple_of(kt.program_id(0) * stride, 12)))


# POW2: hints.py:[[@LINE-3]]:79: error: kt.multiple_of() values must be powers of two, got 12


@kt.jit
def bad_param(x_ptr, y_ptr, stride, N: kt.constexpr, HINT: kt.constexpr):
    kt.store(y_ptr, kt.load(x_ptr + kt.multiple_of(stride, 16)))


# PARAM: hints.py:[[@LINE-3]]:52: error: kt.multiple_of() needs a value computed in the kernel (a parameter's alignment comes from its specialization, e.g. the ':16' of a signature)


@kt.jit
def bad_rank(x_ptr, y_ptr, stride, N: kt.constexpr, HINT: kt.constexpr):
    offs = kt.max_contiguous(kt.arange(0, N), (N, 1))
    kt.store(y_ptr + offs, kt.load(x_ptr + offs))


# RANK: hints.py:[[@LINE-4]]:47: error: kt.max_contiguous() got 2 values for a value of rank 1 (one per dimension, or one for all)


@kt.jit
def bad_float(x_ptr, y_ptr, stride, N: kt.constexpr, HINT: kt.constexpr):
    kt.store(y_ptr, kt.multiple_of(kt.load(x_ptr), 4))


# FLOAT: hints.py:[[@LINE-3]]:36: error: kt.multiple_of() needs integers or pointers, got scalar of type f32
