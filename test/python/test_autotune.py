"""kt.autotune and kt.testing.do_bench on the CPU target: the fastest configuration is chosen
per key and kept on disk for the next process; in-place arrays are restored between trials;
failing configurations are skipped; and the cold protocol's schedule keeps its gap."""

import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib

pytestmark = requires_lib
ROOT = pathlib.Path(__file__).resolve().parents[2]


@kt.jit
def add_one(x_ptr, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    kt.store(x_ptr + offs, kt.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


def grid(meta):
    return (kt.cdiv(meta["n"], meta["BLOCK"]),)


# Four elements per program run some hundred thousand programs for 2**19 elements: far slower
# on the host than 4096 per program. BLOCK=3 is not a power of two: it cannot compile.
CONFIGS = [kt.Config({"BLOCK": 4}), kt.Config({"BLOCK": 4096}), kt.Config({"BLOCK": 3})]


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path))
    return tmp_path


def tuned():
    return kt.autotune(configs=CONFIGS, key=["n"], restore=["x_ptr"])(add_one)


def test_fastest_configuration_wins_and_results_are_right(cache):
    tuner = tuned()
    x = np.zeros(1 << 19, np.float32)
    tuner[grid](x, x.size)
    np.testing.assert_array_equal(x, 1.0)  # restored before each trial: one increment in all
    assert tuner.best_config(x, x.size) == kt.Config({"BLOCK": 4096})
    assert tuner.trials == 3
    (failures,) = tuner.failures.values()
    assert list(failures) == ["kt.Config({'BLOCK': 3})"]
    assert "power of two" in failures["kt.Config({'BLOCK': 3})"]
    tuner[grid](x, x.size)  # the same key: no more trials
    assert tuner.trials == 3
    np.testing.assert_array_equal(x, 2.0)


def test_choice_persists_for_the_next_process(cache):
    x = np.zeros(1 << 19, np.float32)
    tuned()[grid](x, x.size)
    code = textwrap.dedent(f"""
        import sys
        import numpy as np
        sys.path.insert(0, {str(ROOT / "python")!r})
        sys.path.insert(0, {str(ROOT / "test" / "python")!r})
        import test_autotune as t
        tuner = t.tuned()
        x = np.zeros(1 << 19, np.float32)
        tuner[t.grid](x, x.size)
        print(tuner.trials, tuner.best_config(x, x.size))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split()[0] == "0" and "4096" in out


def test_a_new_key_tunes_again(cache):
    tuner = tuned()
    tuner[grid](np.zeros(1 << 19, np.float32), 1 << 19)
    tuner[grid](np.zeros(100, np.float32), 100)
    assert tuner.trials == 6 and len(tuner.timings) == 2


def test_every_configuration_failing_raises(cache):
    tuner = kt.autotune(configs=[kt.Config({"BLOCK": 3})], key=["n"])(add_one)
    with pytest.raises(RuntimeError, match="every configuration of 'add_one' failed"):
        tuner[grid](np.zeros(8, np.float32), 8)


def test_bad_declarations():
    with pytest.raises(ValueError, match="'m' is not a parameter of kernel 'add_one'"):
        kt.autotune(configs=CONFIGS, key=["m"])(add_one)
    with pytest.raises(ValueError, match="sets 'BLOK'"):
        kt.autotune(configs=[kt.Config({"BLOK": 4})], key=["n"])(add_one)
    with pytest.raises(TypeError, match="above @kt.jit"):
        kt.autotune(configs=CONFIGS, key=["n"])(lambda x: x)
    with pytest.raises(TypeError, match="non-empty list"):
        kt.autotune(configs=[], key=["n"])


def test_do_bench_on_the_host():
    calls = []
    us = kt.testing.do_bench(lambda: calls.append(1), warmup=2, reps=5, device="cpu")
    assert us >= 0 and len(calls) == 7
    with pytest.raises(ValueError, match="positive"):
        kt.testing.do_bench(lambda: None, reps=0, device="cpu")
    with pytest.raises(ValueError, match="'cuda' or 'cpu'"):
        kt.testing.do_bench(lambda: None, device="gpu")


def test_cold_schedule_keeps_the_gap():
    for batch, slot_bytes in ((1, 64 << 10), (256, 2 << 20), (8, 100)):
        groups, calls = kt.testing.cold_schedule(batch, slot_bytes)
        assert (groups - 1) * batch * slot_bytes >= kt.testing.COLD_GAP_BYTES
        assert calls % groups == 0 and calls >= kt.testing.COLD_MIN_CALLS
    with pytest.raises(ValueError, match="positive"):
        kt.testing.cold_schedule(0, 1)
