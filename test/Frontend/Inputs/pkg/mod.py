# A DSL module in a package, imported by test/Frontend/imports.py.
from kdatile import language as kt

from helpers import scale


@kt.jit
def twice_scaled(x):
    return scale(x, factor=4), kt.exp(x)
