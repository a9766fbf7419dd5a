"""Bounds-checked CPU kernels ($KDATILE_CHECK_BOUNDS=1, kda-compile --check-bounds): an access
outside the arrays its pointer may derive from raises kt.OutOfBoundsError naming the DSL line,
the array and the offset, and touches no memory; masked-off lanes are never checked; and the
shipped ops' kernels run their CPU tests with every access checked."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib

pytestmark = requires_lib
ROOT = pathlib.Path(__file__).resolve().parents[2]


@kt.jit
def shifted_copy(x_ptr, y_ptr, n, SHIFT: kt.constexpr, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    x = kt.load(x_ptr + offs + SHIFT, mask=offs < n, other=7.0)
    kt.store(y_ptr + offs, x, mask=offs < n)


@kt.jit
def either(x_ptr, y_ptr, pick, n):
    offs = kt.arange(0, 8)
    src = x_ptr
    for _ in range(pick):  # a loop-carried pointer: either argument
        src = y_ptr
    kt.store(y_ptr + offs, kt.load(src + offs * n))


@kt.jit
def count_into(hist_ptr, idx_ptr, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    kt.atomic_add(hist_ptr + kt.load(idx_ptr + offs), 1)


@pytest.fixture
def checked(monkeypatch, tmp_path):
    monkeypatch.setenv("KDATILE_CHECK_BOUNDS", "1")
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path))
    kt.clear_cache()
    yield
    kt.clear_cache()


def test_load_past_the_end_is_reported_and_skipped(checked):
    x = np.arange(8, dtype=np.float32)
    y = np.full(8, -1.0, np.float32)
    with pytest.raises(kt.OutOfBoundsError) as err:
        shifted_copy[(1,)](x, y, 8, SHIFT=2, BLOCK=8)
    text = str(err.value)
    line = next(i for i, t in enumerate(pathlib.Path(__file__).read_text().splitlines(), 1)
                if "x = kt.load(x_ptr + offs + SHIFT" in t)
    assert f"test_bounds_checks.py:{line}:9: out-of-bounds kt.load at address" in text
    assert "byte offset 32 of 'x_ptr' (32 bytes at" in text
    # The in-bounds lanes ran; the skipped loads yielded zero, not memory past the array.
    np.testing.assert_array_equal(y, [2, 3, 4, 5, 6, 7, 0, 0])


def test_before_the_start(checked):
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(kt.OutOfBoundsError, match=r"byte offset -4 of 'x_ptr'"):
        shifted_copy[(1,)](x, np.zeros(8, np.float32), 8, SHIFT=-1, BLOCK=8)


def test_masked_lanes_are_not_checked(checked):
    x = np.arange(4, dtype=np.float32)
    y = np.zeros(4, np.float32)
    shifted_copy[(1,)](x, y, 4, SHIFT=0, BLOCK=16)  # lanes 4..15 are masked off
    np.testing.assert_array_equal(y, x)


def test_strided_view_spans_its_elements(checked):
    base = np.arange(16, dtype=np.float32)
    view = base[::2]  # 8 elements spanning 60 bytes: the gaps between them are inside
    y = np.zeros(8, np.float32)
    either[(1,)](view, y, 0, 2)
    np.testing.assert_array_equal(y, base[0:16:2])


def test_pointer_of_either_array(checked):
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(kt.OutOfBoundsError, match="outside every array the pointer may derive"):
        either[(1,)](x, np.zeros(8, np.float32), 2, 3)  # pick = 1 would be a constexpr


def test_atomics_are_checked(checked):
    hist = np.zeros(4, np.int32)
    with pytest.raises(kt.OutOfBoundsError, match=r"kt.atomic .*byte offset 16 of 'hist_ptr'"):
        count_into[(1,)](hist, np.array([0, 1, 4, 1], np.int32), BLOCK=4)
    np.testing.assert_array_equal(hist, [1, 2, 0, 0])


def test_unchecked_kernels_take_no_table(monkeypatch, tmp_path):
    monkeypatch.delenv("KDATILE_CHECK_BOUNDS", raising=False)
    spec = shifted_copy.specialize(np.zeros(4, np.float32), np.zeros(4, np.float32), 4,
                                   SHIFT=0, BLOCK=4)
    assert "check_bounds" not in spec.request()
    assert "--check-bounds" not in spec.compile_command()
    monkeypatch.setenv("KDATILE_CHECK_BOUNDS", "1")
    assert "--check-bounds" in spec.compile_command()


# The ops' CPU tests, with every access of their kernels checked: an out-of-bounds access of a
# shipped kernel fails them with the kernel's line.
OPS_TESTS = [
    "test_ops_kda_decode.py::test_consecutive_steps",
    "test_ops_kda_recurrent.py::test_varlen_spec_decode",
    "test_ops_kda_recurrent.py::test_final_state_only",
    "test_ops_kda_recurrent_records.py::test_steps_replay_accepted_records",
    "test_ops_chunk_kda.py::test_varlen_lower_bound_gate_with_states",
    "test_ops_chunk_kda.py::test_gva_softplus_gate_v_first_non_power_of_two",
    "test_ops_chunk_kda.py::test_zero_tokens_and_empty_sequences",
    "test_ops_chunk_gated_delta_rule.py::test_varlen_gva",
    "test_ops_chunk_gla.py::test_varlen_gva_with_initial_state",
    "test_ops_fused_recurrent.py::test_kda_gva_varlen",
    "test_ops_fused_recurrent.py::test_gated_delta_rule_gva_varlen",
    "test_ops_fused_recurrent_gla.py::test_gva_varlen",
]


def test_shipped_kernels_stay_in_bounds(tmp_path):
    env = dict(os.environ, KDATILE_CHECK_BOUNDS="1", KDATILE_CACHE_DIR=str(tmp_path),
               PYTHONPATH=str(ROOT / "python"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         f"--basetemp={tmp_path / 'run'}",
         *[str(ROOT / "test/python" / t) for t in OPS_TESTS]],
        cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    # They ran checked kernels: every compile in their cache asked for the checks.
    metas = [json.loads(p.read_text()) for p in (tmp_path / "run").rglob("meta.json")]
    kernels = {m["kernel"] for m in metas}
    assert {"kda_decode", "kda_recurrent"} <= kernels
    assert all(m["request"].get("check_bounds") for m in metas)
