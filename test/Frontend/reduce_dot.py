# Reductions and matrix products.
# RUN: kda-compile %s --kernel red --target cpu --signature 'x=*f32,o=*f32' \
# RUN:   --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel mm --target cpu --signature 'a=*bf16,b=*bf16,o=*f32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=DOT
# RUN: kda-compile %s --kernel tf32_dot --target cpu --signature 'a=*f32,o=*f32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=TF32
# RUN: not kda-compile %s --kernel bad_dot --target cpu --signature 'a=*f32,o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ERR

import kdatile.language as kt


@kt.jit
def red(x, o):
    r = kt.arange(0, 4)
    c = kt.arange(0, 8)
    t = kt.load(x + r[:, None] * 8 + c[None, :])
    # CHECK: tile.reduce sum %{{.*}} {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
    rows = kt.sum(t, axis=-1)
    # CHECK: tile.reduce max %{{.*}} {axis = 0 : i32} : tensor<4x8xf32> -> tensor<8xf32>
    cols = kt.max(t, 0)
    # axis=None reduces everything to a scalar.
    # CHECK: tile.reshape %{{.*}} : tensor<4x8xf32> -> tensor<32xf32>
    # CHECK: tile.reduce min %{{.*}} {axis = 0 : i32} : tensor<32xf32> -> f32
    lo = kt.min(t)
    # CHECK: %[[K:.*]] = tile.reduce sum %{{.*}} {axis = 0 : i32} : tensor<4x8xf32> -> tensor<8xf32>
    # CHECK: tile.expand_dims %[[K]] {axis = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
    kept = t.sum(0, keep_dims=True)
    # sum(dtype=...) converts first.
    # CHECK: %[[I:.*]] = arith.fptosi %{{.*}} : tensor<4x8xf32> to tensor<4x8xi32>
    # CHECK: tile.reduce sum %[[I]] {axis = 1 : i32} : tensor<4x8xi32> -> tensor<4xi32>
    isum = kt.sum(t, 1, dtype=kt.int32)
    kt.store(o + r, rows + lo + isum)
    kt.store(o + c, cols + kt.sum(kept))


@kt.jit
def mm(a, b, o):
    i = kt.arange(0, 16)
    k = kt.arange(0, 32)
    j = kt.arange(0, 8)
    ta = kt.load(a + i[:, None] * 32 + k[None, :])
    tb = kt.load(b + k[:, None] * 8 + j[None, :])
    # DOT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
    # DOT: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[Z]] : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
    acc = kt.dot(ta, tb)
    # DOT: tile.dot %{{.*}}, %{{.*}}, %[[D]] : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
    acc = kt.dot(ta, tb, acc=acc)
    # The options that change nothing are accepted (None counts as absent).
    # DOT: tile.dot
    acc = kt.dot(ta, tb, acc, input_precision="ieee", allow_tf32=False, out_dtype=kt.float32,
                 max_num_imprecise_acc=None)
    # An asynchronous product and the wait for it (where products run asynchronously: wgmma
    # reading shared memory; elsewhere both complete at once).
    # DOT: %[[P:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} async : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
    # DOT: tile.dot_wait %[[P]] {pending = 1 : i32} : tensor<16x8xf32>
    acc = kt.dot_wait(kt.dot(ta, tb, acc, is_async=True), 1)
    kt.store(o + i[:, None] * 8 + j[None, :], acc)


@kt.jit
def tf32_dot(a, o):
    i = kt.arange(0, 16)
    t = kt.load(a + i[:, None] * 16 + i[None, :])
    # TF32: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision tf32 : tensor<16x16xf32>
    x = kt.dot(t, t, input_precision="tf32")
    # TF32: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision tf32 : tensor<16x16xf32>
    y = kt.dot(t, t + 1.0, allow_tf32=True)
    # TF32: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf32>
    z = kt.dot(t, t)
    kt.store(o + i[:, None] * 16 + i[None, :], x + y + z)


@kt.jit
def bad_dot(a, o):
    i = kt.arange(0, 16)
    t = kt.load(a + i[:, None] * 16 + i[None, :])
    # ERR: reduce_dot.py:[[@LINE+1]]:38: error: kt.dot() input_precision must be 'ieee' or 'tf32', got 'tf32x3'
    x = kt.dot(t, t, input_precision="tf32x3")
    # ERR: reduce_dot.py:[[@LINE+1]]:57: error: kt.dot() allow_tf32 contradicts input_precision
    y = kt.dot(t, t, input_precision="ieee", allow_tf32=True)
    # ERR: reduce_dot.py:[[@LINE+1]]:44: error: kt.dot() max_num_imprecise_acc is not supported
    z = kt.dot(t, t, max_num_imprecise_acc=32)
    # ERR: reduce_dot.py:[[@LINE+1]]:32: error: kt.dot() out_dtype must be kt.float32
    w = kt.dot(t, t, out_dtype=kt.float16)
    # ERR: reduce_dot.py:[[@LINE+1]]:38: error: kt.dot() input_precision must be a string, got
    v = kt.dot(t, t, input_precision=3)
    h = t.to(kt.bfloat16)
    # ERR: reduce_dot.py:[[@LINE+1]]:38: error: kt.dot() tf32 applies to fp32 operands, got bf16
    u = kt.dot(h, h, input_precision="tf32")
    # ERR: reduce_dot.py:[[@LINE+1]]:31: error: kt.dot() is_async must be a compile-time bool, got
    s = kt.dot(t, t, is_async=1)
    # ERR: reduce_dot.py:[[@LINE+1]]:21: error: kt.dot_wait() acc must be a 2-D fp32 tile (a kt.dot result), got
    q = kt.dot_wait(h, 0)
    # ERR: reduce_dot.py:[[@LINE+1]]:24: error: kt.dot_wait() pending must be a compile-time integer of at least 0, got
    r = kt.dot_wait(t, -1)
    kt.store(o + i[:, None] * 16 + i[None, :], x + y + z + w + v + u + s + q + r)
