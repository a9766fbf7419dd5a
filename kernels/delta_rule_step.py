"""One gated delta-rule step per head, the core of the KDA decode (docs/kda.md, "Decode step").

Per head h (one program each), with the [V, K] fp32 state S = state[h]:
    S *= exp(g)[None, :]
    u  = sum(S * k[None, :], 1)
    S += (beta * (v - u))[:, None] * k[None, :]
    o  = sum(S * q[None, :], 1)
S is written back in place. q, k, g: [H, K]; v: [H, V]; beta: [H]; state: [H, V, K]; o: [H, V].
"""

import kdatile as kt


@kt.jit
def delta_rule_step(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, state_ptr, o_ptr,
                    V: kt.constexpr, K: kt.constexpr):
    h = kt.program_id(0)
    offs_k = kt.arange(0, K)
    offs_v = kt.arange(0, V)
    q = kt.load(q_ptr + h * K + offs_k)
    k = kt.load(k_ptr + h * K + offs_k)
    g = kt.load(g_ptr + h * K + offs_k)
    v = kt.load(v_ptr + h * V + offs_v)
    beta = kt.load(beta_ptr + h)
    s_ptrs = state_ptr + h * (V * K) + offs_v[:, None] * K + offs_k[None, :]
    S = kt.load(s_ptrs)
    S = S * kt.exp(g)[None, :]
    u = kt.sum(S * k[None, :], 1)
    S = S + (beta * (v - u))[:, None] * k[None, :]
    o = kt.sum(S * q[None, :], 1)
    kt.store(s_ptrs, S)
    kt.store(o_ptr + h * V + offs_v, o)
