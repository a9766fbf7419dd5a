"""kdatile.ops.gdn_decode (kernels/gdn_decode.py) on the CPU target against the fp64 reference
written from the math (gdn_reference.py), with the docs/kda.md tolerances: output rel RMS <=
5e-3; fp32 state <= 1e-5 (bf16 state 4e-3); the conv cache bit-exact; untouched slots and
padding rows as they must be; and every bad argument a ValueError naming it."""

import numpy as np
import pytest

from gdn_reference import gdn_decode_reference, make_gdn_inputs
from kda_reference import bf16_to_f32, f32_to_bf16, rel_rms
from kdatile import ops

from conftest import requires_lib

pytestmark = requires_lib


def run_step(i, idx, H, *, state, conv_state, state_layout="vk", scale=None, out=None):
    return ops.gdn_decode(i["x"], i["conv_w"], conv_state, i["a"], i["b"], i["A_log"],
                          i["dt_bias"], state, idx, i["z"], i["norm_weight"], num_k_heads=H,
                          conv_bias=i["conv_bias"], state_layout=state_layout, scale=scale,
                          out=out)


def check_step(rng, B, H, HV, slots, idx, *, D=64, state_dtype="f32", state_layout="vk",
               conv_layout="cm", bias=False, scale=None):
    i = make_gdn_inputs(rng, B, H, HV, slots, K=D, V=D, bias=bias)
    state32 = i["state"] if state_layout == "vk" else np.ascontiguousarray(
        i["state"].transpose(0, 1, 3, 2))
    state = f32_to_bf16(state32) if state_dtype == "bf16" else state32.copy()
    state_f32 = bf16_to_f32(state) if state_dtype == "bf16" else state32
    ref_out, ref_cs, ref_state = gdn_decode_reference(
        i["x"], i["conv_w"], i["conv_state"], i["a"], i["b"], i["A_log"], i["dt_bias"],
        state_f32, idx, i["z"], i["norm_weight"], H=H, scale=scale, conv_bias=i["conv_bias"],
        state_layout=state_layout)
    if conv_layout == "cm":
        conv = i["conv_state"].copy()
        storage = conv
    else:  # a width-major [slots, 3, C] storage seen as [slots, C, 3]
        storage = np.ascontiguousarray(i["conv_state"].transpose(0, 2, 1))
        conv = storage.transpose(0, 2, 1)
    before = state.copy()
    out = run_step(i, idx, H, state=state, conv_state=conv, state_layout=state_layout,
                   scale=scale)
    assert out.dtype == np.uint16 and out.shape == (B, HV, D)
    got = bf16_to_f32(out)
    assert np.isfinite(got).all()
    assert rel_rms(ref_out, got) <= 5e-3
    live = np.array(sorted({int(s) for s in idx if 0 <= s < slots}), np.int64)
    pad = np.array([not (0 <= s < slots) for s in idx])
    assert (out[pad] == 0).all()
    new_state = bf16_to_f32(state) if state_dtype == "bf16" else state
    if live.size:
        tol = 1e-5 if state_dtype == "f32" else 4e-3
        assert rel_rms(ref_state[live], new_state[live]) <= tol
    np.testing.assert_array_equal(np.ascontiguousarray(conv), ref_cs)
    untouched = np.setdiff1d(np.arange(slots), live)
    np.testing.assert_array_equal(state[untouched], before[untouched])


#         B  H  HV  state   layout conv  bias
MATRIX = [(1, 1, 1, "f32", "vk", "cm", False),
          (3, 2, 4, "f32", "kv", "wm", True),
          (5, 4, 8, "bf16", "vk", "wm", False),
          (2, 3, 6, "bf16", "kv", "cm", True)]


@pytest.mark.parametrize("B,H,HV,state_dtype,state_layout,conv_layout,bias", MATRIX)
def test_matrix(B, H, HV, state_dtype, state_layout, conv_layout, bias):
    rng = np.random.default_rng(B * 100 + HV)
    slots = B + 2
    idx = rng.permutation(slots)[:B].astype(np.int32)
    if B > 1:
        idx[1] = -1  # padding
    check_step(rng, B, H, HV, slots, idx, state_dtype=state_dtype, state_layout=state_layout,
               conv_layout=conv_layout, bias=bias)


def test_qwen3_next_heads_and_head_dim_128():
    rng = np.random.default_rng(3)
    check_step(rng, 2, 16, 32, 3, np.array([2, 0], np.int32), D=128, scale=0.1)


def test_consecutive_steps_continue_the_recurrence():
    rng = np.random.default_rng(5)
    B, H, HV, slots, D = 2, 2, 4, 3, 64
    i = make_gdn_inputs(rng, B, H, HV, slots, K=D, V=D)
    idx = np.array([2, 0], np.int32)
    state, conv = i["state"].copy(), i["conv_state"].copy()
    ref_state, ref_cs = i["state"].astype(np.float64), i["conv_state"].copy()
    for step in range(4):
        i["x"] = f32_to_bf16(rng.standard_normal(i["x"].shape).astype(np.float32))
        ref_out, ref_cs, ref_state = gdn_decode_reference(
            i["x"], i["conv_w"], ref_cs, i["a"], i["b"], i["A_log"], i["dt_bias"], ref_state,
            idx, i["z"], i["norm_weight"], H=H)
        out = run_step(i, idx, H, state=state, conv_state=conv)
        assert rel_rms(ref_out, bf16_to_f32(out)) <= 5e-3, step
        assert rel_rms(ref_state[idx], state[idx]) <= 1e-5, step
        np.testing.assert_array_equal(conv, ref_cs)


def test_empty_batch():
    rng = np.random.default_rng(0)
    i = make_gdn_inputs(rng, 0, 1, 2, 2, K=64, V=64)
    out = run_step(i, np.zeros(0, np.int32), 1, state=i["state"], conv_state=i["conv_state"])
    assert out.shape == (0, 2, 64)


def valid_arguments():
    rng = np.random.default_rng(0)
    i = make_gdn_inputs(rng, 2, 2, 4, 3, K=64, V=64)
    return dict(x=i["x"], conv_weight=i["conv_w"], conv_state=i["conv_state"], a=i["a"],
                b=i["b"], A_log=i["A_log"], dt_bias=i["dt_bias"], state=i["state"],
                state_indices=np.array([0, 2], np.int32), z=i["z"],
                norm_weight=i["norm_weight"], num_k_heads=2)


BAD = [
    ({"num_k_heads": 3}, "num_k_heads", "not a multiple"),
    ({"num_k_heads": 0}, "num_k_heads", ""),
    ({"state": np.zeros((3, 4, 64, 48), np.float32)}, "state", "power of two"),
    ({"state": np.zeros((3, 4, 64), np.float32)}, "state", ""),
    ({"x": np.zeros((2, 100), np.uint16)}, "x", "2*H*K + HV*V"),
    ({"x": np.zeros((2, 2 * 2 * 64 + 4 * 64), np.float32)}, "x", "bf16"),
    ({"a": np.zeros((2, 3), np.uint16)}, "a", "[B, HV]"),
    ({"A_log": np.zeros(4, np.uint16)}, "A_log", "float32"),
    ({"z": np.zeros((2, 4, 32), np.uint16)}, "z", "[B, HV, V]"),
    ({"conv_state": np.zeros((3, 10, 3), np.uint16)}, "conv_state", "[slots, C, 3]"),
    ({"state_indices": np.zeros(3, np.int32)}, "state_indices", "[B]"),
    ({"state_layout": "vv"}, "state_layout", ""),
    ({"norm_eps": -1.0}, "norm_eps", ""),
    ({"scale": float("nan")}, "scale", ""),
    ({"scale": -1.0}, "scale", "> 0"),
    ({"scale": 0.0}, "scale", "> 0"),
    ({"state": np.zeros((3, 0, 64, 64), np.float32)}, "state", "no value heads"),
]


@pytest.mark.parametrize("change,name,words", BAD)
def test_bad_arguments(change, name, words):
    args = valid_arguments()
    args.update(change)
    with pytest.raises(ValueError, match=name) as err:
        ops.gdn_decode(**args)
    assert words in str(err.value)


def test_out_overlapping_an_input():
    args = valid_arguments()
    with pytest.raises(ValueError, match="out"):
        ops.gdn_decode(**args, out=args["z"])


def test_read_only_state():
    args = valid_arguments()
    args["state"].setflags(write=False)
    with pytest.raises(ValueError, match="state"):
        ops.gdn_decode(**args)


@pytest.mark.parametrize("programs,state_layout", [(2, "vk"), (4, "kv")])
def test_value_rows_split_over_a_cluster(programs, state_layout):
    """The small-batch launch (a row and q/k head's value rows over a cluster of programs that
    add their sums of squares through kt.cluster_sum), run on the CPU target."""
    from kdatile.ops import _kernels
    from kdatile.ops.gdn_decode import gdn_decode_launch

    rng = np.random.default_rng(11)
    B, H, HV, slots, D = 3, 2, 4, 4, 64
    i = make_gdn_inputs(rng, B, H, HV, slots, K=D, V=D, bias=True)
    state = i["state"] if state_layout == "vk" else np.ascontiguousarray(
        i["state"].transpose(0, 1, 3, 2))
    idx = np.array([3, -1, 1], np.int32)
    ref_out, ref_cs, ref_state = gdn_decode_reference(
        i["x"], i["conv_w"], i["conv_state"], i["a"], i["b"], i["A_log"], i["dt_bias"], state,
        idx, i["z"], i["norm_weight"], H=H, conv_bias=i["conv_bias"], state_layout=state_layout)
    conv, state = i["conv_state"].copy(), state.copy()
    out, launch = gdn_decode_launch(
        i["x"], i["conv_w"], conv, i["a"], i["b"], i["A_log"], i["dt_bias"], state, idx,
        i["z"], i["norm_weight"], num_k_heads=H, conv_bias=i["conv_bias"],
        state_layout=state_layout, programs_per_head=programs)
    assert launch.grid == (B, H, programs) and launch.constexprs["NV"] == programs
    _kernels.execute(out, launch)
    assert rel_rms(ref_out, bf16_to_f32(out)) <= 5e-3
    assert rel_rms(ref_state[[3, 1]], state[[3, 1]]) <= 1e-5
    np.testing.assert_array_equal(conv, ref_cs)
    assert (out[1] == 0).all()


def test_split_rule():
    from kdatile.ops.gdn_decode import split_value_rows

    assert split_value_rows(1, 16, 128, True, 132) == 4   # 16 programs: most of the GPU idle
    assert split_value_rows(8, 16, 128, True, 132) == 1   # 128 programs
    assert split_value_rows(1, 16, 128, False, 132) == 1  # no clusters (AMD)
