"""Kernels using kt.wait_prior_launches / kt.launch_dependents (test_launch_order.py)."""
import kdatile as kt


@kt.jit
def scale_after_prior(x_ptr, out_ptr, n, alpha, BLOCK: kt.constexpr):
    """out = alpha * x, waiting for the previous kernel before its first access and letting
    the next one start after its loads."""
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    kt.wait_prior_launches()
    x = kt.load(x_ptr + offs, mask=offs < n)
    kt.launch_dependents()
    kt.store(out_ptr + offs, x * alpha, mask=offs < n)


@kt.jit
def scale_in_order(x_ptr, out_ptr, n, alpha, BLOCK: kt.constexpr):
    """out = alpha * x, without waiting for anything itself."""
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    x = kt.load(x_ptr + offs, mask=offs < n)
    kt.store(out_ptr + offs, x * alpha, mask=offs < n)
