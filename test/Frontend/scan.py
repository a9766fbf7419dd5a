# kt.cumsum / kt.cumprod / kt.cummax / kt.cummin: inclusive scans along an axis
# (default 0), suffix scans with reverse=True; narrow integers sum in i32. Each is
# a tile.scan whose combiner takes the running value, then the next element.
# kt.associative_scan inlines a DSL combine function there, over one tile or a
# tuple of tiles.
# RUN: kda-compile %s --kernel scans --target cpu --signature 'x=*f32,i=*i8,o=*f32,p=*i32' \
# RUN:   --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel linear_recurrence --target cpu --signature 'a=*f32,b=*f32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=PAIR
# RUN: not kda-compile %s --kernel bad_scans --target cpu --signature 'x=*f32,n=i1' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ERR

import kdatile as kt


# CHECK-LABEL: func.func @scans
# CHECK: tile.scan %{{.*}} {axis = 0 : i32, reverse = false} : tensor<4x8xf32> {
# CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[X:.*]]: f32):
# CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
# CHECK-NEXT: tile.yield %[[S]] : f32
# CHECK: tile.scan %{{.*}} {axis = 1 : i32, reverse = true} : tensor<4x8xf32>
# CHECK: arith.maximumf
# CHECK: tile.scan %{{.*}} {axis = 1 : i32, reverse = false} : tensor<4x8xf32>
# CHECK: arith.minimumf
# CHECK: tile.scan %{{.*}} {axis = 0 : i32, reverse = false} : tensor<4x8xf32>
# CHECK: arith.mulf
# CHECK: arith.extsi %{{.*}} : tensor<4x8xi8> to tensor<4x8xi32>
# CHECK: tile.scan %{{.*}} {axis = 0 : i32, reverse = false} : tensor<4x8xi32>
# CHECK: arith.addi
@kt.jit
def scans(x, i, o, p):
    offs = kt.arange(0, 4)[:, None] * 8 + kt.arange(0, 8)[None, :]
    v = kt.load(x + offs)
    kt.store(o + offs, kt.cumsum(v) + kt.cummax(v, 1, reverse=True) + kt.cummin(v, axis=-1)
             + kt.cumprod(v))
    kt.store(p + offs, kt.cumsum(kt.load(i + offs)))


@kt.jit
def affine(a1, b1, a2, b2):
    # (a2, b2) after (a1, b1): x -> a2 * (a1 * x + b1) + b2
    return a1 * a2, a2 * b1 + b2


# PAIR-LABEL: func.func @linear_recurrence
# PAIR: %{{.*}}:2 = tile.scan %{{.*}}, %{{.*}} {axis = 0 : i32, reverse = false} : tensor<16xf32>, tensor<16xf32> {
# PAIR-NEXT: ^bb0(%[[A1:.*]]: f32, %[[B1:.*]]: f32, %[[A2:.*]]: f32, %[[B2:.*]]: f32):
# PAIR-DAG: %[[A:.*]] = arith.mulf %[[A1]], %[[A2]] : f32
# PAIR-DAG: %[[M:.*]] = arith.mulf %[[A2]], %[[B1]] : f32
# PAIR: %[[B:.*]] = arith.addf %[[M]], %[[B2]] : f32
# PAIR: tile.yield %[[A]], %[[B]] : f32, f32
@kt.jit
def linear_recurrence(a, b):
    offs = kt.arange(0, 16)
    _, h = kt.associative_scan((kt.load(a + offs), kt.load(b + offs)), 0, affine)
    kt.store(b + offs, h)


@kt.jit
def add(x, y):
    return x + y


@kt.jit
def first(a1, b1, a2, b2):
    return a1 + a2


@kt.jit
def through_tile(x, y):
    return kt.sum(kt.full((4,), x, kt.float32)) + y


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
    # ERR: scan.py:[[@LINE+1]]:35: error: combine_fn must be a @kt.jit function, got
    d = kt.associative_scan(v, 0, 3)
    # ERR: scan.py:[[@LINE+1]]:9: error: kt.associative_scan() missing required argument 'axis'
    e = kt.associative_scan(v, combine_fn=add)
    # ERR: scan.py:[[@LINE+1]]:43: error: combine_fn must return 2 values, got 1
    f, g = kt.associative_scan((v, v), 0, first)
    # ERR: scan.py:[[@LINE+1]]:35: error: combine_fn must compute on scalars without touching memory; it uses 'tile.splat'
    i = kt.associative_scan(v, 0, through_tile)
    # ERR: scan.py:[[@LINE+1]]:29: error: kt.associative_scan() needs tiles of one shape and layout
    h = kt.associative_scan((v, v[:, None]), 0, affine)
    kt.store(x + offs, a + b + c + d + e + f + h + i)
