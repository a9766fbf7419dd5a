# Same-file helpers are inlined: keyword arguments, defaults, constexpr
# parameters, tuple returns and returns inside constexpr branches.
# RUN: kda-compile %s --kernel caller --target cpu --signature 'o=*f32,t=f32' \
# RUN:   --emit tile -o - | FileCheck %s

import kdatile.language as kt


@kt.jit
def affine(x, a, b=1.0):
    return a * x + b


@kt.jit
def pick(x, MODE: kt.constexpr):
    if MODE == 0:
        return x
    return kt.exp(x), -x


@kt.jit
def no_return(p, v):
    kt.store(p, v)


def not_dsl(x):
    return x


# CHECK-LABEL: func.func @caller
# CHECK-NOT: func.call
@kt.jit
def caller(o, t):
    # CHECK: arith.mulf
    # CHECK: arith.addf
    y = affine(t, b=3.0, a=2.0)
    z = pick(y, 0)
    # CHECK: math.exp
    # CHECK: arith.negf
    e, n = pick(z, MODE=1)
    # CHECK: tile.store %arg0
    no_return(o, e + n + affine(1.0, t))
