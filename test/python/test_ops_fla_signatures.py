"""The FLA-named ops bind positional arguments as FLA's functions do (fla-core 0.6.0's
parameter order, written out here: FLA is not a test dependency), and take the rest of their
keywords by name only, so a positional call meant for FLA never lands on another parameter.
FLA's context-parallel object (cp_context) and precomputed chunk table (chunk_indices) are
taken in FLA's places; the keywords FLA takes through **kwargs (python/kdatile/ops/
fla_keywords.py) are checked on the CPU target: the deprecated transpose_state_layout,
head_first, chunk_size (chunk_kda's spacing of intermediate states against the fp64
recurrence), and FLA's short names."""

import inspect
import warnings

import numpy as np
import pytest

from kda_chunk_reference import chunk_states, kda_prefill_reference, prefill_inputs
from kda_reference import bf16_to_f32, rel_rms
from kdatile import ops

from conftest import requires_lib

FLA_ORDER = {
    "chunk_kda": ("q", "k", "v", "g", "beta", "scale", "initial_state", "output_final_state",
                  "use_qk_l2norm_in_kernel", "use_gate_in_kernel",
                  "use_beta_sigmoid_in_kernel", "allow_neg_eigval", "safe_gate", "lower_bound",
                  "disable_recompute", "return_intermediate_states", "state_v_first",
                  "cu_seqlens", "cu_seqlens_cpu", "cp_context"),
    "chunk_gated_delta_rule": ("q", "k", "v", "g", "beta", "scale", "initial_state",
                               "output_final_state", "use_qk_l2norm_in_kernel",
                               "use_beta_sigmoid_in_kernel", "allow_neg_eigval",
                               "state_v_first", "cu_seqlens", "cu_seqlens_cpu",
                               "chunk_indices", "cp_context"),
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
    # FLA's **kwargs where FLA has them (all but chunk_gla).
    P = inspect.Parameter
    kinds = (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)
    if name != "chunk_gla":
        kinds += (P.VAR_KEYWORD,)
    assert all(p.kind in kinds for p in params)


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


LENS = [5, 40, 0, 70]


def _widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def _inputs(seed=3, H=1, HV=2, D=32):
    rng = np.random.default_rng(seed)
    q, k, v, g, beta = prefill_inputs(rng, 1, sum(LENS), H, HV, D, D, use_gate=False,
                                      use_beta_sigmoid=False)
    cu = np.concatenate([[0], np.cumsum(LENS)]).astype(np.int32)
    h0 = (rng.standard_normal((len(LENS), HV, D, D)) * 0.3).astype(np.float32)
    return q, k, v, g, beta, cu, h0


def fla_calls():
    """(name, call(state_v_first keywords) -> (o, final state)) of each op FLA gives
    **kwargs, on one set of inputs with [V, K] initial states."""
    q, k, v, g, beta, cu, h0 = _inputs()
    h0_vk = np.ascontiguousarray(h0.transpose(0, 1, 3, 2))
    common = dict(initial_state=h0_vk, output_final_state=True, cu_seqlens=cu)
    gh = g[..., 0]
    return [
        ("chunk_kda", lambda **kw: ops.chunk_kda(q, k, v, g, beta, **common, **kw)),
        ("chunk_gated_delta_rule",
         lambda **kw: ops.chunk_gated_delta_rule(q, k, v, gh, beta, **common, **kw)),
        ("fused_recurrent_kda",
         lambda **kw: ops.fused_recurrent_kda(q, k, v, g, beta, **common, **kw)),
        ("fused_recurrent_gated_delta_rule",
         lambda **kw: ops.fused_recurrent_gated_delta_rule(q, k, v, gh, beta=beta, **common,
                                                           **kw)),
        ("fused_recurrent_gla",
         lambda **kw: ops.fused_recurrent_gla(q, k, v, g, **common, **kw)),
    ]


@requires_lib
@pytest.mark.parametrize("name,call", fla_calls(), ids=[n for n, _ in fla_calls()])
def test_transpose_state_layout_is_state_v_first(name, call):
    """FLA's former name of state_v_first: the same result, with a DeprecationWarning that
    points at the caller's line; both names at once are rejected."""
    o_new, final_new = call(state_v_first=True)
    with pytest.warns(DeprecationWarning, match="transpose_state_layout") as caught:
        o_old, final_old = call(transpose_state_layout=True)
    assert caught[0].filename == __file__
    np.testing.assert_array_equal(np.asarray(o_old), np.asarray(o_new))
    np.testing.assert_array_equal(np.asarray(final_old), np.asarray(final_new))
    with pytest.raises(ValueError, match="argument 'transpose_state_layout'.*only state_v_f"):
        call(state_v_first=True, transpose_state_layout=True)
    with pytest.raises(ValueError, match="argument 'transpose_state_layout'.*bool"):
        call(transpose_state_layout=1)


@requires_lib
@pytest.mark.parametrize("name,call", fla_calls(), ids=[n for n, _ in fla_calls()])
def test_head_first_and_unknown_keywords(name, call):
    """head_first=False is the layout taken; True is rejected; an unknown keyword is a
    TypeError (a misspelt keyword is not ignored)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o, _ = call(state_v_first=True, head_first=False)
    assert np.asarray(o).shape[:2] == (1, sum(LENS))
    with pytest.raises(ValueError, match="argument 'head_first'.*\\[B, T, H"):
        call(state_v_first=True, head_first=True)
    with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument "
                                        "'state_v_frist'"):
        call(state_v_frist=True)


@requires_lib
@pytest.mark.parametrize("chunk_size", [32, 64])
def test_chunk_kda_chunk_size_spaces_the_intermediate_states(chunk_size):
    """chunk_size (FLA: 32 or 64) is the number of tokens between two returned states: the
    state before every chunk_size tokens of each sequence, against the fp64 recurrence."""
    q, k, v, g, beta, cu, h0 = _inputs(seed=4)
    o, final, states = ops.chunk_kda(q, k, v, g, beta, initial_state=h0,
                                     output_final_state=True, cu_seqlens=cu,
                                     return_intermediate_states=True, chunk_size=chunk_size,
                                     use_qk_l2norm_in_kernel=True)
    ref_o, ref_final, trace = kda_prefill_reference(_widen(q), _widen(k), _widen(v), g, beta,
                                                    initial_state=h0, cu_seqlens=cu,
                                                    use_qk_l2norm=True)
    ref_states = chunk_states(trace, chunk_size)
    # Any integer type, as FLA takes it.
    same = ops.chunk_kda(q, k, v, g, beta, initial_state=h0, cu_seqlens=cu,
                         return_intermediate_states=True, chunk_size=np.int64(chunk_size),
                         use_qk_l2norm_in_kernel=True, output_final_state=True)
    np.testing.assert_array_equal(same[2], states)
    assert states.shape == (1, sum(-(-n // chunk_size) for n in LENS)) + ref_states.shape[1:]
    assert rel_rms(ref_states, _widen(states).reshape(ref_states.shape)) <= 1e-2
    assert rel_rms(ref_o, _widen(o)) <= 1e-2
    assert rel_rms(ref_final, final) <= 1e-2


@requires_lib
def test_chunk_size_values():
    """The values FLA accepts per op; Gated DeltaNet's leave the result unchanged."""
    q, k, v, g, beta, cu, h0 = _inputs()
    for bad in (16, 128, 64.0, True, np.int64(16)):
        with pytest.raises(ValueError, match="argument 'chunk_size'.*32, 64 for chunk_kda"):
            ops.chunk_kda(q, k, v, g, beta, cu_seqlens=cu, chunk_size=bad)
    base, _ = ops.chunk_gated_delta_rule(q, k, v, g[..., 0], beta, cu_seqlens=cu)
    for size in (16, 32, 64):
        o, _ = ops.chunk_gated_delta_rule(q, k, v, g[..., 0], beta, cu_seqlens=cu,
                                          chunk_size=size)
        np.testing.assert_array_equal(o, base)
    with pytest.raises(ValueError, match="argument 'chunk_size'.*16, 32, 64"):
        ops.chunk_gated_delta_rule(q, k, v, g[..., 0], beta, cu_seqlens=cu, chunk_size=8)
    # The recurrent ops have no chunks: no chunk_size.
    with pytest.raises(TypeError, match="unexpected keyword argument 'chunk_size'"):
        ops.fused_recurrent_kda(q, k, v, g, beta, cu_seqlens=cu, chunk_size=64)


@requires_lib
def test_chunk_indices_and_cp_context():
    """FLA's precomputed chunk table is not read; its context-parallel object must be None."""
    q, k, v, g, beta, cu, h0 = _inputs()
    base, _ = ops.chunk_gated_delta_rule(q, k, v, g[..., 0], beta, cu_seqlens=cu)
    table = np.zeros((7, 2), np.int64)  # not a table of these sequences: never read
    o, _ = ops.chunk_gated_delta_rule(q, k, v, g[..., 0], beta, None, None, False, False,
                                      False, False, False, cu, None, table, None)
    np.testing.assert_array_equal(o, base)
    with pytest.raises(ValueError, match="argument 'cp_context'.*pass cp_group"):
        ops.chunk_kda(q, k, v, g, beta, cu_seqlens=cu, cp_context=object())
    with pytest.raises(ValueError, match="argument 'cp_context'.*no context-parallel form"):
        ops.chunk_gated_delta_rule(q, k, v, g[..., 0], beta, cu_seqlens=cu,
                                   cp_context=object())


@requires_lib
def test_short_names():
    assert ops.chunk_gdn is ops.chunk_gated_delta_rule
    assert ops.fused_recurrent_gdn is ops.fused_recurrent_gated_delta_rule
