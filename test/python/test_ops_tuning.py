"""kdatile.ops.tuning: the ops' opt-in timed launch choices (the chunked prefill's scan) on the
CPU target: the switch, the candidates, results equal to the rule's launch, one tuning per key,
the choice kept on disk for another process, and the launch taken while a graph is captured."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kda_chunk_reference import prefill_inputs
from kdatile import Config
from kdatile.ops import chunk_gated_delta_rule, chunk_gla, chunk_kda, tuning
from kdatile.ops._kernels import execute
from kdatile.ops.chunk import chunk_launches

from conftest import requires_lib

pytestmark = requires_lib


@pytest.fixture
def tuned(tmp_path, monkeypatch):
    """Tuning on, choices cached under tmp_path, no tuner left from another test."""
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tuning, "_tuners", {})
    monkeypatch.setattr(tuning, "_launched", {})
    tuning.enable(True)
    yield tmp_path
    tuning.enable(None)


def arrays(T=40, H=2, D=32):
    rng = np.random.default_rng(7)
    q, k, v, g, beta = prefill_inputs(rng, 1, T, H, H, D, D, dtype="f32", use_gate=False,
                                      gate_low=-0.5, use_beta_sigmoid=False)
    return q, k, v, g, beta


def only_tuner():
    (tuner,) = tuning.tuners()
    return tuner


def test_switch(monkeypatch):
    monkeypatch.delenv(tuning.ENV, raising=False)
    assert not tuning.enabled()
    for value, on in (("1", True), ("0", False), ("", False), ("yes", True)):
        monkeypatch.setenv(tuning.ENV, value)
        assert tuning.enabled() is on
    tuning.enable(False)
    try:
        assert not tuning.enabled()  # the setting wins over the environment
    finally:
        tuning.enable(None)
    assert tuning.enabled()
    with pytest.raises(TypeError, match="expected a bool"):
        tuning.enable("on")


def test_scan_candidates_start_with_the_rule():
    gpu = tuning.scan_configs(64, 4, 128, gpu=True)
    assert [(c.constexprs["BV"], c.num_warps) for c in gpu] == [(64, 4), (32, 2), (32, 4)]
    rule = tuning.scan_configs(32, 2, 128, gpu=True)
    assert [(c.constexprs["BV"], c.num_warps) for c in rule] == [(32, 2), (64, 4), (32, 4)]
    narrow = tuning.scan_configs(16, 4, 16, gpu=True)
    assert [(c.constexprs["BV"], c.num_warps) for c in narrow] == [(16, 4), (16, 2)]
    cpu = tuning.scan_configs(64, None, 64, gpu=False)
    assert [(c.constexprs["BV"], c.num_warps) for c in cpu] == [(64, None), (32, None)]
    assert len(tuning.scan_configs(16, None, 16, gpu=False)) == 1


@pytest.mark.parametrize("op", ["kda", "gdn", "gla"])
def test_tuned_scan_matches_the_rule(tuned, op):
    q, k, v, g, beta = arrays()
    if op == "kda":
        def call():
            return chunk_kda(q, k, v, g, beta, output_final_state=True,
                             use_qk_l2norm_in_kernel=True)
    elif op == "gdn":
        def call():
            return chunk_gated_delta_rule(q, k, v, g[..., 0], beta, output_final_state=True,
                                          use_qk_l2norm_in_kernel=True)
    else:
        def call():
            return chunk_gla(q, k, v, g, output_final_state=True)
    tuning.enable(False)
    o_rule, final_rule = call()
    assert tuning.tuners() == []
    tuning.enable(True)
    o, final = call()
    tuner = only_tuner()
    assert tuner.trials == 2  # the head whole and halved
    np.testing.assert_allclose(o, o_rule, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(final, final_rule, rtol=1e-6, atol=1e-6)
    call()  # the same key: no second tuning
    assert tuner.trials == 2
    (stored,) = os.listdir(tuned / "autotune")
    assert stored.startswith("kda_chunk_scan-")
    with open(tuned / "autotune" / stored) as f:
        choices = json.load(f)
    (key,) = choices
    parts = key.split("|")
    assert parts[:2] == ["cpu", "N=1"] and {"HV=2", "K=32", "V=32", "BK=32"} <= set(parts)
    assert choices[key]["constexprs"]["BV"] in (32, 16)


def test_choice_survives_the_process_and_covers_other_lengths(tuned, monkeypatch):
    q, k, v, g, beta = arrays(T=40)
    chunk_kda(q, k, v, g, beta)
    first = only_tuner()
    assert first.trials == 2
    monkeypatch.setattr(tuning, "_tuners", {})  # as a new process: only the disk cache
    monkeypatch.setattr(tuning, "_launched", {})
    q, k, v, g, beta = arrays(T=70)  # another length, the same sequences and heads
    chunk_kda(q, k, v, g, beta)
    assert only_tuner().trials == 0


def test_one_candidate_is_not_timed(tuned):
    q, k, v, g, beta = arrays(D=16)  # the CPU's head of 16 columns is not halved
    o, final = chunk_kda(q, k, v, g, beta, output_final_state=True)
    assert tuning.tuners() == []
    tuning.enable(False)
    o_rule, final_rule = chunk_kda(q, k, v, g, beta, output_final_state=True)
    np.testing.assert_array_equal(o, o_rule)
    np.testing.assert_array_equal(final, final_rule)


def test_split_scan_is_refused():
    from kdatile.ops.chunk import scan_configs

    q, k, v, g, beta = arrays(T=300)
    _, launches = chunk_launches(q, k, v, g, beta, segment_tokens=128)
    assert len(launches) == 4
    for scan in (launches[1], launches[3]):
        with pytest.raises(ValueError, match="whole scan"):
            tuning.run_scan(scan, scan_configs(scan), capturing=False)


def test_captured_launch_takes_the_choice_or_the_rule(tuned):
    q, k, v, g, beta = arrays()
    (o, final), (prep, scan) = chunk_launches(q, k, v, g, beta, output_final_state=True)
    execute(None, prep)
    configs = [Config({"BV": 32}), Config({"BV": 16})]
    # Nothing tuned: the rule's launch, untimed.
    assert tuning.run_scan(scan, configs, capturing=True) == configs[0]
    assert only_tuner().trials == 0
    o_rule, final_rule = o.copy(), final.copy()
    chosen = tuning.run_scan(scan, configs, capturing=False)
    assert only_tuner().trials == 2 and chosen in configs
    o[...] = np.nan
    assert tuning.run_scan(scan, configs, capturing=True) == chosen
    assert only_tuner().trials == 2
    np.testing.assert_allclose(o, o_rule, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(final, final_rule, rtol=1e-6, atol=1e-6)
    # Another process finds the choice on disk, but a captured launch takes the rule's until
    # an eager call has launched (and so loaded) the choice.
    tuning._tuners.clear()
    tuning._launched.clear()
    assert tuning.run_scan(scan, configs, capturing=True) == configs[0]
    assert tuning.run_scan(scan, configs, capturing=False) == chosen
    assert only_tuner().trials == 0
    assert tuning.run_scan(scan, configs, capturing=True) == chosen


def test_docs_example(tmp_path):
    """docs/ops.md's example, as written, in a fresh process: it tunes the scan and prints
    one key's timings of the CPU's two candidates."""
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "ops.md").read_text()
    section = text[text.index("## Timed launch choices"):]
    begin = section.index("```python\n") + len("```python\n")
    example = section[begin:section.index("\n```", begin)]
    env = dict(os.environ, PYTHONPATH=str(root / "python"), KDATILE_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", example], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "'cpu|N=1|" in proc.stdout and "|HV=2|" in proc.stdout and "'BV': 32" in proc.stdout
