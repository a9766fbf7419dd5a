"""kt.cluster_sum on the CPU target: each cluster's programs run on threads of their own and
meet at every sum (CPULauncher.cpp); the same kernels run on the H200 in test/gpu."""

import os
import subprocess

import numpy as np
import pytest

import kdatile as kt
from cluster_kernels import (
    cluster_totals,
    different_sums,
    normalize_rows,
    two_sums,
    uneven_sums,
)

from conftest import requires_lib

pytestmark = requires_lib


@pytest.mark.parametrize("rows,parts", [(5, 4), (3, 2), (2, 8)])
def test_row_norm_over_a_cluster(rows, parts):
    x = np.random.default_rng(rows * parts).standard_normal((rows, parts * 128))
    x = x.astype(np.float32)
    out = np.zeros_like(x)
    normalize_rows[(rows, parts)](x, out, COLS=128, PARTS=parts)
    ref = x / np.linalg.norm(x.astype(np.float64), axis=1, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("size", [2, 4, 8])
def test_sum_is_the_same_in_every_program_and_a_branch_may_skip_it(size):
    n = 4 * size
    x = np.random.default_rng(size).standard_normal(n).astype(np.float32)
    flags = np.array([1, 0, 1, 1], np.int32)
    out = np.zeros(n, np.float32)
    cluster_totals[(n,)](x, out, flags, SIZE=size)
    for c in range(4):
        got = out[c * size:(c + 1) * size]
        if not flags[c]:
            np.testing.assert_array_equal(got, -1.0)
            continue
        # Rank order, in fp32: the same bits in every program of the cluster.
        want = np.float32(0)
        for v in x[c * size:(c + 1) * size]:
            want = np.float32(want + v)
        np.testing.assert_array_equal(got, want)


def test_grid_must_divide_into_clusters():
    x = np.zeros((3, 512), np.float32)
    with pytest.raises(ValueError, match=r"grid \(3, 3, 1\) is not a multiple of the "
                                         r"kernel's cluster shape \(1, 4, 1\)"):
        normalize_rows[(3, 3)](x, np.zeros_like(x), COLS=128, PARTS=4)


@pytest.mark.parametrize("size", [2, 4])
def test_two_sums_in_a_row(size):
    x = np.random.default_rng(7).standard_normal(3 * size).astype(np.float32)
    out = np.zeros_like(x)
    two_sums[(3 * size,)](x, out, SIZE=size)
    groups = x.astype(np.float64).reshape(3, size)
    want = np.repeat(groups.sum(1) * (groups ** 2).sum(1), size)
    np.testing.assert_allclose(out, want, rtol=1e-5)


@pytest.mark.parametrize("kernel", [uneven_sums, different_sums])
def test_programs_that_sum_unalike_fail_instead_of_hanging(kernel):
    """One program of each cluster sums and the other does not, or each makes a different
    sum: on a GPU that hangs; on the host the launch fails."""
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(RuntimeError, match="different numbers of cluster sums"):
        kernel[(4,)](x, np.zeros(4, np.float32))


def test_compile_result_reports_the_cluster_shape():
    from kdatile import _lib

    src = os.path.join(os.path.dirname(__file__), "cluster_kernels.py")
    with open(src, encoding="utf-8") as f:
        source = f.read()
    base = {"source": source, "filename": src, "kernel": "normalize_rows",
            "signature": "x_ptr=*f32:16, out_ptr=*f32:16",
            "constexprs": {"COLS": 128, "PARTS": 4}}
    assert _lib.compile(dict(base, target="cpu", emit="tile"))["cluster_shape"] == [1, 4, 1]
    gpu = _lib.compile(dict(base, target="sm_90a", emit="ptx"))
    assert gpu["cluster_shape"] == [1, 4, 1]
    assert ".reqnctapercluster 1, 4, 1" in gpu["text"]
    # A cluster of one program is no cluster.
    single = dict(base, kernel="cluster_totals", signature="x_ptr=*f32, out_ptr=*f32, "
                  "flag_ptr=*i32", constexprs={"SIZE": 1})
    assert _lib.compile(dict(single, target="cpu", emit="tile"))["cluster_shape"] == [1, 1, 1]


def test_ahead_of_time_kernel_runs_in_clusters(tmp_path):
    """kda-compile --emit so, loaded with the compile result's cluster shape."""
    from conftest import KDA_COMPILE

    src = os.path.join(os.path.dirname(__file__), "cluster_kernels.py")
    so = str(tmp_path / "normalize_rows.so")
    subprocess.run([KDA_COMPILE, src, "--kernel", "normalize_rows", "--target", "cpu",
                    "--signature", "x_ptr=*f32, out_ptr=*f32", "-D", "COLS=128", "-D",
                    "PARTS=2", "--emit", "so", "-o", so], check=True)
    # The library says how it must be launched; a shape given must be that one.
    kernel = kt.load_compiled(so, "normalize_rows", "x_ptr=*f32, out_ptr=*f32")
    assert kernel.cluster_shape == (1, 2, 1)
    assert kt.load_compiled(so, "normalize_rows__kda_cpu", "x_ptr=*f32, out_ptr=*f32",
                            cluster_shape=(1, 2, 1)).cluster_shape == (1, 2, 1)
    with pytest.raises(ValueError, match=r"runs in clusters of \(1, 2, 1\), not \(1, 1, 1\)"):
        kt.load_compiled(so, "normalize_rows", "x_ptr=*f32, out_ptr=*f32",
                         cluster_shape=(1, 1, 1))
    x = np.random.default_rng(0).standard_normal((3, 256)).astype(np.float32)
    out = np.zeros_like(x)
    kernel[(3, 2)](x, out)
    np.testing.assert_allclose(out, x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)
