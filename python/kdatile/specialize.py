"""Specialization of `@kt.jit` launches: from arguments and constexprs to what gets compiled.

A `Specializer` binds a kernel's arguments to its parameters and describes them: the key that
identifies the specialization (argument dtypes, constexpr values, the int `1` / `:16` and
pointer-alignment hints) and what each runtime argument passes (an address or a value). A
`Specialization` is one compile: kernel name, `--signature` string, constexprs as the compiler
receives them, grid, target, warps, the compile request of the C API and the `kda-compile`
command line that reproduces it. `JITFunction.specialize` returns one; the JIT's launches,
its disk cache and `kt.export_bundle` all compile from one.
"""

from __future__ import annotations

import inspect
import math
import os
import sys
import types

from . import _lib, gpu
from .language import constexpr, dtype, pointer_type, to_dtype
from .runtime import describe_array, describe_scalar, what_is

CPU_TARGET = "cpu"
TARGETS = (CPU_TARGET,) + gpu.NVIDIA_TARGETS + gpu.AMD_TARGETS

NO_DEFAULT = inspect.Parameter.empty


def _is_constexpr_annotation(ann) -> bool:
    if ann is constexpr or isinstance(ann, constexpr):
        return True
    return isinstance(ann, str) and ann.split(".")[-1] == "constexpr"


def _scalar_annotation(ann):
    """The kt dtype a parameter is annotated with (`n: kt.int32`), or None."""
    if isinstance(ann, dtype):
        return ann
    if isinstance(ann, str):
        return to_dtype(ann.split(".")[-1])
    return None


def _pointer_annotation(ann):
    """The kt.pointer_type a parameter is annotated with (`x: kt.pointer`), or None."""
    if isinstance(ann, pointer_type):
        return ann
    if isinstance(ann, str) and ann.split(".")[-1] == "pointer":
        return pointer_type()
    return None


class Param:
    """One kernel parameter: its position, constexpr-ness, default and annotations."""

    __slots__ = ("name", "index", "is_constexpr", "default", "scalar_type", "pointer",
                 "specialize")

    def __init__(self, name, index, is_constexpr, default, annotation, specialize):
        self.name = name
        self.index = index
        self.is_constexpr = is_constexpr
        self.default = default
        self.scalar_type = None if is_constexpr else _scalar_annotation(annotation)
        self.pointer = None if is_constexpr else _pointer_annotation(annotation)
        self.specialize = specialize


def constexpr_value(name: str, value):
    """(json value, key) of a constexpr value; TypeError naming `name` if unsupported."""
    if isinstance(value, bool):
        return value, ("b", value)
    if isinstance(value, int):
        return value, ("i", value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"constexpr '{name}': non-finite value {value!r}")
        # By its bits: -0.0 == 0.0, yet they compile differently.
        return value, ("f", value.hex())
    d = to_dtype(value)
    if d is not None and not isinstance(value, (int, float)):
        return d.short, ("d", d.short)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic):
        return constexpr_value(name, value.item())
    raise TypeError(
        f"constexpr '{name}' must be an int, float, bool or kt dtype, got {what_is(value)}"
    )


def check_num_warps(num_warps) -> int:
    if isinstance(num_warps, bool) or not isinstance(num_warps, int) or not (
            1 <= num_warps <= 32):
        raise ValueError(f"num_warps must be an int in [1, 32], got {num_warps!r}")
    return num_warps


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (supported: {', '.join(TARGETS)})")
    return target


def memory_key(key, target=CPU_TARGET, num_warps=None):
    """The in-memory cache key of a specialization (also the AOT bundle's, see bundle.py)."""
    return key if target == CPU_TARGET else (target, num_warps, key)


def aligned_key(key) -> tuple:
    """`key` with every pointer keyed as 16-byte aligned (as GPU allocations are)."""
    return tuple(("p", k[1], True) if k[0] == "p" else k for k in key)


class Specializer:
    """Binds the arguments of a kernel `name(*params)` and describes them."""

    def __init__(self, fn, name: str, do_not_specialize=()):
        self.name = name
        self.params: list[Param] = []
        for i, p in enumerate(inspect.signature(fn).parameters.values()):
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                raise TypeError(f"@kt.jit kernel '{name}': parameter '{p.name}' must be a "
                                "plain positional-or-keyword parameter")
            self.params.append(Param(p.name, i, _is_constexpr_annotation(p.annotation),
                                     p.default, p.annotation, p.name not in do_not_specialize))
        self.by_name = {p.name: p for p in self.params}

    def bind(self, args, kwargs) -> list:
        """Every parameter's value, in order (defaults filled in); TypeError as Python's."""
        params = self.params
        n = len(params)
        if len(args) > n:
            raise TypeError(f"{self.name}() takes {n} arguments but {len(args)} were given")
        values = list(args) + [NO_DEFAULT] * (n - len(args))
        for i in range(len(args)):
            if params[i].is_constexpr:
                raise TypeError(f"{self.name}(): '{params[i].name}' is a kt.constexpr "
                                "parameter; pass it by keyword")
        for k, v in kwargs.items():
            p = self.by_name.get(k)
            if p is None:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{k}'")
            if values[p.index] is not NO_DEFAULT:
                raise TypeError(f"{self.name}() got multiple values for argument '{k}'")
            values[p.index] = v
        for p in params:
            if values[p.index] is NO_DEFAULT:
                if p.default is NO_DEFAULT:
                    what = "constexpr" if p.is_constexpr else "argument"
                    raise TypeError(f"{self.name}() missing required {what} '{p.name}'")
                values[p.index] = p.default
        return values

    def describe(self, values):
        """The cache key and the per-parameter description of one launch.

        Returns (key, payloads, device): payloads[i] is the address or the scalar of runtime
        parameter i; device None for host arrays, else the torch.device of every GPU tensor
        (arrays on different devices, or host arrays mixed with GPU tensors, are ValueErrors
        naming the parameter).
        """
        key = []
        payloads = [None] * len(values)
        device = device_arg = host_arg = None
        for p in self.params:
            v = values[p.index]
            name = p.name
            if p.is_constexpr:
                _, k = constexpr_value(name, v)
                key.append(k)
                continue
            if v is None:
                raise TypeError(f"argument '{name}' is None")
            ptr = describe_array(name, v)
            if ptr is not None:
                dev = ptr[2]
                if dev is None:
                    if device is not None:
                        raise ValueError(
                            f"argument '{name}' is {what_is(v)} on the CPU, but argument "
                            f"'{device_arg}' is on device '{device}'; all arrays of one launch "
                            "must be on the same device")
                    host_arg = host_arg or name
                elif host_arg is not None:
                    raise ValueError(
                        f"argument '{name}': tensor is on device '{dev}', but argument "
                        f"'{host_arg}' is on the CPU; all arrays of one launch must be on the "
                        "same device")
                elif device is None:
                    device, device_arg = dev, name
                elif (dev.type, getattr(dev, "index", None)) != (
                        device.type, getattr(device, "index", None)):
                    raise ValueError(
                        f"argument '{name}': tensor is on device '{dev}', but argument "
                        f"'{device_arg}' is on device '{device}'; all arrays of one launch must "
                        "be on the same device")
                if p.scalar_type is not None:
                    raise TypeError(f"argument '{name}' must be a scalar ({p.scalar_type.name}), "
                                    f"got {what_is(v)}")
                want = p.pointer.element_ty if p.pointer is not None else None
                if want is not None and want.short != ptr[0]:
                    raise TypeError(f"argument '{name}' must point to {want.name}, got "
                                    f"{what_is(v)}")
                payloads[p.index] = ptr[1]
                key.append(("p", ptr[0], ptr[1] % 16 == 0))
                continue
            if p.pointer is not None:
                raise TypeError(f"argument '{name}' must be an array or tensor ({p.pointer!r}), "
                                f"got {what_is(v)}")
            short = describe_scalar(name, v)
            if short is None:
                raise TypeError(f"argument '{name}': unsupported type {type(v).__name__} (expected "
                                "an array, a tensor, an int, a float or a bool)")
            if p.scalar_type is not None:
                want = p.scalar_type.short
                if short == "i1" and want != "i1" or (
                    short[0] == "f" and want[0] != "f" and want != "bf16"
                ):
                    raise TypeError(f"argument '{name}' must be {p.scalar_type.name}, got "
                                    f"{what_is(v)}")
                short = want
                iv = v if isinstance(v, int) and not isinstance(v, bool) else None
                if iv is not None and short in ("i8", "i16", "i32", "i64"):
                    bits = int(short[1:])
                    if not -(2 ** (bits - 1)) <= iv < 2 ** (bits - 1):
                        raise OverflowError(f"argument '{name}': {iv} does not fit in {short}")
                payloads[p.index] = v
                key.append(("s", short, iv is not None and iv % 16 == 0))
                continue
            if short[0] == "i" and short != "i1":
                iv = int(v)
                if iv == 1 and p.specialize:
                    key.append(("one",))
                    continue
                payloads[p.index] = v
                key.append(("s", short, p.specialize and iv % 16 == 0))
            else:
                payloads[p.index] = v
                key.append(("s", short, False))
        return tuple(key), payloads, device

    def resolve_num_warps(self, values, num_warps, default: int) -> int:
        """The warps per block of a GPU launch: a `num_warps` constexpr parameter, else the
        launch's num_warps=, else the @kt.jit default."""
        p = self.by_name.get("num_warps")
        if p is not None and p.is_constexpr:
            num_warps = values[p.index]
        return default if num_warps is None else check_num_warps(num_warps)

    def signature_and_constexprs(self, key, values) -> tuple[str, dict]:
        """The `--signature` text and the constexprs (JSON values) the compiler receives: the
        constexpr parameters and the int arguments specialized to 1."""
        sig_items = []
        constexprs = {}
        for p, k in zip(self.params, key):
            if p.is_constexpr:
                constexprs[p.name] = constexpr_value(p.name, values[p.index])[0]
            elif k[0] == "one":
                constexprs[p.name] = 1
            elif k[0] == "p":
                sig_items.append(f"{p.name}=*{k[1]}" + (":16" if k[2] else ""))
            else:
                sig_items.append(f"{p.name}={k[1]}" + (":16" if k[2] else ""))
        return ",".join(sig_items), constexprs


# Compile request fields given to kda-compile as flags of their own (empty: its default), and
# those compile_command spells otherwise (the file, --kernel, --target, --signature, -D,
# --num-warps, -I, --stdlib-dir; line_offset only exists for kernels it refuses).
_REQUEST_FLAGS = {"cpu": "--cpu", "cpu_features": "--cpu-features",
                  "check_bounds": "--check-bounds"}
_COMMAND_FIELDS = frozenset(("source", "filename", "kernel", "target", "signature",
                             "constexprs", "search_paths", "stdlib_dir", "num_warps",
                             "line_offset"))


def _format_constexpr(value) -> str:
    """A constexpr's value as `kda-compile -D NAME=VALUE` parses it back (JSON values: bools,
    ints, finite floats, dtype names)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same double
    return str(value)


class Specialization:
    """One compile of a `@kt.jit` kernel, from `JITFunction.specialize` (immutable).

    kernel: the kernel's name; signature: the `--signature` text (`x_ptr=*bf16:16,n=i32`);
    constexprs: name -> value as the compiler receives them (constexpr parameters and int
    arguments specialized to 1; a fresh dict each time); grid: the launch grid as a 3-tuple
    (None when none was given); target: "cpu" or a GPU target; num_warps: warps per block on
    GPU targets (None on the CPU); filename: the kernel's source file; key: the JIT's
    in-memory cache key (also the bundle key); arguments: every parameter's value by name
    (read-only); fn: the JITFunction.
    """

    __slots__ = ("fn", "kernel", "signature", "grid", "target", "num_warps", "key",
                 "arguments", "_constexprs")

    def __init__(self, fn, key, values, target: str, num_warps=None, grid=None):
        signature, constexprs = fn._specializer.signature_and_constexprs(key, values)
        fields = {
            "fn": fn, "kernel": fn.__name__, "signature": signature, "grid": grid,
            "target": target, "num_warps": None if target == CPU_TARGET else num_warps,
            "key": memory_key(key, target, num_warps),
            "arguments": types.MappingProxyType(
                {p.name: values[p.index] for p in fn._specializer.params}),
            "_constexprs": constexprs,
        }
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"Specialization is immutable (cannot set '{name}')")

    def __delattr__(self, name):
        raise AttributeError(f"Specialization is immutable (cannot delete '{name}')")

    @property
    def constexprs(self) -> dict:
        return dict(self._constexprs)

    @property
    def filename(self):
        return self.fn.filename

    def __repr__(self) -> str:
        nw = "" if self.num_warps is None else f", num_warps={self.num_warps}"
        return (f"<Specialization {self.kernel} for {self.target}{nw}: signature "
                f"'{self.signature}', constexprs {self._constexprs}>")

    def request(self) -> dict:
        """The compile request the JIT sends to the C API (`kda_compile`, without `emit` and
        `output`): a fresh dict."""
        fn = self.fn
        request = {
            "source": fn.source,
            "filename": fn.filename,
            "kernel": self.kernel,
            "target": self.target,
            "signature": self.signature,
            # A float stays a float (a bare 16.0 would reach the compiler as 16).
            "constexprs": {k: {"float": v} if isinstance(v, float) else v
                           for k, v in self._constexprs.items()},
            "search_paths": list(fn.search_paths),
            "stdlib_dir": _lib.PACKAGE_DIR,
        }
        if fn.line_offset:
            request["line_offset"] = fn.line_offset
        if self.target != CPU_TARGET:
            request["num_warps"] = self.num_warps
        else:
            request.update(_lib.cpu_request())  # $KDATILE_CPU, $KDATILE_CPU_FEATURES
        return request

    def compile_command(self, output=None, emit=None, kda_compile="kda-compile") -> list:
        """The argv of a `kda-compile` run that compiles exactly what the JIT compiles.

        emit: None leaves `--emit` out: kda-compile's default is the JIT's (a shared object
        on the CPU, the code object on GPU targets). output: None leaves `-o` out (text emits
        then go to stdout). Kernels whose source is not their whole file (defined inside a
        function, or exec'd) have no file kda-compile could compile: ValueError.
        """
        fn = self.fn
        if not fn.whole_file:
            raise ValueError(f"kernel '{self.kernel}' is not defined at the top level of its "
                             "file; kda-compile compiles whole files")
        request = self.request()
        argv = [kda_compile, fn.filename, "--kernel", self.kernel, "--target", self.target]
        for field, value in request.items():
            flag = _REQUEST_FLAGS.get(field)
            if flag is not None:
                if isinstance(value, bool):
                    argv += [flag] if value else []
                elif value not in (None, ""):
                    argv += [flag, str(value)]
            elif field not in _COMMAND_FIELDS:
                # A request field without a flag here would make the command compile
                # something else than the JIT does.
                raise ValueError(f"compile request field '{field}' has no kda-compile flag")
        if self.signature:
            argv += ["--signature", self.signature]
        for name, value in self._constexprs.items():
            if name == "num_warps" and self.num_warps is not None:
                continue  # a GPU program's warps: --num-warps gives the parameter its value
            argv += ["-D", f"{name}={_format_constexpr(value)}"]
        if self.num_warps is not None:
            argv += ["--num-warps", str(self.num_warps)]
        own_dir = os.path.dirname(fn.filename)
        for path in fn.search_paths:
            if path != own_dir:  # kda-compile searches the kernel's directory first
                argv += ["-I", path]
        argv += ["--stdlib-dir", _lib.PACKAGE_DIR]
        if emit is not None:
            argv += ["--emit", emit]
        if output is not None:
            argv += ["-o", os.fspath(output)]
        return argv

