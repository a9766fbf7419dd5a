# kt.cluster_sum(x, axis, size) becomes tile.cluster_sum on the fp32 scalar, also under a
# branch; its errors point at the argument (or the call) by line and column.
# RUN: kda-compile %s --kernel totals --target cpu --signature 'p=*f32,c=i32' --emit tile -o - \
# RUN:   | FileCheck %s
# CHECK: %[[S:.*]] = tile.reduce sum
# CHECK: tile.cluster_sum %[[S]] {axis = 1 : i32, size = 4 : i32} : f32
# CHECK: scf.if
# CHECK: tile.cluster_sum %{{.*}} {axis = 1 : i32, size = 4 : i32} : f32
# RUN: not kda-compile %s --kernel in_loop --target cpu --signature 'p=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=IN-LOOP
# IN-LOOP: cluster_sum.py:[[@LINE+25]]:14: error: kt.cluster_sum() must not be called in a loop: every program of a cluster must call it equally often
# RUN: not kda-compile %s --kernel tile_input --target cpu --signature 'p=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=TILE
# TILE: cluster_sum.py:[[@LINE+28]]:32: error: kt.cluster_sum() input must be a float32 scalar (sum a tile with kt.sum first), got
# RUN: not kda-compile %s --kernel big_cluster --target cpu --signature 'p=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SIZE
# SIZE: cluster_sum.py:[[@LINE+30]]:47: error: kt.cluster_sum() size must be between 1 and 8 programs (the portable cluster size), got 16
# RUN: not kda-compile %s --kernel bad_axis --target cpu --signature 'p=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AXIS
# AXIS: cluster_sum.py:[[@LINE+32]]:44: error: kt.cluster_sum() axis must be 0, 1 or 2, got 3
import kdatile as kt


@kt.jit
def totals(p, c):
    s = kt.cluster_sum(kt.sum(kt.load(p + kt.arange(0, 16))), 1, 4)
    if c > 0:
        s = kt.cluster_sum(s, 1, 4)
    kt.store(p, s)


@kt.jit
def in_loop(p, n):
    s = 0.0
    for i in range(n):
        s += kt.cluster_sum(kt.load(p + i), 0, 2)
    kt.store(p, s)


@kt.jit
def tile_input(p):
    kt.store(p, kt.cluster_sum(kt.load(p + kt.arange(0, 16)), 0, 2))


@kt.jit
def big_cluster(p):
    kt.store(p, kt.cluster_sum(kt.load(p), 0, 16))


@kt.jit
def bad_axis(p):
    kt.store(p, kt.cluster_sum(kt.load(p), 3, 2))
