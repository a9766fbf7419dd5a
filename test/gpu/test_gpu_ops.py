"""kdatile.ops (kda_decode, kda_decode_with_f_b, kda_recurrent, kda_recurrent_records,
gdn_recurrent, chunk_kda, fused_recurrent_kda, fused_recurrent_gated_delta_rule,
fused_recurrent_gla, chunk_gated_delta_rule, chunk_gla) on CUDA tensors vs the fp64 reference,
and under CUDA-graph capture.

The calls are ops_cases.py's (listed under "ops" in the manifest); test/gpu/prepare.py (build
machine) exported the kernel specializations they launch into <artifacts>/bundle, so that here
(torch + driver, no libkda) the ops run from the bundle with KDATILE_BUNDLE. The inputs
(seeded) and the fp64 references (test/python's pure-NumPy references) are built here.

Tolerances of docs/kda.md ("Acceptance tolerances"), as in the CPU tests
(test/python/test_ops_kda_decode.py, test_ops_kda_recurrent.py): output rel RMS <= 5e-3;
fp32 state rel RMS <= 1e-5 (bf16 state: 4e-3 decode, 5e-3 recurrent); conv cache bit-exact;
untouched slots bit-exact; padding outputs exactly zero; no NaN/Inf; chunk_kda's output and
final state rel RMS <= 1e-2 with bf16 inputs, 5e-3 with fp32 ones. A graph captured after
one eager warm-up call replays bit-identically to an eager call from the same inputs.
"""


import numpy as np
import pytest
from ops_cases import (
    DECODE_WRITTEN,
    RECORDS_WRITTEN,
    RECURRENT_WRITTEN,
    build_case,
    decode_call,
    fused_call,
    gdn_call,
    prefill_call,
    records_failures,
    recurrent_call,
    with_final_failures,
)

from conftest import MANIFEST

OPS = (MANIFEST or {}).get("ops") or {}
DECODE = OPS.get("decode", [])
RECURRENT = OPS.get("recurrent", [])
PREFILL = OPS.get("prefill", [])
FUSED = OPS.get("fused", [])
GDN = OPS.get("gdn", [])
CASES = ([("decode", c) for c in DECODE] + [("gdn", c) for c in GDN]
         + [("recurrent", c) for c in RECURRENT]
         + [("prefill", c) for c in PREFILL] + [("fused", c) for c in FUSED])
IDS = [c["id"] for _, c in CASES]

OUT_TOL = 5e-3
F32_STATE_TOL = 1e-5
BF16_STATE_TOL = {"decode": 4e-3, "gdn": 4e-3, "recurrent": 5e-3}
STEPS = ("decode", "gdn")  # one decode step each: an output per row, a conv cache


@pytest.fixture
def kt_bundle(bundle_kdatile):
    """KDATILE_BUNDLE set to the artifacts' bundle; returns the kdatile module."""
    if "error" in OPS or not CASES:
        why = OPS.get("error", "rerun prepare.py")
        pytest.skip(f"no kdatile.ops cases in the artifacts: {why}")
    return bundle_kdatile


# -- data ------------------------------------------------------------------------------------


_BUILT: dict = {}


def _load(kind, case):
    """(inputs by name, reference by name) of a case, built here from its seed (pure NumPy;
    the fp64 reference takes a second or so for the largest case, so it is kept)."""
    hit = _BUILT.get(case["id"])
    if hit is None:
        hit = _BUILT[case["id"]] = build_case(kind, case)
    # Copies: a test must never see inputs an earlier test's launch wrote through.
    host, ref = hit
    return ({k: v.copy() for k, v in host.items()}, {k: v.copy() for k, v in ref.items()})


def _to_torch(torch, array):
    t = torch.from_numpy(np.ascontiguousarray(array))
    return t.view(torch.bfloat16) if array.dtype == np.uint16 else t


def _host(torch, t):
    """A CUDA tensor back as NumPy (bf16 as uint16 bit patterns)."""
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def _bits(torch, t):
    """The bit patterns of a float tensor (bit-identical comparisons: -0.0 != +0.0)."""
    return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _widen(a):
    if a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def _rel_rms(ref, got):
    ref, got = np.asarray(ref, np.float64), np.asarray(got, np.float64)
    return float(np.sqrt(np.mean((ref - got) ** 2)) / max(np.sqrt(np.mean(ref ** 2)), 1e-30))


class Call:
    """One op call on CUDA tensors made from a case's inputs; reset() restores every input."""

    def __init__(self, torch, kt, kind, case):
        self.torch, self.kind, self.case = torch, kind, case
        self.host, self.ref = _load(kind, case)
        self.dev = {k: _to_torch(torch, a).cuda() for k, a in self.host.items()}
        ops = kt.ops
        self.final = None
        if kind in ("prefill", "fused"):
            call = prefill_call if kind == "prefill" else fused_call
            name, args, kwargs = call(case, self.dev)
            op = getattr(ops, name)
            self.written = ()
            self.run = lambda: self._with_final(op, args, kwargs)
            return
        if kind == "decode":
            args, kwargs = decode_call(case, self.dev, lambda t: t.transpose(1, 2))
            op = ops.kda_decode_with_f_b if case["fused"] else ops.kda_decode
        elif kind == "gdn":
            args, kwargs = gdn_call(case, self.dev, lambda t: t.transpose(1, 2))
            op = ops.gdn_decode
        else:
            name, args, kwargs = recurrent_call(case, self.dev)
            op = getattr(ops, name)
        self.written = (DECODE_WRITTEN if kind in STEPS else
                        RECORDS_WRITTEN if case.get("records") else RECURRENT_WRITTEN)
        self.run = lambda: op(*args, **kwargs)

    def _with_final(self, op, args, kwargs):
        """The output of an op returning (o, final state); the final state is kept in
        self.final."""
        out, self.final = op(*args, **kwargs)
        return out

    def reset(self):
        for name, t in self.dev.items():
            t.copy_(_to_torch(self.torch, self.host[name]))

    def results(self, out):
        """What the call produced: its output and every array it writes in place (clones)."""
        res = {"out": out.clone()}
        res.update((name, self.dev[name].clone()) for name in self.written)
        if self.final is not None:
            res["final"] = self.final.clone()
        return res


# -- numerics vs the fp64 reference ------------------------------------------------------------


def check_vs_reference(kind, case, host, ref, got_out, state, conv=None):
    """docs/kda.md acceptance checks of one call's results (NumPy; bf16 as uint16 bit patterns):
    got_out the output, state the pool after the call, conv the conv cache storage after it
    (decode); host the inputs and ref the reference arrays of build_case."""
    want_shape = ref["ref_out"].shape if kind in STEPS else host["v"].shape
    assert got_out.shape == tuple(want_shape), f"out shape {got_out.shape}"
    o = _widen(got_out)
    st = _widen(state)
    assert np.isfinite(o).all(), "NaN/Inf in the output"
    assert np.isfinite(st).all(), "NaN/Inf in the state pool"
    ref_o = ref["ref_out"] if kind in STEPS else ref["ref_o"]
    o = o.reshape(ref_o.shape)
    pad = np.all(ref_o == 0.0, axis=(1, 2))
    assert (o[pad] == 0.0).all(), "padding rows/tokens are not zero"
    if kind in STEPS:
        assert (got_out[pad] == 0).all(), "padding rows are not +0.0"
    if (~pad).any():
        err = _rel_rms(ref_o[~pad], o[~pad])
        assert err <= OUT_TOL, f"output rel RMS {err:.3g} > {OUT_TOL}"
    live = ref["live_slots"]
    tol = F32_STATE_TOL if case["state_dtype"] == "f32" else BF16_STATE_TOL[kind]
    if live.size:
        err = _rel_rms(ref["ref_state"][live], st[live])
        assert err <= tol, f"state rel RMS {err:.3g} > {tol} ({case['state_dtype']} state)"
    untouched = np.setdiff1d(np.arange(state.shape[0]), live)
    np.testing.assert_array_equal(state[untouched], host["state"][untouched],
                                  err_msg="an untouched state slot changed")
    if kind in STEPS:
        np.testing.assert_array_equal(conv, ref["ref_conv_storage"],
                                      err_msg="conv cache differs from the reference")
        live_set = set(live.tolist())
        untouched = [s for s in range(conv.shape[0]) if s not in live_set]
        np.testing.assert_array_equal(conv[untouched], host["conv_storage"][untouched],
                                      err_msg="an untouched conv cache slot changed")


def _check_call(torch, call, out):
    if call.kind in ("prefill", "fused"):
        failures = with_final_failures(call.kind, call.case, call.ref,
                                       _widen(_host(torch, out)), _widen(_host(torch, call.final)))
        assert not failures, "; ".join(failures)
        return
    if call.case["given_out"]:
        assert out.data_ptr() == call.dev["out"].data_ptr(), "out= was not returned"
    conv = _host(torch, call.dev["conv_storage"]) if call.kind in STEPS else None
    check_vs_reference(call.kind, call.case, call.host, call.ref, _host(torch, out),
                       _host(torch, call.dev["state"]), conv)
    if call.case.get("records"):
        failures = records_failures(call.ref, _host(torch, call.dev["records_out"]),
                                    call.host["records_out"])
        assert not failures, "; ".join(failures)


@pytest.mark.parametrize("kind,case", CASES, ids=IDS)
def test_op_matches_reference(torch_cuda, kt_bundle, kind, case):
    """The op on CUDA tensors (launched from the bundle, no compile) vs the fp64 reference."""
    torch, kt = torch_cuda, kt_bundle
    call = Call(torch, kt, kind, case)
    compiles = kt.cache_stats()["compiles"]
    out = call.run()
    torch.cuda.synchronize()
    assert kt.cache_stats()["compiles"] == compiles, "the op compiled something"
    _check_call(torch, call, out)


# -- CUDA graphs --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind,case", CASES, ids=IDS)
def test_op_graph_replay_matches_eager(torch_cuda, kt_bundle, kind, case):
    """Capture the op (after one eager warm-up call) into a CUDA graph: no host sync or compile
    during capture, and each replay from reset inputs is bit-identical to an eager call."""
    torch, kt = torch_cuda, kt_bundle
    call = Call(torch, kt, kind, case)
    call.run()  # warm-up: loads the code object before capture
    torch.cuda.synchronize()
    call.reset()
    torch.cuda.synchronize()
    out = call.run()
    torch.cuda.synchronize()
    _check_call(torch, call, out)
    eager = call.results(out)

    call.reset()
    torch.cuda.synchronize()
    compiles = kt.cache_stats()["compiles"]
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = call.run()
    assert kt.cache_stats()["compiles"] == compiles
    for attempt in range(2):
        call.reset()
        graph.replay()
        torch.cuda.synchronize()
        replay = call.results(captured)
        for name, want in eager.items():
            assert torch.equal(_bits(torch, replay[name]), _bits(torch, want)), (
                f"{case['id']}: replay {attempt} of '{name}' differs from eager")


# -- tuned launches ---------------------------------------------------------------------------

TUNED = [c for c in PREFILL if c["id"] == "prefill-T2048-H12-D128-bf16-lb"]


@pytest.mark.parametrize("case", TUNED, ids=[c["id"] for c in TUNED])
def test_tuned_prefill(torch_cuda, kt_bundle, case, tmp_path, monkeypatch):
    """KDATILE_AUTOTUNE_OPS: the scan is timed over every candidate (all in the bundle, none
    failing), the tuned call meets the fp64 reference, and a CUDA graph captured afterwards
    replays the tuned call bit for bit."""
    torch, kt = torch_cuda, kt_bundle
    tuning = kt.ops.tuning
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tuning, "_tuners", {})
    monkeypatch.setattr(tuning, "_launched", {})
    captured_configs = []
    scan_launches = tuning.scan_launches

    def recording(launch, configs):
        captured_configs.extend(configs)
        return scan_launches(launch, configs)

    monkeypatch.setattr(tuning, "scan_launches", recording)
    call = Call(torch, kt, "prefill", case)
    tuning.enable(True)
    try:
        out = call.run()
        torch.cuda.synchronize()
        (tuner,) = tuning.tuners()
        (key,) = tuner.timings
        assert tuner.failures[key] == {}, tuner.failures[key]
        assert len(tuner.timings[key]) == 3, tuner.timings
        _check_call(torch, call, out)
        eager = call.results(out)
        call.reset()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = call.run()
        call.reset()
        graph.replay()
        torch.cuda.synchronize()
        replay = call.results(captured)
        for name, want in eager.items():
            assert torch.equal(_bits(torch, replay[name]), _bits(torch, want)), name
        assert tuner.trials == 3  # the capture timed nothing
        best = min(tuner.timings[key], key=tuner.timings[key].get)
        assert [repr(c) for c in captured_configs] == [best]  # it launched the choice
    finally:
        tuning.enable(None)
