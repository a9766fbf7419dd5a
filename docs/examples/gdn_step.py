"""A Gated DeltaNet (GDN) decode step, written as a variant of the KDA kernels.

GDN differs from KDA in its gate: one scalar decay per head, `alpha = exp(g)` with
`g = -exp(A_log[h]) * softplus(raw_g[n, h] + dt_bias[h])`, instead of one per key channel.
Per (row n, head h), with q and k L2-normalised (q also scaled by D^-0.5):

    S = alpha * S;  u = S k;  S += beta (v - u) k^T;  o = S q

The walkthrough is docs/tutorial-variant.md; test/python/test_tutorial_gdn.py checks it on the
CPU against an fp64 reference.
"""

import kdatile as kt


@kt.jit
def gdn_step(q_ptr, k_ptr, v_ptr, raw_g_ptr, raw_beta_ptr, A_log_ptr, dt_bias_ptr, state_ptr,
             o_ptr, H: kt.constexpr, D: kt.constexpr):
    n = kt.program_id(0)
    h = kt.program_id(1)
    offs = kt.arange(0, D)
    row = (n * H + h) * D
    q = kt.load(q_ptr + row + offs).to(kt.float32)
    k = kt.load(k_ptr + row + offs).to(kt.float32)
    v = kt.load(v_ptr + row + offs).to(kt.float32)
    q = kt.l2norm(q) * (D ** -0.5)
    k = kt.l2norm(k)
    # The GDN gate: one scalar per (row, head).
    a = kt.load(raw_g_ptr + n * H + h) + kt.load(dt_bias_ptr + h)
    alpha = kt.exp(-kt.exp(kt.load(A_log_ptr + h)) * kt.softplus(a))
    beta = kt.sigmoid(kt.load(raw_beta_ptr + n * H + h))
    s_ptrs = state_ptr + (n * H + h) * (D * D) + offs[:, None] * D + offs[None, :]
    S = kt.load(s_ptrs) * alpha
    u = kt.sum(S * k[None, :], 1)
    S = S + (beta * (v - u))[:, None] * k[None, :]
    kt.store(s_ptrs, S)
    kt.store(o_ptr + row + offs, kt.sum(S * q[None, :], 1))
