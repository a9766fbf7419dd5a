# kt.cumsum / kt.cummax / kt.cummin: inclusive scans along an axis (default 0),
# suffix scans with reverse=True; narrow integers sum in i32.
# RUN: kda-compile %s --kernel scans --target cpu --signature 'x=*f32,i=*i8,o=*f32,p=*i32' \
# RUN:   --emit tile -o - | FileCheck %s
# RUN: not kda-compile %s --kernel bad_scans --target cpu --signature 'x=*f32,n=i1' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ERR

import kdatile as kt


# CHECK-LABEL: func.func @scans
# CHECK: tile.scan sum %{{.*}} {axis = 0 : i32, reverse = false} : tensor<4x8xf32>
# CHECK: tile.scan max %{{.*}} {axis = 1 : i32, reverse = true} : tensor<4x8xf32>
# CHECK: tile.scan min %{{.*}} {axis = 1 : i32, reverse = false} : tensor<4x8xf32>
# CHECK: arith.extsi %{{.*}} : tensor<4x8xi8> to tensor<4x8xi32>
# CHECK: tile.scan sum %{{.*}} {axis = 0 : i32, reverse = false} : tensor<4x8xi32>
@kt.jit
def scans(x, i, o, p):
    offs = kt.arange(0, 4)[:, None] * 8 + kt.arange(0, 8)[None, :]
    v = kt.load(x + offs)
    kt.store(o + offs, kt.cumsum(v) + kt.cummax(v, 1, reverse=True) + kt.cummin(v, axis=-1))
    kt.store(p + offs, kt.cumsum(kt.load(i + offs)))


@kt.jit
def bad_scans(x, n):
    offs = kt.arange(0, 8)
    v = kt.load(x + offs)
    # ERR: scan.py:[[@LINE+1]]:22: error: axis 1 is out of range for a tile of rank 1
    a = kt.cumsum(v, 1)
    # ERR: scan.py:[[@LINE+1]]:25: error: reverse must be a compile-time bool
    b = kt.cummax(v, 0, n)
    # ERR: scan.py:[[@LINE+1]]:21: error: kt.cummin() needs a tile of numbers, got
    c = kt.cummin(x + offs)
    kt.store(x + offs, a + b + c)
