"""GPU launches of @kt.jit kernels against a fake device layer.

torch is replaced by a stand-in (devices, capabilities, streams, capture state) and the C API's
compile and kda_gpu_* calls by recorders, so target selection, compile requests, launch
arguments, CUDA-graph capture rules and device checks are tested without a GPU, without torch
and without libkda. test/gpu/ runs the real thing on a GPU.
"""

import contextlib
import ctypes
import json
import struct
import sys
import types

import numpy as np
import pytest

import kdatile as kt
from kdatile import _lib, gpu
from kdatile.runtime import parse_signature


class FakeDevice:
    def __init__(self, kind, index=None):
        self.type = kind
        self.index = index

    def __eq__(self, other):
        return isinstance(other, FakeDevice) and (self.type, self.index) == (other.type,
                                                                           other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class FakeGPU:
    """The stand-in torch module and the recorders of the C API calls."""

    def __init__(self, monkeypatch, *, hip=None, capability=(9, 0), arch="gfx950:sramecc+:xnack-"):
        self.current = 0
        self.capturing = False
        self.capability = capability
        self.arch = arch
        self.compiles = []
        self.loads = []
        self.launches = []
        self.compile_error = None  # emit -> message of a CompilationError to raise
        self.shared_bytes = 0
        self.early_launch = False  # what the fake compiler reports (kt.wait_prior_launches)

        fake = self
        torch = types.ModuleType("torch")
        torch._kdatile_fake = True
        torch.version = types.SimpleNamespace(hip=hip, cuda=None if hip else "13.0")

        class Tensor:
            def __init__(self, array, device="cuda:0", dtype=None):
                self.array = array
                kind, _, index = device.partition(":")
                self.device = FakeDevice(kind, int(index) if index else None)
                self.dtype = FakeDtype(dtype or array.dtype.name)

            def data_ptr(self):
                return self.array.ctypes.data

        @contextlib.contextmanager
        def device(index):
            old, fake.current = fake.current, int(index)
            try:
                yield
            finally:
                fake.current = old

        torch.Tensor = Tensor
        torch.cuda = types.SimpleNamespace(
            get_device_capability=lambda i: fake.capability,
            get_device_properties=lambda i: types.SimpleNamespace(gcnArchName=fake.arch),
            current_device=lambda: fake.current,
            device=device,
            current_stream=lambda i=None: types.SimpleNamespace(
                cuda_stream=0x1000 + (fake.current if i is None else int(i))),
            is_current_stream_capturing=lambda: fake.capturing,
        )
        self.torch = torch
        monkeypatch.setitem(sys.modules, "torch", torch)
        monkeypatch.setattr(gpu, "_targets", {})
        monkeypatch.setattr(gpu, "_loaded_functions", {})
        monkeypatch.setattr(_lib, "version", lambda: "kdatile fake")
        monkeypatch.setattr(_lib, "dependencies", lambda request: [])
        monkeypatch.setattr(_lib, "compile", self._compile)
        monkeypatch.setattr(_lib, "gpu_load", self._load)
        monkeypatch.setattr(_lib, "gpu_launch", self._launch)

    def tensor(self, array, device="cuda:0"):
        return self.torch.Tensor(array, device)

    def _compile(self, request):
        emit = request["emit"]
        self.compiles.append(dict(request))
        if self.compile_error and emit in self.compile_error:
            raise _lib.CompilationError(self.compile_error[emit])
        response = {"ok": True, "params": parse_signature(request["signature"]),
                    "shared_bytes": self.shared_bytes, "early_launch": self.early_launch}
        if emit == "ptx":
            response["text"] = "// fake ptx\n.version 8.0\n"
        else:
            with open(request["output"], "wb") as f:
                # Specializations differ in their code objects.
                consts = json.dumps(request.get("constexprs", {}), sort_keys=True)
                f.write(b"\x7fELF fake " + request["target"].encode() + b" " + consts.encode())
        return response

    def _load(self, platform, image, kernel):
        self.loads.append({"platform": platform, "image": image, "kernel": kernel,
                           "device": self.current})
        return 0xF00 + len(self.loads)

    def _launch(self, platform, function, grid, block, shared_bytes, stream, args, flags=0):
        if self.capturing and not isinstance(stream, int):
            raise AssertionError("stream must be an int handle")
        # args[i] points to the i-th value: keep its first 8 bytes.
        raw = [ctypes.string_at(args[i], 8) for i in range(len(args))]
        self.launches.append({"platform": platform, "function": function, "grid": tuple(grid),
                              "block": tuple(block), "shared_bytes": shared_bytes,
                              "stream": stream, "raw": raw, "device": self.current,
                              "flags": flags})


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path):
    """Each test compiles into its own disk cache (the fake code objects are not real)."""
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def fake(monkeypatch):
    if "torch" in sys.modules and not getattr(sys.modules["torch"], "_kdatile_fake", False):
        pytest.skip("the real torch is imported")
    return FakeGPU(monkeypatch)


def _new_kernel():
    """A fresh JITFunction of kernels/vector_add.py (empty memory cache)."""
    from vector_add import vector_add

    return kt.jit(vector_add.fn)


def _arrays(fake, n=64, device="cuda:0"):
    x = np.arange(n, dtype=np.float32)
    return [fake.tensor(a, device) for a in (x, x + 1, np.zeros(n, np.float32))]


def test_sm90a_target_and_launch(fake):
    add = _new_kernel()
    fake.shared_bytes = 4096
    x, y, out = _arrays(fake)
    add[(3,)](x, y, out, 64, BLOCK=32)
    (req,) = fake.compiles
    assert req["target"] == "sm_90a" and req["emit"] == "cubin" and req["num_warps"] == 4
    assert req["signature"].startswith("x_ptr=*f32:16,") or req["signature"].startswith(
        "x_ptr=*f32,")
    assert req["constexprs"]["BLOCK"] == 32
    (load,) = fake.loads
    assert load["platform"] == "cuda" and load["kernel"] == "vector_add"
    assert load["image"].startswith(b"\x7fELF fake sm_90a")
    (launch,) = fake.launches
    assert launch["grid"] == (3, 1, 1)
    assert launch["block"] == (128, 1, 1)  # 4 warps x 32
    assert launch["shared_bytes"] == 4096
    assert launch["stream"] == 0x1000
    ptrs = [struct.unpack("<Q", r)[0] for r in launch["raw"][:3]]
    assert ptrs == [x.data_ptr(), y.data_ptr(), out.data_ptr()]
    # n=64 is divisible by 16: a runtime i32 with the hint.
    assert struct.unpack("<i", launch["raw"][3][:4])[0] == 64
    # A second launch hits the memory cache and the loaded function.
    add[(1,)](x, y, out, 64, BLOCK=32)
    assert len(fake.compiles) == 1 and len(fake.loads) == 1 and len(fake.launches) == 2


def test_num_warps_is_part_of_the_key(fake):
    add = _new_kernel()
    x, y, out = _arrays(fake)
    add[(1,)](x, y, out, 64, BLOCK=32, num_warps=8)
    add[(1,)](x, y, out, 64, BLOCK=32, num_warps=2)
    add[(1,)](x, y, out, 64, BLOCK=32, num_warps=8)
    assert [c["num_warps"] for c in fake.compiles] == [8, 2]
    assert [launch["block"][0] for launch in fake.launches] == [256, 64, 256]
    with pytest.raises(ValueError, match="num_warps"):
        add[(1,)](x, y, out, 64, BLOCK=32, num_warps=0)


def test_decorator_num_warps_default(fake):
    from vector_add import vector_add

    add = kt.jit(vector_add.fn, num_warps=2)
    add[(1,)](*_arrays(fake), 64, BLOCK=32)
    assert fake.compiles[0]["num_warps"] == 2 and fake.launches[0]["block"] == (64, 1, 1)


@pytest.mark.parametrize("arch,block", [("gfx950:sramecc+:xnack-", 256), ("gfx1250", 128)])
def test_amd_target_from_gcn_arch(monkeypatch, arch, block):
    if "torch" in sys.modules and not getattr(sys.modules["torch"], "_kdatile_fake", False):
        pytest.skip("the real torch is imported")
    fake = FakeGPU(monkeypatch, hip="6.4", arch=arch)
    _new_kernel()[(2,)](*_arrays(fake), 64, BLOCK=32)
    (req,) = fake.compiles
    assert req["target"] == arch.split(":")[0] and req["emit"] == "hsaco"
    assert fake.loads[0]["platform"] == "hip"
    assert fake.launches[0]["platform"] == "hip" and fake.launches[0]["block"] == (block, 1, 1)


def test_unsupported_gpu(fake):
    fake.capability = (8, 0)
    with pytest.raises(RuntimeError, match="no target for NVIDIA GPU sm_80.*supported: sm_90a"):
        _new_kernel()[(1,)](*_arrays(fake), 64, BLOCK=32)
    assert not fake.compiles


def test_capture_needs_a_warm_kernel(fake):
    add = _new_kernel()
    x, y, out = _arrays(fake)
    fake.capturing = True
    with pytest.raises(RuntimeError, match=r"graph.*Run the kernel once.*before capturing"):
        add[(1,)](x, y, out, 64, BLOCK=32)
    assert not fake.compiles and not fake.loads and not fake.launches
    # Eager first, then the captured launch neither compiles nor loads.
    fake.capturing = False
    add[(1,)](x, y, out, 64, BLOCK=32)
    fake.capturing = True
    add[(1,)](x, y, out, 64, BLOCK=32)
    assert len(fake.compiles) == 1 and len(fake.loads) == 1 and len(fake.launches) == 2
    # Another specialization (BLOCK) is not compiled yet: an error, not a compile.
    with pytest.raises(RuntimeError, match="before capturing"):
        add[(1,)](x, y, out, 64, BLOCK=64)
    assert len(fake.compiles) == 1


def test_capture_after_warmup(fake):
    add = _new_kernel()
    x, y, out = _arrays(fake)
    kernel = add.warmup(x, y, out, 64, BLOCK=32)
    assert isinstance(kernel, gpu.GPUKernel) and kernel.is_loaded(0)
    assert len(fake.loads) == 1 and not fake.launches
    fake.capturing = True
    add[(1,)](x, y, out, 64, BLOCK=32)
    assert len(fake.launches) == 1 and len(fake.compiles) == 1


def test_capture_on_a_device_not_loaded_yet(fake):
    add = _new_kernel()
    add[(1,)](*_arrays(fake, device="cuda:0"), 64, BLOCK=32)
    fake.capturing = True
    with pytest.raises(RuntimeError, match="not loaded on device cuda:1"):
        add[(1,)](*_arrays(fake, device="cuda:1"), 64, BLOCK=32)


def test_launch_on_another_device_switches_to_it(fake):
    add = _new_kernel()
    add[(1,)](*_arrays(fake, device="cuda:1"), 64, BLOCK=32)
    (load,) = fake.loads
    (launch,) = fake.launches
    assert load["device"] == 1 and launch["device"] == 1 and launch["stream"] == 0x1001
    assert fake.current == 0


def test_mixed_host_and_gpu_arrays(fake):
    add = _new_kernel()
    x = np.zeros(64, np.float32)
    t = fake.tensor(x)
    with pytest.raises(ValueError, match="argument 'y_ptr': tensor is on device 'cuda:0', but "
                                         "argument 'x_ptr' is on the CPU"):
        add[(1,)](x, t, t, 64, BLOCK=32)
    with pytest.raises(ValueError, match="argument 'out_ptr' is a NumPy array .* on the CPU, "
                                         "but argument 'x_ptr' is on device 'cuda:0'"):
        add[(1,)](t, t, x, 64, BLOCK=32)
    cpu_tensor = fake.tensor(x, device="cpu")
    with pytest.raises(ValueError, match="'y_ptr' is a torch tensor .* on the CPU"):
        add[(1,)](t, cpu_tensor, t, 64, BLOCK=32)
    assert not fake.compiles


def test_arrays_on_two_gpus(fake):
    x = np.zeros(64, np.float32)
    with pytest.raises(ValueError, match="argument 'out_ptr': tensor is on device 'cuda:1', but "
                                         "argument 'x_ptr' is on device 'cuda:0'"):
        _new_kernel()[(1,)](fake.tensor(x), fake.tensor(x), fake.tensor(x, "cuda:1"), 64,
                            BLOCK=32)


def test_unsupported_device_type(fake):
    x = np.zeros(64, np.float32)
    with pytest.raises(ValueError, match="'y_ptr': tensor is on device 'mps'"):
        _new_kernel()[(1,)](fake.tensor(x), fake.tensor(x, "mps"), fake.tensor(x), 64, BLOCK=32)


def test_forced_cpu_target_rejects_gpu_tensors(fake):
    from vector_add import vector_add

    add = kt.jit(vector_add.fn, target="cpu")
    with pytest.raises(ValueError, match="compiled for the CPU"):
        add[(1,)](*_arrays(fake), 64, BLOCK=32)


def test_ptx_fallback_without_ptxas(fake):
    fake.compile_error = {"cubin": "error: cannot find ptxas (the CUDA toolkit's PTX assembler)"}
    add = _new_kernel()
    add[(1,)](*_arrays(fake), 64, BLOCK=32)
    assert [c["emit"] for c in fake.compiles] == ["cubin", "ptx"]
    image = fake.loads[0]["image"]
    assert image.startswith(b"// fake ptx") and image.endswith(b"\0")
    assert len(fake.launches) == 1


def test_other_compile_errors_propagate(fake):
    fake.compile_error = {"cubin": "kernel.py:3:4: error: something"}
    with pytest.raises(kt.CompilationError, match="something"):
        _new_kernel()[(1,)](*_arrays(fake), 64, BLOCK=32)


def test_disk_cache_holds_gpu_code_objects(fake):
    _new_kernel()[(1,)](*_arrays(fake), 64, BLOCK=32)
    kt.reset_cache_stats()
    _new_kernel()[(1,)](*_arrays(fake), 64, BLOCK=32)
    stats = kt.cache_stats()
    assert stats["disk_hits"] == 1 and stats["compiles"] == 0
    # The second kernel object reads the code object from disk and reuses the module the
    # first loaded (modules stay loaded: captured graphs may launch them).
    assert len(fake.compiles) == 1 and len(fake.loads) == 1
    assert fake.launches[1]["function"] == fake.launches[0]["function"]
    # The target is part of the key: an AMD device compiles again.
    gpu._targets.clear()
    fake.torch.version.hip = "6.4"
    _new_kernel()[(1,)](*_arrays(fake), 64, BLOCK=32)
    assert [c["target"] for c in fake.compiles] == ["sm_90a", "gfx950"]


def test_early_launch_only_for_kernels_that_wait(fake, monkeypatch):
    monkeypatch.setattr(gpu, "_early_launch", True)  # whatever KDATILE_EARLY_LAUNCH says
    x, y, out = _arrays(fake)
    _new_kernel()[(1,)](x, y, out, 64, BLOCK=32)
    assert fake.launches[-1]["flags"] == 0
    # A kernel whose compile result says it waits for the previous one (kt.wait_prior_launches)
    # is launched early, from memory and from the disk cache alike.
    fake.early_launch = True
    _new_kernel()[(1,)](x, y, out, 64, BLOCK=16)
    kt.reset_cache_stats()
    _new_kernel()[(1,)](x, y, out, 64, BLOCK=16)
    assert kt.cache_stats()["disk_hits"] == 1
    assert [launch["flags"] for launch in fake.launches[1:]] == [_lib.LAUNCH_EARLY] * 2
    # set_early_launch(False) (or KDATILE_EARLY_LAUNCH=0) launches it as any other.
    assert gpu.set_early_launch(False) is True
    _new_kernel()[(1,)](x, y, out, 64, BLOCK=16)
    assert fake.launches[-1]["flags"] == 0
    assert gpu.set_early_launch(True) is False


def test_memory_cache_bound_keeps_modules_loaded(fake, monkeypatch):
    # Evicted GPU specializations come back from disk and launch the module loaded before:
    # nothing is unloaded and nothing is loaded twice.
    monkeypatch.setenv("KDATILE_MEMORY_CACHE_ENTRIES", "2")
    kernel = _new_kernel()
    for block in (16, 32, 64, 16, 32, 64):
        kernel[(1,)](*_arrays(fake), 64, BLOCK=block)
    assert len(kernel._memory) == 2
    assert len(fake.compiles) == 3 and len(fake.loads) == 3
    functions = [launch["function"] for launch in fake.launches]
    assert functions[3:] == functions[:3]


def test_scalar_arguments(fake):
    @kt.jit
    def scale(x_ptr, out_ptr, alpha, n, flag, BLOCK: kt.constexpr):
        offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
        kt.store(out_ptr + offs, kt.load(x_ptr + offs) * alpha, mask=offs < n)

    x, _, out = _arrays(fake)
    scale[(1,)](x, out, 0.5, 2**40, True, BLOCK=32)
    (req,) = fake.compiles
    assert req["signature"].split(",")[2:] == ["alpha=f32", "n=i64:16", "flag=i1"]
    raw = fake.launches[0]["raw"]
    assert struct.unpack("<f", raw[2][:4])[0] == 0.5
    assert struct.unpack("<q", raw[3])[0] == 2**40
    assert struct.unpack("<i", raw[4][:4])[0] == 1


def test_empty_grid_compiles_but_does_not_launch(fake):
    _new_kernel()[(0,)](*_arrays(fake), 64, BLOCK=32)
    assert len(fake.compiles) == 1 and not fake.launches


class RuntimeRecorder:
    """A GPU runtime library's kda_gpu_launch / kda_gpu_launch_ex, recording their arguments;
    `with_ex=False` is a runtime from before early launches."""

    def __init__(self, with_ex):
        self.calls = []
        self.kda_gpu_launch = lambda *a: self._record("kda_gpu_launch", a)
        if with_ex:
            self.kda_gpu_launch_ex = lambda *a: self._record("kda_gpu_launch_ex", a)

    def _record(self, name, args):
        self.calls.append((name, len(args), args[10]))
        return 0


@pytest.mark.parametrize("with_ex", [True, False])
def test_launch_flags_reach_only_runtimes_that_take_them(monkeypatch, with_ex):
    runtime = RuntimeRecorder(with_ex)
    monkeypatch.setattr(_lib, "_gpu_lib", lambda: runtime)
    argv = (ctypes.c_void_p * 1)()
    launch = ("cuda", 0x10, (1, 1, 1), (32, 1, 1), 0, 0, argv)
    _lib.gpu_launch(*launch)
    _lib.gpu_launch(*launch, flags=_lib.LAUNCH_EARLY)
    # In-order launches keep the original entry point (12 arguments, args 11th); an early one
    # goes to kda_gpu_launch_ex (flags 11th) or, on an older runtime, runs in order.
    early = [("kda_gpu_launch_ex", 13, _lib.LAUNCH_EARLY)] if with_ex else \
        [("kda_gpu_launch", 12, argv)]
    assert runtime.calls == [("kda_gpu_launch", 12, argv)] + early

