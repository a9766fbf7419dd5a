# Runtime if/for/while become scf ops carrying the reassigned variables;
# kt.static_range unrolls. (kda-compile canonicalizes before printing, so the
# checks look at structure, not at every op.)
# RUN: kda-compile %s --kernel flow --target cpu --signature 'o=*f32,n=i32,t=f32' \
# RUN:   -D BLOCK=16 --emit tile -o - | FileCheck %s

import kdatile.language as kt


# CHECK-LABEL: func.func @flow
# CHECK-DAG: %[[C2:.*]] = arith.constant dense<2.000000e+00> : tensor<16xf32>
# CHECK-DAG: %[[C3:.*]] = arith.constant dense<3.000000e+00> : tensor<16xf32>
# CHECK-DAG: %[[C4:.*]] = arith.constant dense<4.000000e+00> : tensor<16xf32>
@kt.jit
def flow(o, n, t, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    acc = kt.load(o + offs)
    s = 0.0
    # CHECK: %[[IF:.*]]:2 = scf.if %{{.*}} -> (tensor<16xf32>, f32) {
    # CHECK:   scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, f32
    # CHECK: } else {
    # CHECK:   scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, f32
    # CHECK: }
    if t > 0.5:
        acc = acc + t
        s = t * t
    else:
        acc = acc - t
        s = s - t
    # range() lowers to scf.for over index with an i32 loop variable.
    # CHECK: %[[UB:.*]] = arith.index_cast %arg1 : i32 to index
    # CHECK: %[[FOR:.*]]:2 = scf.for %[[IV:.*]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%{{.*}} = %[[IF]]#0, %{{.*}} = %[[IF]]#1) -> (tensor<16xf32>, f32) {
    # CHECK:   arith.index_cast %[[IV]] : index to i32
    # CHECK:   scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, f32
    for i in range(1, n, 2):
        acc += i
        s = s * 2.0
    # A constexpr initial value is materialized with its default type (i32).
    # CHECK: %[[W:.*]] = scf.while (%[[J:.*]] = %{{.*}}) : (i32) -> i32 {
    # CHECK:   %[[C:.*]] = arith.cmpi slt, %[[J]], %arg1 : i32
    # CHECK:   scf.condition(%[[C]]) %[[J]] : i32
    # CHECK: } do {
    # CHECK:   scf.yield %{{.*}} : i32
    j = 0
    while j < n:
        j += 3
    # static_range unrolls with a constexpr loop variable.
    # CHECK-NOT: scf.for
    # CHECK: %[[M1:.*]] = arith.mulf %[[FOR]]#0, %[[C2]]
    # CHECK: %[[M2:.*]] = arith.mulf %[[M1]], %[[C3]]
    # CHECK: arith.mulf %[[M2]], %[[C4]]
    for u in kt.static_range(3):
        acc = acc * (u + 2)
    # A scalar `a if c else b` on runtime values is a select.
    # CHECK: arith.select %{{.*}}, %[[FOR]]#1, %arg2 : f32
    m = s if j > 10 else t
    kt.store(o + offs, acc + m + j)
