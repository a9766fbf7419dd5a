"""The in-kernel gate of KDA and Gated DeltaNet: the log decay from the raw gate, one home for
every kernel that activates it (decode, recurrent core, chunked prefill)."""

import kdatile as kt


@kt.jit
def activated_log_decay(x, a, lower_bound, USE_LOWER_BOUND: kt.constexpr):
    """The log decay of the biased raw gate x (fp32) at rate a = exp(A_log) (1 without
    A_log): lower_bound * sigmoid(a * x) in the lower-bound form, else -a * softplus(x).
    exp(A_log) must be finite (A_log < 88.7): inf times a softplus that underflows is NaN."""
    if USE_LOWER_BOUND:
        g = lower_bound * kt.sigmoid(a * x)
    else:
        g = -a * kt.softplus(x)
    return g
