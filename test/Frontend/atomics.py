# kt.atomic_add / max / min / xchg: one scalar atomic per program; the value is
# cast to the pointee; sem and scope default to acq_rel and gpu. On a tile of
# pointers, one atomic per element: the value and the mask broadcast to the
# pointer shape.
# RUN: kda-compile %s --kernel atomics --target cpu --signature 'c=*i32,f=*f32,n=i32' \
# RUN:   --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel tile_atomics --target cpu --signature 'c=*i32,f=*f32,n=i32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=TILE

import kdatile as kt


# CHECK-LABEL: func.func @atomics
@kt.jit
def atomics(c, f, n):
    # CHECK: %[[OLD:.*]] = tile.atomic_rmw add %arg0, %{{.*}} {sem = acq_rel, scope = gpu} : !tile.ptr<i32>
    old = kt.atomic_add(c, 1)
    # CHECK: %[[CAST:.*]] = arith.sitofp %[[OLD]] : i32 to f32
    # CHECK: tile.atomic_rmw add %arg1, %[[CAST]] {sem = relaxed, scope = cta} : !tile.ptr<f32>
    kt.atomic_add(f, old, sem="relaxed", scope="cta")
    # CHECK: tile.atomic_rmw max %arg0, %arg2 {sem = release, scope = sys} : !tile.ptr<i32>
    kt.atomic_max(c, n, sem="release", scope="sys")
    # CHECK: tile.atomic_rmw min %{{.*}}, %arg2 {sem = acquire, scope = gpu} : !tile.ptr<i32>
    kt.atomic_min(c + 1, n, sem="acquire")
    # CHECK: tile.atomic_rmw xchg %arg1, %{{.*}} {sem = acq_rel, scope = gpu} : !tile.ptr<f32>
    kt.atomic_xchg(f, 0.0)


# TILE-LABEL: func.func @tile_atomics
@kt.jit
def tile_atomics(c, f, n):
    offs = kt.arange(0, 64)
    # TILE: %[[ONES:.*]] = arith.constant dense<1> : tensor<64xi32>
    # TILE: %[[M:.*]] = arith.cmpi slt
    # TILE: %[[OLD:.*]] = tile.atomic_rmw add %{{.*}}, %[[ONES]] mask %[[M]] {sem = relaxed, scope = gpu} : tensor<64x!tile.ptr<i32>>
    old = kt.atomic_add(c + offs, 1, mask=offs < n, sem="relaxed")
    # TILE: %[[F:.*]] = arith.sitofp %[[OLD]] : tensor<64xi32> to tensor<64xf32>
    # TILE: tile.atomic_rmw xchg %{{.*}}, %[[F]] {sem = acq_rel, scope = gpu} : tensor<64x!tile.ptr<f32>>
    kt.atomic_xchg(f + offs, old)
