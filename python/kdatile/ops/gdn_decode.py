"""Gated DeltaNet fused decode step: a validated wrapper around kernels/gdn_decode.py (see
docs/ops.md, "gdn_decode").

One launch per call, grid (B, H, NV): conv + SiLU with the conv cache, q/k L2-norm, the
per-head gate and beta, the delta-rule update of each value head's state in place, and the
SiLU-gated RMSNorm; the NV programs of a row and q/k head (one, or four in a thread-block
cluster for small batches: split_value_rows) serve the HV // H value heads that share it.
"""

from __future__ import annotations

from . import validation as v
from ._kernels import Launch, bind, check_target, execute, has_clusters, load_kernel, on_gpu
from ._kernels import multiprocessors as gpu_multiprocessors
from .validation import BF16, BF16_OR_F32, F32, STATE_LAYOUTS

CONV_WIDTH = 4


def gdn_decode(x, conv_weight, conv_state, a, b, A_log, dt_bias, state, state_indices, z,
               norm_weight, *, num_k_heads, scale=None, norm_eps=1e-6, conv_bias=None,
               state_layout="vk", out=None, check_duplicate_slots=False):
    """One Gated DeltaNet decode step for B rows; returns `out` [B, HV, V] bf16.

    num_k_heads: H, the q/k heads (HV, the value heads, must be a multiple of it; value head
    hv reads q/k head hv // (HV // H)). x [B, 2*H*K + HV*V] bf16 (channels q heads | k heads |
    v heads); conv_weight [C, 4] bf16; conv_state [slots, C, 3] bf16, updated in place (any
    positive strides: a channel-major cache, or a width-major [slots, 3, C] storage seen
    through .transpose(1, 2)); a, b [B, HV] bf16 (the gate's and beta's inputs: g =
    -exp(A_log) * softplus(a + dt_bias), beta = sigmoid(b)); A_log, dt_bias [HV] fp32; state
    [slots, HV, V, K] fp32 or bf16, contiguous, updated in place ([slots, HV, K, V] for
    state_layout="kv"); state_indices [B] int32 (int64 is converted; a slot < 0 or >= slots is
    padding: zero output, no cache touched); z [B, HV, V] bf16 (the norm's gate); norm_weight
    [V] bf16 or fp32; conv_bias [C] bf16 or fp32 or None. K and V are powers of two up to 256.

    scale: q's scale after its L2 norm (None: K ** -0.5); scale and norm_eps are runtime kernel
    arguments (changing them never compiles). out: None (allocated) or a contiguous
    [B, HV, V] bf16 array sharing no memory with the other arguments.
    check_duplicate_slots: read the indices on the host and raise ValueError when a live slot
    repeats (a device sync; skipped while a CUDA graph is captured).
    Bad arguments raise ValueError naming the argument, before anything is launched.
    """
    return execute(*_gdn_decode(locals()))


def gdn_decode_launch(*args, target=None, programs_per_head=None, **kwargs):
    """(out, Launch or None): what gdn_decode(*args, **kwargs) launches, without launching it.
    target: None (the arrays' device) or a target name; NumPy arrays then stand for GPU
    tensors (to export the launch into an AOT bundle). programs_per_head: None (the op's
    choice, split_value_rows) or the programs sharing a row and q/k head's value rows (1, or
    2-8 as a thread-block cluster): benchmarks of other launches."""
    return _gdn_decode(bind(gdn_decode, args, kwargs), check_target(target), programs_per_head)


# Programs per row and q/k head when a launch has fewer than half a program per multiprocessor:
# they then share the value rows in a thread-block cluster (sm_90a).
SPLIT_PROGRAMS = 4


def split_value_rows(B: int, H: int, V: int, clusters: bool, multiprocessors: int) -> int:
    """The programs sharing a row and q/k head's value rows: SPLIT_PROGRAMS where the GPU has
    thread-block clusters and B * H programs would leave more than half of its
    multiprocessors idle, else 1."""
    if clusters and 2 * B * H < multiprocessors and V % SPLIT_PROGRAMS == 0:
        return SPLIT_PROGRAMS
    return 1


def _gdn_decode(params, target=None, programs_per_head=None):
    args = dict(params)
    H = args.pop("num_k_heads")
    scale, norm_eps = args.pop("scale"), args.pop("norm_eps")
    state_layout = v.check_choice("state_layout", args.pop("state_layout"), STATE_LAYOUTS)
    check_duplicates = args.pop("check_duplicate_slots")
    H = v.check_positive_int("num_k_heads", H)
    scale = v.check_float("scale", scale, allow_none=True)
    if scale is not None and scale <= 0.0:
        v.fail("scale", f"must be > 0, got {scale}")
    norm_eps = v.check_float("norm_eps", norm_eps, minimum=0.0)
    check_duplicates = v.check_flag("check_duplicate_slots", check_duplicates)

    optional = ("conv_bias", "out")
    arrays = {name: v.describe(name, val, optional=name in optional)
              for name, val in args.items()}
    ref = arrays["x"]
    for info in arrays.values():
        if info is not None:
            v.check_device(info, ref)
    for name in ("state", "conv_state", "out"):  # written in place
        v.check_writable(arrays[name])

    # The recurrent state fixes slots, HV, K and V.
    state = arrays["state"]
    layout = "[slots, HV, V, K]" if state_layout == "vk" else "[slots, HV, K, V]"
    v.check_rank(state, layout, 4)
    slots, HV = state.shape[0], state.shape[1]
    V, K = state.shape[2:] if state_layout == "vk" else state.shape[:1:-1]
    for dim, name in ((K, "K"), (V, "V")):
        if dim < 1 or dim > 256 or dim & (dim - 1):
            v.fail("state", f"{name} must be a power of two up to 256, got shape "
                            f"{list(state.shape)} ({layout})")
    if HV < 1:
        v.fail("state", f"has no value heads: shape {list(state.shape)} ({layout})")
    if HV % H:
        v.fail("num_k_heads", f"the state's {HV} value heads are not a multiple of "
                              f"num_k_heads={H}")
    v.check_dtype(state, BF16_OR_F32)
    v.check_contiguous(state, layout)
    why = f" (HV={HV}, K={K}, V={V} from state, H={H})"

    x = arrays["x"]
    C = 2 * H * K + HV * V
    v.check_rank(x, "[B, 2*H*K + HV*V]", 2)
    B = x.shape[0]
    v.check_shape(x, "[B, 2*H*K + HV*V]", (B, C), why)
    v.check_dtype(x, BF16)
    why_b = f" (B={B} from x, HV={HV}, V={V} from state)"

    specs = [("conv_weight", "[C, 4]", (C, CONV_WIDTH), BF16, why),
             ("a", "[B, HV]", (B, HV), BF16, why_b),
             ("b", "[B, HV]", (B, HV), BF16, why_b),
             ("A_log", "[HV]", (HV,), F32, why),
             ("dt_bias", "[HV]", (HV,), F32, why),
             ("z", "[B, HV, V]", (B, HV, V), BF16, why_b),
             ("norm_weight", "[V]", (V,), BF16_OR_F32, why),
             ("conv_bias", "[C]", (C,), BF16_OR_F32, why)]
    x, idx, out = v.decode_step_arrays(
        arrays, specs, state=state, slots=slots, B=B, C=C, conv_layout="[slots, C, 3]",
        out_shape=(B, HV, V), out_layout="[B, HV, V]",
        why_conv=f" (slots={slots} from state){why}", why_b=why_b,
        check_duplicates=check_duplicates)
    cs = arrays["conv_state"]
    if B == 0:
        return out.value, None

    kernel = load_kernel("gdn_decode", "gdn_decode")
    cb = arrays["conv_bias"]
    stride_x = x.strides[0] if B > 1 else C
    stride_slot = cs.strides[0] if slots > 1 else C * (CONV_WIDTH - 1)
    kargs = (
        x.value, arrays["conv_weight"].value, cb.value if cb is not None else x.value, cs.value,
        arrays["a"].value, arrays["b"].value, arrays["A_log"].value, arrays["dt_bias"].value,
        state.value, idx.value, arrays["z"].value, arrays["norm_weight"].value, out.value,
        int(slots), int(stride_x), int(stride_slot), int(cs.strides[1]), int(cs.strides[2]),
        float(K ** -0.5 if scale is None else scale), float(norm_eps))
    gpu = on_gpu(ref.device, target)
    if programs_per_head is None:
        NV = split_value_rows(B, H, V, gpu and has_clusters(ref, target),
                              gpu_multiprocessors(ref, target) if gpu else 1)
    else:
        NV = v.check_positive_int("programs_per_head", programs_per_head)
        if NV > 8 or V % NV:
            v.fail("programs_per_head", f"must divide V={V} and be at most 8, got {NV}")
    constexprs = dict(H=H, HV=HV, K=K, V=V, STATE_KV=state_layout == "kv",
                      HAS_CONV_BIAS=cb is not None, NV=NV)
    # Eight warps for a whole value head's [V, K] fp32 state (64 registers per thread at
    # K = V = 128), four for a cluster's share of it.
    num_warps = (8 if NV == 1 else 4) if gpu else None
    return out.value, Launch(kernel, kargs, constexprs, (B, H, NV), num_warps)
