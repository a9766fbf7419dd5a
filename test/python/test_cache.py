"""In-memory and on-disk caches of compiled specializations."""

import gc
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kdatile as kt

from conftest import ROOT, requires_lib

pytestmark = requires_lib


def _import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


KERNEL = """\
import kdatile as kt


@kt.jit
def helper(x):
    return x * {factor}


@kt.jit
def scaled_copy(x_ptr, out_ptr, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    kt.store(out_ptr + offs, helper(kt.load(x_ptr + offs, mask=mask)), mask=mask)
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(d))
    kt.reset_cache_stats()
    return d


def _run(mod, n=50, block=32):
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    mod.scaled_copy[(kt.cdiv(n, block),)](x, out, n, BLOCK=block)
    return x, out


def test_memory_hit_and_constexpr(tmp_path, cache):
    path = tmp_path / "k_mem.py"
    path.write_text(KERNEL.format(factor="2.0"))
    mod = _import_file(str(path), "k_mem")
    _run(mod)
    assert kt.cache_stats() == {"memory_hits": 0, "disk_hits": 0, "compiles": 1}
    x, out = _run(mod)
    np.testing.assert_array_equal(out, 2 * x)
    assert kt.cache_stats() == {"memory_hits": 1, "disk_hits": 0, "compiles": 1}
    _run(mod, block=64)  # another constexpr: another kernel
    assert kt.cache_stats()["compiles"] == 2
    _run(mod, n=64)  # n % 16 == 0: another specialization
    assert kt.cache_stats()["compiles"] == 3
    entries = [p for p in cache.rglob("meta.json")]
    assert len(entries) == 3
    meta = json.loads(entries[0].read_text())
    assert {"entry", "params", "signature", "constexprs"} <= meta.keys()
    assert not list(cache.rglob(".tmp-*"))


def test_disk_hit_in_new_process(tmp_path, cache):
    path = tmp_path / "k_disk.py"
    path.write_text(KERNEL.format(factor="3.0"))
    _run(_import_file(str(path), "k_disk"))
    assert kt.cache_stats()["compiles"] == 1
    code = (
        "import sys, numpy as np, importlib.util, kdatile as kt\n"
        f"spec = importlib.util.spec_from_file_location('k_disk', {str(path)!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "x = np.arange(50, dtype=np.float32); out = np.zeros(50, np.float32)\n"
        "mod.scaled_copy[(2,)](x, out, 50, BLOCK=32)\n"
        "assert (out == 3 * x).all()\n"
        "print(kt.cache_stats())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str({"memory_hits": 0, "disk_hits": 1, "compiles": 0})


def test_editing_helper_recompiles(tmp_path, cache):
    path = tmp_path / "k_edit.py"
    path.write_text(KERNEL.format(factor="2.0"))
    x, out = _run(_import_file(str(path), "k_edit"))
    np.testing.assert_array_equal(out, 2 * x)
    path.write_text(KERNEL.format(factor="5.0"))
    x, out = _run(_import_file(str(path), "k_edit"))
    np.testing.assert_array_equal(out, 5 * x)
    assert kt.cache_stats()["compiles"] == 2
    path.write_text(KERNEL.format(factor="2.0"))  # back to the first text: a disk hit
    x, out = _run(_import_file(str(path), "k_edit"))
    np.testing.assert_array_equal(out, 2 * x)
    assert kt.cache_stats() == {"memory_hits": 0, "disk_hits": 1, "compiles": 2}


def test_editing_imported_module_recompiles(tmp_path, cache):
    (tmp_path / "mylib_k.py").write_text(
        "import kdatile as kt\n\n\n@kt.jit\ndef helper(x):\n    return x * 2.0\n")
    main = tmp_path / "k_import.py"
    main.write_text(KERNEL.split("@kt.jit\ndef helper")[0] + "from mylib_k import helper\n\n\n"
                    + "@kt.jit\ndef scaled_copy" + KERNEL.split("def scaled_copy")[1])
    sys.path.insert(0, str(tmp_path))
    try:
        x, out = _run(_import_file(str(main), "k_import"))
        np.testing.assert_array_equal(out, 2 * x)
        (tmp_path / "mylib_k.py").write_text(
            "import kdatile as kt\n\n\n@kt.jit\ndef helper(x):\n    return x * 7.0\n")
        x, out = _run(_import_file(str(main), "k_import"))
        np.testing.assert_array_equal(out, 7 * x)
        assert kt.cache_stats()["compiles"] == 2
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("mylib_k", None)


def test_clear_cache(tmp_path, cache):
    path = tmp_path / "k_clear.py"
    path.write_text(KERNEL.format(factor="2.0"))
    mod = _import_file(str(path), "k_clear")
    _run(mod)
    kt.clear_cache()
    assert not cache.exists()
    _run(mod)
    assert kt.cache_stats()["compiles"] == 2


def test_damaged_entry_recompiles(tmp_path, cache):
    path = tmp_path / "k_damaged.py"
    path.write_text(KERNEL.format(factor="4.0"))
    # Fill the cache from another process: a .so loaded here must not be overwritten in place.
    code = (
        "import numpy as np, importlib.util, kdatile as kt\n"
        f"spec = importlib.util.spec_from_file_location('k_damaged', {str(path)!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "x = np.arange(50, dtype=np.float32); out = np.zeros(50, np.float32)\n"
        "mod.scaled_copy[(2,)](x, out, 50, BLOCK=32)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    sos = list(cache.rglob("*.so"))
    assert len(sos) == 1
    sos[0].write_bytes(b"not an ELF file")
    x, out = _run(_import_file(str(path), "k_damaged"))
    np.testing.assert_array_equal(out, 4 * x)
    assert kt.cache_stats() == {"memory_hits": 0, "disk_hits": 0, "compiles": 1}


def test_rebuilt_compiler_recompiles(tmp_path, cache):
    """A different compiler build (another libkda.so file) never reuses cached kernels, even
    when kda_version() reads the same (the revision is taken at configure time)."""
    from kdatile import _lib

    path = tmp_path / "k_rebuilt.py"
    path.write_text(KERNEL.format(factor="3.0"))
    _run(_import_file(str(path), "k_rebuilt"))
    assert kt.cache_stats()["compiles"] == 1
    rebuilt = tmp_path / "libkda_rebuilt.so"
    rebuilt.write_bytes(open(_lib.library_path(), "rb").read() + b"\0rebuilt")
    code = (
        "import numpy as np, importlib.util, kdatile as kt\n"
        f"spec = importlib.util.spec_from_file_location('k_rebuilt', {str(path)!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "x = np.arange(50, dtype=np.float32); out = np.zeros(50, np.float32)\n"
        "mod.scaled_copy[(2,)](x, out, 50, BLOCK=32)\n"
        "assert (out == 3 * x).all()\n"
        "print(kt.cache_stats())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
               KDATILE_LIBRARY=str(rebuilt))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str({"memory_hits": 0, "disk_hits": 0, "compiles": 1})


def _fill_from_subprocess(path, name, runs=1):
    """Runs scaled_copy of the kernel file `path` in `runs` processes at once; returns each
    one's cache_stats()."""
    code = (
        "import numpy as np, importlib.util, kdatile as kt\n"
        f"spec = importlib.util.spec_from_file_location({name!r}, {str(path)!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "x = np.arange(50, dtype=np.float32); out = np.zeros(50, np.float32)\n"
        "mod.scaled_copy[(2,)](x, out, 50, BLOCK=32)\n"
        "assert (out != 0).sum() == 49, out\n"
        "print(kt.cache_stats()['compiles'], kt.cache_stats()['disk_hits'])\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(runs)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err  # never a crash loading a damaged entry
        results.append(tuple(int(v) for v in out.split()))
    return results


def _damage(entry_dir, how):
    meta_path = entry_dir / "meta.json"
    meta = json.loads(meta_path.read_text())
    image = entry_dir / meta["image"]
    data = image.read_bytes()
    if how == "truncated":
        image.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        image.write_bytes(data[:1000] + bytes(b ^ 0xFF for b in data[1000:1100]) + data[1100:])
    elif how == "empty_params":
        meta["params"] = []
    elif how == "reordered_params":
        meta["params"] = meta["params"][::-1]
    if how == "meta_is_directory":
        meta_path.unlink()
        meta_path.mkdir()
    else:
        meta_path.write_text(json.dumps(meta))


@pytest.mark.parametrize("how", ["truncated", "flipped", "empty_params", "reordered_params",
                                 "meta_is_directory", "other_specialization"])
def test_damaged_entries_are_compiled_again(tmp_path, cache, how):
    """An entry whose code object or parameters are not the ones recorded at compile time is
    compiled again, never loaded (a truncated .so would kill the process in dlopen)."""
    path = tmp_path / f"k_{how}.py"
    path.write_text(KERNEL.format(factor="2.0"))
    assert _fill_from_subprocess(path, f"k_{how}") == [(1, 0)]
    (entry,) = [p.parent for p in cache.rglob("meta.json")]
    if how == "other_specialization":
        other = tmp_path / "k_other.py"
        other.write_text(KERNEL.format(factor="3.0"))
        _fill_from_subprocess(other, "k_other")
        theirs = [p.parent for p in cache.rglob("meta.json") if p.parent != entry][0]
        (entry / "scaled_copy.so").write_bytes((theirs / "scaled_copy.so").read_bytes())
    else:
        _damage(entry, how)
    assert _fill_from_subprocess(path, f"k_{how}") == [(1, 0)]
    assert _fill_from_subprocess(path, f"k_{how}") == [(0, 1)]  # healed


def test_concurrent_first_compiles_compile_once(tmp_path, cache):
    path = tmp_path / "k_race.py"
    path.write_text(KERNEL.format(factor="2.0"))
    results = _fill_from_subprocess(path, "k_race", runs=4)
    assert sum(c for c, _ in results) == 1 and sum(h for _, h in results) == 3, results


def test_cache_dir_that_is_a_file(tmp_path, monkeypatch):
    bad = tmp_path / "not_a_dir"
    bad.write_text("")
    monkeypatch.setenv("KDATILE_CACHE_DIR", str(bad))
    path = tmp_path / "k_file.py"
    path.write_text(KERNEL.format(factor="2.0"))
    with pytest.raises(RuntimeError, match="cache directory .*not_a_dir .*is not a directory"):
        _run(_import_file(str(path), "k_file"))


SCALED = """\
import kdatile as kt


@kt.jit
def scaled(x_ptr, out_ptr, SCALE: kt.constexpr):
    offs = kt.arange(0, 16)
    kt.store(out_ptr + offs, kt.load(x_ptr + offs) * SCALE)
"""


def _mapped_cache_libraries(cache) -> set:
    with open("/proc/self/maps") as f:
        return {line.split()[-1] for line in f if str(cache) in line and line.endswith(".so\n")}


def test_memory_cache_is_bounded(tmp_path, cache, monkeypatch):
    # Every float constexpr is a specialization; only the 4 most recently used stay in memory
    # and the libraries of the others are closed.
    monkeypatch.setenv("KDATILE_MEMORY_CACHE_ENTRIES", "4")
    path = tmp_path / "k_bounded.py"
    path.write_text(SCALED)
    mod = _import_file(str(path), "k_bounded")
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    for i in range(12):
        mod.scaled[(1,)](x, out, SCALE=float(i) + 0.5)
        np.testing.assert_array_equal(out, x * (i + 0.5))
    assert len(mod.scaled._memory) == 4 and len(mod.scaled._memory.values()) == 4
    assert kt.cache_stats()["compiles"] == 12
    gc.collect()
    assert len(_mapped_cache_libraries(cache)) == 4
    # The most recent ones are memory hits; an evicted one comes back from disk.
    mod.scaled[(1,)](x, out, SCALE=11.5)
    assert kt.cache_stats()["memory_hits"] == 1
    mod.scaled[(1,)](x, out, SCALE=0.5)
    np.testing.assert_array_equal(out, x * 0.5)
    assert kt.cache_stats()["disk_hits"] == 1
    assert len(mod.scaled._memory) == 4


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_memory_cache_size_must_be_positive(tmp_path, monkeypatch, value):
    monkeypatch.setenv("KDATILE_MEMORY_CACHE_ENTRIES", value)
    path = tmp_path / "k_bad_size.py"
    path.write_text(SCALED)
    with pytest.raises(ValueError, match="KDATILE_MEMORY_CACHE_ENTRIES must be a positive"):
        _import_file(str(path), "k_bad_size")


def test_compile_notice_for_long_compiles(capsys, monkeypatch):
    """A compile still running after the notice delay says so on stderr, then its time; a
    quick one says nothing; KDATILE_COMPILE_NOTICE_S=off silences it."""
    import time

    from kdatile.cache import compile_notice

    with compile_notice("slow_kernel", "cpu", after=0.05):
        time.sleep(0.3)
    err = capsys.readouterr().err
    assert "kdatile: compiling slow_kernel for cpu" in err
    assert "kdatile: compiled slow_kernel for cpu in 0." in err
    with compile_notice("quick_kernel", "cpu", after=5.0):
        pass
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("KDATILE_COMPILE_NOTICE_S", "0.05")
    with compile_notice("slow_kernel", "cpu"):
        time.sleep(0.3)
    assert "compiling slow_kernel" in capsys.readouterr().err
    monkeypatch.setenv("KDATILE_COMPILE_NOTICE_S", "off")
    with compile_notice("slow_kernel", "cpu"):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""


PRINTING = """\
import kdatile as kt


@kt.jit
def printing_copy(x_ptr, out_ptr, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    kt.static_print("BLOCK", BLOCK, offs)
    mask = offs < n
    kt.store(out_ptr + offs, kt.load(x_ptr + offs, mask=mask), mask=mask)
"""


def test_static_print_at_compile_only(tmp_path, cache, capfd):
    path = tmp_path / "k_print.py"
    path.write_text(PRINTING)
    mod = _import_file(str(path), "k_print")
    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    mod.printing_copy[(2,)](x, out, 40, BLOCK=32)
    np.testing.assert_array_equal(out, x)
    err = capfd.readouterr().err
    assert "k_print.py:7:5: static_print: BLOCK 32 tile of type tensor<32xi32>" in err
    mod.printing_copy[(2,)](x, out, 40, BLOCK=32)  # the cached kernel prints nothing
    assert "static_print" not in capfd.readouterr().err
