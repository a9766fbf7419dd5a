"""The fused KDA decode kernel (kernels/kda_decode.py) on the CPU target against the fp64
reference of KDA.md (kda_reference.py), with the acceptance tolerances of KDA.md section 4."""

import os
import sys

import numpy as np
import pytest

from conftest import ROOT, requires_lib
from kda_reference import bf16_to_f32, f32_to_bf16, kda_decode_reference, rel_rms

sys.path.insert(0, os.path.join(ROOT, "kernels"))
from kda_decode import kda_decode  # noqa: E402

pytestmark = requires_lib
D = 128


def make_inputs(rng, B, H, slots, *, bias=False, fused=False):
    C = 3 * H * D
    bf = lambda a: f32_to_bf16(np.asarray(a, np.float32))  # noqa: E731
    inputs = {
        "x": bf(rng.standard_normal((B, C))),
        "conv_w": bf(rng.standard_normal((C, 4)) * 0.5),
        "conv_state": bf(rng.standard_normal((slots, C, 3))),
        "raw_g": bf(rng.standard_normal((B, H, D))),
        "raw_beta": bf(rng.standard_normal((B, H))),
        "A_log": rng.uniform(-1.0, 1.0, H).astype(np.float32),
        "dt_bias": (rng.standard_normal(H * D) * 0.5).astype(np.float32),
        "state": (rng.standard_normal((slots, H, D, D)) * 0.1).astype(np.float32),
        "output_gate": bf(rng.standard_normal((B, H, D))),
        "norm_weight": bf(rng.uniform(0.5, 1.5, D)),
        "conv_bias": bf(rng.standard_normal(C) * 0.1) if bias else None,
    }
    if fused:
        inputs["f_a"] = bf(rng.standard_normal((B, D)))
        inputs["f_b_weight"] = bf(rng.standard_normal((H * D, D)) * 0.1)
    return inputs


def run_kernel(inp, state_indices, *, lower_bound, norm_eps=1e-5, state_layout="vk"):
    B = inp["x"].shape[0]
    H = inp["state"].shape[1]
    slots = inp["state"].shape[0]
    conv_state, state = inp["conv_state"], inp["state"]
    out = np.zeros((B, H, D), np.uint16)
    fused = "f_a" in inp
    kda_decode[(B, H)](
        inp["x"], inp["conv_w"],
        inp["conv_bias"] if inp["conv_bias"] is not None else inp["x"],
        conv_state, inp["raw_g"], inp.get("f_a", inp["x"]), inp.get("f_b_weight", inp["x"]),
        inp["raw_beta"], inp["A_log"], inp["dt_bias"], state, state_indices,
        inp["output_gate"], inp["norm_weight"], out,
        slots, inp["x"].shape[1], conv_state.strides[0] // 2, conv_state.strides[1] // 2,
        conv_state.strides[2] // 2, -5.0 if lower_bound is None else lower_bound, norm_eps,
        H=H, D=D, STATE_KV=state_layout == "kv", USE_LOWER_BOUND=lower_bound is not None,
        HAS_CONV_BIAS=inp["conv_bias"] is not None, FUSED_FB=fused)
    return bf16_to_f32(out)


@pytest.mark.parametrize("H,B", [(1, 1), (12, 3), (32, 8)])
@pytest.mark.parametrize("lower_bound", [-5.0, None])
def test_decode_matches_reference(H, B, lower_bound):
    rng = np.random.default_rng(H * 100 + B)
    slots = 2 * B + 1
    inp = make_inputs(rng, B, H, slots)
    idx = rng.permutation(slots)[:B].astype(np.int32)
    before_conv, before_state = inp["conv_state"].copy(), inp["state"].copy()
    ref_out, ref_cs, ref_state = kda_decode_reference(
        inp["x"], inp["conv_w"], before_conv, inp["raw_g"], inp["raw_beta"], inp["A_log"],
        inp["dt_bias"], before_state, idx, inp["output_gate"], inp["norm_weight"],
        lower_bound=lower_bound)
    out = run_kernel(inp, idx, lower_bound=lower_bound)
    assert np.isfinite(out).all()
    assert rel_rms(ref_out, out) <= 5e-3
    assert rel_rms(ref_state[idx], inp["state"][idx]) <= 1e-5
    np.testing.assert_array_equal(inp["conv_state"], ref_cs)  # bit-exact
    untouched = np.setdiff1d(np.arange(slots), idx)
    np.testing.assert_array_equal(inp["state"][untouched], before_state[untouched])
