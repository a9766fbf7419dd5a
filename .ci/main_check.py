"""The CPU half of the main job: runs shipped kernels on the CPU and checks them against fp64
NumPy references.

  * kernels/delta_rule_step.py at H = 12, V = K = 128 (output and state within 1e-5).
  * kernels/kda_decode.py, the fused KDA decode step, at Kimi-K3 TP8 shape (H = 12, D = 128),
    batch 8 with lower-bound gate and a paged fp32 [V, K] state pool of 17 slots; two rows are
    padding (slot -1 and a slot past the pool). Against test/python/kda_reference.py with
    the tolerances of docs/kda.md: output rel RMS <= 5e-3, state rel RMS <= 1e-5 on the live
    slots, conv cache bit-exact, padding rows exactly zero, untouched slots unchanged.

Prints one line per check and OK, or FAILED (exit status 1).
"""

import os
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for sub in ("kernels", os.path.join("test", "python")):
    sys.path.insert(0, os.path.join(ROOT, sub))
from kda_reference import (  # noqa: E402
    bf16_to_f32,
    decode_launch,
    kda_decode_reference,
    kernel_arg,
    make_decode_inputs,
    rel_rms,
)

from delta_rule_step import delta_rule_step  # noqa: E402


def delta_rule_reference(q, k, v, g, beta, state):
    s = state.astype(np.float64) * np.exp(g.astype(np.float64))[:, None, :]
    u = np.einsum("hvk,hk->hv", s, k)
    s = s + (beta[:, None] * (v - u))[:, :, None] * k[:, None, :]
    return np.einsum("hvk,hk->hv", s, q), s


def check_delta_rule():
    rng = np.random.default_rng(0)
    H, V, K = 12, 128, 128
    q, k, g = (rng.standard_normal((H, K)).astype(np.float32) for _ in range(3))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    g = -np.abs(g) * 0.1
    v = rng.standard_normal((H, V)).astype(np.float32)
    beta = rng.uniform(0, 1, H).astype(np.float32)
    state = rng.standard_normal((H, V, K)).astype(np.float32)
    o_ref, s_ref = delta_rule_reference(q, k, v, g, beta, state)

    o = np.empty((H, V), np.float32)
    start = time.perf_counter()
    delta_rule_step[(H,)](q, k, v, g, beta, state, o, V=V, K=K)
    print(f"delta_rule_step first launch (compile or cache load + run): "
          f"{time.perf_counter() - start:.3f} s")
    err_o, err_s = rel_rms(o_ref, o), rel_rms(s_ref, state)
    ok = err_o <= 1e-5 and err_s <= 1e-5
    print(f"delta_rule_step H={H} V={V} K={K}: output rel RMS error {err_o:.2e}, "
          f"state {err_s:.2e} (limits 1e-5, 1e-5): {'OK' if ok else 'FAILED'}")
    return ok


def check_kda_decode():
    H, B, D = 12, 8, 128
    rng = np.random.default_rng(12)
    slots = 2 * B + 1
    inp = make_decode_inputs(rng, B, H, slots, D=D)
    idx = rng.permutation(slots)[:B].astype(np.int32)
    idx[2] = -1          # padding row
    idx[5] = slots + 3   # out of range: padding too
    live = idx[(idx >= 0) & (idx < slots)]
    pad_rows = np.flatnonzero((idx < 0) | (idx >= slots))
    before_conv, before_state = inp["conv_state"].copy(), inp["state"].copy()
    ref_out, ref_cs, ref_state = kda_decode_reference(
        inp["x"], inp["conv_w"], before_conv, inp["raw_g"], inp["raw_beta"], inp["A_log"],
        inp["dt_bias"], before_state, idx, inp["output_gate"], inp["norm_weight"],
        lower_bound=-5.0)

    # The launch kdatile.ops prepares for the CPU; its output starts as NaN, so every output,
    # padding rows included, must be written.
    launch = decode_launch(inp, idx, lower_bound=-5.0)
    start = time.perf_counter()
    launch.kernel[launch.grid](*launch.args, **launch.constexprs)
    print(f"kda_decode first launch (compile or cache load + run): "
          f"{time.perf_counter() - start:.3f} s")
    out = bf16_to_f32(kernel_arg(launch, "out_ptr"))

    err_o = rel_rms(ref_out, out)
    err_s = rel_rms(ref_state[live], inp["state"][live])
    conv_exact = np.array_equal(inp["conv_state"], ref_cs)
    untouched = np.setdiff1d(np.arange(slots), live)
    state_untouched = np.array_equal(inp["state"][untouched], before_state[untouched])
    pad_zero = bool(np.all(out[pad_rows] == 0.0))
    finite = bool(np.isfinite(out).all())
    ok = (finite and err_o <= 5e-3 and err_s <= 1e-5 and conv_exact and state_untouched
          and pad_zero)
    print(f"kda_decode H={H} B={B} D={D} (lower-bound gate, fp32 [V, K] state, {slots} slots, "
          f"padding rows {pad_rows.tolist()}):")
    print(f"  output rel RMS error {err_o:.2e} (limit 5e-3), state {err_s:.2e} (limit 1e-5), "
          f"conv cache {'bit-exact' if conv_exact else 'DIFFERS'}")
    print(f"  padding rows {'zero' if pad_zero else 'NOT ZERO'}, other slots "
          f"{'unchanged' if state_untouched else 'CHANGED'}, output "
          f"{'finite' if finite else 'NOT FINITE'}: {'OK' if ok else 'FAILED'}")
    return ok


def main():
    results = [check_delta_rule(), check_kda_decode()]
    if not all(results):
        print("FAILED")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
