# Arithmetic, comparisons and Triton's type promotion rules.
# RUN: kda-compile %s --kernel promote --target cpu \
# RUN:   --signature 'a=*f16,b=*bf16,c=*i32,d=*i64,o=*f32,n=i32' -D BLOCK=64 \
# RUN:   --emit tile -o - | FileCheck %s

import kdatile.language as kt


# The driver canonicalizes before printing: constants are hoisted and shared.
# CHECK-LABEL: func.func @promote
# CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i32
# CHECK-DAG: %[[C25:.*]] = arith.constant dense<2.500000e+00> : tensor<64xbf16>
@kt.jit
def promote(a, b, c, d, o, n, BLOCK: kt.constexpr):
    # CHECK: tile.range 0, 64
    offs = kt.arange(0, BLOCK)
    x16 = kt.load(a + offs)
    xbf = kt.load(b + offs)
    xi = kt.load(c + offs)
    xl = kt.load(d + offs)
    # f16 + bf16 meet at f32.
    # CHECK: %[[A:.*]] = arith.extf %{{.*}} : tensor<64xf16> to tensor<64xf32>
    # CHECK: %[[B:.*]] = arith.extf %{{.*}} : tensor<64xbf16> to tensor<64xf32>
    # CHECK: arith.addf %[[A]], %[[B]] : tensor<64xf32>
    s1 = x16 + xbf
    # A float literal keeps the bf16 tile's type.
    # CHECK: arith.mulf %{{.*}}, %[[C25]] : tensor<64xbf16>
    s2 = xbf * 2.5
    # int + float -> float; i32 + i64 -> i64.
    # CHECK: arith.sitofp %{{.*}} : tensor<64xi32> to tensor<64xf16>
    # CHECK: arith.subf %{{.*}} : tensor<64xf16>
    s3 = xi - x16
    # CHECK: arith.extsi %{{.*}} : tensor<64xi32> to tensor<64xi64>
    # CHECK: arith.addi %{{.*}} : tensor<64xi64>
    s4 = xi + xl
    # True division of ints is f32; // and % are floordivsi / remsi. `/` may be approximate
    # (afn: div.full on sm_90a); a float // divides exactly before its floor.
    # CHECK: arith.sitofp %{{.*}} : tensor<64xi32> to tensor<64xf32>
    # CHECK: arith.divf %{{.*}} fastmath<afn> : tensor<64xf32>
    s5 = xi / 3
    # CHECK: arith.floordivsi %{{.*}} : tensor<64xi32>
    s6 = xi // 4
    # CHECK: arith.remsi %{{.*}} : tensor<64xi32>
    s7 = xi % n
    # CHECK: %[[Q:.*]] = arith.divf %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}} : tensor<64xf32>
    # CHECK-NEXT: math.floor %[[Q]]
    s8 = s1 // 2.0
    # x ** 3 is repeated multiplication.
    # CHECK: %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]] : tensor<64xf32>
    # CHECK: arith.mulf %[[X]], %[[SQ]] : tensor<64xf32>
    s9 = s1 ** 3
    # Bitwise operators on ints, comparisons produce i1.
    # CHECK: arith.andi %{{.*}} : tensor<64xi32>
    # CHECK: arith.shli %{{.*}} : tensor<64xi32>
    # CHECK: arith.shrsi %{{.*}} : tensor<64xi32>
    s10 = ((xi & 7) << 2) >> 1
    # CHECK: arith.cmpf olt, %{{.*}} : tensor<64xf32>
    # CHECK: arith.cmpf une, %{{.*}} : tensor<64xf32>
    # CHECK: arith.andi %{{.*}} : tensor<64xi1>
    m = (s1 < 1.0) & (s1 != 0.0)
    # CHECK: arith.cmpi sge, %{{.*}} : tensor<64xi32>
    # CHECK: arith.xori %{{.*}} : tensor<64xi1>
    m2 = ~(xi >= 0)
    # Unary minus: negf for floats, 0 - x for ints.
    # CHECK: arith.negf %{{.*}} : tensor<64xf32>
    # CHECK: arith.subi %{{.*}} : tensor<64xi32>
    s11 = -s1
    s12 = -xi
    total = s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12
    kt.store(o + offs, kt.where(m & m2, total, 0.0))
    # Constexpr arithmetic is folded: n * 6.
    # CHECK: arith.muli %arg5, %[[C6]] : i32
    kt.store(o, n * (BLOCK // 32 + 4))
