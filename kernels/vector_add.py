"""out[i] = x[i] + y[i] for i < n; one program per BLOCK elements."""

import kdatile as kt


@kt.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: kt.constexpr):
    pid = kt.program_id(0)
    offs = pid * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    x = kt.load(x_ptr + offs, mask=mask, other=0.0)
    y = kt.load(y_ptr + offs, mask=mask, other=0.0)
    kt.store(out_ptr + offs, x + y, mask=mask)
