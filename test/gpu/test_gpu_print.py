"""kt.device_print on CUDA: each case of test/python/print_kernels.py, launched from the
ahead-of-time bundle in a process of its own, prints exactly the lines the CPU target printed
(test/gpu/prepare.py saved them), in any order: every element once, by the one thread that
holds it, however many threads of the program hold replicas."""

import os
import subprocess
import sys

import pytest

from conftest import MANIFEST, ROOT, artifact_dir

PRINTS = (MANIFEST or {}).get("prints") or {}


@pytest.mark.parametrize("case", sorted(PRINTS))
def test_device_lines_match_the_cpu(torch_cuda, case):
    bundle = (MANIFEST or {}).get("bundle") or {}
    if "dir" not in bundle:
        pytest.skip(f"no bundle in the artifacts: {bundle.get('error', 'rerun prepare.py')}")
    env = dict(os.environ, KDATILE_BUNDLE=os.path.join(artifact_dir(), bundle["dir"]),
               PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("KDATILE_GPU_RUNTIME", None)
    script = os.path.join(ROOT, "test", "python", "print_kernels.py")
    run = subprocess.run([sys.executable, script, case, "--cuda"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.splitlines()) == sorted(PRINTS[case])
