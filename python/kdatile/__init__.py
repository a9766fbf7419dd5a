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

from . import language
from ._lib import CompilationError
from ._lib import version as compiler_version
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
    abs,
    arange,
    atomic_add,
    atomic_max,
    atomic_min,
    atomic_xchg,
    bfloat16,
    broadcast_to,
    cdiv,
    constexpr,
    convert_layout,
    dot,
    dtype,
    exp,
    exp2,
    expand_dims,
    float16,
    float32,
    float64,
    full,
    int1,
    int8,
    int16,
    int32,
    int64,
    load,
    log,
    log2,
    max,
    max_contiguous,
    maximum,
    min,
    minimum,
    multiple_of,
    num_programs,
    pointer,
    pointer_type,
    program_id,
    reshape,
    rsqrt,
    sigmoid,
    sqrt,
    static_assert,
    static_print,
    static_range,
    store,
    sum,
    trans,
    where,
    zeros,
)
from .runtime import CompiledKernel, load_compiled
from .specialize import Specialization

__version__ = "0.1.0"

bool_ = int1

_STDLIB_NAMES = ("softplus", "silu", "l2norm", "rmsnorm", "l2norm_rows", "rmsnorm_rows",
                 "operand_swizzle")


def __getattr__(name):
    # The DSL standard library (stdlib.py) is reachable as kt.<name>, as inside kernels.
    if name in _STDLIB_NAMES:
        from . import stdlib

        return getattr(stdlib, name)
    builtin = getattr(language, name, None)
    if builtin is not None and name in language.BUILTIN_NAMES:
        return builtin
    raise AttributeError(f"module 'kdatile' has no attribute '{name}'")


__all__ = [
    "abs", "alloc_shared", "arange", "async_copy", "async_load", "async_store", "async_wait",
    "atomic_add", "atomic_max",
    "atomic_min", "atomic_xchg", "barrier", "BlockedLayout", "bfloat16", "bool_",
    "broadcast_to", "BundleError", "cache_dir", "cache_stats", "cdiv", "clear_cache",
    "cluster_sum",
    "CompilationError", "CompiledKernel", "compiler_version", "constexpr", "convert_layout",
    "associative_scan", "cummax", "cummin", "cumprod", "cumsum",
    "dot", "dot_wait", "dtype", "exp", "exp2", "expand_dims", "export_bundle", "float16", "float32",
    "float64", "full", "int1", "int16", "int32", "int64", "int8", "jit", "JITFunction",
    "language", "load", "load_compiled", "log", "log2", "make_tensor_descriptor", "max",
    "max_contiguous", "maximum", "min", "minimum", "multiple_of",
    "MmaLayout", "NVMMASharedLayout", "PaddedSharedLayout",
    "num_programs", "pointer", "pointer_type", "program_id", "reset_cache_stats", "reshape",
    "rsqrt", "sigmoid", "SliceLayout", "Specialization", "sqrt", "static_assert", "static_print",
    "SwizzledSharedLayout",
    "static_range", "store", "sum",
    "trans", "where", "zeros",
]
