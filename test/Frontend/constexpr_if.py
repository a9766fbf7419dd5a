# Compile-time evaluation: globals, constexpr if pruning, static_assert,
# integer specialization and divisibility attributes.
# RUN: kda-compile %s --kernel spec --target cpu --signature 'o=*f32:16,n=i32:16' \
# RUN:   -D BLOCK=64 -D DT=bf16 --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel spec --target cpu --signature 'o=*f32' \
# RUN:   -D BLOCK=64 -D n=1 --emit tile -o - | FileCheck %s --check-prefix=ONE

import numpy as np

import kdatile.language as kt

SCALE = 2
LIMIT: kt.constexpr = SCALE * 32
USE_FAST = True and not False
TABLE = np.arange(4)  # not DSL: skipped unless used


class Unrelated:
    def method(self):
        return [x for x in range(3)]


# CHECK-LABEL: func.func @spec(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32 {tile.divisibility = 16 : i32})
# ONE-LABEL: func.func @spec(%arg0: !tile.ptr<f32>) attributes {tile.kernel}
# The taken branch's constant times k = 5, folded by the driver's simplifier:
# CHECK-DAG: arith.constant dense<1.500000e+01> : tensor<64xf32>
# ONE-DAG: arith.constant dense<2.000000e+01> : tensor<64xf32>
# ONE-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
@kt.jit
def spec(o, n, BLOCK: kt.constexpr, DT: kt.constexpr = kt.float32):
    kt.static_assert(BLOCK == LIMIT, "BLOCK must equal LIMIT")
    offs = kt.arange(0, BLOCK)
    # The dead branch is not emitted, not even name-checked.
    if BLOCK > 1000:
        undefined_function(offs)
    # CHECK-NOT: scf.if
    if USE_FAST and DT == kt.bfloat16:
        v = kt.full((BLOCK,), 3.0, kt.float32)
    elif DT == kt.float32:
        v = kt.full((BLOCK,), 4.0, kt.float32)
    else:
        v = kt.zeros((BLOCK,), kt.float32)
    # n == 1 folds when n is a constexpr; otherwise it is a runtime compare.
    # CHECK: arith.cmpi eq, %arg1, %c1_i32
    # ONE-NOT: arith.cmpi eq
    # ONE: tile.store %arg0, %[[ONE]] : !tile.ptr<f32>
    k = 5 if BLOCK == 64 else 7
    kt.store(o, kt.where(n == 1, 1.0, 2.0))
    kt.store(o + offs, v * k, mask=offs < n * SCALE)


def test_spec():
    assert TABLE.sum() == 6
