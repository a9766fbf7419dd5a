"""Kernel arguments on the host and launching compiled CPU kernels.

Shared by the JIT (`@kt.jit`) and by ahead-of-time users (`kt.load_compiled`).
"""

from __future__ import annotations

import _ctypes
import ctypes
import re
import sys
import weakref

from . import _lib
from .language import _BY_NAME, dtype, to_dtype

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1

# NumPy dtype name -> compiler short name. NumPy has no bfloat16: a uint16 array carries bf16
# bits. NumPy bool arrays hold one byte per element, which is how the compiler stores i1.
NUMPY_DTYPES = {
    "float32": "f32", "float16": "f16", "float64": "f64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "bool": "i1", "uint16": "bf16",
}
TORCH_DTYPES = {
    "torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16",
    "torch.float64": "f64", "torch.int8": "i8", "torch.int16": "i16", "torch.int32": "i32",
    "torch.int64": "i64", "torch.bool": "i1",
}

_NUMPY_BY_CHAR: dict = {}  # dtype.char -> short name, filled on first sight (fast path)

SCALAR_CTYPES = {
    "i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "f32": ctypes.c_float, "f64": ctypes.c_double,
    "f16": ctypes.c_uint16, "bf16": ctypes.c_uint16,
}


# The compiler names the CPU entry point of kernel `k` "k__kda_cpu".
CPU_ENTRY_SUFFIX = "__kda_cpu"
CLUSTER_SHAPE_SUFFIX = "__kda_cluster_shape"  # TileToCPU.cpp exportClusterShape
BOUNDS_CHECKED_SUFFIX = "__kda_bounds_checked"  # TileToCPU.cpp exportFlag
BOUNDS_HEADER_WORDS = 4  # BoundsChecks.cpp: report, failed site, address, argument


class OutOfBoundsError(IndexError):
    """An access of a kernel compiled with bounds checks ($KDATILE_CHECK_BOUNDS=1, or
    `kda-compile --check-bounds`) left the arrays it may reach. The message starts with the
    access's DSL `file:line:col`. The kernel skipped that access (and every later one outside),
    so no memory outside the arrays was touched; what it wrote is incomplete."""


def array_extent(value):
    """[begin, end) byte addresses of the memory a NumPy array or a CPU tensor spans, or None
    for other values."""
    np = _np()
    if np is not None and isinstance(value, np.ndarray):
        begin, shape, strides, size = (value.ctypes.data, value.shape, value.strides,
                                       value.itemsize)
    elif is_torch_tensor(value) and value.device.type == "cpu":
        size = value.element_size()
        begin, shape = value.data_ptr(), tuple(value.shape)
        strides = tuple(s * size for s in value.stride())
    else:
        return None
    if any(n == 0 for n in shape):
        return begin, begin
    low = sum(min(0, (n - 1) * st) for n, st in zip(shape, strides))
    high = sum(max(0, (n - 1) * st) for n, st in zip(shape, strides))
    return begin + low, begin + high + size


class ArgKind:
    POINTER = "pointer"
    SCALAR = "scalar"


def _np():
    return sys.modules.get("numpy")


def is_torch_tensor(value) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def describe_pointer(name: str, value):
    """(short dtype, address) of an array argument, or None when `value` is not an array.

    Raises TypeError/ValueError naming the parameter for unsupported arrays.
    """
    np = _np()
    if np is not None and isinstance(value, np.ndarray):
        dt = value.dtype
        short = _NUMPY_BY_CHAR.get(dt.char)
        if short is None:
            short = NUMPY_DTYPES.get(dt.name)
            if short is not None and dt.isnative:
                _NUMPY_BY_CHAR[dt.char] = short
        if short is None or not dt.isnative:
            raise TypeError(
                f"argument '{name}': unsupported NumPy dtype {dt.name}"
                f"{'' if dt.isnative else ' (non-native byte order)'} (supported: "
                "float16/32/64, int8/16/32/64, bool, and uint16 as bfloat16 bits)"
            )
        return short, value.ctypes.data
    if is_torch_tensor(value):
        if value.device.type != "cpu":
            raise ValueError(
                f"argument '{name}': tensor is on device '{value.device}', but this is a CPU "
                "kernel; move it with .cpu()"
            )
        return torch_dtype(name, value), value.data_ptr()
    return None


# torch device types kdatile launches on: "cuda" (NVIDIA, and AMD on ROCm builds of torch).
GPU_DEVICE_TYPES = ("cuda",)


def torch_dtype(name: str, tensor) -> str:
    short = TORCH_DTYPES.get(str(tensor.dtype))
    if short is None:
        raise TypeError(f"argument '{name}': unsupported torch dtype {tensor.dtype}")
    return short


def describe_array(name: str, value):
    """(short dtype, address, device) of an array argument, or None when `value` is not one.

    `device` is None for host memory (NumPy arrays, torch CPU tensors) and the torch.device of a
    GPU tensor. Raises naming the parameter for unsupported dtypes and devices.
    """
    if is_torch_tensor(value):
        device = value.device
        kind = device.type
        if kind == "cpu":
            return torch_dtype(name, value), value.data_ptr(), None
        if kind not in GPU_DEVICE_TYPES:
            raise ValueError(
                f"argument '{name}': tensor is on device '{device}'; kdatile runs kernels on "
                "'cpu' tensors and NumPy arrays, and on 'cuda' tensors (NVIDIA, or AMD with a "
                "ROCm build of torch)"
            )
        return torch_dtype(name, value), value.data_ptr(), device
    ptr = describe_pointer(name, value)
    if ptr is None:
        return None
    return ptr[0], ptr[1], None


def describe_scalar(name: str, value):
    """Short dtype of a host scalar (Python or NumPy), or None if `value` is not a scalar."""
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        if I32_MIN <= value <= I32_MAX:
            return "i32"
        if I64_MIN <= value <= I64_MAX:
            return "i64"
        raise OverflowError(f"argument '{name}': integer {value} does not fit in 64 bits")
    if isinstance(value, float):
        return "f32"
    np = _np()
    if np is not None and isinstance(value, np.generic):
        short = NUMPY_DTYPES.get(value.dtype.name)
        if short is None or short == "bf16":
            raise TypeError(f"argument '{name}': unsupported NumPy scalar type {value.dtype.name}")
        return short
    return None


def what_is(value) -> str:
    if value is None:
        return "None"
    np = _np()
    if np is not None and isinstance(value, np.ndarray):
        return f"a NumPy array ({value.dtype.name})"
    if is_torch_tensor(value):
        return f"a torch tensor ({value.dtype})"
    return f"a {type(value).__name__}"


def make_scalar(short: str, value, name: str = "?"):
    """A ctypes object holding `value` as a scalar of type `short`."""
    if short in ("f16", "bf16"):
        np = _np()
        if np is None:
            raise TypeError(f"argument '{name}': {short} scalars need NumPy")
        if short == "f16":
            bits = int(np.asarray(value, dtype=np.float16).view(np.uint16))
        else:
            f32 = np.asarray(value, dtype=np.float32).view(np.uint32)
            bits = int(((int(f32) + 0x7FFF + ((int(f32) >> 16) & 1)) >> 16) & 0xFFFF)
        return ctypes.c_uint16(bits)
    if short in ("f32", "f64"):
        return SCALAR_CTYPES[short](float(value))
    if short == "i1":
        return ctypes.c_bool(bool(value))
    return SCALAR_CTYPES[short](int(value))


def normalize_grid(grid, meta=None) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(meta if meta is not None else {})
    if isinstance(grid, int):
        grid = (grid,)
    try:
        dims = tuple(grid)
    except TypeError:
        raise TypeError(
            f"grid must be a tuple of 1 to 3 ints or a callable, got {grid!r}"
        ) from None
    if not 1 <= len(dims) <= 3:
        raise TypeError(f"grid must have 1 to 3 dimensions, got {dims!r}")
    out = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int):
            np = _np()
            if np is not None and isinstance(d, np.integer):
                d = int(d)
            else:
                raise TypeError(f"grid dimensions must be ints, got {dims!r}")
        if d < 0 or d > I32_MAX:
            raise ValueError(f"grid dimension {d} is out of range [0, 2^31)")
        out.append(d)
    while len(out) < 3:
        out.append(1)
    return out[0], out[1], out[2]


_SIG_RE = re.compile(r"^\s*(\w+)\s*=\s*(\*?)\s*(\w+)\s*(?::\s*(\d+))?\s*$")


def parse_signature(text: str) -> list[dict]:
    """"x=*f32:16, n=i32" -> [{"name": "x", "kind": "pointer", "dtype": "f32"}, ...]."""
    params = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        m = _SIG_RE.match(item)
        if not m or m.group(3) not in _BY_NAME:
            raise ValueError(f"bad signature entry {item!r} (expected e.g. 'x=*f32' or 'n=i32')")
        params.append({
            "name": m.group(1),
            "kind": ArgKind.POINTER if m.group(2) else ArgKind.SCALAR,
            "dtype": _BY_NAME[m.group(3)].short,
        })
    return params


def _close_library(library: ctypes.CDLL) -> None:
    _ctypes.dlclose(library._handle)


class CompiledKernel:
    """A compiled CPU kernel: `kernel[grid](*args, num_threads=None)`.

    `params` lists the runtime parameters in the order the entry point takes them, as in
    kda_compile's response: [{"name", "kind": "pointer"|"scalar", "dtype": "f32"}, ...].
    """

    def __init__(self, path: str, entry: str, params: list[dict], library=None,
                 cluster_shape=None):
        self.path = path
        self.entry_name = entry
        self.params = [dict(p) for p in params]
        for p in self.params:
            short = to_dtype(p.get("dtype", ""))
            if short is None or p.get("kind") not in (ArgKind.POINTER, ArgKind.SCALAR):
                raise ValueError(f"bad parameter description {p!r}")
            p["dtype"] = short.short
        if library is None:
            library = ctypes.CDLL(path)
            # ctypes never closes a library; kernels dropped from the in-memory cache would
            # keep theirs mapped for the life of the process.
            weakref.finalize(self, _close_library, library)
        self._lib = library
        fn = None
        # A kernel name: the .so also exports the kernel function itself under that name (with
        # a different C signature), so the entry wrapper must be looked up first.
        candidates = (entry,) if entry.endswith(CPU_ENTRY_SUFFIX) else (
            entry + CPU_ENTRY_SUFFIX, entry)
        for symbol in candidates:
            try:
                fn = getattr(self._lib, symbol)
                break
            except AttributeError:
                continue
        if fn is None:
            raise RuntimeError(f"{path}: no entry symbol '{entry}' (nor "
                               f"'{entry}{CPU_ENTRY_SUFFIX}')")
        self.entry = ctypes.cast(fn, ctypes.c_void_p).value
        # A kernel with kt.cluster_sum exports its cluster shape beside the entry point; it
        # must run in clusters of that shape (its entry reads the exchange after the
        # arguments), so the library's word is final.
        kernel_name = symbol[:-len(CPU_ENTRY_SUFFIX)] if symbol.endswith(CPU_ENTRY_SUFFIX) \
            else symbol
        # Code for features this CPU lacks would die of an illegal instruction: refuse it.
        _lib.check_cpu_features(self._lib, kernel_name, path)
        try:
            exported = tuple((ctypes.c_int32 * 3).in_dll(self._lib,
                                                         kernel_name + CLUSTER_SHAPE_SUFFIX))
        except ValueError:
            exported = (1, 1, 1)
        if cluster_shape is not None and check_cluster_shape(cluster_shape) != exported:
            raise ValueError(f"{path}: kernel '{kernel_name}' runs in clusters of {exported}, "
                             f"not {tuple(cluster_shape)}")
        self.cluster_shape = check_cluster_shape(exported)
        try:
            ctypes.c_int32.in_dll(self._lib, kernel_name + BOUNDS_CHECKED_SUFFIX)
            self.checks_bounds = True
        except ValueError:
            self.checks_bounds = False
        self._nargs = len(self.params)
        # A bounds-checked entry reads its bounds table after the arguments.
        self._argv_type = ctypes.c_void_p * max(1, self._nargs + self.checks_bounds)
        self._makers = [self._maker(p) for p in self.params]

    @staticmethod
    def _maker(param):
        """The function turning a validated value into the ctypes object the entry reads."""
        if param["kind"] == ArgKind.POINTER:
            return ctypes.c_void_p
        short, name = param["dtype"], param["name"]
        if short in ("f32", "f64"):
            return SCALAR_CTYPES[short]
        if short in ("f16", "bf16", "i1"):
            return lambda v: make_scalar(short, v, name)
        ctype = SCALAR_CTYPES[short]
        return lambda v: ctype(int(v))

    def __repr__(self) -> str:
        return f"<CompiledKernel {self.entry_name} from {self.path}>"

    def __getitem__(self, grid):
        def launcher(*args, num_threads=None):
            self.run(grid, args, num_threads=num_threads)

        return launcher

    def run(self, grid, args, num_threads=None):
        """Validates `args` against `params` and launches over `grid`."""
        if len(args) != self._nargs:
            names = ", ".join(p["name"] for p in self.params)
            raise TypeError(f"{self.entry_name} takes {self._nargs} arguments ({names}), "
                            f"got {len(args)}")
        values = []
        for p, v in zip(self.params, args):
            name = p["name"]
            if v is None:
                raise TypeError(f"argument '{name}' is None")
            ptr = describe_pointer(name, v)
            if p["kind"] == ArgKind.POINTER:
                if ptr is None:
                    raise TypeError(f"argument '{name}' must be an array (pointer to "
                                    f"{p['dtype']}), got {what_is(v)}")
                if ptr[0] != p["dtype"]:
                    raise TypeError(f"argument '{name}': expected elements of {p['dtype']}, got "
                                    f"{what_is(v)}")
                values.append(ptr[1])
            else:
                if ptr is not None:
                    raise TypeError(f"argument '{name}' must be a scalar ({p['dtype']}), got "
                                    f"{what_is(v)}")
                if describe_scalar(name, v) is None:
                    raise TypeError(f"argument '{name}': unsupported type {type(v).__name__}")
                values.append(v)
        self.launch(normalize_grid(grid, {p["name"]: v for p, v in zip(self.params, args)}),
                    values, num_threads, extents=[array_extent(v) for v in args])

    def launch(self, grid3, values, num_threads=None, extents=None):
        """Launches with already validated values (addresses for pointers). A bounds-checked
        kernel checks its accesses against `extents` ([begin, end) byte addresses per
        argument, None for scalars); a pointer without one is not checked."""
        check_grid_in_clusters(self.entry_name, grid3, self.cluster_shape)
        if grid3[0] == 0 or grid3[1] == 0 or grid3[2] == 0:
            return  # an empty grid runs no program
        argv = self._argv_type()
        keep = [make(v) for make, v in zip(self._makers, values)]
        addressof = ctypes.addressof
        for i, obj in enumerate(keep):
            argv[i] = addressof(obj)
        table = None
        if self.checks_bounds:
            table = self._bounds_table(extents)
            argv[self._nargs] = addressof(table)
        _lib.cpu_launch(self.entry, grid3, argv, check_num_threads(num_threads),
                        self.cluster_shape, self._nargs + self.checks_bounds)
        if table is not None and table[1]:
            raise OutOfBoundsError(self._describe_failure(table, extents))

    def _bounds_table(self, extents):
        table = (ctypes.c_int64 * (BOUNDS_HEADER_WORDS + 2 * self._nargs))()
        table[0] = _lib.out_of_bounds_report()
        for i, p in enumerate(self.params):
            extent = extents[i] if extents is not None else None
            if p["kind"] == ArgKind.POINTER and extent is None:
                extent = (0, 2**63 - 1)  # unknown: every address passes
            begin, end = extent if extent is not None else (0, 0)
            table[BOUNDS_HEADER_WORDS + 2 * i] = begin
            table[BOUNDS_HEADER_WORDS + 2 * i + 1] = end
        return table

    def _describe_failure(self, table, extents) -> str:
        site = ctypes.string_at(table[1]).decode()
        address, arg = table[2] & (2**64 - 1), table[3]
        where, _, access = site.rpartition(": ")
        text = (f"{where}: " if where else "") + f"out-of-bounds {access} at address {address:#x}"
        if 0 <= arg < self._nargs and extents is not None and extents[arg] is not None:
            begin, end = extents[arg]
            name = self.params[arg]["name"]
            text += (f", byte offset {address - begin} of '{name}' ({end - begin} bytes at "
                     f"{begin:#x})")
        else:
            text += ", outside every array the pointer may derive from"
        return text + " (the access was skipped)"


def check_num_threads(num_threads) -> int:
    """The launcher's thread count: None or 0 (the runtime chooses) or an int up to
    2**31 - 1, never a value that would wrap in the C launcher's int32."""
    if num_threads is None:
        return 0
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or not (
            0 <= num_threads < 2 ** 31):
        raise ValueError(f"num_threads must be None or an int in [0, 2**31 - 1], got "
                         f"{num_threads!r}")
    return num_threads


def check_cluster_shape(shape) -> tuple[int, int, int]:
    """A compile result's cluster shape as three positive ints."""
    shape = tuple(int(n) for n in shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"a cluster shape is three positive ints, got {shape!r}")
    return shape


def check_grid_in_clusters(name: str, grid3, cluster_shape) -> None:
    """Raises ValueError unless the grid divides into clusters of `cluster_shape` (kernels
    that sum over clusters with kt.cluster_sum are launched in clusters)."""
    if any(g % c for g, c in zip(grid3, cluster_shape)):
        raise ValueError(
            f"{name}: grid {tuple(grid3)} is not a multiple of the kernel's cluster shape "
            f"{tuple(cluster_shape)} (its programs sum over clusters with kt.cluster_sum)")


def load_compiled(path: str, entry: str, params, cluster_shape=None) -> CompiledKernel:
    """Loads an ahead-of-time compiled kernel (`kda-compile ... --emit so -o path`).

    `entry` is the entry symbol, or the kernel name (the compiler's CPU entry point of kernel
    `k` is `k__kda_cpu`). `params` is the runtime signature, either as text ("x=*f32, n=i32",
    as given to `kda-compile --signature` minus the parameters specialized away) or as the
    "params" list of a kda_compile response. A kernel with kt.cluster_sum runs in clusters
    of the shape the library exports; `cluster_shape`, when given, must be that one (the
    compile result's). Launch with `kernel[grid](*args)`.
    """
    if isinstance(params, str):
        params = parse_signature(params)
    return CompiledKernel(path, entry, list(params), cluster_shape=cluster_shape)


def is_dtype_like(value) -> bool:
    return isinstance(value, dtype) or to_dtype(value) is not None
