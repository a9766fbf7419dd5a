# Helpers imported from DSL modules on the search path are inlined.
# RUN: kda-compile %s --kernel use_imports --target cpu --signature 'x=*f32,o=*f32' \
# RUN:   -I %S/Inputs --emit tile -o - | FileCheck %s

import kdatile.language as kt
import helpers as h
import pkg.mod
from helpers import scale
from pkg.mod import twice_scaled


@kt.jit
def use_imports(x, o):
    offs = kt.arange(0, 8)
    v = kt.load(x + offs)
    # scale(v) with the default factor 2 and the module global OFFSET = 3.
    # CHECK: %[[V:.*]] = tile.load
    # CHECK: arith.constant dense<2.000000e+00> : tensor<8xf32>
    # CHECK: arith.mulf %[[V]]
    # CHECK: arith.constant dense<3.000000e+00> : tensor<8xf32>
    # CHECK: arith.addf
    a = scale(v)
    # CHECK: arith.constant dense<5.000000e+00> : tensor<8xf32>
    b = h.scale(v, 5)
    # A helper returning a tuple, reached through a package.
    # CHECK: arith.constant dense<4.000000e+00> : tensor<8xf32>
    # CHECK: math.exp
    c, d = pkg.mod.twice_scaled(v)
    e, f = twice_scaled(v)
    kt.store(o + offs, a + b + c + d + e + f)
