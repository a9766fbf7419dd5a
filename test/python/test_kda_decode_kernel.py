"""The fused KDA decode kernels (kernels/kda_decode*.py, one per launch strategy) on the CPU
target against the fp64 reference (kda_reference.py), with the acceptance tolerances of
docs/kda.md."""

import numpy as np
import pytest

from kda_reference import (
    bf16_to_f32,
    decode_launch,
    kda_decode_reference,
    kernel_arg,
    make_decode_inputs,
    rel_rms,
)

from conftest import requires_lib

pytestmark = requires_lib


def run_kernel(inp, state_indices, *, lower_bound, norm_eps=1e-5, state_layout="vk",
               block_v=None, block_step=None, stages=0, cluster=False):
    launch = decode_launch(inp, state_indices, lower_bound=lower_bound, norm_eps=norm_eps,
                           state_layout=state_layout, block_v=block_v, block_step=block_step,
                           stages=stages, cluster=cluster)
    args = list(launch.args)
    names = launch.kernel.arg_names
    B, H, D = inp["x"].shape[0], inp["state"].shape[1], inp["state"].shape[2]
    split = block_v is not None and block_v < D
    if cluster:  # a cluster needs no workspace: NaN partials would show any use
        args[names.index("ticket_ptr")] = np.zeros(B * H, np.int32)
        args[names.index("partial_ptr")] = np.full(B * H * (D // block_v), np.nan, np.float32)
    tickets = args[names.index("ticket_ptr")]
    partials = args[names.index("partial_ptr")]
    launch.kernel[launch.grid](*args, **launch.constexprs)
    if split:
        assert not tickets.any(), "the last program of each head resets its ticket"
    if cluster:
        assert np.isnan(partials).all()
    return bf16_to_f32(kernel_arg(launch, "out_ptr"))


@pytest.mark.parametrize("H,B", [(1, 1), (12, 3), (32, 8)])
@pytest.mark.parametrize("lower_bound", [-5.0, None])
@pytest.mark.parametrize("block_v,block_step,stages,cluster",
                         [(None, None, 0, False), (32, None, 0, False), (None, 32, 0, False),
                          (None, 32, 2, False), (32, None, 0, True)])
def test_decode_matches_reference(H, B, lower_bound, block_v, block_step, stages, cluster):
    rng = np.random.default_rng(H * 100 + B)
    slots = 2 * B + 1
    inp = make_decode_inputs(rng, B, H, slots)
    idx = rng.permutation(slots)[:B].astype(np.int32)
    before_conv, before_state = inp["conv_state"].copy(), inp["state"].copy()
    ref_out, ref_cs, ref_state = kda_decode_reference(
        inp["x"], inp["conv_w"], before_conv, inp["raw_g"], inp["raw_beta"], inp["A_log"],
        inp["dt_bias"], before_state, idx, inp["output_gate"], inp["norm_weight"],
        lower_bound=lower_bound)
    out = run_kernel(inp, idx, lower_bound=lower_bound, block_v=block_v,
                     block_step=block_step, stages=stages, cluster=cluster)
    assert np.isfinite(out).all()
    assert rel_rms(ref_out, out) <= 5e-3
    assert rel_rms(ref_state[idx], inp["state"][idx]) <= 1e-5
    np.testing.assert_array_equal(inp["conv_state"], ref_cs)  # bit-exact
    untouched = np.setdiff1d(np.arange(slots), idx)
    np.testing.assert_array_equal(inp["state"][untouched], before_state[untouched])


@pytest.mark.parametrize("block_v,block_step,stages,cluster",
                         [(16, None, 0, False), (64, None, 0, False), (64, 16, 0, False),
                          (128, 32, 0, False), (128, 32, 2, False), (128, 16, 3, False),
                          (64, 16, 2, False), (128, 64, 3, False), (16, None, 0, True),
                          (32, None, 0, True), (64, 16, 2, True)])
@pytest.mark.parametrize("state_layout", ["vk", "kv"])
def test_value_blocks_over_steps_with_padding(block_v, block_step, stages, cluster,
                                              state_layout):
    """Programs split the value rows (the last one per head finishes the norm and shifts the
    q/k conv cache) and walk them in steps of block_step rows, loading them directly or
    through a ring of `stages` shared-memory buffers (3 stages of two steps: a ring
    larger than the steps). Padding rows mixed in, three
    decode steps on the same slots (the tickets must be back at zero after each launch),
    against one program per head in one step."""
    H, B, slots = 4, 6, 9
    rng = np.random.default_rng(block_v + (block_step or 0) + stages)
    inp = make_decode_inputs(rng, B, H, slots)
    idx = np.array([3, -1, 0, 8, 9, 5], np.int32)  # -1 and 9 (= slots) are padding
    whole = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inp.items()}
    if state_layout == "kv":
        inp["state"] = np.ascontiguousarray(inp["state"].swapaxes(2, 3))
        whole["state"] = inp["state"].copy()
    for _ in range(3):
        out = run_kernel(inp, idx, lower_bound=-5.0, state_layout=state_layout,
                         block_v=block_v, block_step=block_step, stages=stages,
                         cluster=cluster)
        ref = run_kernel(whole, idx, lower_bound=-5.0, state_layout=state_layout)
        assert rel_rms(ref, out) <= 2e-3
        np.testing.assert_array_equal(out[[1, 4]], 0.0)
        np.testing.assert_array_equal(inp["conv_state"], whole["conv_state"])
        assert rel_rms(whole["state"], inp["state"]) <= 1e-6
