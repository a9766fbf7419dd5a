"""Numerics of the shipped kernels (kernels/*.py) on the CPU target, JIT and AOT."""

import os
import subprocess

import numpy as np
import pytest

import kdatile as kt

import refs
from conftest import KDA_COMPILE, ROOT, requires_lib

pytestmark = requires_lib


@pytest.fixture(scope="module")
def kernels():
    import delta_rule_step
    import l2norm_rows
    import vector_add

    return vector_add.vector_add, l2norm_rows.l2norm_rows, delta_rule_step.delta_rule_step


@pytest.mark.parametrize("n", [0, 1, 5, 127, 128, 1000, 4099])
def test_vector_add(kernels, n):
    vector_add = kernels[0]
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 7, 123.0, np.float32)  # guard elements past n must stay untouched
    grid = lambda meta: (kt.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
    vector_add[grid](x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out[:n], (x.astype(np.float64) + y).astype(np.float32))
    np.testing.assert_array_equal(out[n:], 123.0)


def test_vector_add_zero_grid_is_noop(kernels):
    vector_add = kernels[0]
    x = np.ones(4, np.float32)
    out = np.zeros(4, np.float32)
    vector_add[(0,)](x, x, out, 4, BLOCK=4)
    assert not out.any()


@pytest.mark.parametrize("num_threads", [None, 1, 3])
def test_vector_add_threads(kernels, num_threads):
    vector_add = kernels[0]
    n = 10_000
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    vector_add[(kt.cdiv(n, 64),)](x, x, out, n, BLOCK=64, num_threads=num_threads)
    np.testing.assert_array_equal(out, 2 * x)


@pytest.mark.parametrize("num_threads", [2 ** 32 + 2, -1, 1.0, True])
def test_bad_num_threads(kernels, num_threads):
    """A thread count the C launcher's int32 would wrap (2**32 + 2 would mean 2) is an error."""
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="num_threads must be"):
        kernels[0][(1,)](x, x, x, 4, BLOCK=4, num_threads=num_threads)


@pytest.mark.parametrize("M,N,BLOCK_M", [(1, 1, 1), (7, 100, 4), (33, 48, 8), (64, 129, 2)])
def test_l2norm_rows(kernels, M, N, BLOCK_M):
    l2norm_rows = kernels[1]
    rng = np.random.default_rng(M * 1000 + N)
    pad = 3  # row stride larger than N: rows are addressed through the stride
    xbuf = rng.standard_normal((M, N + pad)).astype(np.float32)
    x = xbuf[:, :N]
    out = np.zeros((M, N + 5), np.float32)
    block_n = 1 << max(0, (N - 1).bit_length())
    eps = 1e-6
    l2norm_rows[(kt.cdiv(M, BLOCK_M),)](x, out, M, N, xbuf.shape[1], out.shape[1], eps,
                                         BLOCK_M=BLOCK_M, BLOCK_N=block_n)
    ref = refs.l2norm_rows(x, eps)
    assert refs.rel_rms(ref, out[:, :N]) <= 1e-6
    np.testing.assert_allclose(out[:, :N], ref, rtol=1e-5, atol=1e-6)
    assert not out[:, N:].any()


@pytest.mark.parametrize("H,V,K", [(1, 16, 16), (3, 32, 16), (12, 16, 64), (2, 128, 128)])
def test_delta_rule_step(kernels, H, V, K):
    delta_rule_step = kernels[2]
    rng = np.random.default_rng(H * V + K)
    q, k, v, g, beta, state = refs.delta_inputs(rng, H, V, K)
    o_ref, s_ref = refs.delta_rule_step(q, k, v, g, beta, state)
    o = np.zeros((H, V), np.float32)
    delta_rule_step[(H,)](q, k, v, g, beta, state, o, V=V, K=K)
    assert np.isfinite(o).all() and np.isfinite(state).all()
    assert refs.rel_rms(o_ref, o) <= 1e-5
    assert refs.rel_rms(s_ref, state) <= 1e-5


# -- ahead of time: kda-compile + kt.load_compiled ---------------------------------------------

def _aot(tmp_path, kernel_file, kernel, signature, defines):
    if not os.path.isfile(KDA_COMPILE):
        pytest.skip(f"{KDA_COMPILE} is not built")
    so = str(tmp_path / f"{kernel}.so")
    cmd = [KDA_COMPILE, os.path.join(ROOT, "kernels", kernel_file), "--kernel", kernel,
           "--target", "cpu", "--signature", signature, "--emit", "so", "-o", so]
    for d in defines:
        cmd += ["-D", d]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return kt.load_compiled(so, kernel, signature)


def test_aot_vector_add(tmp_path):
    sig = "x_ptr=*f32, y_ptr=*f32, out_ptr=*f32, n=i32"
    kernel = _aot(tmp_path, "vector_add.py", "vector_add", sig, ["BLOCK=64"])
    n = 1001
    x = np.linspace(0, 1, n, dtype=np.float32)
    y = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    kernel[(kt.cdiv(n, 64),)](x, y, out, n)
    np.testing.assert_array_equal(out, x + y)
    with pytest.raises(TypeError, match="n"):
        kernel[(1,)](x, y, out, x)
    with pytest.raises(TypeError, match="y_ptr"):
        kernel[(1,)](x, y.astype(np.float64), out, n)


def test_aot_delta_rule_step(tmp_path):
    H, V, K = 4, 32, 32
    sig = ("q_ptr=*f32, k_ptr=*f32, v_ptr=*f32, g_ptr=*f32, beta_ptr=*f32, state_ptr=*f32, "
           "o_ptr=*f32")
    kernel = _aot(tmp_path, "delta_rule_step.py", "delta_rule_step", sig, [f"V={V}", f"K={K}"])
    rng = np.random.default_rng(0)
    q, k, v, g, beta, state = refs.delta_inputs(rng, H, V, K)
    o_ref, s_ref = refs.delta_rule_step(q, k, v, g, beta, state)
    o = np.zeros((H, V), np.float32)
    kernel[(H,)](q, k, v, g, beta, state, o)
    assert refs.rel_rms(o_ref, o) <= 1e-5
    assert refs.rel_rms(s_ref, state) <= 1e-5


def test_aot_l2norm_rows(tmp_path):
    M, N = 10, 50
    sig = ("x_ptr=*f32, out_ptr=*f32, M=i32, N=i32, stride_xm=i32, stride_om=i32, eps=f32")
    kernel = _aot(tmp_path, "l2norm_rows.py", "l2norm_rows", sig, ["BLOCK_M=4", "BLOCK_N=64"])
    x = np.random.default_rng(1).standard_normal((M, N)).astype(np.float32)
    out = np.zeros_like(x)
    kernel[(kt.cdiv(M, 4),)](x, out, M, N, N, N, 1e-6)
    assert refs.rel_rms(refs.l2norm_rows(x, 1e-6), out) <= 1e-6


@requires_lib
def test_ieee_rounded_builtins():
    """kt.sqrt_rn, kt.div_rn and a float // are IEEE-rounded (bit-exact with NumPy's fp32)."""
    from dsl_kernels import rounded_math

    rng = np.random.default_rng(7)
    x = rng.uniform(0.1, 100.0, 64).astype(np.float32)
    y = rng.uniform(0.1, 10.0, 64).astype(np.float32)
    x[:8] = [4.0, 9.0, 4.6875, 6.0, 1.0, 2.0, 10.0, 0.3]  # exact quotients floor exactly
    y[:8] = [1.0, 3.0, 0.9375, 2.0, 0.1, 0.5, 2.5, 0.1]
    out = np.zeros(3 * 64, np.float32)
    rounded_math[(1,)](x, y, out, BLOCK=64)
    np.testing.assert_array_equal(out[:64], np.sqrt(x))
    np.testing.assert_array_equal(out[64:128], x / y)
    np.testing.assert_array_equal(out[128:], np.floor(x / y))


@pytest.mark.parametrize("start,end,step", [
    (0, 5, -2 ** 63), (0, -5, -2 ** 63), (0, 5, 2 ** 63 - 1), (10, -10, -3), (-10, 10, 3),
    (5, 5, -1), (2 ** 62, -2 ** 62, -2 ** 61)])
def test_range_trip_counts_as_python(start, end, step):
    """A runtime range runs as many times as Python's, for extreme steps too (negating the most
    negative step used to overflow)."""
    from dsl_kernels import count_range

    out = np.zeros(1, np.int64)
    count_range[(1,)](out, np.int64(start), np.int64(end), STEP=step)
    assert out[0] == len(range(start, end, step))


@pytest.mark.parametrize("start,end,step", [
    (2 ** 63 - 8, 2 ** 63 - 1, 3), (-2 ** 63, -2 ** 63 + 10, 4), (3, -3, -2)])
def test_static_range_near_int64_limits(start, end, step):
    """kt.static_range counts its iterations without stepping past int64."""
    from dsl_kernels import count_static_range

    out = np.zeros(1, np.int32)
    count_static_range[(1,)](out, START=start, END=end, STEP=step)
    assert out[0] == len(range(start, end, step))
