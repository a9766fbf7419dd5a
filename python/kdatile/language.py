"""The `kt` language namespace as seen from Python.

Kernels are compiled by the C++ frontend from their source text; nothing here builds IR. This
module provides the names a kernel file needs in order to import as plain Python (`kt.constexpr`,
the dtype objects, the builtins) and the few of them that are also useful on the host
(`cdiv`, the dtypes).
"""

from __future__ import annotations

import builtins as _builtins


class constexpr:  # noqa: N801 - Triton spelling
    """Annotation marking a compile-time parameter: `BLOCK: kt.constexpr`."""

    def __init__(self, value=None):
        self.value = value

    def __repr__(self) -> str:
        return f"constexpr({self.value!r})"


class dtype:  # noqa: N801 - Triton spelling
    """A scalar element type of the DSL (`kt.float32`, `kt.bfloat16`, ...).

    `name` is the long spelling (`"float32"`), `short` the compiler's canonical one (`"f32"`).
    """

    __slots__ = ("name", "short", "itemsize", "is_floating")

    def __init__(self, name: str, short: str, itemsize: int, is_floating: bool):
        self.name = name
        self.short = short
        self.itemsize = itemsize
        self.is_floating = is_floating

    def __repr__(self) -> str:
        return f"kt.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other) -> bool:
        if isinstance(other, dtype):
            return self.short == other.short
        if isinstance(other, str):
            return other in (self.name, self.short)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.short)

    def __reduce__(self):
        return (_dtype_by_short, (self.short,))


float32 = dtype("float32", "f32", 4, True)
float16 = dtype("float16", "f16", 2, True)
bfloat16 = dtype("bfloat16", "bf16", 2, True)
float64 = dtype("float64", "f64", 8, True)
int1 = dtype("int1", "i1", 1, False)
int8 = dtype("int8", "i8", 1, False)
int16 = dtype("int16", "i16", 2, False)
int32 = dtype("int32", "i32", 4, False)
int64 = dtype("int64", "i64", 8, False)

ALL_DTYPES = (float32, float16, bfloat16, float64, int1, int8, int16, int32, int64)
_BY_NAME = {}
for _d in ALL_DTYPES:
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d.short] = _d
_BY_NAME.update({"bool": int1, "fp32": float32, "fp16": float16, "fp64": float64})


def _dtype_by_short(short: str) -> dtype:
    return _BY_NAME[short]


def to_dtype(value) -> dtype | None:
    """A kt dtype from a kt dtype, a name ("bf16", "float32"), a NumPy or a torch dtype."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, str):
        return _BY_NAME.get(value)
    mod = type(value).__module__
    if mod.startswith("torch"):
        return _BY_NAME.get(str(value).removeprefix("torch.")) if str(value) != "torch.bool" \
            else int1
    if mod.startswith("numpy") or (isinstance(value, type) and value.__module__ == "numpy"):
        import numpy as np

        try:
            npd = np.dtype(value)
        except TypeError:
            return None
        if npd == np.bool_:
            return int1
        return _BY_NAME.get(npd.name)
    return None


class pointer_type:  # noqa: N801 - Triton spelling
    """Annotation of a pointer parameter: `x_ptr: kt.pointer_type(kt.float32)`, or `kt.pointer`
    for any element type. The compiler takes pointer types from the arguments; the JIT uses the
    annotation to reject scalars (and arrays of another dtype) before compiling."""

    def __init__(self, element_ty=None):
        self.element_ty = None if element_ty is None else to_dtype(element_ty)
        if element_ty is not None and self.element_ty is None:
            raise TypeError(f"pointer_type: unknown element type {element_ty!r}")

    def __repr__(self) -> str:
        return f"kt.pointer_type({self.element_ty!r})" if self.element_ty else "kt.pointer"


pointer = pointer_type()


def cdiv(a, b):
    """Ceiling division: `cdiv(10, 4) == 3`. Also a DSL builtin."""
    return -(-a // b)


class _Builtin:
    """A DSL builtin. It exists so kernel files import as Python; calling it on the host raises."""

    def __init__(self, name: str):
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"kt.{self.__name__} can only be used inside a @kt.jit kernel (it is compiled by the "
            "kdatile frontend, not executed by Python)"
        )

    def __repr__(self) -> str:
        return f"<kdatile builtin kt.{self.__name__}>"


BUILTIN_NAMES = (
    "program_id", "num_programs", "arange", "zeros", "full", "load", "store", "sum", "max", "min",
    "dot", "where", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sqrt_rn", "div_rn", "sigmoid",
    "abs", "maximum", "minimum", "broadcast_to", "reshape", "trans", "expand_dims", "static_assert",
    "static_print", "convert_layout", "fma", "cos", "sin", "tanh", "floor", "ceil", "erf",
    "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "alloc_shared", "async_copy",
    "async_wait", "barrier", "cluster_sum", "cumsum", "cumprod", "cummax", "cummin",
    "associative_scan", "make_tensor_descriptor", "async_load", "async_store", "dot_wait",
    "multiple_of", "max_contiguous",
)

_ns = globals()
for _name in BUILTIN_NAMES:
    _ns[_name] = _Builtin(_name)
del _ns


class BlockedLayout:  # noqa: N801 - Gluon spelling
    """`kt.BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order)`: a layout
    for `layout=` arguments and `kt.convert_layout` (see docs/layouts.md). The compiler reads
    it from the kernel's source; on the host it only records its parameters."""

    def __init__(self, size_per_thread, threads_per_warp, warps_per_cta, order):
        self.size_per_thread = tuple(size_per_thread)
        self.threads_per_warp = tuple(threads_per_warp)
        self.warps_per_cta = tuple(warps_per_cta)
        self.order = tuple(order)

    def __repr__(self) -> str:
        return (f"kt.BlockedLayout({list(self.size_per_thread)}, {list(self.threads_per_warp)}, "
                f"{list(self.warps_per_cta)}, {list(self.order)})")


class SliceLayout:  # noqa: N801 - Gluon spelling
    """`kt.SliceLayout(dim, parent)`: `parent` with dimension `dim` removed."""

    def __init__(self, dim, parent):
        self.dim = dim
        self.parent = parent

    def __repr__(self) -> str:
        return f"kt.SliceLayout({self.dim}, {self.parent!r})"


class MmaLayout:  # noqa: N801 - layout classes are spelled like Gluon's
    """`kt.MmaLayout(instr, operand, warps_per_cta)`: operand "a", "b" or "c" of a product on
    the matrix instruction `instr` ("mma_m16n8k16", "mma_m16n8k8_tf32" or, for "c" only,
    "wgmma_m64k16" with warps_per_cta = [4 * warpgroups, 1] on NVIDIA GPUs,
    "mfma_32x32x16", "mfma_16x16x32" or "mfma_16x16x16" on gfx950, "wmma_16x16x32" on
    gfx1250), spread over
    warps_per_cta = [along M, along N] warps (see docs/layouts.md)."""

    def __init__(self, instr, operand, warps_per_cta):
        self.instr = instr
        self.operand = operand
        self.warps_per_cta = tuple(warps_per_cta)

    def __repr__(self) -> str:
        return f"kt.MmaLayout({self.instr!r}, {self.operand!r}, {list(self.warps_per_cta)})"


class SwizzledSharedLayout:  # noqa: N801 - Gluon spelling
    """`kt.SwizzledSharedLayout(vec, per_phase, max_phase, order)`: the placement of a
    `kt.alloc_shared(..., layout=)` buffer: each row of its last two dimensions is cut into
    `vec`-element groups, and group g of row r is stored at g ^ ((r // per_phase) %
    max_phase), so that 8x8 matrix loads and column-wise reads hit distinct banks (order must
    be [1, 0]; see docs/frontend.md). It changes addresses only, never values."""

    def __init__(self, vec, per_phase, max_phase, order):
        self.vec = vec
        self.per_phase = per_phase
        self.max_phase = max_phase
        self.order = tuple(order)

    def __repr__(self) -> str:
        return (f"kt.SwizzledSharedLayout({self.vec}, {self.per_phase}, {self.max_phase}, "
                f"{list(self.order)})")


class NVMMASharedLayout:  # noqa: N801 - Gluon spelling
    """`kt.NVMMASharedLayout(swizzle_byte_width, element_bitwidth)`: the placement NVIDIA's
    matrix unit reads operands from (wgmma on sm_90a): the last two dimensions [R, C] of a
    `kt.alloc_shared(..., layout=)` buffer are stored as column blocks of
    swizzle_byte_width bytes per row (32, 64 or 128), their 16-byte groups swizzled as the
    hardware does; R must be a multiple of 8 and C of the block width. Every target reads
    and writes such a buffer; it changes addresses only, never values."""

    def __init__(self, swizzle_byte_width, element_bitwidth):
        self.swizzle_byte_width = swizzle_byte_width
        self.element_bitwidth = element_bitwidth

    def __repr__(self) -> str:
        return f"kt.NVMMASharedLayout({self.swizzle_byte_width}, {self.element_bitwidth})"


class PaddedSharedLayout:  # noqa: N801 - Gluon spelling
    """`kt.PaddedSharedLayout(interval, padding, order)`: the placement of a
    `kt.alloc_shared(..., layout=)` buffer stored row-major (order must be [1, 0]) with
    `padding` unused elements after every `interval` elements, so that row-major element i
    lives at i + (i // interval) * padding. With the interval one row and one word of padding,
    the rows of a column fall on distinct banks (the AMD way of reading columns). The interval
    is a power of two dividing the elements of the last two dimensions. On gfx1250 the Tensor
    Data Mover pads as it loads (see docs/frontend.md). It changes addresses only, never
    values."""

    def __init__(self, interval, padding, order):
        self.interval = interval
        self.padding = padding
        self.order = tuple(order)

    def __repr__(self) -> str:
        return f"kt.PaddedSharedLayout({self.interval}, {self.padding}, {list(self.order)})"


def static_range(*args):
    """`for i in kt.static_range(N)`: unrolled by the compiler; a plain `range` on the host."""
    return _builtins.range(*args)
