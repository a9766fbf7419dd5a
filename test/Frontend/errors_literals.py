# Integer literals as Python reads them: a decimal literal with a leading zero is an error
# (010 is neither 8 nor 10; 0o10 is octal), while 00, 0_0 and floats such as 010.5 are fine.
# RUN: not kda-compile %s --kernel k --target cpu --signature 'o=*f32' --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --strict-whitespace
# RUN: printf 'import kdatile.language as kt\n@kt.jit\ndef k(o):\n    kt.store(o, 00 + 0_0 + 010.5 + 0o10)\n' > %t.py
# RUN: kda-compile %t.py --kernel k --target cpu --signature 'o=*f32' --emit tile -o - \
# RUN:   | FileCheck %s --check-prefix=FINE
# FINE: arith.constant 1.850000e+01 : f32

import kdatile.language as kt


@kt.jit
def k(o):
    kt.store(o, 010 + 0.0)
# CHECK: errors_literals.py:[[@LINE-1]]:17: error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers
