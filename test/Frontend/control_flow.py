# Runtime if/for/while become scf ops carrying the reassigned variables;
# kt.static_range unrolls.
# RUN: kda-compile %s --kernel flow --target cpu --signature 'o=*f32,n=i32,t=f32' \
# RUN:   -D BLOCK=16 --emit tile -o - | FileCheck %s

import kdatile.language as kt


@kt.jit
def flow(o, n, t, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    acc = kt.zeros((BLOCK,), kt.float32)
    s = 0.0
    # CHECK: %[[IF:.*]]:2 = scf.if %{{.*}} -> (tensor<16xf32>, f32) {
    # CHECK:   scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, f32
    # CHECK: } else {
    # CHECK:   scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, f32
    # CHECK: }
    if t > 0.5:
        acc = acc + t
        s = t
    else:
        s = s - 1.0
    # range() lowers to scf.for over index with an i32 loop variable.
    # CHECK: %[[LB:.*]] = arith.index_cast %c1_i32 : i32 to index
    # CHECK: %[[UB:.*]] = arith.index_cast %arg1 : i32 to index
    # CHECK: scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %{{.*}} iter_args(%{{.*}} = %[[IF]]#0, %{{.*}} = %[[IF]]#1) -> (tensor<16xf32>, f32) {
    # CHECK:   arith.index_cast %[[IV]] : index to i32
    # CHECK:   scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, f32
    for i in range(1, n, 2):
        acc += i
        s = s * 2.0
    # A constexpr initial value is materialized with its default type.
    # CHECK: %[[W:.*]] = scf.while (%[[J:.*]] = %c0_i32{{.*}}) : (i32) -> i32 {
    # CHECK:   %[[C:.*]] = arith.cmpi slt, %[[J]], %arg1 : i32
    # CHECK:   scf.condition(%[[C]]) %[[J]] : i32
    # CHECK: } do {
    # CHECK:   scf.yield %{{.*}} : i32
    j = 0
    while j < n:
        j += 3
    # static_range unrolls: three multiplications by the constants 0, 1, 2.
    # CHECK-NOT: scf.for
    # CHECK: arith.constant dense<0.000000e+00>
    # CHECK: arith.mulf
    # CHECK: arith.constant dense<1.000000e+00>
    # CHECK: arith.mulf
    # CHECK: arith.constant dense<2.000000e+00>
    # CHECK: arith.mulf
    for u in kt.static_range(3):
        acc = acc * u
    # A scalar `a if c else b` on runtime values is a select.
    # CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
    m = s if j > 10 else t
    kt.store(o + offs, acc + m + j)
