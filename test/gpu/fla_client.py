"""FLA's KimiDeltaAttention layer as a client of kdatile.ops (test_fla_client.py).

The layer (fla.layers.kda, brought at test time, never part of this repository) calls
`chunk_kda` for a prefill and `fused_recurrent_kda` for short inputs. Routed to kdatile, the
first is kdatile.ops.chunk_kda itself (FLA's keywords); the second is `recurrent_step` below,
FLA's signature over kdatile.ops.kda_recurrent for one token per sequence (decode). The
shapes are Kimi-Linear's (hidden 2304, 32 heads of 128, the lower-bound gate).

`client_launches` gives the launches those calls make, from NumPy stand-ins of the layer's
tensors, for test/gpu/prepare.py to put in the bundle (the GPU machine compiles nothing).
NumPy only at import.
"""

import numpy as np

HIDDEN, HEADS, HEAD_DIM = 2304, 32, 128
PREFILL_TOKENS, DECODE_STEPS = 2048, 16
LOWER_BOUND = -5.0


def recurrent_step(q, k, v, g, beta, A_log=None, dt_bias=None, scale=None, initial_state=None,
                   output_final_state=False, use_qk_l2norm_in_kernel=False,
                   use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
                   allow_neg_eigval=False, lower_bound=None, state_v_first=False,
                   cu_seqlens=None, **unused):
    """FLA's fused_recurrent_kda for B sequences of one token with an initial [B, H, V, K]
    state (state_v_first) on kdatile.ops.kda_recurrent: slot n of a copy of the state is
    sequence n's, updated in place. Returns (o, final state or None)."""
    from kdatile.ops import kda_recurrent

    B, T = q.shape[:2]
    if T != 1 or cu_seqlens is not None or initial_state is None or not state_v_first:
        raise ValueError("recurrent_step: one token per sequence from a [V, K] initial state")
    if allow_neg_eigval or unused:
        raise ValueError(f"recurrent_step: unsupported options {sorted(unused)}")
    pool = initial_state.clone()
    indices = np.arange(B, dtype=np.int32).reshape(B, 1)
    if hasattr(q, "device"):
        import torch

        indices = torch.from_numpy(indices).to(q.device)
    o = kda_recurrent(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound,
                      scale=scale, initial_state=pool, state_indices=indices,
                      use_qk_l2norm=use_qk_l2norm_in_kernel, use_gate=use_gate_in_kernel,
                      use_beta_sigmoid=use_beta_sigmoid_in_kernel, state_layout="vk")
    return o, (pool if output_final_state else None)


def _stand_ins(T):
    """NumPy arrays of the layer's chunk_kda / fused_recurrent_kda inputs at T tokens."""
    bf16 = np.uint16
    return dict(q=np.zeros((1, T, HEADS, HEAD_DIM), bf16),
                k=np.zeros((1, T, HEADS, HEAD_DIM), bf16),
                v=np.zeros((1, T, HEADS, HEAD_DIM), bf16),
                g=np.zeros((1, T, HEADS, HEAD_DIM), bf16), beta=np.zeros((1, T, HEADS), bf16),
                A_log=np.zeros(HEADS, np.float32), dt_bias=np.zeros(HEADS * HEAD_DIM, np.float32))


def client_launches(target="sm_90a"):
    """The Launches of the layer's prefill and decode calls, routed to kdatile."""
    from kdatile.ops.chunk import chunk_launches
    from kdatile.ops.recurrent import recurrent_launch

    flags = dict(use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                 use_beta_sigmoid_in_kernel=True, lower_bound=LOWER_BOUND)
    _, prefill = chunk_launches(**_stand_ins(PREFILL_TOKENS), **flags, safe_gate=True,
                                output_final_state=True, state_v_first=True, target=target)
    step = _stand_ins(1)
    _, decode = recurrent_launch(
        step.pop("q"), step.pop("k"), step.pop("v"), step.pop("g"), step.pop("beta"), **step,
        lower_bound=LOWER_BOUND,
        initial_state=np.zeros((1, HEADS, HEAD_DIM, HEAD_DIM), np.float32),
        state_indices=np.zeros((1, 1), np.int32), state_layout="vk", target=target)
    return list(prefill) + [decode]
