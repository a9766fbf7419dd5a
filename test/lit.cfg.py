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
# Python tests, unit tests, GPU tests (test/gpu) and helper inputs are not lit tests.
config.excludes = ["python", "unit", "gpu", "Inputs", "lit.cfg.py", "lit.site.cfg.py"]

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
config.substitutions.append(("%kda_cc", _cc if os.path.exists(_cc) else "clang-22"))
config.substitutions.append(("%kda_libdir", os.path.join(config.kda_obj_root, "lib")))
config.substitutions.append(("%kda_include", os.path.join(config.kda_src_root, "include")))
