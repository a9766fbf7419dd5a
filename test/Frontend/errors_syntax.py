# Syntax errors and unsupported constructs, reported only for the kernel used.
# Every error is FILE:LINE:COL: error: MESSAGE, the source line and a caret.
# RUN: not kda-compile %s --kernel lambda_expr --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=LAMBDA_EXPR
# RUN: not kda-compile %s --kernel list_comp --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=LIST_COMP
# RUN: not kda-compile %s --kernel break_stmt --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BREAK_STMT
# RUN: not kda-compile %s --kernel with_stmt --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=WITH_STMT
# RUN: not kda-compile %s --kernel nested_def --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NESTED_DEF
# RUN: not kda-compile %s --kernel slicing --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SLICING
# RUN: not kda-compile %s --kernel bad_token --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=BAD_TOKEN
# RUN: not kda-compile %s --kernel missing_colon --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MISSING_COLON
# RUN: not kda-compile %s --kernel try_stmt --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=TRY_STMT
# RUN: not kda-compile %s --kernel dict_literal --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=DICT_LITERAL
# RUN: not kda-compile %s --kernel f_string --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=F_STRING

import kdatile.language as kt


@kt.jit
def lambda_expr(o, n):
    # LAMBDA_EXPR: errors_syntax.py:[[@LINE+3]]:9: error: unsupported construct: lambda
    # LAMBDA_EXPR-NEXT: {{^}}    f = lambda: 0
    # LAMBDA_EXPR-NEXT: {{^}}        ^
    f = lambda: 0

@kt.jit
def list_comp(o, n):
    # LIST_COMP: errors_syntax.py:[[@LINE+3]]:12: error: unsupported construct: list comprehension
    # LIST_COMP-NEXT: {{^}}    x = [i for i in range(3)]
    # LIST_COMP-NEXT: {{^}}           ^
    x = [i for i in range(3)]

@kt.jit
def break_stmt(o, n):
    for i in range(n):
        # BREAK_STMT: errors_syntax.py:[[@LINE+3]]:9: error: unsupported construct: break
        # BREAK_STMT-NEXT: {{^}}        break
        # BREAK_STMT-NEXT: {{^}}        ^
        break

@kt.jit
def with_stmt(o, n):
    # WITH_STMT: errors_syntax.py:[[@LINE+3]]:5: error: unsupported construct: with statement
    # WITH_STMT-NEXT: {{^}}    with n:
    # WITH_STMT-NEXT: {{^}}    ^
    with n:
        pass

@kt.jit
def nested_def(o, n):
    # NESTED_DEF: errors_syntax.py:[[@LINE+3]]:5: error: unsupported construct: nested function definition
    # NESTED_DEF-NEXT: {{^}}    def inner():
    # NESTED_DEF-NEXT: {{^}}    ^
    def inner():
        pass

@kt.jit
def slicing(o, n):
    # SLICING: errors_syntax.py:[[@LINE+3]]:11: error: unsupported construct: slicing (only ':' and None are allowed in subscripts)
    # SLICING-NEXT: {{^}}    x = o[1:2]
    # SLICING-NEXT: {{^}}          ^
    x = o[1:2]

@kt.jit
def bad_token(o, n):
    # BAD_TOKEN: errors_syntax.py:[[@LINE+3]]:13: error: invalid syntax: unexpected ')'
    # BAD_TOKEN-NEXT: {{^}}    x = (1 +)
    # BAD_TOKEN-NEXT: {{^}}            ^
    x = (1 +)

@kt.jit
def missing_colon(o, n):
    # MISSING_COLON: errors_syntax.py:[[@LINE+3]]:9: error: expected ':', found end of line
    # MISSING_COLON-NEXT: {{^}}    if n
    # MISSING_COLON-NEXT: {{^}}        ^
    if n
        pass

@kt.jit
def try_stmt(o, n):
    # TRY_STMT: errors_syntax.py:[[@LINE+3]]:5: error: unsupported construct: try statement
    # TRY_STMT-NEXT: {{^}}    try:
    # TRY_STMT-NEXT: {{^}}    ^
    try:
        pass
    except:
        pass

@kt.jit
def dict_literal(o, n):
    # DICT_LITERAL: errors_syntax.py:[[@LINE+3]]:9: error: unsupported construct: dict or set literal
    # DICT_LITERAL-NEXT: {{^}}    x = {1: 2}
    # DICT_LITERAL-NEXT: {{^}}        ^
    x = {1: 2}


@kt.jit
def f_string(o, n):
    # F_STRING: errors_syntax.py:[[@LINE+2]]:29: error: unsupported construct: f-string (nothing formats it in a kernel; give the values to kt.device_print or kt.static_print as arguments)
    # F_STRING-NEXT: {{^}}    kt.static_assert(n > 0, f"n is {n}")
    kt.static_assert(n > 0, f"n is {n}")
