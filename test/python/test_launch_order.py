"""kt.wait_prior_launches and kt.launch_dependents: the compile result says whether a GPU launch
may start before the previous kernel ends ("early_launch"); on the CPU target both do nothing
and the kernel computes as without them. test_gpu_launch.py and test_bundle.py check the launch
flag that follows from it; test/gpu runs the early launches on a GPU."""

import ctypes
import os

import numpy as np
import pytest

from kdatile import _lib
from launch_order_kernels import scale_after_prior

from conftest import requires_lib

pytestmark = requires_lib

SOURCE = os.path.join(os.path.dirname(__file__), "launch_order_kernels.py")


@pytest.mark.parametrize("n", [1, 100, 256])
def test_kernel_that_waits_computes_on_the_cpu(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    scale_after_prior[(-(-n // 64),)](x, out, n, 0.5, BLOCK=64)
    np.testing.assert_array_equal(out, x * np.float32(0.5))


@pytest.mark.parametrize("kernel,early", [("scale_after_prior", True),
                                          ("scale_in_order", False)])
@pytest.mark.parametrize("target,emit", [("cpu", "tile"), ("sm_90a", "ptx"),
                                         ("gfx950", "tile")])
def test_compile_result_says_whether_a_launch_may_start_early(kernel, early, target, emit):
    with open(SOURCE, encoding="utf-8") as f:
        source = f.read()
    response = _lib.compile({"source": source, "filename": SOURCE, "kernel": kernel,
                             "signature": "x_ptr=*f32, out_ptr=*f32, n=i32, alpha=f32",
                             "constexprs": {"BLOCK": 64}, "target": target, "emit": emit})
    assert response["early_launch"] is early
    if emit == "ptx":
        assert ("griddepcontrol.wait;" in response["text"]) is early
        assert ("griddepcontrol.launch_dependents;" in response["text"]) is early


def test_unknown_launch_flags_are_an_error():
    # Checked by the C API before any driver is touched, so this runs without a GPU.
    handle = _lib._gpu_lib()
    err = ctypes.c_void_p()
    rc = handle.kda_gpu_launch_ex(b"cuda", None, 1, 1, 1, 32, 1, 1, 0, None, 2,
                                  (ctypes.c_void_p * 1)(), ctypes.byref(err))
    assert rc != 0
    assert "unknown launch flags 2" in _lib._take_string(err, handle)
