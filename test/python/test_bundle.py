"""Ahead-of-time bundles (kt.export_bundle, KDATILE_BUNDLE) against a fake device layer.

Export runs the JIT's compile path with the compiler faked (test_gpu_launch.FakeGPU); launches
in bundle mode must never compile: they load the bundled code objects through the (fake) GPU
runtime. test/gpu/ runs bundles for real on a GPU (bench/run_gpu_checks.sh).
"""

import ctypes
import importlib.util
import json
import os
import sys

import numpy as np
import pytest

import kdatile as kt
from kdatile import _lib, bundle, gpu
from test_gpu_launch import FakeGPU

KERNEL_SOURCE = '''import kdatile as kt


@kt.jit
def scale(x_ptr, out_ptr, n, alpha: kt.float32, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    kt.store(out_ptr + offs, kt.load(x_ptr + offs, mask=mask) * alpha, mask=mask)
'''

_counter = [0]


def load_kernels(path):
    """Imports the kernel file at `path` as a fresh module (a new @kt.jit snapshot)."""
    _counter[0] += 1
    name = f"_bundle_kernels_{_counter[0]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake(monkeypatch, tmp_path):
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KDATILE_BUNDLE", raising=False)
    monkeypatch.delenv("KDATILE_GPU_RUNTIME", raising=False)
    f = FakeGPU(monkeypatch)
    f.shared_bytes = 512
    return f


@pytest.fixture
def kfile(tmp_path):
    path = tmp_path / "src" / "scale_kernels.py"
    path.parent.mkdir()
    path.write_text(KERNEL_SOURCE)
    return path


def host_args(n=256):
    return (np.ones(n, np.float32), np.zeros(n, np.float32), n, 2.0)


def export(fn, out, *launch_kwargs, **options):
    launches = [(fn, host_args(), dict(kw)) for kw in (launch_kwargs or ({"BLOCK": 128},))]
    return kt.export_bundle(str(out), launches, **options)


def no_compiler(monkeypatch):
    """Bundle-mode launches must not reach the compiler."""
    def refuse(*a, **k):
        raise AssertionError("the compiler was called in bundle mode")

    monkeypatch.setattr(_lib, "compile", refuse)
    monkeypatch.setattr(_lib, "dependencies", refuse)
    monkeypatch.setattr(_lib, "version", refuse)


def gpu_args(fake, n=256):
    x = fake.tensor(np.full(n, 3, np.float32))
    out = fake.tensor(np.zeros(n, np.float32))
    return x, out, n, 2.0


def test_export_writes_index_and_code_objects(fake, kfile, tmp_path):
    mod = load_kernels(kfile)
    out = tmp_path / "bundle"
    exported = export(mod.scale, out, {"BLOCK": 128}, {"BLOCK": 256, "num_warps": 8})
    index = json.loads((out / "index.json").read_text())
    assert index["format"] == bundle.FORMAT and index["compiler"] == "kdatile fake"
    entry = index["kernels"]["scale_kernels.py:scale"]
    assert entry["source_sha256"] == bundle._source_hash(mod.scale)
    specs = entry["specializations"]
    assert len(specs) == 2 and [k for _, k in exported] == list(specs)
    # The key is the JIT's in-memory key (pointers keyed as aligned, as GPU allocations are).
    want = mod.scale.specialize(*host_args(), BLOCK=256, target="sm_90a", num_warps=8)
    skey = json.dumps(want.key, separators=(",", ":"))
    spec = specs[skey]
    assert spec["num_warps"] == 8 and spec["block"] == [256, 1, 1]
    assert spec["shared_bytes"] == 512 and spec["platform"] == "cuda"
    assert spec["signature"] == "x_ptr=*f32:16,out_ptr=*f32:16,n=i32:16,alpha=f32"
    assert spec["constexprs"] == {"BLOCK": 256}
    assert [p["name"] for p in spec["params"]] == ["x_ptr", "out_ptr", "n", "alpha"]
    assert (out / spec["images"]["cubin"]).read_bytes().startswith(b"\x7fELF fake sm_90a")
    assert b".version" in (out / spec["images"]["ptx"]).read_bytes()
    assert "scale_kernels.py:scale" in bundle.describe(str(out))


def test_export_is_deterministic_and_accumulates(fake, kfile, tmp_path):
    mod = load_kernels(kfile)
    a, b = tmp_path / "a", tmp_path / "b"
    export(mod.scale, a, {"BLOCK": 128}, {"BLOCK": 256})
    export(mod.scale, b, {"BLOCK": 128})
    export(mod.scale, b, {"BLOCK": 256})
    assert (a / "index.json").read_text() == (b / "index.json").read_text()
    assert sorted(os.listdir(a)) == sorted(os.listdir(b))


def test_reexport_after_edit_drops_stale_specializations(fake, kfile, tmp_path):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out, {"BLOCK": 128}, {"BLOCK": 256})
    kfile.write_text(KERNEL_SOURCE + "\n# edited\n")
    export(load_kernels(kfile).scale, out, {"BLOCK": 64})
    specs = json.loads((out / "index.json").read_text())["kernels"]["scale_kernels.py:scale"]
    assert [s["constexprs"] for s in specs["specializations"].values()] == [{"BLOCK": 64}]


def test_launch_from_bundle(fake, kfile, tmp_path, monkeypatch):
    mod = load_kernels(kfile)
    out = tmp_path / "bundle"
    export(mod.scale, out, {"BLOCK": 128, "num_warps": 2})
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    fresh = load_kernels(kfile).scale  # as in a new process: nothing in memory
    kt.reset_cache_stats()
    fresh[(2,)](*gpu_args(fake), BLOCK=128, num_warps=2)
    fresh[(2,)](*gpu_args(fake), BLOCK=128, num_warps=2)
    assert kt.cache_stats() == {"memory_hits": 1, "disk_hits": 0, "compiles": 0}
    assert len(fake.loads) == 1 and fake.loads[0]["image"].startswith(b"\x7fELF fake sm_90a")
    assert fake.loads[0]["kernel"] == "scale" and fake.loads[0]["platform"] == "cuda"
    launch = fake.launches[0]
    assert launch["grid"] == (2, 1, 1) and launch["block"] == (64, 1, 1)
    assert launch["shared_bytes"] == 512 and launch["stream"] == 0x1000
    assert launch["flags"] == 0
    assert len(launch["raw"]) == 4
    assert ctypes.c_int32.from_buffer_copy(launch["raw"][2][:4]).value == 256
    assert ctypes.c_float.from_buffer_copy(launch["raw"][3][:4]).value == 2.0


def test_bundle_keeps_early_launch(fake, kfile, tmp_path, monkeypatch):
    monkeypatch.setattr(gpu, "_early_launch", True)  # whatever KDATILE_EARLY_LAUNCH says
    fake.early_launch = True  # the kernel calls kt.wait_prior_launches
    mod = load_kernels(kfile)
    out = tmp_path / "bundle"
    export(mod.scale, out, {"BLOCK": 128})
    index = json.loads((out / "index.json").read_text())
    (spec,) = index["kernels"]["scale_kernels.py:scale"]["specializations"].values()
    assert spec["early_launch"] is True
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    load_kernels(kfile).scale[(2,)](*gpu_args(fake), BLOCK=128)
    assert fake.launches[0]["flags"] == _lib.LAUNCH_EARLY


def test_missing_specialization_is_a_clear_error(fake, kfile, tmp_path, monkeypatch):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out, {"BLOCK": 128})
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    fn = load_kernels(kfile).scale
    with pytest.raises(kt.BundleError) as e:
        fn[(1,)](*gpu_args(fake), BLOCK=512)
    msg = str(e.value)
    assert "kernel 'scale'" in msg and "not in the bundle" in msg and "BLOCK=512" in msg
    assert "target=sm_90a, num_warps=4" in msg and str(out) in msg
    assert "BLOCK=128" in msg  # what the bundle has
    with pytest.raises(kt.BundleError, match="not in the bundle"):
        fn[(1,)](*gpu_args(fake), BLOCK=128, num_warps=8)
    assert not fake.loads and not fake.launches


def test_kernel_absent_from_bundle(fake, kfile, tmp_path, monkeypatch):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out)
    other = tmp_path / "other" / "other_kernels.py"
    other.parent.mkdir()
    other.write_text(KERNEL_SOURCE)
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    with pytest.raises(kt.BundleError, match=r"'scale' \(other_kernels.py:scale\) is not in "
                                             r"the bundle"):
        load_kernels(other).scale[(1,)](*gpu_args(fake), BLOCK=128)


def test_edited_source_never_runs_stale_code(fake, kfile, tmp_path, monkeypatch):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out)
    kfile.write_text(KERNEL_SOURCE.replace("* alpha", "* alpha + 1.0"))
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    with pytest.raises(kt.BundleError, match=r"scale_kernels.py was edited since the export.*"
                                             r"Re-export"):
        load_kernels(kfile).scale[(1,)](*gpu_args(fake), BLOCK=128)
    assert not fake.loads and not fake.launches


def test_edited_dependency_never_runs_stale_code(fake, kfile, tmp_path, monkeypatch):
    helper = kfile.parent / "helpers.py"
    helper.write_text("def twice(x):\n    return x * 2\n")
    monkeypatch.setattr(_lib, "dependencies", lambda request: [str(kfile), str(helper)])
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out)
    entry = json.loads((out / "index.json").read_text())["kernels"]["scale_kernels.py:scale"]
    assert [(d["base"], d["path"]) for d in entry["dependencies"]] == [("kernel", "helpers.py")]
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    fn = load_kernels(kfile).scale
    fn[(1,)](*gpu_args(fake), BLOCK=128)  # unchanged: runs
    helper.write_text("def twice(x):\n    return x * 3\n")
    fn2 = load_kernels(kfile).scale
    with pytest.raises(kt.BundleError, match=r"dependency .*helpers.py was edited"):
        fn2[(1,)](*gpu_args(fake), BLOCK=128)
    helper.unlink()
    with pytest.raises(kt.BundleError, match=r"dependency helpers.py .* cannot be read"):
        load_kernels(kfile).scale[(1,)](*gpu_args(fake), BLOCK=128)


def test_bundle_search_path_and_stale_first_bundle(fake, kfile, tmp_path, monkeypatch):
    old, new = tmp_path / "old", tmp_path / "new"
    export(load_kernels(kfile).scale, old)
    kfile.write_text(KERNEL_SOURCE + "\n")
    export(load_kernels(kfile).scale, new)
    monkeypatch.setenv("KDATILE_BUNDLE", f"{old}{os.pathsep}{new}")
    no_compiler(monkeypatch)
    load_kernels(kfile).scale[(1,)](*gpu_args(fake), BLOCK=128)  # old is stale: new serves it
    assert len(fake.launches) == 1


def test_argument_validation_before_lookup(fake, kfile, tmp_path, monkeypatch):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out)
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    fn = load_kernels(kfile).scale
    x, o, n, alpha = gpu_args(fake)
    with pytest.raises(TypeError, match="argument 'x_ptr' is None"):
        fn[(1,)](None, o, n, alpha, BLOCK=128)
    with pytest.raises(TypeError, match="'alpha' must be a scalar"):
        fn[(1,)](x, o, n, o, BLOCK=128)
    with pytest.raises(TypeError, match="missing required constexpr 'BLOCK'"):
        fn[(1,)](x, o, n, alpha)
    with pytest.raises(ValueError, match="same device"):
        fn[(1,)](x, fake.tensor(np.zeros(256, np.float32), "cuda:1"), n, alpha, BLOCK=128)
    assert not fake.loads


def test_cubin_load_failure_falls_back_to_ptx(fake, kfile, tmp_path, monkeypatch):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out)
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    load = fake._load

    def picky(platform, image, kernel):
        if image.startswith(b"\x7fELF"):
            raise RuntimeError("kdatile: loading kernel 'scale' failed: no kernel image")
        return load(platform, image, kernel)

    monkeypatch.setattr(_lib, "gpu_load", picky)
    load_kernels(kfile).scale[(1,)](*gpu_args(fake), BLOCK=128)
    assert fake.loads[0]["image"].startswith(b"// fake ptx") and fake.loads[0]["image"][-1] == 0
    assert len(fake.launches) == 1


def test_capture_needs_warm_bundle_kernel(fake, kfile, tmp_path, monkeypatch):
    out = tmp_path / "bundle"
    export(load_kernels(kfile).scale, out)
    monkeypatch.setenv("KDATILE_BUNDLE", str(out))
    no_compiler(monkeypatch)
    fn = load_kernels(kfile).scale
    fake.capturing = True
    with pytest.raises(RuntimeError, match="before capturing"):
        fn[(1,)](*gpu_args(fake), BLOCK=128)
    fake.capturing = False
    kernel = fn.warmup(*gpu_args(fake), BLOCK=128)
    assert isinstance(kernel, bundle.BundleKernel) and kernel.is_loaded(0)
    fake.capturing = True
    fn[(1,)](*gpu_args(fake), BLOCK=128)
    assert len(fake.launches) == 1 and len(fake.loads) == 1


def test_export_rejects_bad_launches(fake, kfile, tmp_path):
    fn = load_kernels(kfile).scale
    with pytest.raises(TypeError, match="not a @kt.jit kernel"):
        kt.export_bundle(str(tmp_path / "b"), [(print, ())])
    with pytest.raises(TypeError, match="each launch is"):
        kt.export_bundle(str(tmp_path / "b"), [fn])
    with pytest.raises(TypeError, match="missing required constexpr 'BLOCK'"):
        kt.export_bundle(str(tmp_path / "b"), [(fn, host_args())])
    twin = tmp_path / "twin" / "scale_kernels.py"
    twin.parent.mkdir()
    twin.write_text(KERNEL_SOURCE + "\n# another kernel of the same name\n")
    with pytest.raises(kt.BundleError, match="two different kernels"):
        kt.export_bundle(str(tmp_path / "b"), [(fn, host_args(), {"BLOCK": 64}),
                                               (load_kernels(twin).scale, host_args(),
                                                {"BLOCK": 64})])


def test_bundle_without_index(fake, kfile, tmp_path, monkeypatch):
    monkeypatch.setenv("KDATILE_BUNDLE", str(tmp_path / "nowhere"))
    no_compiler(monkeypatch)
    with pytest.raises(kt.BundleError, match="has no index.json"):
        load_kernels(kfile).scale[(1,)](*gpu_args(fake), BLOCK=128)


def test_gpu_runtime_library_choice(tmp_path, monkeypatch):
    monkeypatch.delenv("KDATILE_GPU_RUNTIME", raising=False)
    monkeypatch.delenv("KDATILE_BUNDLE", raising=False)
    assert _lib.gpu_runtime_path() is None  # libkda itself
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (b / _lib.GPU_RUNTIME_NAME).write_bytes(b"")
    monkeypatch.setenv("KDATILE_BUNDLE", f"{a}{os.pathsep}{b}")
    assert _lib.gpu_runtime_path() == str(b / _lib.GPU_RUNTIME_NAME)
    monkeypatch.setenv("KDATILE_GPU_RUNTIME", str(tmp_path / "missing.so"))
    with pytest.raises(RuntimeError, match="KDATILE_GPU_RUNTIME"):
        _lib.gpu_runtime_path()
    monkeypatch.setenv("KDATILE_GPU_RUNTIME", str(b / _lib.GPU_RUNTIME_NAME))
    assert _lib.gpu_runtime_path() == str(b / _lib.GPU_RUNTIME_NAME)


def test_bundle_without_runtime_or_compiler(tmp_path, monkeypatch):
    monkeypatch.delenv("KDATILE_GPU_RUNTIME", raising=False)
    monkeypatch.setenv("KDATILE_BUNDLE", str(tmp_path))
    monkeypatch.setattr(_lib, "_gpu_handles", {})

    def no_lib():
        raise RuntimeError("kdatile: cannot find libkda.so")

    monkeypatch.setattr(_lib, "lib", no_lib)
    # The message names the bundle's missing runtime and why the compiler cannot stand in.
    with pytest.raises(RuntimeError, match=r"no GPU runtime for the bundle.*\(kdatile: cannot "
                                           r"find libkda\.so\)"):
        _lib.gpu_load("cuda", b"x", "k")


def test_missing_compiler_mentions_bundles(monkeypatch, tmp_path):
    monkeypatch.delenv("KDATILE_LIBRARY", raising=False)
    monkeypatch.setattr(_lib, "SOURCE_TREE_LIBRARY", str(tmp_path / "libkda.so"))
    with pytest.raises(RuntimeError, match="KDATILE_BUNDLE"):
        _lib.library_path()


ARTIFACT_RUNTIME = os.path.join(os.path.dirname(__file__), "..", "gpu", "artifacts",
                                _lib.GPU_RUNTIME_NAME)


@pytest.mark.skipif(not os.path.isfile(ARTIFACT_RUNTIME),
                    reason="no libkda_gpu_runtime.so: run test/gpu/prepare.py")
def test_real_gpu_runtime_library_loads(monkeypatch):
    """The LLVM-free runtime of prepare.py serves kda_gpu_*; errors come back as text."""
    monkeypatch.setenv("KDATILE_GPU_RUNTIME", os.path.abspath(ARTIFACT_RUNTIME))
    monkeypatch.setattr(_lib, "_gpu_handles", {})
    with pytest.raises(RuntimeError, match=r"kdatile: loading kernel 'k' failed: \S"):
        _lib.gpu_load("cuda", b"not a code object", "k")  # no driver / no device / bad image
    with pytest.raises(RuntimeError, match="unknown GPU platform"):
        _lib.gpu_load("metal", b"x", "k")
