# lit configuration for kdatile: .mlir and DSL (.py) tests under test/.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "kdatile"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kda_obj_root, "test")
# Python tests, unit tests, GPU tests (test/gpu), the fuzzer's corpus maker and helper inputs
# are not lit tests.
config.excludes = ["python", "unit", "gpu", "fuzz", "Inputs", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%kda_src", config.kda_src_root))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    [ToolSubst("kda-opt", unresolved="fatal"), ToolSubst("kda-compile", unresolved="fatal")],
    [config.kda_tools_dir],
)

# GPU back-end tests that assemble PTX need ptxas (CUDA toolkit).
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")

# C tests of generated headers: a C compiler, libkda and the public headers.
_cc = os.path.join(config.llvm_tools_dir, "clang")
_cc = _cc if os.path.exists(_cc) else "clang-22"
if config.kda_sanitize:
    # A sanitized libkda expects the sanitizer runtimes of the program that links it.
    _cc += " -fsanitize=address,undefined"
config.substitutions.append(("%kda_cc", _cc))
config.substitutions.append(("%kda_libdir", os.path.join(config.kda_obj_root, "lib")))
config.substitutions.append(("%kda_include", os.path.join(config.kda_src_root, "include")))

# The compiles of the shipped KDA kernels at the launches kdatile.ops picks, from
# `python3 -m kdatile.ops.export` (one source for their signatures and constexprs):
# %{<job>_<target>}, e.g. %{kda_decode_gfx950}, expands to kda-compile's arguments for that
# job (file, --kernel, --target, --signature, -D constexprs, --stdlib-dir) without
# --num-warps, which a RUN line gives when it is not kda-compile's default of 4 (the option
# may appear once); a -D after it overrides a constexpr (the last one wins).
def _kda_launch_substitutions():
    import json
    import re
    import shlex
    import shutil
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.path.join(config.kda_src_root, "python"),
               KDATILE_KERNELS=os.path.join(config.kda_src_root, "kernels"))
    # The python3 the Python tests run with (it has NumPy), which need not be lit's own.
    python = shutil.which("python3") or sys.executable
    command = [python, "-m", "kdatile.ops.export", "--target", "all", "--checks", "--format",
               "json"]
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        lit_config.fatal(f"{' '.join(command)} failed:\n{proc.stderr}")
    for job in json.loads(proc.stdout):
        argv = job["argv"][1:]
        if "--num-warps" in argv:
            at = argv.index("--num-warps")
            del argv[at:at + 2]
        name = "%{" + f"{job['name']}_{job['target']}" + "}"
        config.substitutions.append((re.escape(name), shlex.join(argv)))


_kda_launch_substitutions()
