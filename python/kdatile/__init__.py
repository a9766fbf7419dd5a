"""kdatile: a tile DSL compiler (Triton-style), Python side.

    import kdatile as kt

    @kt.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kt.constexpr):
        offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
        mask = offs < n
        kt.store(out_ptr + offs, kt.load(x_ptr + offs, mask=mask) + kt.load(y_ptr + offs,
                 mask=mask), mask=mask)

    add[(kt.cdiv(n, 256),)](x, y, out, n, BLOCK=256)

Kernels are compiled by the C++ compiler (libkda.so, loaded lazily with ctypes from
$KDATILE_LIBRARY or the source tree's build/lib) from the text of the file that defines them.

Arguments: NumPy arrays and torch CPU tensors become pointers to their first element (strides
are not passed: pass them as integer arguments, non-contiguous arrays are fine). Python int ->
i32 (i64 if it does not fit), float -> f32, bool -> i1, NumPy scalars by their dtype. dtypes:
float32/16/64, int8/16/32/64, bool (one byte per element, as the compiler stores i1), and
torch.bfloat16 -> bf16. NumPy has no bfloat16: a NumPy **uint16** array is passed as a pointer
to bf16 (its elements are the bf16 bit patterns). Integer arguments equal to 1 are specialized
as constexprs and multiples of 16 get a divisibility hint, as do pointers aligned to 16 bytes.

`kernel.specialize(*args, **constexprs)` says what a launch compiles (signature, constexprs,
the kda-compile command line) without compiling it. Compiled kernels are cached in memory and
on disk ($KDATILE_CACHE_DIR or ~/.cache/kdatile).
GPU kernels can also be exported ahead of time (kt.export_bundle) and launched where there is
no compiler, from $KDATILE_BUNDLE (see kdatile/bundle.py).
"""

from . import language, testing
from ._lib import CompilationError
from ._lib import version as compiler_version
from .autotune import Autotuner, Config, autotune
from .bundle import BundleError, export_bundle
from .cache import cache_dir, cache_stats, clear_cache, reset_cache_stats
from .jit import JITFunction, jit
from .language import (
    BlockedLayout,
    MmaLayout,
    NVMMASharedLayout,
    PaddedSharedLayout,
    SliceLayout,
    SwizzledSharedLayout,
    bfloat16,
    cdiv,
    constexpr,
    dtype,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    pointer,
    pointer_type,
    static_range,
)
from .runtime import CompiledKernel, OutOfBoundsError, load_compiled
from .specialize import Specialization

__version__ = "0.1.0"

bool_ = int1

_STDLIB_NAMES = ("softplus", "silu", "l2norm", "rmsnorm", "l2norm_rows", "rmsnorm_rows",
                 "operand_swizzle")


_PYTHON_NAMES = [
    "autotune", "Autotuner", "bfloat16", "BlockedLayout", "bool_", "BundleError", "cache_dir",
    "cache_stats", "cdiv", "clear_cache", "CompilationError", "CompiledKernel",
    "compiler_version", "Config", "constexpr", "dtype", "export_bundle", "float16", "float32",
    "float64", "int1", "int16", "int32", "int64", "int8", "jit", "JITFunction", "language",
    "load_compiled", "MmaLayout", "NVMMASharedLayout", "OutOfBoundsError", "PaddedSharedLayout",
    "pointer", "pointer_type", "reset_cache_stats", "SliceLayout", "Specialization",
    "static_range", "SwizzledSharedLayout", "testing",
]


def __getattr__(name):
    # The DSL standard library (stdlib.py) is reachable as kt.<name>, as inside kernels.
    if name in _STDLIB_NAMES:
        from . import stdlib

        return getattr(stdlib, name)
    # The builtins (kt.load, kt.sum, ...) come from the compiler's table, with their reference.
    if name == "__all__":
        try:
            return _PYTHON_NAMES + sorted(language.builtins())
        except RuntimeError:  # no compiler library: the builtins are unknown
            return list(_PYTHON_NAMES)
    if not name.startswith("__"):
        builtin = language.builtin(name)
        if builtin is not None:
            return builtin
    raise AttributeError(f"module 'kdatile' has no attribute '{name}'")


def __dir__():
    names = set(globals()) | set(_STDLIB_NAMES)
    try:
        names |= set(language.builtins())
    except RuntimeError:  # no compiler library: the builtins are unknown
        pass
    return sorted(names)
