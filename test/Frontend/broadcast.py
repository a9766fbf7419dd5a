# numpy broadcasting and shape builtins.
# RUN: kda-compile %s --kernel shapes --target cpu --signature 'o=*f32,s=f32' \
# RUN:   -D M=8 -D N=16 --emit tile -o - | FileCheck %s

import kdatile.language as kt


@kt.jit
def shapes(o, s, M: kt.constexpr, N: kt.constexpr):
    rows = kt.arange(0, M)
    cols = kt.arange(0, N)
    # CHECK: %[[R:.*]] = tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    # CHECK: %[[RN:.*]] = arith.muli %[[R]], %{{.*}} : tensor<8x1xi32>
    # CHECK: %[[C:.*]] = tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    # CHECK: tile.broadcast %[[RN]] : tensor<8x1xi32> -> tensor<8x16xi32>
    # CHECK: tile.broadcast %[[C]] : tensor<1x16xi32> -> tensor<8x16xi32>
    # CHECK: arith.addi {{.*}} : tensor<8x16xi32>
    idx = rows[:, None] * N + cols[None, :]
    # A rank-1 operand is left-padded with expand_dims at axis 0.
    # CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
    v = idx.to(kt.float32) + cols.to(kt.float32)
    # Scalars are splat.
    # CHECK: tile.splat %arg1 : tensor<8x16xf32>
    v = v * s
    # CHECK: tile.broadcast %{{.*}} : tensor<1x16xf32> -> tensor<4x16xf32>
    b = kt.broadcast_to(cols.to(kt.float32)[None, :], (4, N))
    # CHECK: tile.reshape %{{.*}} : tensor<8x16xf32> -> tensor<128xf32>
    flat = kt.reshape(v, (M * N,))
    # CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
    t = v.T
    # CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
    t2 = kt.trans(t, 1, 0)
    # CHECK: tile.expand_dims %{{.*}} {axis = 2 : i32} : tensor<8x16xf32> -> tensor<8x16x1xf32>
    e = kt.expand_dims(t2, -1)
    kt.static_assert(e.shape == (M, N, 1), "expand_dims shape")
    kt.static_assert(flat.shape[0] == 128)
    kt.store(o + idx, v + t2 + kt.sum(b, 0)[None, :] + kt.reshape(flat, (M, N)) + kt.sum(e, 2))
