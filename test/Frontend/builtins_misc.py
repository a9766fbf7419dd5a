# Elementwise builtins, conversions and grid queries.
# RUN: kda-compile %s --kernel misc --target cpu \
# RUN:   --signature 'x=*f32,i=*i32,h=*f16,o=*f32,n=i32,s=f32' --emit tile -o - \
# RUN:   | FileCheck %s

import kdatile.language as kt


# CHECK-LABEL: func.func @misc
@kt.jit
def misc(x, i, h, o, n, s):
    offs = kt.arange(0, 16)
    v = kt.load(x + offs)
    iv = kt.load(i + offs)
    hv = kt.load(h + offs)
    # CHECK: tile.num_programs 1
    blocks = kt.num_programs(1)
    # cdiv folds on constexprs and is a ceildivsi on runtime values.
    # CHECK: arith.ceildivsi %arg4, %{{.*}} : i32
    nb = kt.cdiv(n, 16) + kt.cdiv(100, 16)
    # CHECK: arith.maximumf %{{.*}} : tensor<16xf32>
    # CHECK: arith.minsi %{{.*}} : tensor<16xi32>
    a = kt.maximum(v, 0.0)
    b = kt.minimum(iv, n)
    # CHECK: math.absf %{{.*}} : tensor<16xf32>
    # CHECK: math.absi %{{.*}} : tensor<16xi32>
    c = kt.abs(v) + abs(iv)
    # CHECK: math.log %{{.*}} : tensor<16xf32>
    # CHECK: math.log2
    # CHECK: math.sqrt %{{.*}} fastmath<afn> : tensor<16xf32>
    # CHECK: math.rsqrt %{{.*}} fastmath<afn> : tensor<16xf32>
    d = kt.log(a + 1.0) + kt.log2(a + 1.0) + kt.sqrt(a) + kt.rsqrt(a + 1.0)
    # sqrt_rn and div_rn are IEEE-rounded on every target (no afn), where sqrt and / may be
    # approximate (sm_90a).
    # CHECK: math.sqrt %{{[0-9a-z_]+}} : tensor<16xf32>
    # CHECK: arith.divf %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}} : tensor<16xf32>
    d = d + kt.sqrt_rn(a) + kt.div_rn(v, a + 1.0)
    # sigmoid = 1 / (1 + exp(-x)), computed in f32 for f16 inputs.
    # CHECK: arith.extf %{{.*}} : tensor<16xf16> to tensor<16xf32>
    # CHECK: arith.negf
    # CHECK: math.exp
    # CHECK: arith.addf
    # CHECK: arith.divf %{{.*}} fastmath<afn>
    # CHECK: arith.truncf %{{.*}} : tensor<16xf32> to tensor<16xf16>
    e = kt.sigmoid(hv)
    # CHECK: arith.select %{{.*}} : tensor<16xi1>, tensor<16xf32>
    f = kt.where(iv > 0, v, s)
    # Conversions with .to().
    # CHECK: arith.fptosi %{{.*}} : tensor<16xf32> to tensor<16xi32>
    # CHECK: arith.sitofp %{{.*}} : tensor<16xi32> to tensor<16xf16>
    # CHECK: arith.cmpi ne, %{{.*}} : tensor<16xi32>
    # CHECK: arith.bitcast %{{.*}} : tensor<16xf32> to tensor<16xi32>
    g = v.to(kt.int32) + iv.to(kt.float16).to(kt.int32) + iv.to(kt.int1) \
        + v.to(kt.int32, bitcast=True)
    # kt.full with a runtime scalar splats it; zeros_like follows the input.
    # CHECK: %[[NF:.*]] = arith.sitofp %arg4 : i32 to f32
    # CHECK: tile.splat %[[NF]] : tensor<16xf32>
    z = kt.full((16,), n, kt.float32) + kt.zeros_like(v)
    # CHECK: math.tanh
    # CHECK: math.floor
    # CHECK: math.ceil
    # CHECK: math.erf
    # CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : tensor<16xf32>
    w = kt.tanh(v) + kt.floor(v) + kt.ceil(v) + kt.erf(v) + kt.fma(v, s, 1.0)
    kt.static_assert(v.dtype == kt.float32)
    kt.static_assert(hv.dtype == kt.float16)
    total = a + b + c + d + e + f + g + z + w + blocks + nb
    kt.store(o + offs, total.to(o.dtype.element_ty))
