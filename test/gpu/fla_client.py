"""FLA's KimiDeltaAttention and GatedDeltaNet layers as clients of kdatile.ops
(test_fla_client.py).

The layers (fla.layers.kda and fla.layers.gated_deltanet, brought at test time, never part of
this repository) call `chunk_kda` / `chunk_gated_delta_rule` for a prefill and
`fused_recurrent_kda` / `fused_recurrent_gated_delta_rule` for short inputs; kdatile.ops has
all four, with FLA's keywords. The shapes are Kimi-Linear's (hidden 2304, 32 heads of 128, the
lower-bound gate) and Qwen3-Next's (hidden 2048, 16 q/k heads and 32 value heads of 128, the
softplus gate in the kernel).

`client_launches` gives the launches those calls make, from NumPy stand-ins of the layer's
tensors, for test/gpu/prepare.py to put in the bundle (the GPU machine compiles nothing).
NumPy only at import.
"""

import numpy as np

HIDDEN, HEADS, HEAD_DIM = 2304, 32, 128
PREFILL_TOKENS, DECODE_STEPS = 2048, 16
LOWER_BOUND = -5.0
GDN_HIDDEN, GDN_HEADS, GDN_V_HEADS = 2048, 16, 32


def _stand_ins(T):
    """NumPy arrays of the layer's chunk_kda / fused_recurrent_kda inputs at T tokens."""
    bf16 = np.uint16
    return dict(q=np.zeros((1, T, HEADS, HEAD_DIM), bf16),
                k=np.zeros((1, T, HEADS, HEAD_DIM), bf16),
                v=np.zeros((1, T, HEADS, HEAD_DIM), bf16),
                g=np.zeros((1, T, HEADS, HEAD_DIM), bf16), beta=np.zeros((1, T, HEADS), bf16),
                A_log=np.zeros(HEADS, np.float32), dt_bias=np.zeros(HEADS * HEAD_DIM, np.float32))


def _gdn_stand_ins(T):
    """NumPy arrays of the GatedDeltaNet layer's calls at T tokens (a_proj's raw gate)."""
    bf16 = np.uint16
    return dict(q=np.zeros((1, T, GDN_HEADS, HEAD_DIM), bf16),
                k=np.zeros((1, T, GDN_HEADS, HEAD_DIM), bf16),
                v=np.zeros((1, T, GDN_V_HEADS, HEAD_DIM), bf16),
                g=np.zeros((1, T, GDN_V_HEADS), bf16), beta=np.zeros((1, T, GDN_V_HEADS), bf16),
                A_log=np.zeros(GDN_V_HEADS, np.float32), dt_bias=np.zeros(GDN_V_HEADS, np.float32))


# The keywords FLA's GatedDeltaNet layer passes to both of its calls.
GDN_FLAGS = dict(use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                 use_beta_sigmoid_in_kernel=True, allow_neg_eigval=False, state_v_first=True,
                 output_final_state=True)


def client_launches(target="sm_90a"):
    """The Launches of the layers' prefill and decode calls, routed to kdatile."""
    from kdatile.ops.chunk import chunk_gdn_launches, chunk_launches
    from kdatile.ops.fused_recurrent import (
        fused_recurrent_gated_delta_rule_launch,
        fused_recurrent_kda_launch,
    )

    flags = dict(use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                 use_beta_sigmoid_in_kernel=True, lower_bound=LOWER_BOUND,
                 output_final_state=True, state_v_first=True, target=target)
    _, prefill = chunk_launches(**_stand_ins(PREFILL_TOKENS), **flags, safe_gate=True)
    state = np.zeros((1, HEADS, HEAD_DIM, HEAD_DIM), np.float32)
    _, _, decode = fused_recurrent_kda_launch(**_stand_ins(1), **flags, initial_state=state)
    _, gdn_prefill = chunk_gdn_launches(**_gdn_stand_ins(PREFILL_TOKENS), **GDN_FLAGS,
                                        target=target)
    gdn_state = np.zeros((1, GDN_V_HEADS, HEAD_DIM, HEAD_DIM), np.float32)
    _, _, gdn_decode = fused_recurrent_gated_delta_rule_launch(
        **_gdn_stand_ins(1), **GDN_FLAGS, initial_state=gdn_state, target=target)
    return list(prefill) + [decode] + list(gdn_prefill) + [gdn_decode]
