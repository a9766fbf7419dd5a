"""Context-parallel KDA prefill: `chunk_kda(..., cp_group=group)` over the ranks of a
torch.distributed process group (docs/ops.md, "Context parallelism"; the math in docs/kda.md,
"Context-parallel prefill"; the kernels in kernels/kda_cp.py).

Each rank passes its own contiguous run of the packed tokens (q [1, T_rank, H, K], ...) and
the global cu_seqlens; rank r holds the tokens after those of ranks 0 .. r-1, so sequences are
cut at any token. A rank runs chunk_kda on its pieces of sequences (the first from zeros when
its sequence started on an earlier rank) and, for such a carried piece, chunk_kda once more
with v = 0 from the identity, which gives the piece's state transition P and the output
corrections c. The ranks exchange (P, Q) (one all_gather), each folds those of the ranks
before it into the state its carried piece starts from, and corrects its outputs and that
sequence's final state with it. Final states are summed over the ranks (one all_reduce): every
rank returns the single-process call's final states, and its own tokens' outputs.
"""

from __future__ import annotations

from typing import NamedTuple

from . import validation as vd
from ._kernels import Launch, execute, load_kernel, on_gpu, pow2_at_least

GPU_BLOCK = 32  # value rows and key columns per product step on GPUs
GPU_TOKENS = 16  # tokens per correction program on GPUs
CPU_TOKENS = 64


class Piece(NamedTuple):
    """A sequence's tokens on one rank: local tokens start .. end - 1 of global sequence seq."""

    seq: int
    start: int
    end: int
    carried_in: bool  # the sequence started on an earlier rank
    carried_out: bool  # and goes on on a later one


def rank_pieces(cu: list, starts: list, rank: int) -> list:
    """The pieces of rank `rank`, whose tokens are starts[rank] .. starts[rank + 1] - 1 of the
    packed sequences cu (global cu_seqlens, as host ints). A sequence without tokens belongs to
    the rank holding the token at its position (the last rank at the end)."""
    a, b = starts[rank], starts[rank + 1]
    last = rank == len(starts) - 2
    pieces = []
    for s in range(len(cu) - 1):
        lo, hi = cu[s], cu[s + 1]
        if hi > lo:
            if max(lo, a) < min(hi, b):
                pieces.append(Piece(s, max(lo, a) - a, min(hi, b) - a, lo < a, hi > b))
        elif a <= lo < b or (last and lo == b):
            pieces.append(Piece(s, lo - a, lo - a, False, False))
    return pieces


def _distributed(group):
    """torch.distributed, checked to be initialized with `group` a process group of it."""
    torch = vd._torch()
    if torch is None:
        vd.fail("cp_group", "needs torch.distributed (import torch and initialize a process "
                            "group); got a cp_group without torch imported")
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        vd.fail("cp_group", "torch.distributed is not initialized (call "
                            "torch.distributed.init_process_group first)")
    if not isinstance(group, dist.ProcessGroup):
        vd.fail("cp_group", f"expected a torch.distributed ProcessGroup (e.g. "
                            f"torch.distributed.group.WORLD), got {type(group).__name__}")
    return dist


def _gather_checked(dist, group, rank, value, error):
    """all_gather_object of `value` from every rank, raising on every rank when one of them
    found an error (so that no rank waits in a later collective for one that raised)."""
    items = [None] * dist.get_world_size(group)
    dist.all_gather_object(items, (value, error), group=group)
    if error is not None:
        raise ValueError(error)
    for r, (_, err) in enumerate(items):
        if err is not None:
            vd.fail("cp_group", f"rank {r} rejected its arguments: {err}")
    return [v for v, _ in items]


def chunk_kda_cp(cp_group, q, k, v, g, beta, *, initial_state, output_final_state,
                 state_v_first, cu_seqlens, return_intermediate_states, out, target,
                 cu_seqlens_cpu=None, **options):
    """chunk_kda with cp_group (see chunk.chunk_kda); `options` are its other keywords."""
    from .chunk import chunk_launches

    dist = _distributed(cp_group)
    rank = dist.get_rank(cp_group)
    world = dist.get_world_size(cp_group)

    # Phase 1: what every rank holds (token count, cu_seqlens), checked on every rank.
    local, error = None, None
    try:
        if return_intermediate_states:
            vd.fail("return_intermediate_states", "is not supported with cp_group")
        qi = vd.describe("q", q)
        vd.check_rank(qi, "[1, T_rank, H, K]", 4)
        if qi.shape[0] != 1:
            vd.fail("q", f"with cp_group holds this rank's tokens as [1, T_rank, H, K], got "
                         f"shape {list(qi.shape)}")
        vi = vd.describe("v", v)
        if vi.ndim == 4 and vi.shape[3] != qi.shape[3]:
            vd.fail("v", f"with cp_group needs head dim V = K = {qi.shape[3]}, got V = "
                         f"{vi.shape[3]}")
        cu = None
        if cu_seqlens is not None:
            ci = vd.describe("cu_seqlens", cu_seqlens)
            vd.check_rank(ci, "[N + 1]", 1)
            vd.check_dtype(ci, ("i32", "i64"))
            if ci.shape[0] < 1:
                vd.fail("cu_seqlens", "needs at least one entry (cu_seqlens[0] = 0)")
            if cu_seqlens_cpu is not None:  # no device read
                ci = vd.host_cu_seqlens(cu_seqlens_cpu)
            elif vd.is_capturing(ci):
                vd.fail("cu_seqlens", "with cp_group is read on the host, which cannot run "
                                      "while a CUDA graph is captured")
            cu = tuple(int(x) for x in vd.host_values(ci))
        if cu_seqlens_cpu is not None and cu_seqlens is None:
            vd.fail("cu_seqlens_cpu", "is given without cu_seqlens")
        local = (qi.shape[1], cu)
    except ValueError as e:
        error = str(e)
    gathered = _gather_checked(dist, cp_group, rank, local, error)
    counts = [n for n, _ in gathered]
    starts = [0]
    for n in counts:
        starts.append(starts[-1] + n)
    cu = gathered[rank][1]
    if any(c != cu for _, c in gathered):
        vd.fail("cu_seqlens", "differs between the ranks of cp_group (pass the same global "
                              "cu_seqlens on every rank)")
    cu = list(cu) if cu is not None else [0, starts[-1]]
    if cu[0] != 0:
        vd.fail("cu_seqlens", f"must start at 0, got {cu[0]}")
    if cu[-1] != starts[-1]:
        vd.fail("cu_seqlens", f"must end at the tokens of all ranks, {starts[-1]} (per rank "
                              f"{counts}), got {cu[-1]}")
    for i in range(len(cu) - 1):
        if cu[i + 1] < cu[i]:
            vd.fail("cu_seqlens", f"must be non-decreasing, got {cu[i]} then {cu[i + 1]} at "
                                  f"positions {i}, {i + 1}")
    N = len(cu) - 1
    pieces = [rank_pieces(cu, starts, r) for r in range(world)]
    mine = pieces[rank]

    # Phase 2: this rank's launches (every argument checked), then the ranks agree.
    plan, error = None, None
    try:
        plan = _plan(q, k, v, g, beta, initial_state, state_v_first, mine, N, out, target,
                     options, chunk_launches)
    except ValueError as e:
        error = str(e)
    _gather_checked(dist, cp_group, rank, None, error)
    o, finals, transition, ref = _run(plan)

    # The exchange: each rank's last piece as (P, Q); P only for a rank inside one sequence.
    HV, K = plan["HV"], plan["K"]
    through = [len(p) == 1 and p[0].carried_in and p[0].carried_out for p in pieces]
    packed = _zeros(ref, (2, HV, K, K))
    if through[rank]:
        packed[0] = transition[1][0]
    if mine and mine[-1].carried_out:
        packed[1] = finals[len(mine) - 1]
    parts = _all_gather(dist, cp_group, packed)

    kernels = CPKernels(ref, target, HV, K, state_v_first, plan["dot"])
    incoming = None
    if mine and mine[0].carried_in:
        started = max(r for r in range(rank) if pieces[r] and not pieces[r][-1].carried_in)
        incoming = parts[started][1]
        for r in range(started + 1, rank):
            if pieces[r]:  # a rank with no tokens passes the state on
                incoming = kernels.compose(incoming, parts[r][0], parts[r][1])
        c, P = transition
        kernels.correct(o, c, incoming, mine[0].end)

    final = None
    if output_final_state:
        final = _zeros(ref, (N, HV, K, K))
        for i, piece in enumerate(mine):
            if piece.carried_out:
                continue
            if i == 0 and piece.carried_in:
                final[piece.seq] = kernels.compose(incoming, transition[1][0], finals[0])
            else:
                final[piece.seq] = finals[i]
        dist.all_reduce(_as_torch(final), group=cp_group)
    return o, final


def rank_launches(counts, rank, q, k, v, g, beta, *, cu_seqlens=None, initial_state=None,
                  output_final_state=False, state_v_first=False, out=None, target=None,
                  **options):
    """The launches rank `rank` makes in a chunk_kda(..., cp_group=) call over len(counts)
    ranks holding counts[r] tokens each, without launching or communicating (what an
    ahead-of-time bundle needs; zeros stand for the states the ranks exchange): its pieces'
    prefill, a carried piece's transition, and kernels/kda_cp.py's products. cu_seqlens is
    global (host values); the arrays are this rank's, as in the call. The pieces' states are
    computed whatever output_final_state is (the exchange needs them)."""
    from .chunk import chunk_launches

    del output_final_state
    starts = [0]
    for n in counts:
        starts.append(starts[-1] + n)
    cu = [0, starts[-1]] if cu_seqlens is None else [int(x) for x in cu_seqlens]
    mine = rank_pieces(cu, starts, rank)
    plan = _plan(q, k, v, g, beta, initial_state, state_v_first, mine, len(cu) - 1, out,
                 target, options, chunk_launches)
    launches = list(plan["launches"])
    if mine and mine[0].carried_in:
        HV, K, ref = plan["HV"], plan["K"], plan["ref"]
        cp = CPKernels(ref, target, HV, K, state_v_first, plan["dot"])
        state = _zeros(ref, (HV, K, K))
        launches.append(cp.compose_launch(state, state, state, _zeros(ref, (HV, K, K))))
        if mine[0].end > 0:
            launches.append(cp.correct_launch(plan["o"], plan["transition"][0], state,
                                              mine[0].end))
    return launches


def _plan(q, k, v, g, beta, initial_state, state_v_first, mine, N, out, target, options,
          chunk_launches):
    """This rank's chunk_kda launches: its pieces from their initial states (zeros for a
    carried piece), and for a carried first piece the transition call (v = 0, identity)."""
    from .chunk import intermediate_dtype, product_type

    qi, vi = vd.describe("q", q), vd.describe("v", v)
    vd.check_rank(vi, "[1, T_rank, HV, V]", 4)
    HV, K = vi.shape[2], qi.shape[3]
    st = vd.describe("initial_state", initial_state, optional=True)
    if st is not None:
        layout = "[N, HV, V, K]" if state_v_first else "[N, HV, K, V]"
        vd.check_shape(st, layout, (N, HV, K, K), f" (N = {N} from cu_seqlens, HV from v)")
        vd.check_dtype(st, ("f32",))
        vd.check_device(st, qi)
    local_cu = [0] + [p.end for p in mine]
    initial = None
    if st is not None and mine:
        initial = _zeros(qi, (len(mine), HV, K, K))
        for i, piece in enumerate(mine):
            if not piece.carried_in:
                initial[i] = initial_state[piece.seq]
    kw = dict(options, state_v_first=state_v_first)
    (o, finals), launches = chunk_launches(
        q, k, v, g, beta, initial_state=initial, output_final_state=True,
        cu_seqlens=_ints(qi, local_cu), out=out, target=target, **kw)
    transition = None
    if mine and mine[0].carried_in:
        T1 = mine[0].end
        zeros_v = _zeros(vi, (1, T1, HV, K), vi.dtype)
        identity = _identity(qi, HV, K)
        kw["state_v_first"] = True
        transition, more = chunk_launches(
            q[:, :T1], k[:, :T1], zeros_v, g[:, :T1], beta[:, :T1], initial_state=identity,
            output_final_state=True, target=target, **kw)
        launches += more
    dot = product_type(intermediate_dtype(qi.dtype))
    return dict(o=o, finals=finals, transition=transition, launches=launches, ref=qi, HV=HV,
                K=K, dot=dot)


def _run(plan):
    for launch in plan["launches"]:
        execute(None, launch)
    return plan["o"], plan["finals"], plan["transition"], plan["ref"]


class CPKernels:
    """The launches of kernels/kda_cp.py for one call's shapes (HV heads, head dim K, the
    states' layout, the products' operand type); `ref` (an ArrayInfo) gives the device and the
    kind of the arrays allocated, `target` the launch's target when not the arrays'."""

    def __init__(self, ref, target, HV, K, state_v_first, dot):
        self.ref, self.HV, self.K = ref, HV, K
        gpu = on_gpu(ref.device, target)
        self.BK = max(16, pow2_at_least(K))
        self.block = min(GPU_BLOCK, self.BK) if gpu else self.BK
        self.tokens = GPU_TOKENS if gpu else CPU_TOKENS
        self.num_warps = 4 if gpu else None
        self.common = dict(K=K, BK=self.BK, BV=self.block, BJ=self.block,
                           STATE_VK=state_v_first, DOT=dot)
        self.blocks = (K + self.block - 1) // self.block

    def compose_launch(self, s, p, q, result):
        """result = s p + q per head ([HV, K, K] each; p in the [V, K] form)."""
        kernel = load_kernel("kda_cp", "kda_cp_compose")
        grid = (self.blocks, self.HV, self.blocks)
        constexprs = dict(self.common, BN=self.block)
        return Launch(kernel, (s, p, q, result), constexprs, grid, self.num_warps)

    def correct_launch(self, o, c, s, T1):
        """o[0, t] += s c[0, t] for t < T1 (T1 >= 1)."""
        kernel = load_kernel("kda_cp", "kda_cp_correct")
        grid = ((T1 + self.tokens - 1) // self.tokens, self.HV, self.blocks)
        constexprs = dict(self.common, HV=self.HV, BT=self.tokens)
        return Launch(kernel, (o, c, s, int(T1)), constexprs, grid, self.num_warps)

    def compose(self, s, p, q):
        result = _zeros(self.ref, (self.HV, self.K, self.K))
        execute(None, self.compose_launch(s, p, q, result))
        return result

    def correct(self, o, c, s, T1):
        if T1 > 0:
            execute(None, self.correct_launch(o, c, s, T1))


def _zeros(ref, shape, dtype="f32"):
    arr = vd.new_like(ref, shape, dtype)
    arr[...] = 0
    return arr


def _identity(ref, HV, K):
    """[1, HV, K, K] fp32 identities on ref's device."""
    if ref.is_torch:
        torch = vd._torch()
        eye = torch.eye(K, dtype=torch.float32, device=ref.value.device)
        return eye.expand(1, HV, K, K).contiguous()
    np = vd._np()
    return np.ascontiguousarray(np.broadcast_to(np.eye(K, dtype=np.float32), (1, HV, K, K)))


def _ints(ref, values):
    """An int32 array of host ints on ref's device."""
    if ref.is_torch:
        torch = vd._torch()
        return torch.tensor(values, dtype=torch.int32, device=ref.value.device)
    return vd._np().asarray(values, vd._np().int32)


def _as_torch(arr):
    """A torch view of an array (NumPy arrays share their memory)."""
    torch = vd._torch()
    return arr if isinstance(arr, torch.Tensor) else torch.from_numpy(arr)


def _all_gather(dist, group, arr):
    """Every rank's `arr`, in rank order, of arr's kind."""
    tensor = _as_torch(arr).contiguous()
    parts = [tensor.new_empty(tensor.shape) for _ in range(dist.get_world_size(group))]
    dist.all_gather(parts, tensor, group=group)
    if tensor is arr:
        return parts
    return [part.numpy() for part in parts]
