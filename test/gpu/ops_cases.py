"""The kdatile.ops calls of the GPU ops tests, shared by both steps of the GPU checks.

test/gpu/prepare.py (build machine) builds each case's inputs, computes the fp64 reference and
exports the kernel specializations the call launches on sm_90a (the ops' own launch preparation,
kdatile.ops.decode.decode_launch / kdatile.ops.recurrent.recurrent_launch, on NumPy stand-ins);
test/gpu/test_gpu_ops.py (GPU machine) makes the same call on CUDA tensors. Both build the call
here, so the arrays' shapes, strides and dtypes (hence the specializations) are the same.

Pure Python: no NumPy or torch import (the arrays come from the caller).
"""

# Decode: every pair of levels of the two-level factors appears (as in the CPU tests'
# orthogonal array), H in {1, 12} and B in {1, 8, 33} for each H.
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
]

# What each op writes in place (compared bit-exactly between eager and graph replay).
DECODE_WRITTEN = ("state", "conv_storage")
RECURRENT_WRITTEN = ("state",)


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


def recurrent_call(case, arr):
    """(positional args, keyword args) of kda_recurrent for case `case` (arr as above)."""
    kwargs = dict(A_log=arr["A_log"], dt_bias=arr["dt_bias"],
                  lower_bound=-5.0 if case["gate"] == "lb" else None,
                  initial_state=arr["state"], state_indices=arr["state_indices"],
                  cu_seqlens=arr.get("cu_seqlens"),
                  num_accepted_tokens=arr.get("num_accepted_tokens"),
                  state_layout=case["state_layout"])
    if case["given_out"]:
        kwargs["out"] = arr["out"]
    return (arr["q"], arr["k"], arr["v"], arr["g"], arr["beta"]), kwargs
