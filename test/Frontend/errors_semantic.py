# Semantic errors: names, builtin arguments, shapes and types.
# Every error is FILE:LINE:COL: error: MESSAGE, the source line and a caret.
# RUN: not kda-compile %s --kernel undefined_name --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNDEFINED_NAME
# RUN: not kda-compile %s --kernel bad_arange --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BAD_ARANGE
# RUN: not kda-compile %s --kernel huge_arange --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=HUGE_ARANGE
# RUN: not kda-compile %s --kernel runtime_arange --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RUNTIME_ARANGE
# RUN: not kda-compile %s --kernel shape_mismatch --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SHAPE_MISMATCH
# RUN: not kda-compile %s --kernel other_without_mask --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=OTHER_WITHOUT_MASK
# RUN: not kda-compile %s --kernel too_many_args --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TOO_MANY_ARGS
# RUN: not kda-compile %s --kernel missing_arg --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MISSING_ARG
# RUN: not kda-compile %s --kernel unknown_keyword --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN_KEYWORD
# RUN: not kda-compile %s --kernel exp_of_int --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=EXP_OF_INT
# RUN: not kda-compile %s --kernel bool_op_on_tiles --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BOOL_OP_ON_TILES
# RUN: not kda-compile %s --kernel not_on_tile --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NOT_ON_TILE
# RUN: not kda-compile %s --kernel ptr_times --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=PTR_TIMES
# RUN: not kda-compile %s --kernel bad_axis --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BAD_AXIS
# RUN: not kda-compile %s --kernel float_bitwise --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=FLOAT_BITWISE
# RUN: not kda-compile %s --kernel div_rn_of_ints --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DIV_RN_OF_INTS
# RUN: not kda-compile %s --kernel bad_reshape --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BAD_RESHAPE
# RUN: not kda-compile %s --kernel dot_mismatch --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DOT_MISMATCH
# RUN: not kda-compile %s --kernel mask_not_bool --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MASK_NOT_BOOL
# RUN: not kda-compile %s --kernel unknown_member --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN_MEMBER
# RUN: not kda-compile %s --kernel tile_index --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TILE_INDEX
# RUN: not kda-compile %s --kernel bad_program_id --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BAD_PROGRAM_ID
# RUN: not kda-compile %s --kernel static_assert_fails --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STATIC_ASSERT_FAILS
# RUN: not kda-compile %s --kernel static_assert_false --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STATIC_ASSERT_FALSE
# RUN: not kda-compile %s --kernel runtime_pow --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RUNTIME_POW
# RUN: not kda-compile %s --kernel unpack_count --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNPACK_COUNT
# RUN: not kda-compile %s --kernel div_by_zero --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DIV_BY_ZERO

import kdatile.language as kt


@kt.jit
def undefined_name(o, n):
    # UNDEFINED_NAME: errors_semantic.py:[[@LINE+3]]:9: error: name 'foo' is not defined
    # UNDEFINED_NAME-NEXT: {{^}}    x = foo + 1
    # UNDEFINED_NAME-NEXT: {{^}}        ^
    x = foo + 1

@kt.jit
def huge_arange(o, n):
    # A power-of-two length whose end does not fit the range's int32 values.
    # HUGE_ARANGE: errors_semantic.py:[[@LINE+2]]:9: error: kt.arange() values are int32: start and end must be in [-2**31, 2**31 - 1], got 0 to 4294967296
    # HUGE_ARANGE-NEXT: {{^}}    x = kt.arange(0, 2**32)
    x = kt.arange(0, 2**32)

@kt.jit
def bad_arange(o, n):
    # BAD_ARANGE: errors_semantic.py:[[@LINE+3]]:9: error: kt.arange() length must be a power of two, got 3 (0 to 3)
    # BAD_ARANGE-NEXT: {{^}}    x = kt.arange(0, 3)
    # BAD_ARANGE-NEXT: {{^}}        ^
    x = kt.arange(0, 3)

@kt.jit
def runtime_arange(o, n):
    # RUNTIME_ARANGE: errors_semantic.py:[[@LINE+3]]:22: error: kt.arange() end must be a compile-time constant (constexpr), got a runtime i32
    # RUNTIME_ARANGE-NEXT: {{^}}    x = kt.arange(0, n)
    # RUNTIME_ARANGE-NEXT: {{^}}                     ^
    x = kt.arange(0, n)

@kt.jit
def shape_mismatch(o, n):
    # SHAPE_MISMATCH: errors_semantic.py:[[@LINE+3]]:36: error: incompatible shapes for broadcasting: [4] and [8]
    # SHAPE_MISMATCH-NEXT: {{^}}    x = kt.zeros((4,), kt.float32) + kt.zeros((8,), kt.float32)
    # SHAPE_MISMATCH-NEXT: {{^}}                                   ^
    x = kt.zeros((4,), kt.float32) + kt.zeros((8,), kt.float32)

@kt.jit
def other_without_mask(o, n):
    # OTHER_WITHOUT_MASK: errors_semantic.py:[[@LINE+3]]:26: error: kt.load(): 'other' requires a mask
    # OTHER_WITHOUT_MASK-NEXT: {{^}}    x = kt.load(o, other=0.0)
    # OTHER_WITHOUT_MASK-NEXT: {{^}}                         ^
    x = kt.load(o, other=0.0)

@kt.jit
def too_many_args(o, n):
    # TOO_MANY_ARGS: errors_semantic.py:[[@LINE+3]]:9: error: kt.load() takes at most 6 arguments (7 given)
    # TOO_MANY_ARGS-NEXT: {{^}}    x = kt.load(o, None, None, None, None, None, None)
    # TOO_MANY_ARGS-NEXT: {{^}}        ^
    x = kt.load(o, None, None, None, None, None, None)

@kt.jit
def missing_arg(o, n):
    # MISSING_ARG: errors_semantic.py:[[@LINE+3]]:5: error: kt.store() missing required argument 'value'
    # MISSING_ARG-NEXT: {{^}}    kt.store(o)
    # MISSING_ARG-NEXT: {{^}}    ^
    kt.store(o)

@kt.jit
def unknown_keyword(o, n):
    # UNKNOWN_KEYWORD: errors_semantic.py:[[@LINE+3]]:20: error: kt.load() got an unexpected keyword argument 'msk'
    # UNKNOWN_KEYWORD-NEXT: {{^}}    x = kt.load(o, msk=None)
    # UNKNOWN_KEYWORD-NEXT: {{^}}                   ^
    x = kt.load(o, msk=None)

@kt.jit
def exp_of_int(o, n):
    # EXP_OF_INT: errors_semantic.py:[[@LINE+3]]:16: error: kt.exp() requires a floating-point argument, got i32
    # EXP_OF_INT-NEXT: {{^}}    x = kt.exp(n)
    # EXP_OF_INT-NEXT: {{^}}               ^
    x = kt.exp(n)

@kt.jit
def bool_op_on_tiles(o, n):
    x = kt.arange(0, 4) < 2
    # BOOL_OP_ON_TILES: errors_semantic.py:[[@LINE+3]]:9: error: 'and' needs scalar operands, got tile of type tensor<4xi1>; use '&' for tiles
    # BOOL_OP_ON_TILES-NEXT: {{^}}    y = x and x
    # BOOL_OP_ON_TILES-NEXT: {{^}}        ^
    y = x and x

@kt.jit
def not_on_tile(o, n):
    x = kt.arange(0, 4) < 2
    # NOT_ON_TILE: errors_semantic.py:[[@LINE+3]]:9: error: 'not' is not supported on tiles; use '~' for elementwise negation
    # NOT_ON_TILE-NEXT: {{^}}    y = not x
    # NOT_ON_TILE-NEXT: {{^}}        ^
    y = not x

@kt.jit
def ptr_times(o, n):
    # PTR_TIMES: errors_semantic.py:[[@LINE+3]]:11: error: unsupported operand types for *: scalar of type !tile.ptr<f32> and int constant 2
    # PTR_TIMES-NEXT: {{^}}    x = o * 2
    # PTR_TIMES-NEXT: {{^}}          ^
    x = o * 2

@kt.jit
def bad_axis(o, n):
    # BAD_AXIS: errors_semantic.py:[[@LINE+3]]:51: error: axis 2 is out of range for a tile of rank 2
    # BAD_AXIS-NEXT: {{^}}    x = kt.sum(kt.zeros((4, 4), kt.float32), axis=2)
    # BAD_AXIS-NEXT: {{^}}                                                  ^
    x = kt.sum(kt.zeros((4, 4), kt.float32), axis=2)

@kt.jit
def float_bitwise(o, n):
    # FLOAT_BITWISE: errors_semantic.py:[[@LINE+3]]:36: error: operator '&' needs integer or boolean operands, got f32
    # FLOAT_BITWISE-NEXT: {{^}}    x = kt.zeros((4,), kt.float32) & 1
    # FLOAT_BITWISE-NEXT: {{^}}                                   ^
    x = kt.zeros((4,), kt.float32) & 1

@kt.jit
def bad_reshape(o, n):
    # BAD_RESHAPE: errors_semantic.py:[[@LINE+3]]:9: error: kt.reshape() cannot reshape [4] (4 elements) to [3] (3 elements)
    # BAD_RESHAPE-NEXT: {{^}}    x = kt.reshape(kt.zeros((4,), kt.float32), (3,))
    # BAD_RESHAPE-NEXT: {{^}}        ^
    x = kt.reshape(kt.zeros((4,), kt.float32), (3,))

@kt.jit
def dot_mismatch(o, n):
    # DOT_MISMATCH: errors_semantic.py:[[@LINE+3]]:9: error: kt.dot() inner dimensions differ: [4, 8] @ [4, 8]
    # DOT_MISMATCH-NEXT: {{^}}    x = kt.dot(kt.zeros((4, 8), kt.float32), kt.zeros((4, 8), kt.float32))
    # DOT_MISMATCH-NEXT: {{^}}        ^
    x = kt.dot(kt.zeros((4, 8), kt.float32), kt.zeros((4, 8), kt.float32))

@kt.jit
def mask_not_bool(o, n):
    # MASK_NOT_BOOL: errors_semantic.py:[[@LINE+3]]:25: error: kt.load() mask must be a boolean (i1) scalar or tile, got scalar of type i32
    # MASK_NOT_BOOL-NEXT: {{^}}    x = kt.load(o, mask=n)
    # MASK_NOT_BOOL-NEXT: {{^}}                        ^
    x = kt.load(o, mask=n)

@kt.jit
def unknown_member(o, n):
    # UNKNOWN_MEMBER: errors_semantic.py:[[@LINE+3]]:9: error: module 'kt' has no attribute 'no_such_builtin'
    # UNKNOWN_MEMBER-NEXT: {{^}}    x = kt.no_such_builtin(n)
    # UNKNOWN_MEMBER-NEXT: {{^}}        ^
    x = kt.no_such_builtin(n)

@kt.jit
def tile_index(o, n):
    # TILE_INDEX: errors_semantic.py:[[@LINE+3]]:25: error: unsupported construct: indexing a tile (only ':' and None are allowed in subscripts)
    # TILE_INDEX-NEXT: {{^}}    x = kt.arange(0, 4)[0]
    # TILE_INDEX-NEXT: {{^}}                        ^
    x = kt.arange(0, 4)[0]

@kt.jit
def bad_program_id(o, n):
    # BAD_PROGRAM_ID: errors_semantic.py:[[@LINE+3]]:23: error: kt.program_id() axis must be 0, 1 or 2, got 3
    # BAD_PROGRAM_ID-NEXT: {{^}}    x = kt.program_id(3)
    # BAD_PROGRAM_ID-NEXT: {{^}}                      ^
    x = kt.program_id(3)

@kt.jit
def static_assert_fails(o, n):
    # STATIC_ASSERT_FAILS: errors_semantic.py:[[@LINE+3]]:22: error: kt.static_assert() needs a compile-time condition, got scalar of type i1
    # STATIC_ASSERT_FAILS-NEXT: {{^}}    kt.static_assert(n > 0)
    # STATIC_ASSERT_FAILS-NEXT: {{^}}                     ^
    kt.static_assert(n > 0)

@kt.jit
def static_assert_false(o, n):
    # STATIC_ASSERT_FALSE: errors_semantic.py:[[@LINE+3]]:22: error: static assertion failed: one is not greater
    # STATIC_ASSERT_FALSE-NEXT: {{^}}    kt.static_assert(1 > 2, 'one is not greater')
    # STATIC_ASSERT_FALSE-NEXT: {{^}}                     ^
    kt.static_assert(1 > 2, 'one is not greater')

@kt.jit
def runtime_pow(o, n):
    # RUNTIME_POW: errors_semantic.py:[[@LINE+3]]:11: error: '**' on runtime values needs a constexpr integer exponent, got float constant 0.5
    # RUNTIME_POW-NEXT: {{^}}    x = n ** 0.5
    # RUNTIME_POW-NEXT: {{^}}          ^
    x = n ** 0.5

@kt.jit
def unpack_count(o, n):
    # UNPACK_COUNT: errors_semantic.py:[[@LINE+3]]:12: error: cannot unpack a tuple of 3 values into 2 names
    # UNPACK_COUNT-NEXT: {{^}}    a, b = (1, 2, 3)
    # UNPACK_COUNT-NEXT: {{^}}           ^
    a, b = (1, 2, 3)

@kt.jit
def div_by_zero(o, n):
    # DIV_BY_ZERO: errors_semantic.py:[[@LINE+3]]:11: error: integer division by zero
    # DIV_BY_ZERO-NEXT: {{^}}    x = 1 // 0
    # DIV_BY_ZERO-NEXT: {{^}}          ^
    x = 1 // 0


@kt.jit
def div_rn_of_ints(o, n):
    # DIV_RN_OF_INTS: errors_semantic.py:[[@LINE+3]]:9: error: kt.div_rn() needs floating-point operands, got i32
    # DIV_RN_OF_INTS-NEXT: {{^}}    q = kt.div_rn(n, 3)
    # DIV_RN_OF_INTS-NEXT: {{^}}        ^
    q = kt.div_rn(n, 3)
    kt.store(o, q)
