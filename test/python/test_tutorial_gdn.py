"""The variant of docs/tutorial-variant.md (docs/examples/gdn_step.py) on the CPU target,
against an fp64 reference written from the GDN math."""

import os
import sys

import numpy as np
import pytest

from conftest import ROOT, requires_lib

sys.path.insert(0, os.path.join(ROOT, "docs", "examples"))
from gdn_step import gdn_step  # noqa: E402

pytestmark = requires_lib


def reference(q, k, v, raw_g, raw_beta, A_log, dt_bias, state):
    B, H, D = q.shape
    q = q.astype(np.float64)
    k = k.astype(np.float64)
    q = q / np.sqrt((q * q).sum(-1, keepdims=True) + 1e-6) * D ** -0.5
    k = k / np.sqrt((k * k).sum(-1, keepdims=True) + 1e-6)
    a = raw_g + dt_bias[None, :]
    softplus = np.where(a > 20, a, np.log1p(np.exp(np.minimum(a, 20))))
    alpha = np.exp(-np.exp(A_log)[None, :] * softplus)
    beta = 1 / (1 + np.exp(-raw_beta))
    S = state.astype(np.float64) * alpha[:, :, None, None]
    u = np.einsum("nhvk,nhk->nhv", S, k)
    S = S + np.einsum("nhv,nhk->nhvk", beta[:, :, None] * (v - u), k)
    return np.einsum("nhvk,nhk->nhv", S, q), S


@pytest.mark.parametrize("B,H", [(1, 1), (3, 4)])
def test_gdn_step(B, H):
    D = 64
    rng = np.random.default_rng(B * 10 + H)
    q, k, v = (rng.standard_normal((B, H, D)).astype(np.float32) for _ in range(3))
    raw_g = rng.standard_normal((B, H)).astype(np.float32)
    raw_beta = rng.standard_normal((B, H)).astype(np.float32)
    A_log = rng.uniform(-1, 1, H).astype(np.float32)
    dt_bias = rng.standard_normal(H).astype(np.float32)
    state = (rng.standard_normal((B, H, D, D)) * 0.1).astype(np.float32)
    o_ref, s_ref = reference(q, k, v, raw_g, raw_beta, A_log, dt_bias, state)
    o = np.empty((B, H, D), np.float32)
    gdn_step[(B, H)](q, k, v, raw_g, raw_beta, A_log, dt_bias, state, o, H=H, D=D)
    assert np.sqrt(np.mean((o - o_ref) ** 2)) / np.sqrt(np.mean(o_ref ** 2)) < 1e-5
    assert np.sqrt(np.mean((state - s_ref) ** 2)) / np.sqrt(np.mean(s_ref ** 2)) < 1e-5


def test_harness_runs_as_written(capsys, monkeypatch):
    """The tutorial's harness block (```python harness), executed as the tutorial says."""
    import re

    text = open(os.path.join(ROOT, "docs", "tutorial-variant.md")).read()
    (block,) = re.findall(r"```python harness\n(.*?)```", text, re.S)
    monkeypatch.chdir(ROOT)
    exec(compile(block, "tutorial-variant.md", "exec"), {"__name__": "__tutorial__"})
    out = capsys.readouterr().out
    assert "output rel RMS" in out and "VGPRs" in out and "us per launch" in out
