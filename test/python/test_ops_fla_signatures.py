"""The FLA-named ops bind positional arguments as FLA's functions do (fla-core 0.6.0's
parameter order, written out here: FLA is not a test dependency), and take the rest of their
keywords by name only, so a positional call meant for FLA never lands on another parameter.
FLA's trailing parameters that have no counterpart here (its context-parallel object,
precomputed chunk indices) are left out; passing them fails as an unknown keyword."""

import inspect

import numpy as np
import pytest

from kdatile import ops

from conftest import requires_lib

FLA_ORDER = {
    "chunk_kda": ("q", "k", "v", "g", "beta", "scale", "initial_state", "output_final_state",
                  "use_qk_l2norm_in_kernel", "use_gate_in_kernel",
                  "use_beta_sigmoid_in_kernel", "allow_neg_eigval", "safe_gate", "lower_bound",
                  "disable_recompute", "return_intermediate_states", "state_v_first",
                  "cu_seqlens", "cu_seqlens_cpu"),
    "chunk_gated_delta_rule": ("q", "k", "v", "g", "beta", "scale", "initial_state",
                               "output_final_state", "use_qk_l2norm_in_kernel",
                               "use_beta_sigmoid_in_kernel", "allow_neg_eigval",
                               "state_v_first", "cu_seqlens", "cu_seqlens_cpu"),
    "chunk_gla": ("q", "k", "v", "g", "scale", "initial_state", "output_final_state",
                  "state_v_first", "cu_seqlens", "cu_seqlens_cpu"),
    "fused_recurrent_kda": ("q", "k", "v", "g", "beta", "A_log", "dt_bias", "scale",
                            "initial_state", "output_final_state", "use_qk_l2norm_in_kernel",
                            "use_gate_in_kernel", "use_beta_sigmoid_in_kernel",
                            "allow_neg_eigval", "lower_bound", "state_v_first", "cu_seqlens"),
    "fused_recurrent_gated_delta_rule": ("q", "k", "v", "g", "gk", "gv", "beta", "scale",
                                         "initial_state", "output_final_state",
                                         "use_qk_l2norm_in_kernel", "use_gate_in_kernel",
                                         "A_log", "dt_bias", "use_beta_sigmoid_in_kernel",
                                         "allow_neg_eigval", "state_v_first", "cu_seqlens"),
    "fused_recurrent_gla": ("q", "k", "v", "gk", "gv", "scale", "initial_state",
                            "output_final_state", "reverse", "state_v_first", "cu_seqlens"),
}


@pytest.mark.parametrize("name", sorted(FLA_ORDER))
def test_positional_parameters_are_flas(name):
    params = inspect.signature(getattr(ops, name)).parameters.values()
    positional = tuple(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD)
    assert positional == FLA_ORDER[name]
    assert all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params)


def _varlen(rng, lens, H=1, D=16):
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    T = int(cu[-1])
    q, k, v = (rng.standard_normal((1, T, H, D)).astype(np.float32) * 0.5 for _ in range(3))
    g = -rng.uniform(0.0, 1.0, (1, T, H)).astype(np.float32)
    beta = rng.uniform(0.1, 0.9, (1, T, H)).astype(np.float32)
    return cu, q, k, v, g, beta


@requires_lib
def test_host_copy_of_cu_seqlens():
    """cu_seqlens_cpu (FLA's host copy) is what the host checks read; it is checked for its
    own shape, dtype and place, and needs cu_seqlens. disable_recompute (FLA's backward-pass
    option) changes nothing in a forward."""
    rng = np.random.default_rng(3)
    cu, q, k, v, g, beta = _varlen(rng, [5, 0, 19])
    want = ops.chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True,
                                      cu_seqlens=cu)
    got = ops.chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True, cu_seqlens=cu,
                                     cu_seqlens_cpu=cu.astype(np.int64))
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    gk = np.repeat(g[..., None], 16, -1)
    o, _ = ops.chunk_kda(q, k, v, gk, beta, cu_seqlens=cu, cu_seqlens_cpu=cu,
                         disable_recompute=True)
    np.testing.assert_array_equal(o, ops.chunk_kda(q, k, v, gk, beta, cu_seqlens=cu)[0])
    # The host copy is what is checked: its bad values are reported under its name.
    with pytest.raises(ValueError, match="argument 'cu_seqlens_cpu': must end at T_total"):
        ops.chunk_gla(q, k, v, gk, cu_seqlens=cu, cu_seqlens_cpu=cu - 1 + (cu == 0))
    with pytest.raises(ValueError, match="argument 'cu_seqlens_cpu'.*\\[N \\+ 1\\]"):
        ops.chunk_gla(q, k, v, gk, cu_seqlens=cu, cu_seqlens_cpu=cu[:-1])
    with pytest.raises(ValueError, match="argument 'cu_seqlens_cpu'.*dtype"):
        ops.chunk_gla(q, k, v, gk, cu_seqlens=cu, cu_seqlens_cpu=cu.astype(np.float32))
    with pytest.raises(ValueError, match="argument 'cu_seqlens_cpu': is given without"):
        ops.chunk_gla(q, k, v, gk, cu_seqlens_cpu=cu)
    with pytest.raises(ValueError, match="argument 'disable_recompute'"):
        ops.chunk_kda(q, k, v, gk, beta, disable_recompute=1)
