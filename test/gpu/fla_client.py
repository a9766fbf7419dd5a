"""FLA's KimiDeltaAttention layer as a client of kdatile.ops (test_fla_client.py).

The layer (fla.layers.kda, brought at test time, never part of this repository) calls
`chunk_kda` for a prefill and `fused_recurrent_kda` for short inputs; kdatile.ops has both,
with FLA's keywords. The shapes are Kimi-Linear's (hidden 2304, 32 heads of 128, the
lower-bound gate).

`client_launches` gives the launches those calls make, from NumPy stand-ins of the layer's
tensors, for test/gpu/prepare.py to put in the bundle (the GPU machine compiles nothing).
NumPy only at import.
"""

import numpy as np

HIDDEN, HEADS, HEAD_DIM = 2304, 32, 128
PREFILL_TOKENS, DECODE_STEPS = 2048, 16
LOWER_BOUND = -5.0


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
    from kdatile.ops.fused_recurrent import fused_recurrent_kda_launch

    flags = dict(use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                 use_beta_sigmoid_in_kernel=True, lower_bound=LOWER_BOUND,
                 output_final_state=True, state_v_first=True, target=target)
    _, prefill = chunk_launches(**_stand_ins(PREFILL_TOKENS), **flags, safe_gate=True)
    state = np.zeros((1, HEADS, HEAD_DIM, HEAD_DIM), np.float32)
    _, _, decode = fused_recurrent_kda_launch(**_stand_ins(1), **flags, initial_state=state)
    return list(prefill) + [decode]
