# Helpers imported from DSL modules on the search path are inlined.
# RUN: kda-compile %s --kernel use_imports --target cpu --signature 'x=*f32,o=*f32' \
# RUN:   -I %S/Inputs --emit tile -o - | FileCheck %s

import kdatile.language as kt
import helpers as h
import pkg.mod
from helpers import scale
from pkg.mod import twice_scaled


# CHECK-LABEL: func.func @use_imports
# CHECK-DAG: %[[C2:.*]] = arith.constant dense<2.000000e+00> : tensor<8xf32>
# CHECK-DAG: %[[C3:.*]] = arith.constant dense<3.000000e+00> : tensor<8xf32>
# CHECK-DAG: %[[C4:.*]] = arith.constant dense<4.000000e+00> : tensor<8xf32>
# CHECK-DAG: %[[C5:.*]] = arith.constant dense<5.000000e+00> : tensor<8xf32>
@kt.jit
def use_imports(x, o):
    offs = kt.arange(0, 8)
    # CHECK: %[[V:.*]] = tile.load
    v = kt.load(x + offs)
    # scale(v) with the default factor 2 and the module global OFFSET = 3.
    # CHECK: %[[A:.*]] = arith.mulf %[[V]], %[[C2]]
    # CHECK: arith.addf %[[A]], %[[C3]]
    a = scale(v)
    # CHECK: %[[B:.*]] = arith.mulf %[[V]], %[[C5]]
    # CHECK: arith.addf %[[B]], %[[C3]]
    b = h.scale(v, 5)
    # A helper returning a tuple, reached through a package (twice: CSE'd).
    # CHECK: %[[C:.*]] = arith.mulf %[[V]], %[[C4]]
    # CHECK: arith.addf %[[C]], %[[C3]]
    # CHECK: math.exp %[[V]]
    c, d = pkg.mod.twice_scaled(v)
    e, f = twice_scaled(v)
    kt.store(o + offs, a + b + c + d + e + f)
