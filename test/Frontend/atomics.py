# kt.atomic_add / max / min / xchg: one scalar atomic per program; the value is
# cast to the pointee; sem and scope default to acq_rel and gpu.
# RUN: kda-compile %s --kernel atomics --target cpu --signature 'c=*i32,f=*f32,n=i32' \
# RUN:   --emit tile -o - | FileCheck %s

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
