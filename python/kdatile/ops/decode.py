"""KDA fused decode step: validated wrappers around kernels/kda_decode.py (see docs/ops.md).

One launch per call, grid (B, H, D // BV): conv + SiLU with the conv cache, q/k L2-norm, the
gate, the beta sigmoid, the delta-rule update of the recurrent state in place, and the gated
RMSNorm. On GPUs, small batches split each head's value rows over several programs (BV < D);
the programs of a head then meet through a small per-device workspace (see _workspace).
"""

from __future__ import annotations

import threading
from typing import NamedTuple

from . import validation as v
from ._kernels import (
    H200_MULTIPROCESSORS,
    Launch,
    bind,
    check_target,
    execute,
    has_clusters,
    load_kernel,
)
from ._kernels import multiprocessors as gpu_multiprocessors
from ._kernels import on_gpu as targets_gpu
from .validation import BF16, BF16_OR_F32, F32, STATE_LAYOUTS

_workspace_lock = threading.Lock()
_workspaces: dict = {}  # device -> (tickets int32, partial sums fp32), zero tickets
_retired: list = []  # outgrown workspaces, kept alive for CUDA graphs that captured them

CONV_WIDTH = 4


def kda_decode(x, conv_weight, conv_state, raw_g, raw_beta, A_log, dt_bias, state,
               state_indices, output_gate, norm_weight, *, lower_bound=-5.0, norm_eps=1e-5,
               conv_bias=None, state_layout="vk", out=None, check_duplicate_slots=False):
    """One KDA decode step for B rows; returns `out` [B, H, D] bf16.

    x [B, 3*H*D] bf16 (channels q heads | k heads | v heads); conv_weight [3*H*D, 4] bf16;
    conv_state [slots, 3*H*D, 3] bf16, updated in place (any positive strides: a channel-major
    cache, or a width-major [slots, 3, 3*H*D] storage seen through .transpose(1, 2));
    raw_g [B, H, D] bf16; raw_beta [B, H] bf16; A_log [H] fp32; dt_bias [H*D] fp32;
    state [slots, H, D, D] fp32 or bf16, contiguous, updated in place, [V, K] per head for
    state_layout="vk" or [K, V] for "kv"; state_indices [B] int32 (int64 is converted; a slot
    < 0 or >= slots is padding: zero output, no cache touched); output_gate [B, H, D] bf16;
    norm_weight [D] bf16 or fp32; conv_bias [3*H*D] bf16 or fp32 or None.

    lower_bound: g = lower_bound * sigmoid(exp(A_log) * (raw_g + dt_bias)); None selects
    g = -exp(A_log) * softplus(raw_g + dt_bias). lower_bound and norm_eps are runtime kernel
    arguments (changing them never compiles). out: None (allocated) or a contiguous
    [B, H, D] bf16 array sharing no memory with the other arguments.
    check_duplicate_slots: read the indices on the host and raise ValueError when a live slot
    repeats (a device sync; skipped while a CUDA graph is captured).
    Bad arguments raise ValueError naming the argument, before anything is launched.

    On GPUs small batches split each head's value rows over several programs (decode_config);
    without thread-block clusters they meet through a workspace the op allocates per device
    (zeroed, grown on demand, a few bytes per head): calls that may run at the same time on
    different streams of one device are not supported, and a CUDA graph capture needs one
    eager call with at least its B*H first.
    """
    return execute(*_decode(locals(), fused=False))


def kda_decode_with_f_b(f_a, f_b_weight, x, conv_weight, conv_state, raw_beta, A_log, dt_bias,
                        state, state_indices, output_gate, norm_weight, *, lower_bound=-5.0,
                        norm_eps=1e-5, conv_bias=None, state_layout="vk", out=None,
                        check_duplicate_slots=False):
    """kda_decode with the gate's input projection fused: raw_g[n, h] = bf16(f_b_weight[h*D:
    (h+1)*D] @ f_a[n]) (fp32 accumulation) is computed inside the kernel.

    f_a [B, D] bf16 (shared by all heads); f_b_weight [H*D, D] bf16 (nn.Linear [out, in]).
    Every other argument as in kda_decode.
    """
    return execute(*_decode(locals(), fused=True))


def decode_launch(*args, fused=False, target=None, multiprocessors=None, config=None,
                  **kwargs):
    """(out, Launch or None): what kda_decode(*args, **kwargs) (kda_decode_with_f_b with
    fused=True) launches, without launching it: the op's own checks and argument preparation.
    The Launch is None when there is nothing to launch (B = 0).
    target: None (the arrays' device) or a target name ("cpu", "sm_90a", ...); NumPy arrays
    then stand for GPU tensors, e.g. to export the launch into an AOT bundle.
    multiprocessors: those of the GPU the launch is for (None: the tensors' GPU, or the H200's
    132 for a named target), which the launch rules that count waves of programs scale with:
    give it when exporting for another GPU, so the bundle holds the launch that GPU picks.
    config: None (the launch decode_config picks), or a DecodeConfig (BV, BLK, STAGES,
    num_warps, CLUSTER) to prepare instead, with the same arguments (a split head without
    CLUSTER gets the workspace): benchmarks and kernel tests of other launches."""
    op = kda_decode_with_f_b if fused else kda_decode
    target = check_target(target)
    return _decode(bind(op, args, kwargs), fused=fused, target=target,
                   multiprocessors=multiprocessors, config=config)


class DecodeConfig(NamedTuple):
    """A decode launch's configuration: value rows per program (BV), value rows per step
    (BLK; None: BV), shared-memory stages (STAGES), warps per program (None: the default;
    the CPU target ignores it) and whether a split head's programs sum in a cluster
    (CLUSTER)."""

    block_v: int
    block_step: int
    stages: int
    num_warps: int | None
    cluster: bool


def _decode(params, *, fused, target=None, multiprocessors=None, config=None):
    """(out, Launch or None) of a call with arguments `params` (by parameter name). The launch
    (value rows, steps, shared-memory stages and warps per program) depends on the batch on
    GPUs: decode_config (or `config` when given)."""
    multiprocessors = v.check_positive_int("multiprocessors", multiprocessors, allow_none=True)
    if config is not None:
        config = DecodeConfig(*config)
    args = dict(params)
    lower_bound, norm_eps = args.pop("lower_bound"), args.pop("norm_eps")
    state_layout = args.pop("state_layout")
    check_duplicates = args.pop("check_duplicate_slots")
    # Scalars first: cheap, and independent of the arrays.
    state_layout = v.check_choice("state_layout", state_layout, STATE_LAYOUTS)
    # The gate is lower_bound * sigmoid(...): a decay needs a negative bound.
    lower_bound = v.check_float("lower_bound", lower_bound, allow_none=True, below=0.0)
    norm_eps = v.check_float("norm_eps", norm_eps, minimum=0.0)
    check_duplicates = v.check_flag("check_duplicate_slots", check_duplicates)

    optional = ("conv_bias", "out")
    a = {name: v.describe(name, val, optional=name in optional) for name, val in args.items()}
    ref = a["x"]
    for info in a.values():
        if info is not None:
            v.check_device(info, ref)
    for name in ("state", "conv_state", "out"):  # written in place
        v.check_writable(a[name])

    # The recurrent state fixes slots, H and D.
    state = a["state"]
    v.check_rank(state, "[slots, H, D, D]", 4)
    slots, H, D, D2 = state.shape
    if D != D2:
        v.fail("state", f"expected [slots, H, D, D] (K = V = D), got shape {list(state.shape)}")
    v.check_head_dim(D, "state")
    if H < 1:
        v.fail("state", f"needs at least one head, got shape {list(state.shape)}")
    v.check_dtype(state, BF16_OR_F32)
    v.check_contiguous(state, "[slots, H, D, D]")
    why = f" (H={H}, D={D} from state)"

    x = a["x"]
    v.check_rank(x, "[B, 3*H*D]", 2)
    B, C = x.shape[0], 3 * H * D
    v.check_shape(x, "[B, 3*H*D]", (B, C), why)
    v.check_dtype(x, BF16)
    why_b = f" (B={B} from x, H={H}, D={D} from state)"

    # (name, layout, shape, dtypes) of the read-only arrays; copied to contiguous ones below
    # when they are not (x only needs dense channels: the kernel takes its row stride).
    specs = [("conv_weight", "[3*H*D, 4]", (C, CONV_WIDTH), BF16, why)]
    if fused:
        specs += [("f_a", "[B, D]", (B, D), BF16, why_b),
                  ("f_b_weight", "[H*D, D]", (H * D, D), BF16, why)]
    else:
        specs += [("raw_g", "[B, H, D]", (B, H, D), BF16, why_b)]
    # The decode kernel always gates: A_log and dt_bias are required (describe() raised on None).
    specs += [("raw_beta", "[B, H]", (B, H), BF16, why_b),
              ("A_log", "[H]", (H,), F32, why),
              ("dt_bias", "[H*D]", (H * D,), F32, why),
              ("output_gate", "[B, H, D]", (B, H, D), BF16, why_b),
              ("norm_weight", "[D]", (D,), BF16_OR_F32, why),
              ("conv_bias", "[3*H*D]", (C,), BF16_OR_F32, why)]
    x, idx, out = v.decode_step_arrays(
        a, specs, state=state, slots=slots, B=B, C=C, conv_layout="[slots, 3*H*D, 3]",
        out_shape=(B, H, D), out_layout="[B, H, D]",
        why_conv=f" (slots={slots}, H={H}, D={D} from state)", why_b=why_b,
        check_duplicates=check_duplicates)
    cs = a["conv_state"]
    if B == 0:
        return out.value, None

    unused = x.value  # pointer parameters a variant does not read
    on_gpu = targets_gpu(ref.device, target)
    if config is None:
        clusters = on_gpu and has_clusters(ref, target)
        block_v, block_step, stages, num_warps = decode_config(
            B, H, D, on_gpu, state.itemsize, state_kv=state_layout == "kv", clusters=clusters,
            fused=fused, multiprocessors=multiprocessors or gpu_multiprocessors(ref, target))
        # A head split over programs sums its squares in a thread-block cluster where the GPU
        # has them (no workspace), else through tickets in the device's workspace.
        cluster = block_v < D and clusters
    else:
        block_v, block_step, stages, num_warps, cluster = config
        block_step = block_v if block_step is None else block_step
        cluster = bool(cluster)
        if not on_gpu:
            num_warps = None
    if block_v < D and not cluster:
        tickets, partials = _workspace(ref, B * H, D // block_v)
    else:
        tickets = partials = unused
    stride_x = x.strides[0] if B > 1 else C
    stride_slot = cs.strides[0] if slots > 1 else C * (CONV_WIDTH - 1)
    cb = a["conv_bias"]
    kargs = (
        x.value, a["conv_weight"].value, cb.value if cb is not None else unused, cs.value,
        unused if fused else a["raw_g"].value,
        a["f_a"].value if fused else unused, a["f_b_weight"].value if fused else unused,
        a["raw_beta"].value, a["A_log"].value, a["dt_bias"].value, state.value, idx.value,
        a["output_gate"].value, a["norm_weight"].value, out.value, tickets, partials,
        int(slots), int(stride_x), int(stride_slot), int(cs.strides[1]), int(cs.strides[2]),
        float(-5.0 if lower_bound is None else lower_bound), float(norm_eps))
    constexprs = dict(H=H, D=D, STATE_KV=state_layout == "kv",
                      USE_LOWER_BOUND=lower_bound is not None, HAS_CONV_BIAS=cb is not None,
                      FUSED_FB=fused)
    name, strategy = decode_kernel(D, block_v, block_step, stages, cluster,
                                   state_kv=state_layout == "kv")
    constexprs.update(strategy)
    grid = (B, H) if block_v == D else (B, H, D // block_v)
    return out.value, Launch(load_kernel(name, name), kargs, constexprs, grid, num_warps)


def decode_kernel(D: int, block_v: int, block_step: int, stages: int, cluster: bool, *,
                  state_kv: bool) -> tuple:
    """(file and kernel name, its strategy constexprs) of a decode launch's configuration
    (kernels/kda_decode.py lists the strategies): a whole head in one step or in steps, a
    head split over programs, and the split in a cluster of one [V, K] step laid out by
    hand."""
    if block_v == D:
        if block_step == D:
            return "kda_decode", {}
        return "kda_decode_steps", dict(BLK=block_step, STAGES=stages)
    if cluster and block_step == block_v and not state_kv:
        return "kda_decode_cluster", dict(BV=block_v)
    return "kda_decode_split", dict(BV=block_v, BLK=block_step, STAGES=stages,
                                    CLUSTER=cluster)


def decode_config_of(launch) -> DecodeConfig:
    """The DecodeConfig of a decode Launch (decode_kernel's inverse): BLK equals BV for one
    step."""
    c = launch.constexprs
    D = c["D"]
    block_v = D if len(launch.grid) == 2 else D // launch.grid[2]
    cluster = c.get("CLUSTER", launch.kernel.__name__ == "kda_decode_cluster")
    return DecodeConfig(block_v, c.get("BLK", block_v), c.get("STAGES", 0), launch.num_warps,
                        cluster)

# Programs per multiprocessor (sm_90a, D = 128) that the wave-based launch rules count: one
# 8-warp program per head in 64-row steps holds 80 registers per thread, so 3 fit (measured on
# the H200: fastest at 384 and 396 heads, 20-40% slower than 4-warp programs from 408, in a
# second wave); with the f_b projection fused, the 4-warp program with two shared-memory
# stages holds 96 registers (5 fit) against 80 without (6), so between 5 and 6 per
# multiprocessor the stages would cost a second wave (measured: 7-12% slower there).
EIGHT_WARP_PROGRAMS = 3
FUSED_STAGED_PROGRAMS, FUSED_UNSTAGED_PROGRAMS = 5, 6


def decode_config(B: int, H: int, D: int, on_gpu: bool, state_bytes: int = 4,
                  state_kv: bool = False, clusters: bool = False, fused: bool = False,
                  multiprocessors: int = H200_MULTIPROCESSORS) -> tuple:
    """(value rows per program BV, value rows per step BLK, shared-memory stages STAGES,
    warps per program or None for the default) of a launch; state_bytes: bytes per state
    element (4: fp32, 2: bf16); state_kv: a [K, V] state; clusters: the GPU runs a split
    head's programs as a thread-block cluster (sm_90a), so splitting costs no tickets;
    fused: the f_b projection is fused (kda_decode_with_f_b: every program reads its head's
    [D, D] weight block, so fewer programs per head pay off sooner); multiprocessors: the
    GPU's, which the four limits that count waves of programs scale with (the others are the
    H200's numbers).

    With clusters (measured on the H200 with D = 128), a head of a [V, K] state (D <= 128) is
    split over a cluster of programs of one step (of D/n rows, at least 16, so fewer programs
    for D < 128): fp32 over 4 programs below 128 heads (over 2 from 64 heads while twice the
    heads are at most the multiprocessors, D = 128 and the f_b projection is not fused), then
    over 2 up to 192 heads (of 8 warps while the heads are at most the multiprocessors, under
    the same conditions), then 2 programs in 32-row steps below 256; bf16 over 4 programs
    below 64 heads, then 2 below 144. With the f_b projection fused: fp32 over 8 programs
    below 32 heads, 4 below 64, then as without it from 2 programs on; bf16 over 4 programs
    below 32 heads, 2 below 144. Heads with D > 128 split over 8 programs below 64 heads. A
    [K, V] state (D <= 128) splits below 64 heads: fp32 over 8 programs below 32 heads, else
    over 4, and an fp32 one (D = 128) over 2 from 128 to 511 heads.
    Otherwise, and beyond those sizes, the rules below apply.

    The CPU runs whole heads in one step. On GPUs (measured on the H200, docs/performance.md):
    - few heads, where the chain of memory round trips is the time: one 4-warp program per
      head holding its whole [D, D] block in one step (D <= 128) for a bf16 state up to 256
      heads and an fp32 state from 64 to 127 heads; an fp32 state below 64 heads splits each
      head's value rows over 4 programs of one step (one program per head would leave most
      of the GPU idle);
    - up to 396 heads (3 per multiprocessor, on the H200's 132): one 8-warp program per head
      walking its rows in steps of 64, so a [64, D] block (not the whole [D, D]) is held and
      more programs fit on a multiprocessor (beyond, a second wave costs 20-40%);
    - beyond: one 4-warp program per head in steps of 32 rows (6 per multiprocessor); from
      1024 heads an fp32 state streams through two shared-memory buffers by asynchronous
      copies (1-6% faster there; a bf16 state gains nothing). With the f_b projection
      fused, which lengthens each program's prologue, an fp32 state streams from 397 heads,
      but not from 661 to 792 (5 to 6 per multiprocessor): the stages' registers fit 5
      programs per multiprocessor instead of 6, so there they cost a second wave.
    A [K, V] state reduces over K across warps at every step, so steps cost more: its
    programs hold the whole head in one step (D <= 128), but a bf16 state from 256 to 1023
    heads walks it in steps of 32 rows. (fp32 took 32-row steps with two shared-memory stages
    there too, from warm measurements; cold, one step is 6-11% faster at 384 and 768 heads on
    an H100.) All these limits were measured at D = 128 and apply to every head size."""
    if not on_gpu:
        return D, D, 0, None
    pairs = B * H

    def split(parts, step=None):
        """A head over `parts` 4-warp programs (rows at least 16), in steps of `step` rows
        (None: one step)."""
        rows = max(D // parts, min(D, 16))
        return rows, rows if step is None else min(rows, step), 0, 4

    fp32 = state_bytes == 4
    if clusters and state_kv and not fused and D <= 128:
        if pairs < (32 if fp32 else 0):
            return split(8)
        if pairs < 64:
            return split(4)
        if fp32 and D == 128 and 128 <= pairs < 512:
            # Cold, halves of a head in a cluster beat one program per head by 3.5-5% at 192
            # to 384 heads (H100; level at 96 and 768).
            return split(2)
    elif clusters and not state_kv:
        # Below how many heads 8, 4 and 2 programs of one step pay off. Programs of 64 rows
        # hold 168 registers per thread: 3 per multiprocessor, so past 198 heads they no
        # longer fit in one wave of the H200's 132 multiprocessors (measured: one step wins
        # at 192 heads, 32-row steps at 240).
        limits = {(True, False): (0, 128, 193), (False, False): (0, 64, 144),
                  (True, True): (32, 64, 193), (False, True): (0, 32, 144)}[fp32, fused]
        if D > 128:
            limits = (64, 0, 0)
        for parts, limit in zip((8, 4, 2), limits):
            if pairs < limit:
                if (parts == 4 and fp32 and not fused and D == 128
                        and 64 <= pairs and 2 * pairs <= multiprocessors):
                    # From 64 heads while 2 programs per head fit one per multiprocessor
                    # (64-66 heads on the H200): 2 programs of 64 rows, 1-4% faster than 4
                    # of 32 there; at 48-60 heads 4 programs win by 2-10%, at 62 they tie,
                    # and at 68 heads 2 programs take a second wave (13% slower).
                    return split(2)
                if parts == 2 and fp32 and not fused and D == 128 and pairs <= multiprocessors:
                    # Past the 4-program split, half heads on 8 warps while they fit one
                    # wave (2 per multiprocessor): 1-4% faster than on 4 warps at 128-132
                    # heads on the H200; below 128 heads 4 programs win (by 2-13%).
                    return D // 2, D // 2, 0, 8
                return split(parts)
        if fp32 and pairs < 256 and D <= 128:
            return split(2, 32)
    blk = min(D, 32)
    if state_kv and D <= 128:
        if 256 <= pairs < 1024 and state_bytes == 2:
            return D, blk, 0, 4
        return D, D, 0, 4
    whole_head = pairs <= 256 if state_bytes == 2 else 64 <= pairs < 128
    if whole_head and D <= 128:
        return D, D, 0, 4
    if pairs < 64:
        return D // 4, D // 4, 0, 4
    if pairs <= EIGHT_WARP_PROGRAMS * multiprocessors:
        return D, min(D, 64), 0, 8
    if fused:
        second_wave = (FUSED_STAGED_PROGRAMS * multiprocessors < pairs
                       <= FUSED_UNSTAGED_PROGRAMS * multiprocessors)
        stream = state_bytes == 4 and D > blk and not second_wave
    else:
        stream = state_bytes == 4 and D > blk and pairs >= 1024
    return D, blk, 2 if stream else 0, 4


def _workspace(ref, heads: int, blocks: int):
    """(tickets [>= heads] int32, partials [>= heads * blocks] fp32) on ref's device. Tickets
    are zero between launches (the kernel's last program of each head resets its ticket), so
    one workspace serves every call on the device; it only grows."""
    if not ref.is_torch:  # NumPy stand-ins (export) and host arrays: a fresh one
        np = v._np()
        return np.zeros(heads, np.int32), np.zeros(heads * blocks, np.float32)
    torch = v._torch()
    device = ref.value.device
    with _workspace_lock:
        have = _workspaces.get(str(device))
        if have is not None and have[0].numel() >= heads and have[1].numel() >= heads * blocks:
            return have
        if v.is_capturing(ref):
            raise RuntimeError(
                f"kdatile.ops: the decode workspace on {device} must grow to {heads} heads x "
                f"{blocks} blocks during CUDA graph capture; run the op once outside the capture "
                "with at least this batch first")
        t = max(heads, have[0].numel() if have else 0)
        p = max(heads * blocks, have[1].numel() if have else 0)
        grown = (torch.zeros(t, dtype=torch.int32, device=device),
                 torch.zeros(p, dtype=torch.float32, device=device))
        if have is not None:
            _retired.append(have)
        _workspaces[str(device)] = grown
        return grown
