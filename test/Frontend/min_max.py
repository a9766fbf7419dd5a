# kt.maximum / kt.minimum: two constants compute in the wider type (a float if either is one);
# booleans order False < True (max is `or`, min is `and`). Python's min / max / len and the
# loop ranges name themselves in their errors.
# RUN: kda-compile %s --kernel mixed --target cpu --signature 'o=*f32,w=*i64' --emit tile -o - \
# RUN:   | FileCheck %s --check-prefix=MIXED
# RUN: kda-compile %s --kernel flags --target cpu --signature 'x=*i32,o=*i1' --emit tile -o - \
# RUN:   | FileCheck %s --check-prefix=FLAGS
# RUN: not kda-compile %s --kernel max_keyword --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=MAXKW
# RUN: not kda-compile %s --kernel len_of_int --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=LEN
# RUN: not kda-compile %s --kernel static_range_keyword --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=RANGEKW

import kdatile as kt


@kt.jit
def mixed(o, w):
    kt.store(o, kt.maximum(1, 2.5) + kt.minimum(3, 0.5))
    kt.store(w, kt.maximum(1, 2**40) + kt.maximum(True, 2))


# MIXED-DAG: %[[C:.*]] = arith.constant 3.000000e+00 : f32
# MIXED-DAG: %[[W:.*]] = arith.constant 1099511627778 : i64
# MIXED-DAG: tile.store %arg0, %[[C]] : !tile.ptr<f32>
# MIXED-DAG: tile.store %arg1, %[[W]] : !tile.ptr<i64>


@kt.jit
def flags(x, o):
    offs = kt.arange(0, 4)
    a = kt.load(x + offs) > 0
    b = kt.load(x + offs) > 1
    kt.store(o + offs, kt.maximum(a, b))
    kt.store(o + 4 + offs, kt.minimum(a, b))


# FLAGS: arith.ori %{{.*}} : tensor<4xi1>
# FLAGS: arith.andi %{{.*}} : tensor<4xi1>
# FLAGS-NOT: arith.maxsi
# FLAGS-NOT: arith.minsi


@kt.jit
def max_keyword(o):
    kt.store(o, max(1, 2, key=3) + 0.0)


# MAXKW: min_max.py:[[# @LINE - 3]]:27: error: max() takes no keyword arguments


@kt.jit
def len_of_int(o):
    kt.store(o, len(3) + 0.0)


# LEN: min_max.py:[[# @LINE - 3]]:21: error: len() needs a tuple or a string


@kt.jit
def static_range_keyword(o):
    for i in kt.static_range(4, step=2):
        kt.store(o + i, 0.0)


# RANGEKW: min_max.py:[[# @LINE - 4]]:14: error: kt.static_range() takes no keyword arguments


# int() / float() of runtime values keep a 64-bit width (Python's int and float do not
# narrow): i64 stays i64, f64 stays f64; narrower values become i32 / f32.
# RUN: kda-compile %s --kernel widths --target cpu --signature 'a=*i64,b=*f64,c=*i16,o=*i64,p=*f64' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=WIDTHS
@kt.jit
def widths(a, b, c, o, p):
    kt.store(o, int(kt.load(a)) + int(kt.load(c)))
    kt.store(p, float(kt.load(b)))


# WIDTHS-NOT: arith.trunci %{{.*}} : i64 to i32
# WIDTHS-NOT: arith.truncf %{{.*}} : f64 to f32
# WIDTHS: arith.addi %{{.*}} : i64


# kt.where with a compile-time condition and a runtime operand: the picked operand with the
# type and shape both promote and broadcast to (here f32 [8] from a constant 0 and an f32 [8]).
# RUN: kda-compile %s --kernel where_constexpr --target cpu --signature 'x=*f32,o=*f32' \
# RUN:   -D FLAG=False --emit tile -o - | FileCheck %s --check-prefix=WHERE
@kt.jit
def where_constexpr(x, o, FLAG: kt.constexpr):
    offs = kt.arange(0, 8)
    kt.store(o + offs, kt.where(FLAG, kt.load(x + offs), 0))


# WHERE: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
# WHERE: tile.store %{{.*}}, %[[Z]] : tensor<8x!tile.ptr<f32>>


# A compile-time condition picks between pointers as they are.
# RUN: kda-compile %s --kernel where_pointers --target cpu --signature 'x=*f32,y=*f32' \
# RUN:   -D FIRST=False --emit tile -o - | FileCheck %s --check-prefix=WHEREPTR
@kt.jit
def where_pointers(x, y, FIRST: kt.constexpr):
    kt.store(kt.where(FIRST, x, y), 1.0)


# WHEREPTR: tile.store %arg1, %{{.*}} : !tile.ptr<f32>
