# kt.<name> falls back to the DSL standard library (python/kdatile/stdlib.py).
# RUN: kda-compile %s --kernel norm --target cpu --signature 'x=*bf16,o=*bf16' \
# RUN:   --emit tile -o - | FileCheck %s

import kdatile.language as kt


@kt.jit
def norm(x, o):
    offs = kt.arange(0, 32)
    v = kt.load(x + offs).to(kt.float32)
    # silu: x * sigmoid(x) = x / (1 + exp(-x)).
    # CHECK: arith.negf
    # CHECK: math.exp
    # CHECK: arith.divf
    # CHECK: arith.mulf
    s = kt.silu(v)
    # l2norm: x * rsqrt(sum(x * x) + eps).
    # CHECK: tile.reduce sum
    # CHECK: math.rsqrt
    n = kt.l2norm(s)
    # Math on bf16 runs in f32 and rounds back.
    # CHECK: %[[E:.*]] = arith.extf %{{.*}} : tensor<32xbf16> to tensor<32xf32>
    # CHECK: %[[X:.*]] = math.exp2 %[[E]] : tensor<32xf32>
    # CHECK: arith.truncf %[[X]] : tensor<32xf32> to tensor<32xbf16>
    b = kt.exp2(n.to(kt.bfloat16))
    kt.store(o + offs, b)
