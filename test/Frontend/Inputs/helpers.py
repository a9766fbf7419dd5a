# A DSL module imported by test/Frontend/imports.py (not a lit test).
import kdatile.language as kt

OFFSET = 3


@kt.jit
def scale(x, factor: kt.constexpr = 2):
    return x * factor + OFFSET


def python_only(x):
    return x
