"""`pip install .` into a fresh virtual environment, then use from outside the repository.

The install reuses the build tree (pyproject.toml's build-dir), so it configures and links
nothing new after `.ci/setup`. From a temporary directory, with no KDATILE_* variables and no
PYTHONPATH, the installed package runs the README's first kernel, one kdatile.ops.kda_decode
call (bit-identical to the source tree's result) and `kda-compile --help`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

DECODE_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import kdatile
    from kdatile import ops

    rng = np.random.default_rng(7)
    B, H, D, slots = 3, 2, 128, 5
    C = 3 * H * D

    def bf16(a):
        bits = np.asarray(a, np.float32).view(np.uint32)
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)

    state = (rng.standard_normal((slots, H, D, D)) * 0.1).astype(np.float32)
    conv_state = bf16(rng.standard_normal((slots, C, 3)))
    out = ops.kda_decode(
        bf16(rng.standard_normal((B, C))), bf16(rng.standard_normal((C, 4)) * 0.5), conv_state,
        bf16(rng.standard_normal((B, H, D))), bf16(rng.standard_normal((B, H))),
        rng.uniform(-1, 1, H).astype(np.float32),
        (rng.standard_normal(H * D) * 0.5).astype(np.float32), state,
        np.array([4, -1, 0], np.int32), bf16(rng.standard_normal((B, H, D))),
        bf16(rng.uniform(0.5, 1.5, D)))
    np.savez(sys.argv[1], out=out, state=state, conv_state=conv_state)
    print("package", kdatile.__file__)
    print("library", kdatile._lib.library_path())
""")


def _readme_first_kernel() -> str:
    """The Python block of the README's "Your first kernel" section."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme.split("## Your first kernel", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README.md: no python block under 'Your first kernel'"
    return match.group(1)


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KDATILE_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def _run(argv, cwd, env, timeout=900):
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(argv)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh virtual environment with the package installed from the repository."""
    home = tmp_path_factory.mktemp("venv")
    env_dir = str(home / "env")
    # System site packages give it NumPy without a download; kdatile itself is not there.
    _run([sys.executable, "-m", "venv", "--system-site-packages", env_dir], str(home),
         _clean_env())
    python = os.path.join(env_dir, "bin", "python")
    _run([python, "-m", "pip", "install", "-q", ROOT], str(home), _clean_env())
    return env_dir


def test_installed_package_runs_from_anywhere(venv, tmp_path):
    python = os.path.join(venv, "bin", "python")
    env = _clean_env(KDATILE_CACHE_DIR=str(tmp_path / "cache"))
    first = tmp_path / "first.py"
    first.write_text(_readme_first_kernel())
    _run([python, str(first)], str(tmp_path), env)

    script = tmp_path / "decode.py"
    script.write_text(DECODE_SCRIPT)
    installed = _run([python, str(script), str(tmp_path / "installed.npz")], str(tmp_path), env)
    site = os.path.join(venv, "lib")
    assert f"package {site}" in installed, installed
    assert f"library {site}" in installed and "_native/lib/libkda.so" in installed, installed

    # The source tree's package computes the same bits.
    _run([sys.executable, str(script), str(tmp_path / "tree.npz")], str(tmp_path),
         _clean_env(PYTHONPATH=os.path.join(ROOT, "python"),
                    KDATILE_CACHE_DIR=str(tmp_path / "cache-tree")))
    got, want = np.load(tmp_path / "installed.npz"), np.load(tmp_path / "tree.npz")
    for name in ("out", "state", "conv_state"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_installed_tools_on_path(venv, tmp_path):
    env = _clean_env()
    help_text = _run([os.path.join(venv, "bin", "kda-compile"), "--help"], str(tmp_path), env)
    assert "--cpu" in help_text and "--target" in help_text
    # The installed tool finds the DSL standard library (kt.silu) next to itself.
    kernel = tmp_path / "silu_rows.py"
    kernel.write_text(textwrap.dedent("""
        import kdatile as kt

        @kt.jit
        def silu_rows(x_ptr, BLOCK: kt.constexpr):
            offs = kt.arange(0, BLOCK)
            kt.store(x_ptr + offs, kt.silu(kt.load(x_ptr + offs)))
    """))
    _run([os.path.join(venv, "bin", "kda-compile"), str(kernel), "--kernel", "silu_rows",
          "--signature", "x_ptr=*f32", "-D", "BLOCK=16", "--emit", "so", "-o",
          str(tmp_path / "silu_rows.so")], str(tmp_path), env)
    assert (tmp_path / "silu_rows.so").is_file()
    opt_help = _run([os.path.join(venv, "bin", "kda-opt"), "--help"], str(tmp_path), env)
    assert "kda-cpu-pipeline" in opt_help
