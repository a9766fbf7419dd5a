# Masked loads and stores; other/value are broadcast and cast to the pointee.
# RUN: kda-compile %s --kernel copy --target cpu \
# RUN:   --signature 'x=*bf16,y=*f32,o=*bf16,n=i32' -D BLOCK=32 --emit tile -o - \
# RUN:   | FileCheck %s

import kdatile.language as kt


# CHECK-LABEL: func.func @copy
# CHECK-DAG: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<32xbf16>
# CHECK-DAG: %[[OTHER:.*]] = arith.constant dense<-1.000000e+00> : tensor<32xbf16>
@kt.jit
def copy(x, y, o, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    # CHECK: tile.load %{{.*}} mask %{{.*}} other %[[OTHER]] : tensor<32x!tile.ptr<bf16>>
    v = kt.load(x + offs, mask=mask, other=-1.0)
    # A scalar pointer loads a scalar.
    # CHECK: %[[S:.*]] = tile.load %arg1 : !tile.ptr<f32>
    s = kt.load(y)
    # The f32 value is rounded to the bf16 pointee.
    # CHECK: %[[SUM:.*]] = arith.addf %{{.*}} : tensor<32xf32>
    # CHECK: %[[T:.*]] = arith.truncf %[[SUM]] : tensor<32xf32> to tensor<32xbf16>
    # CHECK: tile.store %{{.*}}, %[[T]] mask %{{.*}} : tensor<32x!tile.ptr<bf16>>
    kt.store(o + offs, v.to(kt.float32) + s, mask=mask)
    # Pointer minus int and a scalar store broadcast to the pointer tile.
    # CHECK: tile.addptr %arg2, %{{.*}} : !tile.ptr<bf16>, i32
    # CHECK: %[[NEG:.*]] = arith.subi
    # CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %[[NEG]]
    # CHECK: tile.store %[[P]], %[[Z]] : tensor<32x!tile.ptr<bf16>>
    kt.store(o + BLOCK - offs, 0)
