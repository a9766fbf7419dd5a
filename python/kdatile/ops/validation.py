"""Argument checks shared by the KDA ops (decode and the recurrent core now, prefill later).

Every check runs on metadata only (shapes, strides, dtypes, devices, addresses), so it costs
microseconds and never synchronizes with a GPU: it is safe while a CUDA graph is being captured.
The one check that must read values (duplicate live slots) is opt-in and skipped during capture.

Arrays are NumPy arrays or torch tensors (CPU or CUDA). NumPy has no bfloat16: a NumPy uint16
array holds bf16 bit patterns, as everywhere in kdatile. Problems raise `ValueError` whose text
starts with "argument '<name>'".
"""

from __future__ import annotations

import math
import operator
import sys

from ..runtime import NUMPY_DTYPES, TORCH_DTYPES, is_torch_tensor

# Element offsets the kernels compute in 32-bit for tensors other than the caches.
MAX_ELEMENTS_32 = 2**31 - 1

# What each short dtype name means to a user, for messages.
DTYPE_WORDS = {
    "bf16": "bf16 (torch.bfloat16, or a NumPy uint16 array of bf16 bit patterns)",
    "f32": "float32",
    "f16": "float16",
    "f64": "float64",
    "i32": "int32",
    "i64": "int64",
}


_NUMPY_SHORT: dict = {}  # NumPy dtype -> short name (or the dtype's name when unsupported)


def _np():
    return sys.modules.get("numpy")


def _torch():
    return sys.modules.get("torch")


def fail(name: str, message: str):
    raise ValueError(f"argument '{name}': {message}")


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


class ArrayInfo:
    """Metadata of one array argument: shape, strides in elements, dtype, device, address."""

    __slots__ = ("name", "value", "is_torch", "shape", "strides", "dtype", "itemsize", "device",
                 "ptr", "numel", "_range")

    def __init__(self, name: str, value):
        self.name = name
        self.value = value
        self._range = None
        if is_torch_tensor(value):
            self.is_torch = True
            self.dtype = TORCH_DTYPES.get(str(value.dtype), str(value.dtype))
            self.shape = tuple(int(s) for s in value.shape)
            self.strides = tuple(int(s) for s in value.stride())
            self.itemsize = int(value.element_size())
            dev = value.device
            self.device = dev.type if dev.index is None else f"{dev.type}:{dev.index}"
            self.ptr = int(value.data_ptr())
            self.numel = math.prod(self.shape)
            return
        np = _np()
        if np is None or not isinstance(value, np.ndarray):
            kind = type(value).__name__
            fail(name, f"expected a NumPy array or a torch tensor, got {kind}")
        self.is_torch = False
        dt = value.dtype
        short = _NUMPY_SHORT.get(dt)
        if short is None:
            short = NUMPY_DTYPES.get(dt.name) if dt.isnative else None
            short = short if short is not None else dt.name
            _NUMPY_SHORT[dt] = short
        self.dtype = short
        self.shape = value.shape
        itemsize = self.itemsize = dt.itemsize
        strides = value.strides
        if any(s % itemsize for s in strides):
            fail(name, f"strides {strides} (bytes) are not multiples of the element size "
                       f"{itemsize}")
        self.strides = tuple(s // itemsize for s in strides)
        self.device = "cpu"
        self.ptr = value.__array_interface__["data"][0]
        self.numel = value.size

    # -- properties ----------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    def is_contiguous(self) -> bool:
        """Row-major dense (size-1 dimensions may have any stride; an empty array, whose
        strides NumPy may set to 0, always is)."""
        if self.numel == 0:
            return True
        expected = 1
        for size, stride in zip(reversed(self.shape), reversed(self.strides)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    def byte_range(self) -> tuple[int, int]:
        """[lo, hi) of the bytes the array may touch (empty arrays: an empty range)."""
        if self._range is not None:
            return self._range
        if self.numel == 0:
            self._range = (self.ptr, self.ptr)
            return self._range
        lo = hi = 0
        for size, stride in zip(self.shape, self.strides):
            if stride >= 0:
                hi += (size - 1) * stride
            else:
                lo += (size - 1) * stride
        self._range = (self.ptr + lo * self.itemsize, self.ptr + (hi + 1) * self.itemsize)
        return self._range

    def overlaps(self, other: ArrayInfo) -> bool:
        if self.device != other.device:
            return False
        a0, a1 = self.byte_range()
        b0, b1 = other.byte_range()
        return a0 < b1 and b0 < a1

    def contiguous(self) -> ArrayInfo:
        """A row-major copy (self when already contiguous); torch copies are graph-capturable."""
        if self.is_contiguous():
            return self
        if self.is_torch:
            return ArrayInfo(self.name, self.value.contiguous())
        return ArrayInfo(self.name, _np().ascontiguousarray(self.value))

    def __repr__(self) -> str:
        return (f"<ArrayInfo {self.name} {self.dtype}{_dims(self.shape)} strides "
                f"{self.strides} on {self.device}>")


def describe(name: str, value, *, optional: bool = False):
    """ArrayInfo of an argument; None for an optional argument given as None."""
    if value is None:
        if optional:
            return None
        fail(name, "is required (got None)")
    return ArrayInfo(name, value)


def check_rank(info: ArrayInfo, layout: str, ndim: int) -> None:
    if info.ndim != ndim:
        fail(info.name, f"expected a {ndim}-D array {layout}, got a {info.ndim}-D array of shape "
                        f"{_dims(info.shape)}")


def check_shape(info: ArrayInfo, layout: str, shape: tuple, why: str = "") -> None:
    """Rank and sizes; `layout` names the dimensions ("[B, H, D]"), `why` where they came from."""
    check_rank(info, layout, len(shape))
    if info.shape != tuple(shape):
        fail(info.name, f"expected shape {layout} = {_dims(shape)}{why}, got "
                        f"{_dims(info.shape)}")


def check_dtype(info: ArrayInfo, allowed: tuple) -> None:
    if info.dtype not in allowed:
        want = " or ".join(DTYPE_WORDS.get(d, d) for d in allowed)
        got = info.value.dtype
        fail(info.name, f"dtype must be {want}, got {got}")


def check_device(info: ArrayInfo, ref: ArrayInfo) -> None:
    """All arrays of one op on one device (host memory counts as one device, 'cpu')."""
    if info.device != ref.device:
        fail(info.name, f"is on device '{info.device}', but argument '{ref.name}' is on "
                        f"'{ref.device}'; every array must be on the same device")


def check_elements_32(info: ArrayInfo) -> None:
    """Tensors other than the caches are addressed with 32-bit element offsets."""
    if info.numel > MAX_ELEMENTS_32:
        fail(info.name, f"has {info.numel} elements; only the caches (conv_state, state) may "
                        f"exceed 2**31 - 1 elements (their slot offsets are 64-bit)")


def check_contiguous(info: ArrayInfo, layout: str) -> None:
    if not info.is_contiguous():
        fail(info.name, f"must be contiguous {layout} (it is written in place), got strides "
                        f"{info.strides} (in elements) for shape {_dims(info.shape)}")


def check_positive_strides(info: ArrayInfo, dims: str) -> None:
    """Strides > 0 that map distinct indices to distinct elements (it is written in place)."""
    if any(st <= 0 for sz, st in zip(info.shape, info.strides) if sz > 1):
        fail(info.name, f"strides {info.strides} (in elements) of {dims} must be positive")
    order = sorted((st, sz) for sz, st in zip(info.shape, info.strides) if sz > 1)
    reach = 0  # largest offset reachable by the smaller-stride dimensions
    for st, sz in order:
        if st <= reach:
            fail(info.name, f"strides {info.strides} (in elements) of {dims} make different "
                            "elements share memory; it is written in place, so every element "
                            "needs its own storage")
        reach += (sz - 1) * st


def check_no_overlap(written: list, others: list) -> None:
    """Arrays the op writes must not share memory with any other argument (or each other)."""
    for i, w in enumerate(written):
        for o in written[i + 1:] + others:
            if o is not None and w.overlaps(o):
                fail(w.name, f"overlaps the memory of argument '{o.name}'; arrays the op writes "
                             "must not share memory with its other arguments")


def check_writable(info: ArrayInfo | None) -> None:
    """An array the kernel writes in place: a read-only NumPy array (np.load(...,
    mmap_mode="r"), np.frombuffer of bytes, writeable=False) would be written through anyway,
    or kill the process on a read-only mapping."""
    if info is not None and not info.is_torch and not info.value.flags.writeable:
        fail(info.name, "is read-only (writeable=False: a read-only memory map, a view of "
                        "immutable bytes, ...), but the op writes it in place; pass a writable "
                        "array (e.g. np.array(x) or np.load(path, mmap_mode='r+'))")


FLOAT32_MAX = 3.4028234663852886e38
FLOAT32_TINY = 1.401298464324817e-45  # the smallest subnormal


def check_float(name: str, value, *, allow_none: bool = False, minimum=None,
                below=None) -> float | None:
    """A float parameter (a runtime kernel argument, never a compile-time constant) that the
    kernels receive as a float32: finite there (|value| <= 3.4e38), not a nonzero value that
    float32 rounds to zero, >= `minimum` and < `below` when given."""
    if value is None and allow_none:
        return None
    np = _np()
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok and np is not None and isinstance(value, np.generic):
        ok = np.issubdtype(value.dtype, np.floating) or np.issubdtype(value.dtype, np.integer)
    if not ok:
        fail(name, f"expected a float{' or None' if allow_none else ''}, got "
                   f"{type(value).__name__}")
    try:
        value = float(value)
    except OverflowError:  # an int past float64's range
        fail(name, f"an integer of {len(str(abs(value)))} digits is not finite in float32, as "
                   f"the kernel takes it (|value| must be at most {FLOAT32_MAX:.7g})")
    if not math.isfinite(value):
        fail(name, f"must be finite, got {value}")
    if abs(value) > FLOAT32_MAX:
        fail(name, f"{value} is not finite in float32, as the kernel takes it (|value| must "
                   f"be at most {FLOAT32_MAX:.7g})")
    if value != 0 and abs(value) < FLOAT32_TINY / 2:
        fail(name, f"{value} is 0 in float32, as the kernel takes it")
    if minimum is not None and value < minimum:
        fail(name, f"must be >= {minimum}, got {value}")
    if below is not None and value >= below:
        fail(name, f"must be < {below}, got {value}")
    return value


def check_flag(name: str, value) -> bool:
    """A switch: a bool (a NumPy bool included)."""
    np = _np()
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return bool(value)
    fail(name, f"expected a bool, got {type(value).__name__}")


def check_positive_int(name: str, value, *, allow_none: bool = False) -> int | None:
    """A positive int parameter (Python or NumPy integer, not a bool)."""
    if value is None and allow_none:
        return None
    try:
        count = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        count = None
    if count is None or count < 1:
        fail(name, f"expected a positive int, got {value!r}")
    return count


def check_choice(name: str, value, choices: tuple):
    if not isinstance(value, str) or value not in choices:
        fail(name, f"must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")
    return value


# The dtype sets the ops accept, by the names ArrayInfo gives, and the state layouts.
BF16 = ("bf16",)
F32 = ("f32",)
BF16_OR_F32 = ("bf16", "f32")
FLOATS = ("bf16", "f16", "f32")  # the FLA-named ops' activations and gates, as FLA takes them
INDEX = ("i32", "i64")
STATE_LAYOUTS = ("vk", "kv")

MAX_HEAD_DIM = 256  # the chunked and multi-token ops' head dims: any size up to it


def check_any_head_dim(D: int, source: str, axis: str) -> None:
    """A head dim of the chunked and multi-token ops: any size from 1 to MAX_HEAD_DIM (the
    kernels pad it to a power of two and mask the padding)."""
    if not 1 <= D <= MAX_HEAD_DIM:
        fail(source, f"head dim {axis} = {D} is not supported (1 to {MAX_HEAD_DIM})")


def check_head_dim(D: int, source: str) -> None:
    """The kernels take D as a constexpr power of two (they hold D x D state tiles)."""
    if D < 16 or D > 256 or D & (D - 1):
        fail(source, f"head dim D = {D} is not supported; D must be a power of two in "
                     "[16, 256] (the KDA kernels hold a D x D state tile per program; "
                     "Kimi models use 128)")


def slot_indices(info: ArrayInfo, layout: str, shape: tuple) -> ArrayInfo:
    """int32 contiguous slot indices. int64 is converted without a host sync: values are
    clamped to [-1, 2**31 - 1], so every out-of-range index stays padding (never wraps onto a
    live slot). Other dtypes are rejected."""
    check_shape(info, layout, shape)
    check_dtype(info, ("i32", "i64"))
    if info.dtype == "i64":
        v = info.value
        if info.is_torch:
            conv = v.clamp(-1, MAX_ELEMENTS_32).to(_torch().int32)
        else:
            np = _np()
            conv = np.clip(v, -1, MAX_ELEMENTS_32).astype(np.int32)
        info = ArrayInfo(info.name, conv)
    return info.contiguous()


def is_capturing(info: ArrayInfo) -> bool:
    """Whether a CUDA graph is being captured on torch's current stream (GPU tensors only)."""
    if not info.is_torch or info.device == "cpu":
        return False
    return bool(_torch().cuda.is_current_stream_capturing())


def host_values(info: ArrayInfo):
    """The values of an integer array as a NumPy int64 array of the same shape. A device sync
    for GPU tensors: callers skip what needs it while a CUDA graph is captured."""
    np = _np()
    if info.is_torch:
        values = info.value.detach().cpu().numpy()
    else:
        values = info.value
    return np.asarray(values).astype(np.int64)


def check_duplicate_slots(info: ArrayInfo, num_slots: int) -> None:
    """Raises when a live slot (0 <= slot < num_slots) appears twice. Reads the indices on the
    host (a device sync for GPU tensors): callers skip it while a CUDA graph is captured."""
    np = _np()
    values = host_values(info).reshape(-1)
    live = values[(values >= 0) & (values < num_slots)]
    uniq, counts = np.unique(live, return_counts=True)
    dup = uniq[counts > 1]
    if dup.size:
        fail(info.name, f"live slot {int(dup[0])} appears {int(counts[counts > 1][0])} times "
                        f"(duplicate live slots: {dup[:8].tolist()}); rows of one launch must "
                        "use distinct cache slots (check_duplicate_slots=True)")


def host_cu_seqlens(value) -> ArrayInfo:
    """FLA's `cu_seqlens_cpu`: a host copy of cu_seqlens (NumPy or a CPU tensor, [N + 1]
    int32/int64), read by the host checks instead of the device array; trusted to hold its
    values, as FLA trusts it."""
    info = describe("cu_seqlens_cpu", value)
    if info.device != "cpu":
        fail(info.name, f"must be a host array (NumPy or a CPU tensor), got one on {info.device}")
    check_rank(info, "[N + 1]", 1)
    check_dtype(info, INDEX)
    return info


def check_cu_seqlens(cu: ArrayInfo, T_total: int) -> list:
    """cu_seqlens[0] = 0, non-decreasing, cu_seqlens[N] = T_total (a host read: callers skip
    it while a CUDA graph is captured); returns the sequence lengths."""
    vals = host_values(cu)
    if int(vals[0]) != 0:
        fail(cu.name, f"must start at 0, got {int(vals[0])}")
    if int(vals[-1]) != T_total:
        fail(cu.name, f"must end at T_total = {T_total} (the tokens of q), got {int(vals[-1])}")
    steps = vals[1:] - vals[:-1]
    if (steps < 0).any():
        i = int((steps < 0).argmax())
        fail(cu.name, f"must be non-decreasing, got {int(vals[i])} then {int(vals[i + 1])} at "
                      f"positions {i}, {i + 1}")
    return [int(x) for x in steps]


def token_stride(info: ArrayInfo, layout: str) -> tuple[ArrayInfo, int]:
    """(array, token stride in elements) of a token-major array [N, T, *inner] read through one
    stride per token (token n*T + t at (n*T + t) * stride) with dense inner dimensions (the last
    one contiguous). Splits of a packed [tokens, channels] tensor keep their token stride; any
    other layout (inner dims not dense, N and T strides that do not chain, a negative token
    stride) is copied to a contiguous array first. With a single token the stride is the dense
    one (it is never read), so that such calls share a compiled kernel."""
    shape, strides = info.shape, info.strides
    if len(shape) < 2:
        fail(info.name, f"expected a token-major array {layout}, got shape {_dims(shape)}")
    inner = math.prod(shape[2:])
    dense_inner = True
    expected = 1
    for size, stride in zip(reversed(shape[2:]), reversed(strides[2:])):
        if size != 1 and stride != expected:
            dense_inner = False
        expected *= size
    N, T = shape[0], shape[1]
    if N * T <= 1:
        return (info if dense_inner else info.contiguous()), inner
    st = strides[1] if T > 1 else strides[0]
    chained = N == 1 or T == 1 or strides[0] == T * strides[1]
    if not (dense_inner and chained and st >= 0):
        info = info.contiguous()
        st = inner
    return info, int(st)


def new_like(ref: ArrayInfo, shape: tuple, dtype: str):
    """A new uninitialized array of `shape` and dtype ('bf16', 'f16' or 'f32') on ref's
    device, of ref's kind (torch tensor or NumPy array; bf16 as uint16 bit patterns)."""
    if ref.is_torch:
        torch = _torch()
        tdtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype]
        return torch.empty(shape, dtype=tdtype, device=ref.value.device)
    np = _np()
    return np.empty(shape, {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}[dtype])


def host_f32(info: ArrayInfo):
    """A NumPy array argument's values as float32 (bf16 bit patterns widened)."""
    np = _np()
    if info.dtype == "bf16":
        return (np.asarray(info.value, np.uint32) << 16).view(np.float32)
    return np.asarray(info.value, np.float32)


def decode_step_arrays(a: dict, specs: list, *, state, slots: int, B: int, C: int,
                       conv_layout: str, out_shape: tuple, out_layout: str, why_conv: str,
                       why_b: str, check_duplicates: bool):
    """The checks and preparation the decode steps' ops share (kda_decode, gdn_decode), on `a`
    (ArrayInfo or None by name): the read-only operands `specs` ((name, layout, shape, dtypes,
    why) each) and x [B, C] bf16; the conv cache `a["conv_state"]` [slots, C, 3] bf16 with
    positive strides; state_indices [B] int32 / int64; out (`out_layout`, bf16, contiguous, or
    None); 32-bit element offsets; nothing the kernel writes (state, conv cache, out) sharing
    memory with what it reads. Then the copies: x with dense channels, the specs contiguous
    (in `a`), the indices as int32, the duplicate check when asked, out allocated when None.
    Returns (x, state_indices, out) ArrayInfos."""
    for name, layout, shape, dtypes, src in specs:
        info = a[name]
        if info is not None:
            check_shape(info, layout, shape, src)
            check_dtype(info, dtypes)
    cs, x = a["conv_state"], a["x"]
    check_shape(cs, conv_layout, (slots, C, 3), why_conv)
    check_dtype(cs, ("bf16",))
    check_positive_strides(cs, conv_layout)
    idx = a["state_indices"]
    check_shape(idx, "[B]", (B,), why_b)
    check_dtype(idx, ("i32", "i64"))
    out = a["out"]
    if out is not None:
        check_shape(out, out_layout, out_shape, why_b)
        check_dtype(out, ("bf16",))
        check_contiguous(out, out_layout)
    # Everything but the caches is addressed with 32-bit element offsets.
    reads = [a[name] for name, *_ in specs if a[name] is not None] + [x, idx]
    for info in reads + ([out] if out is not None else []):
        check_elements_32(info)
    # What the kernel writes (caches, out) shares memory with nothing else.
    # out first: an out that overlaps a cache is named.
    check_no_overlap(([out] if out is not None else []) + [cs, state], reads)

    # Valid: now the copies and conversions (graph-capturable torch ops for GPU tensors).
    if (x.strides[1] != 1) or (x.strides[0] < 0 and B > 1):
        x = x.contiguous()
    for name, *_ in specs:
        if a[name] is not None:
            a[name] = a[name].contiguous()
    idx = slot_indices(idx, "[B]", (B,))
    if check_duplicates and not is_capturing(idx):
        check_duplicate_slots(idx, slots)
    if out is None:
        out = ArrayInfo("out", new_like(x, out_shape, "bf16"))
    return x, idx, out


__all__ = [
    "ArrayInfo", "MAX_ELEMENTS_32", "check_choice", "check_contiguous", "check_cu_seqlens",
    "check_device",
    "check_dtype", "check_flag", "check_duplicate_slots", "check_elements_32", "check_float",
    "check_head_dim", "check_no_overlap", "check_positive_strides", "check_rank",
    "decode_step_arrays",
    "check_shape", "check_writable", "describe", "fail", "host_values", "is_capturing",
    "new_like", "slot_indices", "token_stride",
]
