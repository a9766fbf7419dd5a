# Errors of runtime control flow and constexpr requirements.
# Every error is FILE:LINE:COL: error: MESSAGE, the source line and a caret.
# RUN: not kda-compile %s --kernel return_in_loop --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RETURN_IN_LOOP
# RUN: not kda-compile %s --kernel while_true --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=WHILE_TRUE
# RUN: not kda-compile %s --kernel loop_type_change --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=LOOP_TYPE_CHANGE
# RUN: not kda-compile %s --kernel if_type_change --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=IF_TYPE_CHANGE
# RUN: not kda-compile %s --kernel tile_condition --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TILE_CONDITION
# RUN: not kda-compile %s --kernel range_over_tuple --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=RANGE_OVER_TUPLE
# RUN: not kda-compile %s --kernel static_range_runtime --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STATIC_RANGE_RUNTIME
# RUN: not kda-compile %s --kernel zero_step --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=ZERO_STEP

import kdatile.language as kt


@kt.jit
def return_in_loop(o, n):
    for i in range(n):
        # RETURN_IN_LOOP: errors_control_flow.py:[[@LINE+3]]:9: error: 'return' inside runtime control flow is not supported; return at the end of the function
        # RETURN_IN_LOOP-NEXT: {{^}}        return
        # RETURN_IN_LOOP-NEXT: {{^}}        ^
        return

@kt.jit
def while_true(o, n):
    # WHILE_TRUE: errors_control_flow.py:[[@LINE+3]]:11: error: 'while' condition is always true (there is no 'break'): the loop never ends
    # WHILE_TRUE-NEXT: {{^}}    while True:
    # WHILE_TRUE-NEXT: {{^}}          ^
    while True:
        pass

@kt.jit
def loop_type_change(o, n):
    x = 1
    # LOOP_TYPE_CHANGE: errors_control_flow.py:[[@LINE+3]]:5: error: loop-carried variable 'x' changes type from i32 to tensor<4xf32> inside the loop
    # LOOP_TYPE_CHANGE-NEXT: {{^}}    for i in range(n):
    # LOOP_TYPE_CHANGE-NEXT: {{^}}    ^
    for i in range(n):
        x = kt.zeros((4,), kt.float32)

@kt.jit
def if_type_change(o, n):
    # IF_TYPE_CHANGE: errors_control_flow.py:[[@LINE+3]]:5: error: variable 'x' has type i32 in the 'if' branch but f32 in the 'else' branch
    # IF_TYPE_CHANGE-NEXT: {{^}}    if n > 0:
    # IF_TYPE_CHANGE-NEXT: {{^}}    ^
    if n > 0:
        x = n
    else:
        x = 1.5 * n
    y = x

@kt.jit
def tile_condition(o, n):
    # TILE_CONDITION: errors_control_flow.py:[[@LINE+3]]:8: error: condition of 'if' must be a scalar, got a tile of type tensor<4xi1>; use kt.where for tiles
    # TILE_CONDITION-NEXT: {{^}}    if kt.arange(0, 4) < 2:
    # TILE_CONDITION-NEXT: {{^}}       ^
    if kt.arange(0, 4) < 2:
        pass

@kt.jit
def range_over_tuple(o, n):
    # RANGE_OVER_TUPLE: errors_control_flow.py:[[@LINE+3]]:14: error: unsupported construct: for loop over tuple; use range() or kt.static_range()
    # RANGE_OVER_TUPLE-NEXT: {{^}}    for i in (1, 2):
    # RANGE_OVER_TUPLE-NEXT: {{^}}             ^
    for i in (1, 2):
        pass

@kt.jit
def static_range_runtime(o, n):
    # STATIC_RANGE_RUNTIME: errors_control_flow.py:[[@LINE+3]]:30: error: kt.static_range() bound must be a compile-time constant (constexpr), got a runtime i32
    # STATIC_RANGE_RUNTIME-NEXT: {{^}}    for i in kt.static_range(n):
    # STATIC_RANGE_RUNTIME-NEXT: {{^}}                             ^
    for i in kt.static_range(n):
        pass

@kt.jit
def zero_step(o, n):
    # ZERO_STEP: errors_control_flow.py:[[@LINE+3]]:26: error: range() step must not be zero
    # ZERO_STEP-NEXT: {{^}}    for i in range(0, n, 0):
    # ZERO_STEP-NEXT: {{^}}                         ^
    for i in range(0, n, 0):
        pass
