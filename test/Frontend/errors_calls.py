# Errors at calls and kernel boundaries; errors inside inlined callees are
# followed by "note: in call from here" at each call site.
# RUN: not kda-compile %s --kernel callee_error --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NOTE
# RUN: not kda-compile %s --kernel recursion --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=RECURSION
# RUN: not kda-compile %s --kernel call_python --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=PYTHON
# RUN: not kda-compile %s --kernel runtime_for_constexpr --target cpu \
# RUN:   --signature 'o=*f32,n=i32' --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=CONSTEXPR-ARG
# RUN: not kda-compile %s --kernel wrong_arity --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ARITY
# RUN: not kda-compile %s --kernel use_numpy --target cpu --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NUMPY
# RUN: not kda-compile %s --kernel no_such_kernel --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=MISSING
# RUN: not kda-compile %s --kernel needs_block --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NEEDS-VALUE
# RUN: not kda-compile %s --kernel needs_block --target cpu --signature '' -D BLOCK=4 \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SIG
# RUN: not kda-compile %s --kernel recursion --target cpu --signature 'n=i32,o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SIG-ORDER
# RUN: not kda-compile %s --kernel needs_block --target cpu --signature 'o=*f32,BLOCK=i32' \
# RUN:   -D BLOCK=4 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SIG-CONSTEXPR
# RUN: not kda-compile %s --kernel needs_block --target cpu --signature 'o=*f32' -D BLOCK=4 \
# RUN:   -D NOPE=1 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=UNKNOWN-D
# RUN: not kda-compile %s --kernel broken_helper_user --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BROKEN
# RUN: not kda-compile %s --kernel python_function --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NOT-JIT

import numpy as np

import kdatile.language as kt


@kt.jit
def inner(x):
    # NOTE: errors_calls.py:[[@LINE+3]]:19: error: kt.log() requires a floating-point argument, got i32
    # NOTE-NEXT: {{^}}    return kt.log(x)
    # NOTE-NEXT: {{^}}                  ^
    return kt.log(x)


@kt.jit
def middle(x):
    # NOTE-NEXT: errors_calls.py:[[@LINE+3]]:12: note: in call from here
    # NOTE-NEXT: {{^}}    return inner(x + 1)
    # NOTE-NEXT: {{^}}           ^
    return inner(x + 1)


@kt.jit
def callee_error(o, n):
    # NOTE-NEXT: errors_calls.py:[[@LINE+3]]:9: note: in call from here
    # NOTE-NEXT: {{^}}    y = middle(n)
    # NOTE-NEXT: {{^}}        ^
    y = middle(n)


@kt.jit
def ping(x):
    # RECURSION: errors_calls.py:[[@LINE+1]]:12: error: recursive call to 'ping' is not supported (calls are inlined)
    return ping(x)


@kt.jit
# SIG-ORDER: errors_calls.py:[[@LINE+1]]:1: error: the signature lists 'n' out of order; list the runtime parameters of 'recursion' in declaration order: o, n
def recursion(o, n):
    ping(n)


def plain_python(x):
    return x


@kt.jit
def call_python(o, n):
    # PYTHON: errors_calls.py:[[@LINE+1]]:9: error: 'plain_python' is not a @kt.jit function; only @kt.jit functions can be called from kernels
    x = plain_python(n)


@kt.jit
def blocked(x, BLOCK: kt.constexpr):
    return x + BLOCK


@kt.jit
def runtime_for_constexpr(o, n):
    # CONSTEXPR-ARG: errors_calls.py:[[@LINE+1]]:20: error: argument 'BLOCK' of blocked() must be a constexpr, got a runtime i32
    x = blocked(n, n)


@kt.jit
def wrong_arity(o, n):
    # ARITY: errors_calls.py:[[@LINE+1]]:9: error: blocked() takes 2 positional arguments but 3 were given
    x = blocked(n, 1, 2)


@kt.jit
def use_numpy(o, n):
    # NUMPY: errors_calls.py:[[@LINE+1]]:9: error: module 'numpy' is not a DSL module (no such file on the search path); only @kt.jit functions can be used in kernels
    x = np.zeros(4)


# MISSING: error: no @kt.jit function named 'no_such_kernel' in {{.*}}errors_calls.py


@kt.jit
# NEEDS-VALUE: errors_calls.py:[[@LINE+4]]:20: error: constexpr parameter 'BLOCK' needs a value
# SIG: errors_calls.py:[[@LINE+3]]:17: error: runtime parameter 'o' is missing from the signature
# UNKNOWN-D: errors_calls.py:[[@LINE+2]]:1: error: a constexpr value is given for 'NOPE', which is not a parameter of 'needs_block'
# SIG-CONSTEXPR: errors_calls.py:[[@LINE+1]]:1: error: the signature names 'BLOCK', a constexpr parameter of 'needs_block' (annotated kt.constexpr or given with -D)
def needs_block(o, BLOCK: kt.constexpr):
    pass


@kt.jit
def broken_helper(x):
    # BROKEN: errors_calls.py:[[@LINE+1]]:13: error: unsupported construct: lambda
    return (lambda: x)()


@kt.jit
def broken_helper_user(o):
    # BROKEN: errors_calls.py:[[@LINE+1]]:5: note: in call from here
    broken_helper(o)


# NOT-JIT: errors_calls.py:[[@LINE+1]]:1: error: 'python_function' is not a @kt.jit function (missing decorator?)
def python_function(o):
    pass
