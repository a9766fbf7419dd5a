# Loop-carried variables of nested runtime loops. Each loop's dry run meets the
# loops inside it; their findings are reused for the same body and bindings, so
# a deep nest compiles in linear time (the time limit fails the exponential
# cost of analyzing every inner loop again in every dry run around it), and a
# helper whose loop is inlined with different argument types keeps each type.
# RUN: timeout 120 kda-compile %s --kernel deep --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=DEEP
# RUN: kda-compile %s --kernel twice --target cpu --signature 'o=*f32,n=i32' --emit tile \
# RUN:   -o - | FileCheck %s --check-prefix=TWICE
# An error deep in the nest fails as fast, reported once; a runtime region left on an error
# is left for good (the statements after it are not taken to be inside it).
# RUN: not timeout 60 kda-compile %s --kernel deep_error --target cpu \
# RUN:   --signature 'o=*f32,n=i32' --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=DEEP-ERR --implicit-check-not=error:
# RUN: not kda-compile %s --kernel after_error --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AFTER-ERR --implicit-check-not=error:

import kdatile.language as kt


# DEEP-LABEL: func.func @deep
# DEEP-COUNT-32: scf.for {{.*}} -> (f32)
# DEEP-NOT: scf.for
@kt.jit
def deep(o, n):
    acc = 0.0
    for i0 in range(n):
        for i1 in range(n):
            for i2 in range(n):
                for i3 in range(n):
                    for i4 in range(n):
                        for i5 in range(n):
                            for i6 in range(n):
                                for i7 in range(n):
                                    for i8 in range(n):
                                        for i9 in range(n):
                                            for i10 in range(n):
                                                for i11 in range(n):
                                                    for i12 in range(n):
                                                        for i13 in range(n):
                                                            for i14 in range(n):
                                                                for i15 in range(n):
                                                                    for i16 in range(n):
                                                                        for i17 in range(n):
                                                                            for i18 in range(n):
                                                                                for i19 in range(n):
                                                                                    for i20 in range(n):
                                                                                        for i21 in range(n):
                                                                                            for i22 in range(n):
                                                                                                for i23 in range(n):
                                                                                                    for i24 in range(n):
                                                                                                        for i25 in range(n):
                                                                                                            for i26 in range(n):
                                                                                                                for i27 in range(n):
                                                                                                                    for i28 in range(n):
                                                                                                                        for i29 in range(n):
                                                                                                                            for i30 in range(n):
                                                                                                                                for i31 in range(n):
                                                                                                                                    acc += 1.0
    kt.store(o, acc)


@kt.jit
def count_up(x, n):
    for i in range(n):
        x = x + 1
    return x


# TWICE-LABEL: func.func @twice
# TWICE: scf.for {{.*}} -> (i32)
# TWICE: scf.for {{.*}} -> (tensor<16xf32>)
@kt.jit
def twice(o, n):
    offs = kt.arange(0, 16)
    steps = count_up(0, n)
    tile = count_up(kt.zeros((16,), kt.float32), n)
    kt.store(o + offs, tile + steps)


# DEEP-ERR: error: name 'rng' is not defined
@kt.jit
def deep_error(o, n):
    acc = 0.0
    for i0 in range(n):
        for i1 in range(n):
            for i2 in range(n):
                for i3 in range(n):
                    for i4 in range(n):
                        for i5 in range(n):
                            for i6 in range(n):
                                for i7 in range(n):
                                    for i8 in range(n):
                                        for i9 in range(n):
                                            for i10 in range(n):
                                                for i11 in range(n):
                                                    for i12 in range(n):
                                                        for i13 in range(n):
                                                            for i14 in range(n):
                                                                for i15 in range(n):
                                                                    for i16 in range(n):
                                                                        for i17 in range(n):
                                                                            for i18 in range(n):
                                                                                for i19 in range(n):
                                                                                    for i20 in range(n):
                                                                                        for i21 in range(n):
                                                                                            for i22 in range(n):
                                                                                                for i23 in rng(n):
                                                                                                    acc += 1.0
    kt.store(o, acc)


# AFTER-ERR: error: name 'rng' is not defined
@kt.jit
def after_error(o, n):
    acc = 0.0
    for i in range(n):
        for j in rng(n):
            acc += 1.0
    buf = kt.alloc_shared((16,), kt.float32)
    buf.store(kt.zeros((16,), kt.float32) + acc)
    kt.store(o + kt.arange(0, 16), buf.load())
