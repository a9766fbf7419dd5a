"""kt.device_print on the CPU target: one line per element with the program id and the element's
coordinates, in row-major order within a program, for every dtype and for several operands;
bad calls fail at the call's line."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib
from print_kernels import cases, print_grid, print_kinds, print_row

pytestmark = requires_lib


@kt.jit
def print_bad(x_ptr):
    kt.device_print("p", x_ptr)


def lines(capfd) -> list[str]:
    return capfd.readouterr().out.splitlines()


def test_tile_elements_in_order(capfd):
    x = np.array([0.5, 1.25, 3.0, 1e-8, 7.0, 8.0], dtype=np.float32)
    print_row[(1,)](x, 3, BLOCK=4, num_threads=1)
    assert lines(capfd) == [
        "pid (0, 0, 0) idx (0) x: 0.5",
        "pid (0, 0, 0) idx (1) x: 1.25",
        "pid (0, 0, 0) idx (2) x: 3",
        "pid (0, 0, 0) idx (3) x: -1",
    ]


def test_every_case_runs_as_a_script():
    # What the GPU check compares the device's lines with.
    root = pathlib.Path(__file__).resolve().parents[2]
    for case in cases():
        out = subprocess.run([sys.executable, str(root / "test/python/print_kernels.py"), case],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(root / "python")}).stdout
        assert out.count("pid (") == len(out.splitlines()) > 0


def test_every_program_prints(capfd):
    x = np.arange(16, dtype=np.float32)
    print_row[(4,)](x, 16, BLOCK=4)
    got = lines(capfd)
    want = {f"pid ({p}, 0, 0) idx ({i}) x: {4 * p + i}" for p in range(4) for i in range(4)}
    assert len(got) == 16 and set(got) == want


def test_operands_dtypes_and_hex(capfd):
    x = np.array([1.5, -2.0], dtype=np.float32)
    bf16_one = np.array([0x3F80], dtype=np.uint16)  # bf16 bits of 1.0
    print_kinds[(1,)](x, bf16_one, 7)
    assert lines(capfd) == [
        "pid (0, 0, 0) idx (0) pair (operand 0): 0",
        "pid (0, 0, 0) idx (1) pair (operand 0): 1",
        "pid (0, 0, 0) idx (0) pair (operand 1): 1.5",
        "pid (0, 0, 0) idx (1) pair (operand 1): -2",
        "pid (0, 0, 0) idx (0) bits: 0x3fc00000",
        "pid (0, 0, 0) idx (1) bits: 0xc0000000",
        "pid (0, 0, 0) idx (0) flag: 0",
        "pid (0, 0, 0) idx (1) flag: 1",
        "pid (0, 0, 0) idx (0) wide: 4294967296",
        "pid (0, 0, 0) idx (1) wide: 4294967297",
        "pid (0, 0, 0) n: 7",
        "pid (0, 0, 0) bf16: 1",
    ]


def test_two_dimensional_coordinates(capfd):
    print_grid[(1,)](np.array([100], np.int32), R=2, C=2)
    assert lines(capfd) == [
        "pid (0, 0, 0) idx (0, 0) t: 100",
        "pid (0, 0, 0) idx (0, 1) t: 101",
        "pid (0, 0, 0) idx (1, 0) t: 110",
        "pid (0, 0, 0) idx (1, 1) t: 111",
    ]


def test_pointer_argument_is_an_error():
    with pytest.raises(kt.CompilationError, match=r"prints numbers; argument 1 is a pointer"):
        print_bad[(1,)](np.zeros(1, np.float32))
