"""The `kda-compile` and `kda-opt` commands of an installed package: they run the native tools
that the wheel holds in kdatile/_native/bin (where the tools also find the DSL standard library,
in kdatile/_native/share/kdatile)."""

from __future__ import annotations

import os
import sys

NATIVE_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native", "bin")


def _run(tool: str) -> None:
    path = os.path.join(NATIVE_BIN, tool)
    if not os.access(path, os.X_OK):
        sys.exit(f"{tool}: the native tool {path} is missing; reinstall kdatile (pip install .)")
    os.execv(path, [tool, *sys.argv[1:]])


def kda_compile() -> None:
    _run("kda-compile")


def kda_opt() -> None:
    _run("kda-opt")
