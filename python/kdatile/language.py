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


class _Default:
    """A default as the builtin table spells it, shown as such in signatures."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _builtin_doc(entry: dict) -> str:
    import textwrap

    parts = [textwrap.fill(p, 96) for p in (entry["summary"], entry["semantics"]) if p]
    if entry["example"]:
        parts.append("Example:\n\n" + textwrap.indent(entry["example"], "    "))
    if entry["targets"]:
        parts.append(textwrap.fill("Targets: " + entry["targets"], 96))
    parts.append("Reference of every builtin: docs/builtins.md.")
    return "\n\n".join(parts)


def _make_builtin(entry: dict):
    """A function standing for builtin `entry`: its signature and reference come from the
    compiler's table; calling it on the host raises (builtins are compiled, not executed)."""
    import inspect

    name = entry["name"]

    def builtin(*args, **kwargs):
        raise RuntimeError(
            f"kt.{name} can only be used inside a @kt.jit kernel (it is compiled by the "
            "kdatile frontend, not executed by Python)"
        )

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = []
    for p in entry["params"]:
        if entry["variadic"] and p["default"] is not None and \
                not any(q.kind == q.VAR_POSITIONAL for q in params):
            params.append(inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL))
            kind = inspect.Parameter.KEYWORD_ONLY
        default = inspect.Parameter.empty if p["default"] is None else _Default(p["default"])
        params.append(inspect.Parameter(p["name"], kind, default=default))
    if entry["variadic"] and not any(q.kind == q.VAR_POSITIONAL for q in params):
        params.append(inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL))
    builtin.__name__ = builtin.__qualname__ = name
    builtin.__module__ = "kdatile"
    builtin.__doc__ = _builtin_doc(entry)
    builtin.__signature__ = inspect.Signature(params)
    builtin.__kdatile_builtin__ = True
    return builtin


_builtin_functions: dict | None = None


def builtins() -> dict:
    """The DSL's builtin functions (`kt.load`, `kt.sum`, ...) by name, made from the compiler's
    builtin table: what kernels can call, with the signature and reference `help()` shows."""
    global _builtin_functions
    if _builtin_functions is None:
        import json

        from . import _lib

        table = json.loads(_lib.builtin_table())
        _builtin_functions = {e["name"]: _make_builtin(e) for e in table
                              if e["kind"] == "function"}
    return _builtin_functions


def builtin(name: str):
    """The builtin function `name`, or None when the compiler has no such builtin. Raises
    AttributeError when the compiler library, which defines the builtins, cannot be loaded."""
    try:
        return builtins().get(name)
    except RuntimeError as e:  # the library cannot be found or loaded
        raise AttributeError(f"kt.{name}: the builtins are defined by the compiler: {e}") from None


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    fn = builtin(name)
    if fn is None:
        raise AttributeError(f"module 'kdatile.language' has no attribute '{name}'")
    return fn


class BlockedLayout:  # noqa: N801 - Gluon spelling
    """`kt.BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order)`: a distributed
    layout (reference: docs/builtins.md). On the host it only records its parameters."""

    def __init__(self, size_per_thread, threads_per_warp, warps_per_cta, order):
        self.size_per_thread = tuple(size_per_thread)
        self.threads_per_warp = tuple(threads_per_warp)
        self.warps_per_cta = tuple(warps_per_cta)
        self.order = tuple(order)

    def __repr__(self) -> str:
        return (f"kt.BlockedLayout({list(self.size_per_thread)}, {list(self.threads_per_warp)}, "
                f"{list(self.warps_per_cta)}, {list(self.order)})")


class SliceLayout:  # noqa: N801 - Gluon spelling
    """`kt.SliceLayout(dim, parent)`: `parent` without dimension `dim` (docs/builtins.md)."""

    def __init__(self, dim, parent):
        self.dim = dim
        self.parent = parent

    def __repr__(self) -> str:
        return f"kt.SliceLayout({self.dim}, {self.parent!r})"


class MmaLayout:  # noqa: N801 - layout classes are spelled like Gluon's
    """`kt.MmaLayout(instr, operand, warps_per_cta)`: an operand of a matrix instruction
    (reference: docs/builtins.md)."""

    def __init__(self, instr, operand, warps_per_cta):
        self.instr = instr
        self.operand = operand
        self.warps_per_cta = tuple(warps_per_cta)

    def __repr__(self) -> str:
        return f"kt.MmaLayout({self.instr!r}, {self.operand!r}, {list(self.warps_per_cta)})"


class SwizzledSharedLayout:  # noqa: N801 - Gluon spelling
    """`kt.SwizzledSharedLayout(vec, per_phase, max_phase, order)`: a swizzled shared-buffer
    placement (reference: docs/builtins.md)."""

    def __init__(self, vec, per_phase, max_phase, order):
        self.vec = vec
        self.per_phase = per_phase
        self.max_phase = max_phase
        self.order = tuple(order)

    def __repr__(self) -> str:
        return (f"kt.SwizzledSharedLayout({self.vec}, {self.per_phase}, {self.max_phase}, "
                f"{list(self.order)})")


class NVMMASharedLayout:  # noqa: N801 - Gluon spelling
    """`kt.NVMMASharedLayout(swizzle_byte_width, element_bitwidth)`: the shared-buffer placement
    of NVIDIA's matrix unit (reference: docs/builtins.md)."""

    def __init__(self, swizzle_byte_width, element_bitwidth):
        self.swizzle_byte_width = swizzle_byte_width
        self.element_bitwidth = element_bitwidth

    def __repr__(self) -> str:
        return f"kt.NVMMASharedLayout({self.swizzle_byte_width}, {self.element_bitwidth})"


class PaddedSharedLayout:  # noqa: N801 - Gluon spelling
    """`kt.PaddedSharedLayout(interval, padding, order)`: a padded shared-buffer placement
    (reference: docs/builtins.md)."""

    def __init__(self, interval, padding, order):
        self.interval = interval
        self.padding = padding
        self.order = tuple(order)

    def __repr__(self) -> str:
        return f"kt.PaddedSharedLayout({self.interval}, {self.padding}, {list(self.order)})"


def static_range(*args):
    """`for i in kt.static_range(N)`: unrolled by the compiler; a plain `range` on the host."""
    return _builtins.range(*args)
