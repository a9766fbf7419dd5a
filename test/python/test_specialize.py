"""JITFunction.specialize: signatures, constexprs, grids and kda-compile command lines of
launches, and their agreement with what the JIT compiles (its disk cache entries)."""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kdatile as kt
from kdatile import _lib, cache

from conftest import KDA_COMPILE, ROOT, requires_lib

requires_kda_compile = pytest.mark.skipif(not os.path.isfile(KDA_COMPILE),
                                          reason=f"{KDA_COMPILE} is not built")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(d))
    return d


def _aligned(n, dtype=np.float32):
    """A 1-D array whose address is a multiple of 16 bytes."""
    itemsize = np.dtype(dtype).itemsize
    buf = np.zeros(n * itemsize + 16, np.uint8)
    start = -buf.ctypes.data % 16
    return buf[start:start + n * itemsize].view(dtype)


def test_vector_add_signature_constexprs_grid():
    from vector_add import vector_add

    x, y, out = (_aligned(1000) for _ in range(3))
    spec = vector_add.specialize(x, y, out, 1000, BLOCK=256,
                                 grid=lambda meta: (kt.cdiv(meta["n"], meta["BLOCK"]),))
    assert isinstance(spec, kt.Specialization)
    assert spec.kernel == "vector_add" and spec.target == "cpu" and spec.num_warps is None
    assert spec.signature == "x_ptr=*f32:16,y_ptr=*f32:16,out_ptr=*f32:16,n=i32"
    assert spec.constexprs == {"BLOCK": 256}
    assert spec.grid == (4, 1, 1)
    assert spec.filename == os.path.join(ROOT, "kernels", "vector_add.py")
    assert spec.arguments["n"] == 1000 and spec.arguments["x_ptr"] is x
    # Ints equal to 1 become constexprs, multiples of 16 get the hint; unaligned arrays do not.
    one = vector_add.specialize(x, y[1:2], out, 1, BLOCK=64, grid=(1,))
    assert one.signature == "x_ptr=*f32:16,y_ptr=*f32,out_ptr=*f32:16"
    assert one.constexprs == {"n": 1, "BLOCK": 64} and one.grid == (1, 1, 1)
    assert vector_add.specialize(x, y, out, 32, BLOCK=64).signature.endswith("n=i32:16")
    assert vector_add.specialize(x, y, out, 32, BLOCK=64).grid is None
    # The key is the specialization's: equal for equal launches, different otherwise.
    assert spec.key == vector_add.specialize(x, y, out, 1000, BLOCK=256).key
    assert spec.key != vector_add.specialize(x, y, out, 1000, BLOCK=128).key


def test_specialization_is_immutable():
    from vector_add import vector_add

    x = _aligned(64)
    spec = vector_add.specialize(x, x, x, 64, BLOCK=64)
    with pytest.raises(AttributeError, match="immutable"):
        spec.signature = "x"
    spec.constexprs["BLOCK"] = 1  # a copy
    assert spec.constexprs == {"BLOCK": 64}
    with pytest.raises(TypeError):
        spec.arguments["n"] = 3
    request = spec.request()
    request["constexprs"]["BLOCK"] = 1
    assert spec.request()["constexprs"] == {"BLOCK": 64}


def test_named_gpu_target_with_numpy_stand_ins():
    from vector_add import vector_add

    unaligned = np.zeros(65, np.float32)[1:]
    spec = vector_add.specialize(unaligned, unaligned, unaligned, 64, BLOCK=64,
                                 target="sm_90a")
    # Stand-ins for GPU tensors: keyed as aligned, as GPU allocations are.
    assert spec.signature == "x_ptr=*f32:16,y_ptr=*f32:16,out_ptr=*f32:16,n=i32:16"
    assert spec.target == "sm_90a" and spec.num_warps == 4
    assert spec.key[:2] == ("sm_90a", 4)
    kept = vector_add.specialize(unaligned, unaligned, unaligned, 64, BLOCK=64,
                                 target="gfx950", num_warps=8, assume_aligned=False)
    assert kept.signature.startswith("x_ptr=*f32,") and kept.num_warps == 8
    request = kept.request()
    assert request["target"] == "gfx950" and request["num_warps"] == 8
    host = vector_add.specialize(unaligned, unaligned, unaligned, 64, BLOCK=64)
    assert host.target == "cpu" and "num_warps" not in host.request()


def test_errors_are_the_launch_errors():
    from vector_add import vector_add

    x = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match="missing required constexpr 'BLOCK'"):
        vector_add.specialize(x, x, x, 64)
    with pytest.raises(TypeError, match="takes 5 arguments"):
        vector_add.specialize(x, x, x, 64, 1, 2)
    with pytest.raises(TypeError, match="argument 'x_ptr' is None"):
        vector_add.specialize(None, x, x, 64, BLOCK=64)
    with pytest.raises(ValueError, match="unknown target 'sm_80'"):
        vector_add.specialize(x, x, x, 64, BLOCK=64, target="sm_80")
    with pytest.raises(ValueError, match="num_warps"):
        vector_add.specialize(x, x, x, 64, BLOCK=64, target="sm_90a", num_warps=0)
    forced = kt.jit(vector_add.fn, target="gfx950")
    with pytest.raises(ValueError, match="forced to target 'gfx950'"):
        forced.specialize(x, x, x, 64, BLOCK=64, target="sm_90a")
    # A forced GPU target with host arrays: stand-ins for that target.
    assert forced.specialize(x, x, x, 64, BLOCK=64).target == "gfx950"


def test_compile_command_flags():
    from vector_add import vector_add

    x = _aligned(64)
    argv = vector_add.specialize(x, x, x, 7, BLOCK=64).compile_command()
    # The CPU target's request names the CPU ($KDATILE_CPU, default the host).
    assert argv == ["kda-compile", os.path.join(ROOT, "kernels", "vector_add.py"), "--kernel",
                    "vector_add", "--target", "cpu", "--cpu",
                    os.environ.get("KDATILE_CPU", "host"), "--signature",
                    "x_ptr=*f32:16,y_ptr=*f32:16,out_ptr=*f32:16,n=i32", "-D", "BLOCK=64",
                    "--stdlib-dir", _lib.PACKAGE_DIR]
    spec = vector_add.specialize(x, x, x, 7, BLOCK=0.5, target="gfx1250", num_warps=2)
    argv = spec.compile_command(output="k.s", emit="asm", kda_compile="/bin/kda-compile")
    assert argv[0] == "/bin/kda-compile" and argv[-4:] == ["--emit", "asm", "-o", "k.s"]
    assert argv[argv.index("--num-warps") + 1] == "2"
    assert "BLOCK=0.5" in argv
    assert "BLOCK=True" in vector_add.specialize(x, x, x, 7, BLOCK=True).compile_command()
    assert "BLOCK=bf16" in vector_add.specialize(x, x, x, 7,
                                                 BLOCK=kt.bfloat16).compile_command()


def test_compile_command_of_a_num_warps_parameter():
    """kernels/kda_decode_cluster.py (the small batches' launch on sm_90a) declares `num_warps:
    kt.constexpr`: on GPU targets the launch's warps are its value, given by --num-warps (a -D
    num_warps would have to agree)."""
    from kdatile.ops.decode import decode_launch
    from kdatile.ops.export import decode_arguments

    _, launch = decode_launch(**decode_arguments(1, fused=False), target="sm_90a")
    assert launch.kernel.__name__ == "kda_decode_cluster"
    spec = launch.kernel.specialize(*launch.args, **launch.constexprs, target="sm_90a",
                                    num_warps=launch.num_warps)
    assert spec.constexprs["num_warps"] == launch.num_warps == spec.num_warps
    argv = spec.compile_command()
    assert "-D" not in [argv[i - 1] for i, a in enumerate(argv) if a.startswith("num_warps=")]
    assert argv[argv.index("--num-warps") + 1] == str(launch.num_warps)
    cpu = launch.kernel.specialize(*launch.args, **launch.constexprs, target="cpu")
    assert cpu.num_warps is None and "num_warps=4" in cpu.compile_command()
    assert "--num-warps" not in cpu.compile_command()


def test_compile_command_refuses_fragments():
    @kt.jit
    def local_kernel(x_ptr, BLOCK: kt.constexpr):
        kt.store(x_ptr + kt.arange(0, BLOCK), kt.zeros((BLOCK,), kt.float32))

    spec = local_kernel.specialize(np.zeros(16, np.float32), BLOCK=16)
    assert spec.signature.startswith("x_ptr=*f32")
    with pytest.raises(ValueError, match="not defined at the top level"):
        spec.compile_command()


def test_compile_command_refuses_request_fields_without_a_flag(monkeypatch):
    """A compile request field compile_command cannot spell would make the command compile
    something else: it is an error, not a silently different command."""
    from kdatile import specialize

    from vector_add import vector_add

    x = _aligned(64)
    spec = vector_add.specialize(x, x, x, 7, BLOCK=64)
    request = spec.request()
    monkeypatch.setattr(specialize.Specialization, "request",
                        lambda self: dict(request, unknown_field="x"))
    with pytest.raises(ValueError, match="'unknown_field' has no kda-compile flag"):
        spec.compile_command()
    monkeypatch.setattr(specialize.Specialization, "request",
                        lambda self: dict(request, cpu="x86-64-v3", cpu_features="+avx2"))
    argv = spec.compile_command()
    assert argv[argv.index("--cpu") + 1] == "x86-64-v3"
    assert argv[argv.index("--cpu-features") + 1] == "+avx2"


def test_disk_key_hashes_every_request_field(monkeypatch):
    """A request field enters the disk cache key without code changes (paths do not)."""
    monkeypatch.setattr(_lib, "version", lambda: "kdatile test")
    monkeypatch.setattr(_lib, "dependencies", lambda request: [])
    request = {"source": "x", "filename": "/a/k.py", "kernel": "k", "target": "cpu",
               "signature": "", "constexprs": {"B": 1}, "search_paths": ["/a"],
               "stdlib_dir": "/s"}
    key = cache.disk_key(request)
    assert cache.disk_key(dict(request, cpu="znver4")) != key
    assert cache.disk_key(dict(request, constexprs={"B": 2})) != key
    assert cache.disk_key(dict(request, filename="/b/k.py", search_paths=["/b"],
                               stdlib_dir="/t")) == key
    assert cache.disk_key(dict(request, source="y")) != key


def _cached(cache_dir, kernel):
    """(meta, code object path) of the only disk cache entry of `kernel`."""
    (meta_path,) = [p for p in glob.glob(str(cache_dir / "*" / "*" / "meta.json"))
                    if json.load(open(p))["kernel"] == kernel]
    meta = json.load(open(meta_path))
    return meta, os.path.join(os.path.dirname(meta_path), meta["image"])


@requires_lib
@requires_kda_compile
def test_compile_command_reproduces_the_jit(cache_dir, tmp_path):
    """kda-compile with compile_command's argv writes the JIT's shared object, byte for byte,
    and the cache entry records the specialization's signature and constexprs."""
    x, y = _aligned(100), _aligned(100)
    out = _aligned(100)
    x[:] = 1.0
    y[:] = 2.0
    add = kt.jit(__import__("vector_add").vector_add.fn)  # a fresh memory cache
    spec = add.specialize(x, y, out, 100, BLOCK=64, grid=lambda m: (kt.cdiv(m["n"], 64),))
    add[spec.grid](x, y, out, 100, BLOCK=64)
    assert (out == 3.0).all()
    meta = _assert_command_reproduces(spec, cache_dir, tmp_path)
    assert meta["request"]["target"] == "cpu" and "source" not in meta["request"]


def _assert_command_reproduces(spec, cache_dir, tmp_path) -> dict:
    """kda-compile run with spec.compile_command() writes the JIT's cached shared object, byte
    for byte; returns the cache entry's meta.json."""
    meta, so = _cached(cache_dir, spec.kernel)
    assert meta["signature"] == spec.signature and meta["constexprs"] == spec.constexprs
    ours = tmp_path / f"{spec.kernel}.so"
    subprocess.run(spec.compile_command(output=str(ours), kda_compile=KDA_COMPILE),
                   check=True)
    assert ours.read_bytes() == open(so, "rb").read()
    return meta


@requires_lib
@requires_kda_compile
def test_compile_command_reproduces_the_ops_launch(cache_dir, tmp_path):
    """The same for a launch of kdatile.ops (kernels/kda_decode.py on the CPU target): the
    Launch's specialization is the one the JIT compiles when the op runs it."""
    from kdatile.ops import _kernels
    from kdatile.ops.decode import decode_launch
    from kdatile.ops.export import decode_arguments

    out, launch = decode_launch(**decode_arguments(2, fused=False, H=2, D=32))
    spec = launch.kernel.specialize(*launch.args, **launch.constexprs)
    kt.clear_cache(disk=False)  # compiled here, whatever ran before in this process
    _kernels.execute(out, launch)
    _assert_command_reproduces(spec, cache_dir, tmp_path)


@requires_lib
@requires_kda_compile
def test_gpu_compile_command_matches_the_request():
    """For a GPU target, kda-compile's PTX is the C API's for the same request."""
    from vector_add import vector_add

    x = np.zeros(64, np.float32)
    spec = vector_add.specialize(x, x, x, 64, BLOCK=128, target="sm_90a", num_warps=2)
    ptx = subprocess.run(spec.compile_command(output="-", emit="ptx", kda_compile=KDA_COMPILE),
                         check=True, capture_output=True, text=True).stdout
    assert ptx == _lib.compile(dict(spec.request(), emit="ptx"))["text"]


@requires_lib
@requires_kda_compile
def test_python_md_example_runs(tmp_path):
    """The Specializations example of docs/python.md, run from the repository root."""
    text = open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8").read()
    section = text[text.index("### Specializations"):]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "example.py"
    script.write_text(code.replace('"./va.so"', repr(str(tmp_path / "va.so"))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, "python"), os.path.join(ROOT, "kernels")]),
        KDATILE_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "x_ptr=*f32" in proc.stdout and "'--num-warps', '8'" in proc.stdout


FLOAT_CONSTEXPR_KERNEL = '''import kdatile as kt


@kt.jit
def float_block(out_ptr, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    kt.store(out_ptr + offs, offs.to(kt.float32))
'''


@requires_lib
@requires_kda_compile
def test_integral_float_constexpr_compiles_alike(tmp_path):
    """A float constexpr is a float for kda-compile and for the JIT's request alike (here
    kt.arange needs an int, so both must refuse 16.0)."""
    path = tmp_path / "float_block.py"
    path.write_text(FLOAT_CONSTEXPR_KERNEL)
    sys.path.insert(0, str(tmp_path))
    try:
        from float_block import float_block
    finally:
        sys.path.remove(str(tmp_path))
    spec = float_block.specialize(np.zeros(16, np.float32), BLOCK=16.0)
    assert spec.constexprs == {"BLOCK": 16.0}
    command = subprocess.run(spec.compile_command(output="-", emit="tile",
                                                  kda_compile=KDA_COMPILE),
                             capture_output=True, text=True)
    try:
        jit_text, jit_ok = _lib.compile(dict(spec.request(), emit="tile"))["text"], True
    except kt.CompilationError:
        jit_text, jit_ok = None, False
    assert (command.returncode == 0) == jit_ok
    if jit_ok:
        assert command.stdout == jit_text


@requires_lib
def test_float_constexprs_keep_their_type_and_sign():
    """An integral float constexpr stays a float through the C API (4.0 * 2**30 is 2**32, not
    an int32 product wrapping to 0), and -0.0 is not 0.0 (its own compile)."""
    from dsl_kernels import scaled_count

    out = np.zeros(2, np.float32)
    spec = scaled_count.specialize(out, 2 ** 30, SCALE=4.0)
    assert spec.request()["constexprs"] == {"SCALE": {"float": 4.0}}
    scaled_count[(1,)](out, 2 ** 30, SCALE=4.0)
    assert (out == 2.0 ** 32).all()
    negative, positive = np.zeros(2, np.float32), np.zeros(2, np.float32)
    scaled_count[(1,)](negative, 3, SCALE=-0.0)
    scaled_count[(1,)](positive, 3, SCALE=0.0)
    assert np.signbit(negative).all() and not np.signbit(positive).any()
    assert (scaled_count.specialize(out, 3, SCALE=-0.0).key
            != scaled_count.specialize(out, 3, SCALE=0.0).key)
