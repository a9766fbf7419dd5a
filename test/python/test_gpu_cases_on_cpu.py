"""The GPU checks' chunk_kda, fused-recurrent, records and gdn_recurrent cases
(test/gpu/ops_cases.py) run on the CPU target against the same fp64 references and bounds, so
that a wrong case (inputs, call or reference) shows here, not first on the GPU machine."""

import os
import sys

import numpy as np
import pytest

from kda_reference import bf16_to_f32
from kdatile import ops

from conftest import requires_lib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "gpu"))
import ops_cases  # noqa: E402

pytestmark = requires_lib

CASES = ([("prefill", c) for c in ops_cases.PREFILL_CASES]
         + [("fused", c) for c in ops_cases.FUSED_CASES])


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


@pytest.mark.parametrize("kind,case", CASES, ids=[c["id"] for _, c in CASES])
def test_case_on_cpu(kind, case):
    arrays, ref = ops_cases.build_case(kind, case)
    call = ops_cases.prefill_call if kind == "prefill" else ops_cases.fused_call
    name, args, kwargs = call(case, arrays)
    o, final = getattr(ops, name)(*args, **kwargs)
    assert ops_cases.with_final_failures(kind, case, ref, widen(o), widen(final)) == []


# kda_recurrent's own cases are test_ops_kda_recurrent.py's; the records and Gated DeltaNet
# calls run here.
RECURRENT = [c for c in ops_cases.RECURRENT_CASES if c.get("records") or c["gate"] == "gdn"]


@pytest.mark.parametrize("case", RECURRENT, ids=[c["id"] for c in RECURRENT])
def test_recurrent_case_on_cpu(case):
    arrays, ref = ops_cases.build_case("recurrent", case)
    before = {name: a.copy() for name, a in arrays.items()}
    name, args, kwargs = ops_cases.recurrent_call(case, arrays)
    o = widen(getattr(ops, name)(*args, **kwargs)).reshape(ref["ref_o"].shape)
    pad = np.all(ref["ref_o"] == 0.0, axis=(1, 2))
    assert (o[pad] == 0.0).all() and pad.any()
    err = np.sqrt(np.mean((o[~pad] - ref["ref_o"][~pad]) ** 2) / np.mean(ref["ref_o"][~pad] ** 2))
    assert err <= 5e-3
    state, live = widen(arrays["state"]), ref["live_slots"]
    tol = 1e-5 if case["state_dtype"] == "f32" else 5e-3
    want = ref["ref_state"][live]
    assert np.sqrt(np.mean((state[live] - want) ** 2) / np.mean(want ** 2)) <= tol
    untouched = np.setdiff1d(np.arange(state.shape[0]), live)
    np.testing.assert_array_equal(arrays["state"][untouched], before["state"][untouched])
    if case.get("records"):
        assert ops_cases.records_failures(ref, arrays["records_out"],
                                          before["records_out"]) == []


@pytest.mark.parametrize("case", ops_cases.GDN_CASES, ids=[c["id"] for c in ops_cases.GDN_CASES])
def test_gdn_case_on_cpu(case):
    arrays, ref = ops_cases.build_case("gdn", case)
    before = {name: a.copy() for name, a in arrays.items()}
    args, kwargs = ops_cases.gdn_call(case, arrays, lambda a: a.transpose(0, 2, 1))
    out = ops.gdn_decode(*args, **kwargs)
    o = widen(out)
    pad = np.all(ref["ref_out"] == 0.0, axis=(1, 2))
    assert (out[pad] == 0).all()
    want = ref["ref_out"][~pad]
    assert np.sqrt(np.mean((o[~pad] - want) ** 2) / np.mean(want ** 2)) <= 5e-3
    state, live = widen(arrays["state"]), ref["live_slots"]
    tol = 1e-5 if case["state_dtype"] == "f32" else 4e-3
    want = ref["ref_state"][live]
    assert np.sqrt(np.mean((state[live] - want) ** 2) / np.mean(want ** 2)) <= tol
    untouched = np.setdiff1d(np.arange(state.shape[0]), live)
    np.testing.assert_array_equal(arrays["state"][untouched], before["state"][untouched])
    np.testing.assert_array_equal(arrays["conv_storage"], ref["ref_conv_storage"])


def test_gpu_check_dsl_cases_bind():
    """Every DSL case the GPU checks compile (test/gpu/prepare.py) names the kernel its launch
    runs and arguments that kernel accepts, so the preparation step cannot stop half-way on
    the build machine."""
    import prepare

    cases = prepare.dsl_cases()
    assert cases
    for case_id, fn, args, constexprs, grid, num_warps, *_ in cases:
        spec = fn.specialize(*args, **constexprs, target=prepare.TARGET, num_warps=num_warps,
                             grid=grid)
        assert spec.target == prepare.TARGET, case_id


def test_segments_case_is_split_on_gpus():
    """The GPU checks' segments case takes the split scan on an sm_90a GPU (the CPU target
    scans it whole above)."""
    from kdatile.ops.chunk import chunk_launches

    (case,) = [c for c in ops_cases.PREFILL_CASES if c["id"].endswith("-segments")]
    arrays, _ = ops_cases.build_case("prefill", case, reference=False)
    _, args, kwargs = ops_cases.prefill_call(case, arrays)
    _, launches = chunk_launches(*args, **kwargs, target="sm_90a")
    assert [x.kernel.__name__ for x in launches] == [
        "kda_chunk_prep", "kda_chunk_scan", "kda_segment_starts", "kda_chunk_scan"]
    assert launches[1].args[-1] == 1024


def test_bundle_holds_every_tuning_candidate():
    """The GPU checks' bundle gets each whole-scan prefill case's scan in every configuration
    kdatile.ops.tuning may time (test_gpu_ops.py tunes the 2048-token case), and none of the
    split scan's."""
    import prepare

    from kdatile.ops.chunk import scan_configs, tuning_candidates

    launches = ops_cases.launches(prepare.TARGET)
    tuned = tuning_candidates([x for _, x in launches])
    whole = [x for _, x in launches if x.kernel.__name__ == "kda_chunk_scan"
             and x.args[-1] > x.args[-2]]
    assert whole and len(tuned) == sum(len(scan_configs(x)) for x in whole)
    shapes = {(x.constexprs["BV"], x.num_warps, x.grid[0]) for x in tuned
              if x.constexprs["BK"] == 128}
    assert shapes == {(64, 4, 2), (32, 2, 4), (32, 4, 4)}
    assert all(not x.constexprs.get("SUMMARY") for x in tuned)
