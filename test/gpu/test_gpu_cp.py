"""Context-parallel kdatile.ops.chunk_kda (cp_group) on CUDA tensors: two processes on this
GPU in a gloo group (test/python/cp_cases.py's GPU_CASES, launched from the artifacts'
bundle). Each rank's outputs and the final states every rank returns equal the single-process
call's on the GPU and the fp64 recurrence's within the prefill tolerances (1e-2 relative RMS
with bf16 inputs, 5e-3 with fp32 ones)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import MANIFEST, ROOT, artifact_dir

CASES = ((MANIFEST or {}).get("ops") or {}).get("cp", [])
TEST_PYTHON = os.path.join(ROOT, "test", "python")


@pytest.fixture(scope="module")
def cp_run(tmp_path_factory, torch_cuda):
    """Runs every GPU case in 2 processes launching from the bundle; returns the output
    directory."""
    bundle = (MANIFEST or {}).get("bundle") or {}
    if not CASES or "dir" not in bundle:
        pytest.skip("no context-parallel cases or no bundle in the artifacts: rerun prepare.py")
    out = tmp_path_factory.mktemp("cp")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"),
                                                       TEST_PYTHON]),
               KDATILE_BUNDLE=os.path.join(artifact_dir(), bundle["dir"]))
    env.pop("KDATILE_GPU_RUNTIME", None)
    rendezvous = out / "rendezvous"
    procs = [subprocess.Popen([sys.executable, os.path.join(TEST_PYTHON, "cp_cases.py"), str(r),
                               "2", str(rendezvous), str(out), "cuda"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(2)]
    logs = [p.communicate(timeout=600)[0] for p in procs]
    for r, (p, log) in enumerate(zip(procs, logs)):
        assert p.returncode == 0, f"rank {r} failed:\n{log}"
    return out


@pytest.mark.parametrize("name", CASES)
def test_cp_matches_single_gpu(name, cp_run, bundle_kdatile, torch_cuda):
    sys.path.insert(0, TEST_PYTHON)
    import cp_cases
    from kda_chunk_reference import kda_prefill_reference
    from kda_reference import bf16_to_f32, rel_rms

    torch = torch_cuda
    case = next(c for c in cp_cases.GPU_CASES if c.name == name)
    q, k, v, g, beta, kw = cp_cases.inputs(case)
    dev = {n: cp_cases.to_torch(torch, x, "cuda") if isinstance(x, np.ndarray) else x
           for n, x in kw.items()}
    o_one, final_one = bundle_kdatile.ops.chunk_kda(
        *(cp_cases.to_torch(torch, x, "cuda") for x in (q, k, v, g, beta)), **dev)

    def widen(x):
        x = cp_cases.to_numpy(torch, x)
        return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)

    limit = 1e-2 if case.dtype == "bf16" else 5e-3
    parts = [np.load(cp_run / f"{name}.rank{r}.npz") for r in range(2)]
    o = np.concatenate([widen(p["o"]) for p in parts], axis=1)
    ref_kw = {n: kw.get(n) for n in ("cu_seqlens", "A_log", "dt_bias", "lower_bound",
                                     "initial_state")}
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta), use_qk_l2norm=True,
        use_gate=case.gate, use_beta_sigmoid=True, state_v_first=case.state_v_first, **ref_kw)
    assert np.isfinite(o).all()
    assert rel_rms(widen(o_one), o) <= limit
    assert rel_rms(ref_o, o) <= limit
    for p in parts:
        assert rel_rms(widen(final_one), p["final"]) <= limit
        assert rel_rms(ref_final, p["final"]) <= limit
        np.testing.assert_array_equal(p["final"], parts[0]["final"])
