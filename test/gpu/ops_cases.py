"""The kdatile.ops calls of the GPU ops tests, shared by both steps of the GPU checks.

test/gpu/prepare.py (build machine) exports the kernel specializations each call launches on
sm_90a (the ops' own launch preparation, kdatile.ops.decode.decode_launch /
kdatile.ops.recurrent.recurrent_launch / kdatile.ops.chunk.chunk_launches, on the case's NumPy
inputs standing for CUDA tensors); test/gpu/test_gpu_ops.py (GPU machine) builds the same inputs
(seeded NumPy) and their fp64 reference (test/python's pure-NumPy kda_reference.py /
kda_recurrent_reference.py / kda_chunk_reference.py) and makes the call on CUDA tensors. Both
build the inputs and the call here, so the arrays' shapes, strides and dtypes (hence the
specializations) are the same. NumPy only (no torch, no libkda).
"""

import os
import sys

import numpy as np

_REFS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
if _REFS not in sys.path:
    sys.path.append(_REFS)  # kda_reference.py, kda_recurrent_reference.py

# Decode: every pair of levels of the two-level factors appears (as in the CPU tests' orthogonal
# array), with H from 1 to 32 heads and B from 1 to 48 rows; B*H picks the launch (value rows per
# program, steps, shared-memory stages, warps, clusters: kdatile.ops.decode.decode_config, with
# the H200's thread-block clusters), and the batches are chosen so that the cases run the
# different launches the op picks on the H200. `python3 test/gpu/ops_cases.py` lists the launch
# of every case. The kernel cases of prepare.py add 8 programs per head and 2 programs of
# several steps in a cluster.
#        H   B  state   layout conv  lower_bound fused  bias   indices out
_DECODE = [
    (1, 1, "f32", "vk", "cm", -5.0, False, False, "i32", False),
    (12, 8, "f32", "vk", "wm", -5.0, True, True, "i64", True),
    (12, 33, "f32", "kv", "cm", None, False, True, "i32", False),
    (1, 33, "f32", "kv", "wm", None, True, False, "i32", False),
    (12, 8, "bf16", "vk", "cm", None, True, False, "i32", False),
    (1, 33, "bf16", "vk", "wm", None, False, True, "i64", True),
    (12, 1, "bf16", "kv", "cm", -5.0, True, True, "i32", False),
    (1, 8, "bf16", "kv", "wm", -5.0, False, False, "i32", False),
    (12, 48, "f32", "vk", "cm", -5.0, False, False, "i32", False),
    (12, 16, "f32", "vk", "wm", None, False, False, "i32", False),
    (12, 40, "f32", "vk", "cm", -5.0, True, False, "i32", False),
    (12, 22, "bf16", "kv", "cm", None, True, False, "i32", False),
    (12, 11, "f32", "vk", "wm", -5.0, False, True, "i32", True),
    (32, 2, "f32", "vk", "cm", None, False, False, "i32", False),
]

DECODE_CASES = [
    dict(id=(f"decode-H{H}-B{B}-{sd}-{lay}-{conv}-{'lb' if lb is not None else 'softplus'}"
             f"{'-fb' if fused else ''}{'-bias' if bias else ''}-{idx}{'-out' if out else ''}"),
         H=H, B=B, slots=2 * B + 3, state_dtype=sd, state_layout=lay, conv_layout=conv,
         lower_bound=lb, fused=fused, bias=bias, index_dtype=idx, given_out=out,
         seed=4000 + 100 * H + B)
    for H, B, sd, lay, conv, lb, fused, bias, idx, out in _DECODE
]

# Recurrent: varlen (cu_seqlens) or dense [N, T] tokens, per-token slot tables with padding
# tokens, out-of-range slots and padding sequences, num_accepted_tokens.
RECURRENT_CASES = [
    dict(id="recurrent-varlen-N8-H12-f32-vk-lb-acc", H=12, lens=[3, 1, 4, 0, 2, 4, 1, 3],
         Tcols=4, state_dtype="f32", state_layout="vk", gate="lb", accepted=True,
         index_dtype="i32", g_bf16=False, given_out=False, seed=5001),
    dict(id="recurrent-varlen-N3-H1-bf16-kv-softplus-acc-i64", H=1, lens=[2, 4, 1], Tcols=4,
         state_dtype="bf16", state_layout="kv", gate="sp", accepted=True, index_dtype="i64",
         g_bf16=True, given_out=True, seed=5002),
    dict(id="recurrent-N8-T3-H12-f32-kv-softplus-acc", H=12, N=8, T=3, state_dtype="f32",
         state_layout="kv", gate="sp", accepted=True, index_dtype="i32", g_bf16=False,
         given_out=False, seed=5003),
    dict(id="recurrent-N33-T1-H1-bf16-vk-lb", H=1, N=33, T=1, state_dtype="bf16",
         state_layout="vk", gate="lb", accepted=False, index_dtype="i32", g_bf16=False,
         given_out=False, seed=5004),
    dict(id="recurrent-N1-T4-H12-bf16-vk-lb-acc", H=12, N=1, T=4, state_dtype="bf16",
         state_layout="vk", gate="lb", accepted=True, index_dtype="i32", g_bf16=True,
         given_out=True, seed=5005),
    # At most one token per sequence on average: the launch prefetches the starting state;
    # sequence 2 is empty with a live starting slot, sequence 3 starts from column 1 and its
    # first token is padding.
    dict(id="recurrent-varlen-N6-H12-f32-vk-lb-acc-prefetch", H=12, lens=[1, 0, 0, 2, 1, 1],
         Tcols=2, state_dtype="f32", state_layout="vk", gate="lb", accepted=True,
         index_dtype="i32", g_bf16=False, given_out=False, seed=5006),
    # kda_recurrent_records: the previous step's TR records per slot (from the fp64
    # recurrence), 0..TR of them accepted, a padding sequence, an empty one; four value blocks
    # per head share each record's exp(g) and k.
    dict(id="records-varlen-N6-H12-f32-vk-lb", H=12, lens=[3, 1, 4, 0, 2, 4], TR=4,
         records=True, state_dtype="f32", state_layout="vk", gate="lb", given_out=False,
         seed=5007),
    dict(id="records-varlen-N4-H12-bf16-kv-lb", H=12, lens=[2, 2, 1, 2], TR=2, records=True,
         state_dtype="bf16", state_layout="kv", gate="lb", given_out=True, seed=5008),
    # gdn_recurrent (Gated DeltaNet: one log decay per token and value head) at Qwen3-Next's
    # 32 value heads, speculative tokens with per-token slots.
    dict(id="recurrent-gdn-varlen-N8-H32-f32-kv-acc", H=32, lens=[3, 1, 4, 0, 2, 4, 1, 3],
         Tcols=4, state_dtype="f32", state_layout="kv", gate="gdn", accepted=True,
         index_dtype="i32", g_bf16=False, given_out=False, seed=5009),
]

# Prefill (chunk_kda): varlen lengths around the 16-token chunk at the Kimi-K3 TP8 heads, GVA
# with a non-power-of-two head dim, the softplus gate and [V, K] states, and a 2k-token Kimi
# sequence.
PREFILL_CASES = [
    dict(id="prefill-varlen-H12-D128-bf16-lb-kv", H=12, HV=12, D=128,
         lens=[1, 15, 16, 17, 63, 64, 65, 200], dtype="bf16", gate="lb", v_first=False,
         initial=True, neg=False, seed=6001),
    dict(id="prefill-B2-T300-H3-HV6-D100-f32-softplus-vk-neg", H=3, HV=6, D=100, B=2, T=300,
         dtype="f32", gate="sp", v_first=True, initial=True, neg=True, seed=6002),
    dict(id="prefill-T2048-H12-D128-bf16-lb", H=12, HV=12, D=128, B=1, T=2048, dtype="bf16",
         gate="lb", v_first=False, initial=False, neg=False, seed=6003),
    # Few programs and a long sequence: GPUs scan it in segments (four of 1024 tokens); the raw
    # gates shifted by g_shift decay gently, so each segment's transition weighs in the result.
    dict(id="prefill-varlen-H1-D64-bf16-lb-segments", H=1, HV=1, D=64, lens=[3500, 17, 300],
         dtype="bf16", gate="lb", v_first=True, initial=True, neg=False, g_shift=-8.0,
         seed=6006),
    # Gated DeltaNet (chunk_gated_delta_rule) at Qwen3-Next's heads: one decay per row.
    dict(id="prefill-gdn-varlen-H16-HV32-D128-bf16", H=16, HV=32, D=128,
         lens=[1, 16, 17, 100], dtype="bf16", gate="gdn", v_first=False, initial=True,
         neg=False, seed=6004),
    # Gated linear attention (chunk_gla): log-sigmoid decays per key channel, no delta rule.
    dict(id="prefill-gla-varlen-H4-HV8-D128-bf16", H=4, HV=8, D=128,
         lens=[1, 16, 17, 100], dtype="bf16", gate="gla", v_first=False, initial=True,
         neg=False, seed=6005),
    # Gated DeltaNet as FLA's GatedDeltaNet layer calls it (layer=True): the raw gate with
    # A_log and dt_bias [HV] activated in the kernel, beta logits with negative eigenvalues,
    # [V, K] states.
    dict(id="prefill-gdn-layer-varlen-H16-HV32-D128-bf16", H=16, HV=32, D=128,
         lens=[1, 16, 17, 100], dtype="bf16", gate="gdn", layer=True, v_first=True,
         initial=True, neg=True, seed=6007),
    # Value heads twice the key heads' width (V = 2 D), as FLA's GatedDeltaNet and GLA layers
    # default to, the latter with [V, K] states as its layer passes them.
    dict(id="prefill-gdn-layer-varlen-H4-HV8-K64-V128-bf16", H=4, HV=8, D=64, V=128,
         lens=[1, 16, 17, 100], dtype="bf16", gate="gdn", layer=True, v_first=True,
         initial=True, neg=True, seed=6008),
    dict(id="prefill-gla-varlen-H2-HV4-K64-V128-bf16-vfirst", H=2, HV=4, D=64, V=128,
         lens=[1, 16, 17, 100], dtype="bf16", gate="gla", v_first=True, initial=True,
         neg=False, seed=6009),
    # fp16 inputs (bf16 intermediates, fp16 outputs).
    dict(id="prefill-varlen-H4-HV8-D128-f16-lb", H=4, HV=8, D=128, lens=[1, 16, 17, 100],
         dtype="f16", gate="lb", v_first=False, initial=True, neg=False, seed=6010),
]

# FLA's fused-recurrent calls (fused_recurrent_kda, fused_recurrent_gated_delta_rule,
# fused_recurrent_gla): GVA, varlen with an empty sequence, both KDA state layouts, and a call
# without an initial state (initial=False: the kernel starts from zero, reading no pool).
FUSED_CASES = [
    dict(id="fused-kda-varlen-H2-HV4-D128-bf16-lb-vfirst", op="kda", H=2, HV=4, D=128,
         lens=[3, 1, 5, 0, 2], v_first=True, seed=7001),
    dict(id="fused-kda-B3-T4-H12-D128-bf16-lb", op="kda", H=12, HV=12, D=128, B=3, T=4,
         v_first=False, seed=7002),
    dict(id="fused-gdn-varlen-H16-HV32-D128-bf16", op="gdn", H=16, HV=32, D=128,
         lens=[2, 1, 4, 0], v_first=False, seed=7003),
    dict(id="fused-gla-varlen-H2-HV4-D128-bf16", op="gla", H=2, HV=4, D=128,
         lens=[3, 1, 5, 0, 2], v_first=False, seed=7004),
    dict(id="fused-gdn-B3-T5-H4-HV8-D128-bf16-zero", op="gdn", H=4, HV=8, D=128, B=3, T=5,
         v_first=False, initial=False, seed=7005),
    dict(id="fused-gdn-layer-varlen-H16-HV32-D128-bf16", op="gdn", layer=True, H=16, HV=32,
         D=128, lens=[2, 1, 4, 0], v_first=True, seed=7006),
    # A head dim that is not a power of two: 128 key columns and four 32-row value tiles,
    # the padding masked.
    dict(id="fused-kda-varlen-H2-HV4-D100-bf16-lb", op="kda", H=2, HV=4, D=100,
         lens=[3, 1, 5, 0, 2], v_first=False, seed=7007),
    dict(id="fused-kda-varlen-H2-HV4-D128-f16-lb", op="kda", H=2, HV=4, D=128,
         lens=[3, 1, 5, 0, 2], v_first=False, dtype="f16", seed=7008),
    # FLA's per-channel forms: decays gv [.., HV, V] (GLA, Gated DeltaNet) and gk [.., HV,
    # K] beside Gated DeltaNet's per-head g, beta [.., HV, V] (KDA, Gated DeltaNet), and
    # GLA's reversed recurrence.
    dict(id="fused-gla-varlen-H2-HV4-D128-bf16-gv-reverse", op="gla", H=2, HV=4, D=128,
         lens=[3, 1, 5, 0, 2], v_first=True, gv=True, reverse=True, seed=7009),
    dict(id="fused-gdn-varlen-H4-HV8-D128-bf16-gk-gv-betav", op="gdn", H=4, HV=8, D=128,
         lens=[2, 1, 4, 0], v_first=False, gk=True, gv=True, beta_v=True, seed=7010),
    dict(id="fused-kda-B2-T3-H4-D128-bf16-lb-betav", op="kda", H=4, HV=4, D=128, B=2, T=3,
         v_first=False, beta_v=True, seed=7011),
]

# What each op writes in place (compared bit-exactly between eager and graph replay).
# Gated DeltaNet decode (kdatile.ops.gdn_decode): Qwen3-Next's heads (16 q/k, 32 value) and
# smaller GVA groups, both state dtypes and layouts, both conv cache layouts.
#        H  HV   B  state   layout conv  bias
_GDN = [(16, 32, 1, "f32", "vk", "cm", False),
        (16, 32, 33, "f32", "kv", "wm", True),
        (4, 8, 8, "bf16", "vk", "wm", False),
        (2, 2, 5, "bf16", "kv", "cm", True)]

GDN_CASES = [
    dict(id=f"gdn-decode-H{H}-HV{HV}-B{B}-{sd}-{lay}-{conv}{'-bias' if bias else ''}",
         H=H, HV=HV, B=B, slots=2 * B + 3, state_dtype=sd, state_layout=lay, conv_layout=conv,
         bias=bias, given_out=False, seed=7000 + 10 * HV + B)
    for H, HV, B, sd, lay, conv, bias in _GDN
]

DECODE_WRITTEN = ("state", "conv_storage")
RECURRENT_WRITTEN = ("state",)
RECORDS_WRITTEN = ("state", "records_out")


def decode_call(case, arr, swap12):
    """(positional args, keyword args) of kda_decode / kda_decode_with_f_b for case `case`.

    arr: the case's arrays by name (npz keys, in the caller's array kind); swap12(a): a view
    of `a` with dimensions 1 and 2 exchanged (the width-major conv cache is stored as
    [slots, 3, C] and passed as its [slots, C, 3] transposed view)."""
    conv = arr["conv_storage"]
    if case["conv_layout"] == "wm":
        conv = swap12(conv)
    kwargs = dict(lower_bound=case["lower_bound"], conv_bias=arr.get("conv_bias"),
                  state_layout=case["state_layout"])
    if case["given_out"]:
        kwargs["out"] = arr["out"]
    rest = (arr["raw_beta"], arr["A_log"], arr["dt_bias"], arr["state"], arr["state_indices"],
            arr["output_gate"], arr["norm_weight"])
    if case["fused"]:
        args = (arr["f_a"], arr["f_b_weight"], arr["x"], arr["conv_w"], conv) + rest
    else:
        args = (arr["x"], arr["conv_w"], conv, arr["raw_g"]) + rest
    return args, kwargs


def gdn_call(case, arr, swap12):
    """(positional args, keyword args) of gdn_decode for case `case` (as decode_call)."""
    conv = arr["conv_storage"]
    if case["conv_layout"] == "wm":
        conv = swap12(conv)
    args = (arr["x"], arr["conv_w"], conv, arr["a"], arr["b"], arr["A_log"], arr["dt_bias"],
            arr["state"], arr["state_indices"], arr["z"], arr["norm_weight"])
    return args, dict(num_k_heads=case["H"], conv_bias=arr.get("conv_bias"),
                      state_layout=case["state_layout"])


def recurrent_call(case, arr):
    """(op name, positional args, keyword args) of a RECURRENT_CASES call: kda_recurrent,
    kda_recurrent_records for a records case, gdn_recurrent for the "gdn" gate (arr as
    above)."""
    kwargs = dict(initial_state=arr["state"], state_indices=arr["state_indices"],
                  cu_seqlens=arr.get("cu_seqlens"),
                  num_accepted_tokens=arr.get("num_accepted_tokens"),
                  state_layout=case["state_layout"])
    name = "kda_recurrent_records" if case.get("records") else "kda_recurrent"
    if case["gate"] == "gdn":
        name = "gdn_recurrent"
        kwargs["use_beta_sigmoid"] = True  # kda_recurrent's default; the inputs are logits
    else:
        kwargs.update(A_log=arr["A_log"], dt_bias=arr["dt_bias"],
                      lower_bound=-5.0 if case["gate"] == "lb" else None)
    if case.get("records"):
        kwargs.update(records_in=arr["records_in"], records_out=arr["records_out"])
    if case["given_out"]:
        kwargs["out"] = arr["out"]
    return name, (arr["q"], arr["k"], arr["v"], arr["g"], arr["beta"]), kwargs


def prefill_call(case, arr):
    """(op name, positional args, keyword args) of a PREFILL_CASES call: chunk_kda, or
    chunk_gated_delta_rule for the "gdn" gate, chunk_gla for "gla" (arr as above)."""
    if case["gate"] == "gla":
        return "chunk_gla", (arr["q"], arr["k"], arr["v"], arr["g"]), dict(
            output_final_state=True, initial_state=arr.get("initial_state"),
            state_v_first=case["v_first"], cu_seqlens=arr.get("cu_seqlens"))
    args = (arr["q"], arr["k"], arr["v"], arr["g"], arr["beta"])
    if case["gate"] == "gdn":
        return "chunk_gated_delta_rule", args, dict(
            output_final_state=True, use_qk_l2norm_in_kernel=True,
            initial_state=arr.get("initial_state"), cu_seqlens=arr.get("cu_seqlens"),
            **_gdn_layer_keywords(case, arr))
    lb = case["gate"] == "lb"
    kwargs = dict(output_final_state=True, use_qk_l2norm_in_kernel=True,
                  use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                  allow_neg_eigval=case["neg"], safe_gate=lb, lower_bound=-5.0 if lb else None,
                  A_log=arr["A_log"], dt_bias=arr["dt_bias"],
                  initial_state=arr.get("initial_state"), cu_seqlens=arr.get("cu_seqlens"),
                  state_v_first=case["v_first"])
    return "chunk_kda", args, kwargs


def _gdn_layer_keywords(case, arr):
    """The keywords FLA's GatedDeltaNet layer adds to its Gated DeltaNet calls (layer cases)."""
    if not case.get("layer"):
        return {}
    return dict(use_gate_in_kernel=True, A_log=arr["A_log"], dt_bias=arr["dt_bias"],
                use_beta_sigmoid_in_kernel=True, allow_neg_eigval=True, state_v_first=True)


def fused_call(case, arr):
    """(op name, positional args, keyword args) of a FUSED_CASES call (arr as above)."""
    args = (arr["q"], arr["k"], arr["v"], arr["g"])
    if case["op"] == "gla":
        return "fused_recurrent_gla", args, dict(
            gv=arr.get("gv"), initial_state=arr.get("initial_state"), output_final_state=True,
            reverse=case.get("reverse", False), state_v_first=case["v_first"],
            cu_seqlens=arr.get("cu_seqlens"))
    kwargs = dict(beta=arr["beta"], initial_state=arr.get("initial_state"),
                  output_final_state=True,
                  cu_seqlens=arr.get("cu_seqlens"), use_qk_l2norm_in_kernel=True)
    if case["op"] == "gdn":
        return "fused_recurrent_gated_delta_rule", args, dict(
            kwargs, gk=arr.get("gk"), gv=arr.get("gv"), **_gdn_layer_keywords(case, arr))
    kwargs.update(use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True, lower_bound=-5.0,
                  A_log=arr["A_log"], dt_bias=arr["dt_bias"], state_v_first=case["v_first"])
    return "fused_recurrent_kda", args, kwargs


def with_final_failures(kind, case, ref, o, final):
    """What is wrong with a prefill or fused-recurrent case's output o and final state (fp32
    or fp64 NumPy arrays) against its fp64 reference: [] when within docs/kda.md's bounds:
    chunk_kda 1e-2 with bf16 or fp16 inputs (bf16 intermediates) and 5e-3 with fp32 ones, the
    fused-recurrent calls (fp32 recurrent math) 5e-3 on o and 1e-5 on the fp32 state."""
    if o.shape != ref["ref_o"].shape:
        return [f"out shape {o.shape}, expected {ref['ref_o'].shape}"]
    if not (np.isfinite(o).all() and np.isfinite(final).all()):
        return ["NaN/Inf in the results"]
    if kind == "prefill":
        tol_o = tol_st = 1e-2 if case["dtype"] in ("bf16", "f16") else 5e-3
    else:
        tol_o, tol_st = 5e-3, 1e-5
    failures = []
    for name, want, got, tol in (("output", ref["ref_o"], o, tol_o),
                                 ("final state", ref["ref_final"], final, tol_st)):
        want, got = np.asarray(want, np.float64), np.asarray(got, np.float64)
        err = float(np.sqrt(np.mean((want - got) ** 2)) / max(np.sqrt(np.mean(want ** 2)),
                                                               1e-30))
        if err > tol:
            failures.append(f"{name} rel RMS {err:.3g} > {tol}")
    return failures


def records_failures(ref, got, before):
    """What is wrong with a records case's records_out `got` (before: its value before the
    call): the fp64 records where the step writes them (rel RMS <= 1e-5, fp32 math), bit-exact
    (NaN included) elsewhere."""
    written = ref["records_written"]
    want = ref["ref_records"][written]
    err = float(np.sqrt(np.mean((want - got[written]) ** 2)) / np.sqrt(np.mean(want ** 2)))
    failures = [f"records rel RMS {err:.3g} > 1e-5"] if not err <= 1e-5 else []
    same = (got[~written] == before[~written]) | (np.isnan(got[~written])
                                                  & np.isnan(before[~written]))
    if not same.all():
        failures.append("records_out changed where no token wrote")
    return failures


# -- inputs and fp64 references -------------------------------------------------------------


def build_case(kind, case, *, reference=True):
    """(inputs by name, reference by name or None) of a case: the arrays decode_call /
    recurrent_call take (bf16 as uint16 bit patterns; a width-major conv cache as its
    [slots, 3, C] storage), and with `reference` the fp64 reference: ref_out / ref_o, ref_state
    (the whole pool), ref_conv_storage (decode) and live_slots (the slots the call writes)."""
    return {"decode": _decode_case, "gdn": _gdn_case, "recurrent": _recurrent_case,
            "prefill": _prefill_case, "fused": _fused_case}[kind](case, reference)


PAD_VALUES = (-1, -7, "slots", "slots+5", 2**31 - 1)


def _indices(rng, B, slots):
    """B slot indices: distinct live slots (slot 0 among them when B > 2), every third row
    padding (negative, == slots, > slots, INT32_MAX)."""
    live = rng.permutation(slots)
    if B > 2:
        live = np.concatenate([[0], live[live != 0]])
    idx = []
    for n in range(B):
        if n % 3 == 1:
            p = PAD_VALUES[n % len(PAD_VALUES)]
            idx.append(slots if p == "slots" else slots + 5 if p == "slots+5" else p)
        else:
            idx.append(int(live[n]))
    return np.array(idx, np.int32)


def _decode_case(case, reference):
    from kda_reference import bf16_to_f32, f32_to_bf16, kda_decode_reference, make_decode_inputs

    r = np.random.default_rng(case["seed"])
    B, H, slots = case["B"], case["H"], case["slots"]
    inp = make_decode_inputs(r, B, H, slots, bias=case["bias"], fused=case["fused"])
    idx = _indices(r, B, slots)
    state = inp["state"] if case["state_dtype"] == "f32" else f32_to_bf16(inp["state"])
    state_f32 = state if case["state_dtype"] == "f32" else bf16_to_f32(state)
    conv = inp["conv_state"]  # [slots, C, 3]
    storage = conv if case["conv_layout"] == "cm" else np.ascontiguousarray(
        conv.transpose(0, 2, 1))
    arrays = {"x": inp["x"], "conv_w": inp["conv_w"], "conv_storage": storage,
              "raw_beta": inp["raw_beta"], "A_log": inp["A_log"], "dt_bias": inp["dt_bias"],
              "state": state, "state_indices": idx.astype(
                  np.int64 if case["index_dtype"] == "i64" else np.int32),
              "output_gate": inp["output_gate"], "norm_weight": inp["norm_weight"]}
    if case["fused"]:
        arrays.update(f_a=inp["f_a"], f_b_weight=inp["f_b_weight"])
    else:
        arrays["raw_g"] = inp["raw_g"]
    if case["bias"]:
        arrays["conv_bias"] = inp["conv_bias"]
    if case["given_out"]:
        arrays["out"] = np.full((B, H, 128), 0x7FC0, np.uint16)  # NaN: every row is written
    if not reference:
        return arrays, None
    ref_out, ref_cs, ref_state = kda_decode_reference(
        inp["x"], inp["conv_w"], conv, None if case["fused"] else inp["raw_g"],
        inp["raw_beta"], inp["A_log"], inp["dt_bias"], state_f32.copy(), idx,
        inp["output_gate"], inp["norm_weight"], lower_bound=case["lower_bound"],
        conv_bias=inp["conv_bias"], state_layout=case["state_layout"], f_a=inp.get("f_a"),
        f_b_weight=inp.get("f_b_weight"))
    ref_storage = ref_cs if case["conv_layout"] == "cm" else np.ascontiguousarray(
        ref_cs.transpose(0, 2, 1))
    ref = {"ref_out": ref_out, "ref_conv_storage": ref_storage, "ref_state": ref_state,
           "live_slots": np.array(sorted(s for s in idx.tolist() if 0 <= s < slots), np.int64)}
    return arrays, ref


def _gdn_case(case, reference):
    from gdn_reference import gdn_decode_reference, make_gdn_inputs
    from kda_reference import bf16_to_f32, f32_to_bf16

    r = np.random.default_rng(case["seed"])
    B, H, HV, slots = case["B"], case["H"], case["HV"], case["slots"]
    inp = make_gdn_inputs(r, B, H, HV, slots, bias=case["bias"])
    idx = _indices(r, B, slots)
    state32 = inp["state"] if case["state_layout"] == "vk" else np.ascontiguousarray(
        inp["state"].transpose(0, 1, 3, 2))
    state = state32 if case["state_dtype"] == "f32" else f32_to_bf16(state32)
    state_f32 = state if case["state_dtype"] == "f32" else bf16_to_f32(state)
    conv = inp["conv_state"]
    storage = conv if case["conv_layout"] == "cm" else np.ascontiguousarray(
        conv.transpose(0, 2, 1))
    arrays = {"x": inp["x"], "conv_w": inp["conv_w"], "conv_storage": storage, "a": inp["a"],
              "b": inp["b"], "A_log": inp["A_log"], "dt_bias": inp["dt_bias"], "state": state,
              "state_indices": idx, "z": inp["z"], "norm_weight": inp["norm_weight"]}
    if case["bias"]:
        arrays["conv_bias"] = inp["conv_bias"]
    if not reference:
        return arrays, None
    ref_out, ref_cs, ref_state = gdn_decode_reference(
        inp["x"], inp["conv_w"], conv, inp["a"], inp["b"], inp["A_log"], inp["dt_bias"],
        state_f32.copy(), idx, inp["z"], inp["norm_weight"], H=H, conv_bias=inp["conv_bias"],
        state_layout=case["state_layout"])
    ref_storage = ref_cs if case["conv_layout"] == "cm" else np.ascontiguousarray(
        ref_cs.transpose(0, 2, 1))
    ref = {"ref_out": ref_out, "ref_conv_storage": ref_storage, "ref_state": ref_state,
           "live_slots": np.array(sorted(s for s in idx.tolist() if 0 <= s < slots), np.int64)}
    return arrays, ref


def _recurrent_case(case, reference):
    from kda_recurrent_reference import kda_recurrent_reference, make_inputs
    from kda_reference import bf16_to_f32

    if case.get("records"):
        return _records_case(case, reference)
    r = np.random.default_rng(case["seed"])
    H = case["H"]
    varlen = "lens" in case
    if varlen:
        lens, Tcols = case["lens"], case["Tcols"]
        N = len(lens)
        cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        tokens, lead = int(cu[-1]), None
    else:
        N, Tcols = case["N"], case["T"]
        cu, tokens, lead = None, N * Tcols, (N, Tcols)
    slots = 2 * N * Tcols + 3
    bf16 = case["state_dtype"] == "bf16"
    gdn = case["gate"] == "gdn"  # g is the log decay, one per token and value head
    inp = make_inputs(r, tokens, H, slots, lead=lead, g_bf16=case["g_bf16"], state_bf16=bf16,
                      state_layout=case["state_layout"], use_gate=not gdn)
    if gdn:
        inp["g"] = np.ascontiguousarray(inp["g"][..., 0])
    si = r.permutation(slots)[:N * Tcols].reshape(N, Tcols).astype(np.int32)
    acc = None
    if case["accepted"]:
        acc = (np.arange(N) % Tcols + 1).astype(np.int32)  # every value 1..T in turn
    # Padding: a padding token (not the starting column), an out-of-range token slot, a padding
    # sequence (its starting slot < 0), an INT32_MAX slot.
    for n in range(N):
        start = 0 if acc is None else int(acc[n]) - 1
        if n % 3 == 1:
            si[n, :] = -1 if n % 2 else 2**31 - 1
        elif Tcols > 1 and n % 3 == 0:
            si[n, (start + 1) % Tcols] = -1 if n % 2 else slots
    if N == 1 and Tcols > 1:  # the only sequence stays live, with one padding token
        si[0] = r.permutation(slots)[:Tcols]
        si[0, (int(acc[0]) if acc is not None else 1) % Tcols] = -3
    index = np.int64 if case["index_dtype"] == "i64" else np.int32
    arrays = {name: inp[name] for name in ("q", "k", "v", "g", "beta", "A_log", "dt_bias",
                                           "state")}
    arrays["state_indices"] = si.astype(index)
    if cu is not None:
        arrays["cu_seqlens"] = cu.astype(index)
    if acc is not None:
        arrays["num_accepted_tokens"] = acc.astype(index)
    if case["given_out"]:
        arrays["out"] = np.full(inp["v"].shape, 0x7FC0, np.uint16)
    if not reference:
        return arrays, None
    widen = lambda a: bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float32)  # noqa: E731
    g = widen(inp["g"])
    if gdn:  # Gated DeltaNet's decay is KDA's with every key channel alike
        g = np.repeat(g[..., None], inp["q"].shape[-1], axis=-1)
    ref_o, ref_pool = kda_recurrent_reference(
        widen(inp["q"]), widen(inp["k"]), widen(inp["v"]), g, widen(inp["beta"]),
        widen(inp["state"]), si, scale=128 ** -0.5, cu_seqlens=cu, num_accepted=acc,
        A_log=inp["A_log"], dt_bias=inp["dt_bias"],
        lower_bound=-5.0 if case["gate"] == "lb" else None, use_gate=not gdn,
        state_layout=case["state_layout"], state_bf16=bf16)
    before = widen(inp["state"]).astype(np.float64)
    written = np.flatnonzero(np.any(ref_pool != before, axis=(1, 2, 3)))
    ref = {"ref_o": ref_o, "ref_state": ref_pool, "live_slots": written.astype(np.int64)}
    return arrays, ref


def _records_case(case, reference):
    """A kda_recurrent_records step after a previous step of TR tokens per sequence: its
    records (fp64 recurrence, stored fp32) fill records_in; the reference replays the accepted
    ones and runs the step's tokens (ref_records: records_out where `records_written`)."""
    from kda_recurrent_reference import kda_recurrent_reference, make_inputs
    from kda_reference import bf16_to_f32, round_bf16

    r = np.random.default_rng(case["seed"])
    H, lens, TR, layout = case["H"], case["lens"], case["TR"], case["state_layout"]
    N, K = len(lens), 128
    slots = 2 * N + 3
    bf16 = case["state_dtype"] == "bf16"
    cur = make_inputs(r, int(sum(lens)), H, slots, state_bf16=bf16, state_layout=layout)
    prev = make_inputs(r, N * TR, H, slots, lead=(N, TR))
    slot_of = r.permutation(slots)[:N].astype(np.int32)
    slot_of[1] = -1  # a padding sequence
    accepted = r.integers(0, TR + 1, N).astype(np.int32)
    accepted[0], accepted[2] = TR, 0
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    records_in = np.full((slots, TR, H, 2 * K + K), np.nan, np.float32)
    arrays = {name: cur[name] for name in ("q", "k", "v", "g", "beta", "A_log", "dt_bias",
                                           "state")}
    arrays.update(state_indices=slot_of, cu_seqlens=cu, num_accepted_tokens=accepted,
                  records_in=records_in, records_out=np.full_like(records_in, np.nan))
    if case["given_out"]:
        arrays["out"] = np.full(cur["v"].shape, 0x7FC0, np.uint16)
    widen = lambda a: bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float64)  # noqa: E731
    gate = dict(A_log=cur["A_log"], dt_bias=cur["dt_bias"], lower_bound=-5.0,
                state_layout=layout)
    pool = widen(cur["state"]).astype(np.float64)

    def run(inp, starts, cols, cu_step):
        """fp64 outputs, records and per-token states of sequences starting at `starts`."""
        scratch = np.zeros((N * cols,) + pool.shape[1:])
        table = np.full((N, cols), -1, np.int64)
        for n in range(N):
            if starts[n] is not None:
                table[n] = n * cols + np.arange(cols)
                scratch[n * cols] = starts[n]
        tokens = inp["q"].size // (H * K)
        recs = np.zeros((tokens, H, 3 * K))
        o, scratch = kda_recurrent_reference(
            widen(inp["q"]), widen(inp["k"]), widen(inp["v"]), widen(inp["g"]),
            widen(inp["beta"]), scratch, table, scale=K ** -0.5, cu_seqlens=cu_step,
            records=recs, **gate)
        return o, recs, scratch

    starts = [pool[s] if s >= 0 else None for s in slot_of]
    _, prev_recs, prev_states = run(prev, starts, TR, np.arange(0, N * TR + 1, TR))
    for n in range(N):
        if slot_of[n] >= 0:
            records_in[slot_of[n]] = prev_recs[n * TR:(n + 1) * TR]
    if not reference:
        return arrays, None
    ref_pool, committed, live = pool.copy(), list(starts), []
    for n in range(N):
        if slot_of[n] >= 0 and accepted[n] > 0:
            committed[n] = prev_states[n * TR + accepted[n] - 1]
            ref_pool[slot_of[n]] = round_bf16(committed[n]) if bf16 else committed[n]
            live.append(slot_of[n])
    ref_o, cur_recs, _ = run(cur, committed, max(max(lens), 1), cu)
    ref_records = np.full(records_in.shape, np.nan)
    written = np.zeros((slots, TR), bool)
    for n in range(N):
        if slot_of[n] >= 0:
            ref_records[slot_of[n], :lens[n]] = cur_recs[cu[n]:cu[n + 1]]
            written[slot_of[n], :lens[n]] = True
    return arrays, {"ref_o": ref_o, "ref_state": ref_pool, "ref_records": ref_records,
                    "records_written": written, "live_slots": np.array(sorted(live), np.int64)}


def _prefill_case(case, reference):
    from kda_chunk_reference import kda_prefill_reference, prefill_inputs
    from kda_reference import bf16_to_f32

    r = np.random.default_rng(case["seed"])
    H, HV, D = case["H"], case["HV"], case["D"]
    V = case.get("V", D)
    if "lens" in case:
        lens = case["lens"]
        B, T, N = 1, sum(lens), len(lens)
        cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    else:
        B, T, cu = case["B"], case["T"], None
        N = B
    q, k, v, g, beta = prefill_inputs(r, B, T, H, HV, D, V, dtype=case["dtype"])
    g = g + np.float32(case.get("g_shift", 0.0))
    gdn = case["gate"] == "gdn"
    if gdn:  # log decays per token and head, beta in (0, 1)
        g = -r.uniform(0.0, 3.0, (B, T, HV)).astype(np.float32)
        beta = r.uniform(0.05, 0.95, (B, T, HV)).astype(np.float32)
    if case["gate"] == "gla":  # log-sigmoid decays per key channel
        g = -np.log1p(np.exp(-r.standard_normal((B, T, HV, D)) - 2.0)).astype(np.float32)
    arrays = {"q": q, "k": k, "v": v, "g": g, "beta": beta,
              "A_log": r.uniform(-1.0, 1.0, HV).astype(np.float32),
              "dt_bias": r.standard_normal(HV * D).astype(np.float32)}
    if case["initial"]:  # [N, HV, K, V]; the call's [V, K] where v_first (below)
        arrays["initial_state"] = (r.standard_normal((N, HV, D, V)) * 0.3).astype(np.float32)
    kv_initial = arrays.get("initial_state")
    if case.get("layer"):
        _as_gdn_layer_inputs(r, arrays)
    elif case["gate"] == "gla" and case["v_first"] and kv_initial is not None:
        arrays["initial_state"] = np.ascontiguousarray(kv_initial.transpose(0, 1, 3, 2))
    if cu is not None:
        arrays["cu_seqlens"] = cu
    if not reference:
        return arrays, None
    widen = lambda a: bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float32)  # noqa: E731
    if gdn:
        return arrays, _gdn_reference(arrays, cu, layer=case.get("layer", False))
    if case["gate"] == "gla":
        from gla_reference import gla_reference

        ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), g,
                                         initial_state=kv_initial, cu_seqlens=cu)
        if case["v_first"]:
            ref_final = np.ascontiguousarray(ref_final.transpose(0, 1, 3, 2))
        return arrays, {"ref_o": ref_o, "ref_final": ref_final}
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta),
        initial_state=arrays.get("initial_state"), cu_seqlens=cu, use_qk_l2norm=True,
        use_gate=True, use_beta_sigmoid=True, allow_neg_eigval=case["neg"],
        A_log=arrays["A_log"], dt_bias=arrays["dt_bias"],
        lower_bound=-5.0 if case["gate"] == "lb" else None, state_v_first=case["v_first"])
    return arrays, {"ref_o": ref_o, "ref_final": ref_final}


def _as_gdn_layer_inputs(r, arrays):
    """A Gated DeltaNet case's arrays as FLA's GatedDeltaNet layer passes them: raw gates
    (a_proj's) with A_log and dt_bias [HV], beta logits, [V, K] initial states."""
    B, T, HV = arrays["g"].shape
    arrays.update(g=r.standard_normal((B, T, HV)).astype(np.float32),
                  beta=r.standard_normal((B, T, HV)).astype(np.float32),
                  A_log=r.uniform(-1.0, 1.0, HV).astype(np.float32),
                  dt_bias=r.standard_normal(HV).astype(np.float32))
    if "initial_state" in arrays:
        arrays["initial_state"] = np.ascontiguousarray(
            arrays["initial_state"].transpose(0, 1, 3, 2))


def _gdn_reference(arrays, cu, layer=False):
    """The fp64 recurrence of a Gated DeltaNet case: KDA's with the head's decay on every key
    channel, the q/k L2 norm; beta as given, or for a layer case the gate -exp(A_log)
    softplus(g + dt_bias), beta 2 sigmoid(beta) and [V, K] states."""
    from kda_chunk_reference import kda_prefill_reference
    from kda_reference import bf16_to_f32, sigmoid, softplus

    def widen(a):
        return bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float32)

    D = arrays["q"].shape[-1]
    g, beta = arrays["g"].astype(np.float64), arrays["beta"].astype(np.float64)
    if layer:
        g = -np.exp(arrays["A_log"].astype(np.float64)) * softplus(g + arrays["dt_bias"])
        beta = 2.0 * sigmoid(beta)
    decay = np.repeat(g[..., None], D, -1)
    if "gk" in arrays:  # applied after g's
        decay = decay + arrays["gk"]
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(arrays["q"]), widen(arrays["k"]), widen(arrays["v"]), decay, beta,
        initial_state=arrays.get("initial_state"), cu_seqlens=cu, use_qk_l2norm=True,
        state_v_first=layer, gv=arrays.get("gv"))
    return {"ref_o": ref_o, "ref_final": ref_final}


def _fused_case(case, reference):
    from kda_chunk_reference import kda_prefill_reference, prefill_inputs
    from kda_reference import bf16_to_f32

    r = np.random.default_rng(case["seed"])
    H, HV, D = case["H"], case["HV"], case["D"]
    if "lens" in case:
        B, T, N = 1, sum(case["lens"]), len(case["lens"])
        cu = np.concatenate([[0], np.cumsum(case["lens"])]).astype(np.int32)
    else:
        B, T, N, cu = case["B"], case["T"], case["B"], None
    gdn = case["op"] == "gdn"
    q, k, v, g, beta = prefill_inputs(r, B, T, H, HV, D, D, dtype=case.get("dtype", "bf16"))
    h0 = (r.standard_normal((N, HV, D, D)) * 0.3).astype(np.float32)
    arrays = {"q": q, "k": k, "v": v}
    if case.get("initial", True):
        arrays["initial_state"] = h0
    if case["op"] == "gla":
        # Log-sigmoid gates per key channel.
        arrays["g"] = -np.log1p(np.exp(-r.standard_normal((B, T, HV, D)) - 2.0)).astype(
            np.float32)
    elif gdn:
        arrays["g"] = -r.uniform(0.01, 1.0, (B, T, HV)).astype(np.float32)
        arrays["beta"] = r.uniform(0.1, 0.9, (B, T, HV) + ((D,) if case.get("beta_v") else ())
                                   ).astype(np.float32)
        if case.get("layer"):
            _as_gdn_layer_inputs(r, arrays)
    else:
        if case.get("beta_v"):  # logits, one per value channel
            beta = r.standard_normal((B, T, HV, D)).astype(np.float32)
        arrays.update(g=g, beta=beta, A_log=r.uniform(-1.0, 1.0, HV).astype(np.float32),
                      dt_bias=r.standard_normal(HV * D).astype(np.float32))
    if case.get("gk"):  # per-key log decays beside the per-head g
        arrays["gk"] = -r.uniform(0.0, 0.3, (B, T, HV, D)).astype(np.float32)
    if case.get("gv"):  # log-sigmoid decays per value channel
        arrays["gv"] = -np.log1p(np.exp(-r.standard_normal((B, T, HV, D)) - 2.0)).astype(
            np.float32)
    if case["v_first"] and "initial_state" in arrays and not gdn:
        arrays["initial_state"] = np.ascontiguousarray(h0.transpose(0, 1, 3, 2))
    if cu is not None:
        arrays["cu_seqlens"] = cu
    if not reference:
        return arrays, None
    widen = lambda a: bf16_to_f32(a) if a.dtype == np.uint16 else np.asarray(a, np.float32)  # noqa: E731
    if case["op"] == "gla":
        from gla_reference import gla_reference

        ref_o, ref_final = gla_reference(widen(q), widen(k), widen(v), arrays["g"],
                                         gv=arrays.get("gv"),
                                         initial_state=h0 if "initial_state" in arrays else None,
                                         cu_seqlens=cu, reverse=case.get("reverse", False))
        if case["v_first"]:
            ref_final = ref_final.transpose(0, 1, 3, 2)
        return arrays, {"ref_o": ref_o, "ref_final": ref_final}
    if gdn:
        return arrays, _gdn_reference(arrays, cu, layer=case.get("layer", False))
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta),
        initial_state=arrays.get("initial_state"), cu_seqlens=cu, use_qk_l2norm=True,
        use_gate=True, use_beta_sigmoid=True, A_log=arrays["A_log"],
        dt_bias=arrays["dt_bias"], lower_bound=-5.0, state_v_first=case["v_first"])
    return arrays, {"ref_o": ref_o, "ref_final": ref_final}


# -- the launches the cases pick --------------------------------------------------------------


def launches(target="sm_90a"):
    """(case id, Launch) of every case: what the op prepares for `target` on the case's inputs
    (kdatile.ops' decode_launch / recurrent_launch / chunk_launches, a prefill case giving one
    entry per launch; needs the kdatile package, not libkda)."""
    from kdatile.ops import fused_recurrent
    from kdatile.ops.chunk import chunk_gdn_launches, chunk_gla_launches, chunk_launches
    from kdatile.ops.decode import decode_launch
    from kdatile.ops.gdn_decode import gdn_decode_launch
    from kdatile.ops.recurrent import gdn_recurrent_launch, records_launch, recurrent_launch

    out = []
    for case in DECODE_CASES:
        arrays, _ = build_case("decode", case, reference=False)
        args, kwargs = decode_call(case, arrays, lambda a: a.transpose(0, 2, 1))
        out.append((case["id"], decode_launch(*args, fused=case["fused"], target=target,
                                              **kwargs)[1]))
    for case in GDN_CASES:
        arrays, _ = build_case("gdn", case, reference=False)
        args, kwargs = gdn_call(case, arrays, lambda a: a.transpose(0, 2, 1))
        out.append((case["id"], gdn_decode_launch(*args, target=target, **kwargs)[1]))
    for case in RECURRENT_CASES:
        arrays, _ = build_case("recurrent", case, reference=False)
        name, args, kwargs = recurrent_call(case, arrays)
        prepare = {"kda_recurrent": recurrent_launch, "kda_recurrent_records": records_launch,
                   "gdn_recurrent": gdn_recurrent_launch}[name]
        out.append((case["id"], prepare(*args, target=target, **kwargs)[1]))
    for case in PREFILL_CASES:
        arrays, _ = build_case("prefill", case, reference=False)
        name, args, kwargs = prefill_call(case, arrays)
        launches_of = {"chunk_kda": chunk_launches, "chunk_gated_delta_rule": chunk_gdn_launches,
                       "chunk_gla": chunk_gla_launches}[name]
        out += [(case["id"], launch) for launch in launches_of(*args, target=target,
                                                               **kwargs)[1]]
    for case in FUSED_CASES:
        arrays, _ = build_case("fused", case, reference=False)
        name, args, kwargs = fused_call(case, arrays)
        if name == "fused_recurrent_kda":
            launch = fused_recurrent.fused_recurrent_kda_launch(*args, target=target,
                                                                **kwargs)[2]
        elif name == "fused_recurrent_gla":
            launch = fused_recurrent.fused_recurrent_gla_launch(*args, target=target,
                                                                **kwargs)[2]
        else:
            launch = fused_recurrent.fused_recurrent_gated_delta_rule_launch(
                *args, target=target, **kwargs)[2]
        out.append((case["id"], launch))
    return out


# The strategy constexprs printed for each launch that has them.
LAUNCH_CONSTEXPRS = ("BV", "BLK", "STAGES", "CLUSTER", "PREFETCH_STATE")

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    for case_id, launch in launches():
        config = ", ".join(f"{k}={launch.constexprs[k]}" for k in LAUNCH_CONSTEXPRS
                           if k in launch.constexprs)
        print(f"{case_id}: {launch.kernel.__name__}, grid {launch.grid}, {launch.num_warps} "
              f"warps, {config}")
