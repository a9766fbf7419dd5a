"""The in-kernel gate of KDA and Gated DeltaNet: the log decay from the raw gate, one home for
every kernel that activates it (decode, recurrent core, chunked prefill)."""

import kdatile as kt

# The rate exp(A_log) saturates here, near fp32's largest value (exp overflows past
# A_log = 88.7), so that a zero biased gate or an underflowed softplus gives 0, never
# inf * 0 = NaN. Past it, the rate times any gate above about 1e-36 in magnitude saturates the
# sigmoid or decays the state to 0 either way.
MAX_RATE = 1.6e38


@kt.jit
def activated_log_decay(x, a, lower_bound, USE_LOWER_BOUND: kt.constexpr):
    """The log decay of the biased raw gate x (fp32) at rate a = exp(A_log) (1 without
    A_log): lower_bound * sigmoid(a * x) in the lower-bound form, else -a * softplus(x)."""
    rate = kt.minimum(a, MAX_RATE)
    if USE_LOWER_BOUND:
        g = lower_bound * kt.sigmoid(rate * x)
    else:
        g = -rate * kt.softplus(x)
    return g
