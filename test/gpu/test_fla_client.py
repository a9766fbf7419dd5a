"""Real clients: FLA's own KimiDeltaAttention layer (fla.layers.kda: Kimi-Linear shapes, the
lower-bound gate) and GatedDeltaNet layer (fla.layers.gated_deltanet: Qwen3-Next's 16 q/k and
32 value heads, the softplus gate in the kernel), random weights (fla_client.py), each run a
2048-token prefill and 16 decode steps twice on the GPU, once on FLA's kernels and once with
their chunk / fused-recurrent calls routed to kdatile.ops' ops of the same names (from the
artifacts' bundle, compiling nothing); the outputs and the recurrent state after every call
agree within relative RMS 1e-2 (bf16 inputs and intermediates on both sides, docs/kda.md).

FLA is brought at test time (fla-org/flash-linear-attention on PYTHONPATH, with einops) and
never part of this repository; without it the test is skipped.
"""


import pytest
from fla_client import (
    DECODE_STEPS,
    GDN_HEADS,
    GDN_HIDDEN,
    GDN_V_HEADS,
    HEAD_DIM,
    HEADS,
    HIDDEN,
    LOWER_BOUND,
    PREFILL_TOKENS,
)

TOLERANCE = 1e-2


class LayerCache(list):
    """The part of FLA's Cache the layers use: cache[layer_idx] and update()."""

    def update(self, layer_idx, offset=None, **state):
        if len(self) <= layer_idx:
            self.append(state)
        else:
            self[layer_idx] = state


def _rel_rms(torch, ref, got):
    ref, got = ref.double(), got.double()
    return float(torch.sqrt(torch.mean((ref - got) ** 2)) / torch.sqrt(torch.mean(ref ** 2)))


def _import(name):
    import importlib

    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - FLA or one of its dependencies is missing
        pytest.skip(f"FLA is not importable ({type(e).__name__}: {e})")


def _prefill_then_decode_agree(torch, kdatile, monkeypatch, module, layer, hidden, routes):
    """Runs `layer` (prefill, then DECODE_STEPS single tokens) on FLA's kernels, then with
    module's functions `routes` (prefill op name, decode op name) replaced by kdatile.ops'
    ones, and compares outputs and recurrent states."""
    layer = layer.cuda().to(torch.bfloat16).eval()
    # The gate's parameters stay fp32, as the models keep them.
    layer.A_log.data = torch.randn_like(layer.A_log, dtype=torch.float32) * 0.5
    layer.dt_bias.data = layer.dt_bias.data.float()
    x = torch.randn(1, PREFILL_TOKENS + DECODE_STEPS, hidden, device="cuda",
                    dtype=torch.bfloat16)
    calls = dict.fromkeys(routes, 0)

    def counted(name, fn):
        def call(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return call

    def run():
        cache = LayerCache()
        outs, states = [], []
        with torch.no_grad():
            for lo, hi in [(0, PREFILL_TOKENS)] + [(PREFILL_TOKENS + t, PREFILL_TOKENS + t + 1)
                                                  for t in range(DECODE_STEPS)]:
                outs.append(layer(x[:, lo:hi], past_key_values=cache, use_cache=True)[0])
                states.append(cache[0]["recurrent_state"].float().clone())
        torch.cuda.synchronize()
        return torch.cat(outs, 1), states

    want_o, want_states = run()
    compiles = kdatile.cache_stats()["compiles"]
    for name in routes:
        monkeypatch.setattr(module, name, counted(name, getattr(kdatile.ops, name)))
    got_o, got_states = run()
    prefill, decode = routes
    assert calls == {prefill: 1, decode: DECODE_STEPS}
    assert kdatile.cache_stats()["compiles"] == compiles, "kdatile compiled something"
    assert torch.isfinite(got_o).all()
    err = _rel_rms(torch, want_o[:, :PREFILL_TOKENS], got_o[:, :PREFILL_TOKENS])
    assert err <= TOLERANCE, f"prefill output rel RMS {err:.3g}"
    err = _rel_rms(torch, want_o[:, PREFILL_TOKENS:], got_o[:, PREFILL_TOKENS:])
    assert err <= TOLERANCE, f"decode outputs rel RMS {err:.3g}"
    for step, (want, got) in enumerate(zip(want_states, got_states)):
        err = _rel_rms(torch, want, got)
        assert err <= TOLERANCE, f"recurrent state after call {step}: rel RMS {err:.3g}"


def test_kimi_layer_prefill_then_decode_on_kdatile(torch_cuda, bundle_kdatile, monkeypatch):
    fla_kda = _import("fla.layers.kda")
    torch_cuda.manual_seed(0)
    layer = fla_kda.KimiDeltaAttention(hidden_size=HIDDEN, head_dim=HEAD_DIM, num_heads=HEADS,
                                       safe_gate=True, lower_bound=LOWER_BOUND, layer_idx=0)
    _prefill_then_decode_agree(torch_cuda, bundle_kdatile, monkeypatch, fla_kda, layer, HIDDEN,
                               ("chunk_kda", "fused_recurrent_kda"))


def test_gated_deltanet_layer_prefill_then_decode_on_kdatile(torch_cuda, bundle_kdatile,
                                                             monkeypatch):
    fla_gdn = _import("fla.layers.gated_deltanet")
    torch_cuda.manual_seed(0)
    layer = fla_gdn.GatedDeltaNet(hidden_size=GDN_HIDDEN, expand_v=1, head_dim=HEAD_DIM,
                                  num_heads=GDN_HEADS, num_v_heads=GDN_V_HEADS, layer_idx=0)
    _prefill_then_decode_agree(torch_cuda, bundle_kdatile, monkeypatch, fla_gdn, layer,
                               GDN_HIDDEN,
                               ("chunk_gated_delta_rule", "fused_recurrent_gated_delta_rule"))
