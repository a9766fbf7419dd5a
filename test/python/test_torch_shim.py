"""The torch tensor path, exercised with a stand-in `torch` module when torch is absent.

The real-torch tests (test_args.py::test_torch_cpu_tensors, test_errors.py::test_torch_device)
are skipped when torch is not installed; this shim covers the same code (dtype names, devices,
data_ptr) without it.
"""

import sys
import types

import numpy as np
import pytest

import kdatile as kt

from conftest import requires_lib


class _Device:
    def __init__(self, kind):
        self.type = kind

    def __str__(self):
        return self.type


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


@pytest.fixture
def fake_torch(monkeypatch):
    if "torch" in sys.modules and not getattr(sys.modules["torch"], "_kdatile_fake", False):
        pytest.skip("the real torch is imported; the real-torch tests cover this")
    mod = types.ModuleType("torch")
    mod._kdatile_fake = True

    class Tensor:
        def __init__(self, array, dtype=None, device="cpu"):
            self.array = array
            self.dtype = _Dtype(dtype or array.dtype.name)
            self.device = _Device(device)

        def data_ptr(self):
            return self.array.ctypes.data

    mod.Tensor = Tensor
    monkeypatch.setitem(sys.modules, "torch", mod)
    return mod


def test_device_error(fake_torch):
    from vector_add import vector_add

    x = np.zeros(16, np.float32)
    t = fake_torch.Tensor(x, device="cuda")
    with pytest.raises(ValueError, match="'y_ptr': tensor is on device 'cuda'"):
        vector_add[(1,)](x, t, x, 16, BLOCK=16)


def test_dtype_error(fake_torch):
    from vector_add import vector_add

    x = np.zeros(16, np.float32)
    t = fake_torch.Tensor(x, dtype="complex64")
    with pytest.raises(TypeError, match="'out_ptr': unsupported torch dtype torch.complex64"):
        vector_add[(1,)](x, x, t, 16, BLOCK=16)


@requires_lib
def test_tensors_launch(fake_torch):
    from dsl_kernels import copy_cast
    from vector_add import vector_add

    n = 100
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    tx, tout = fake_torch.Tensor(x), fake_torch.Tensor(out)
    vector_add[(kt.cdiv(n, 32),)](tx, tx, tout, n, BLOCK=32)
    np.testing.assert_array_equal(out, 2 * x)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # exact: small ints are exact in bf16
    back = np.zeros(n, np.float32)
    copy_cast[(kt.cdiv(n, 32),)](fake_torch.Tensor(bits, dtype="bfloat16"),
                                 fake_torch.Tensor(back), n, BLOCK=32, OUT=kt.float32)
    np.testing.assert_array_equal(back, x)
