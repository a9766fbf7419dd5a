"""kt.device_print kernels shared by the CPU tests (test_device_print.py) and the GPU check
(test/gpu/test_gpu_print.py), and a runner printing one case's output:

    python3 test/python/print_kernels.py CASE [--cuda]

runs CASE on NumPy arrays (the CPU target) or, with --cuda, on CUDA tensors (from the compiler
or from an ahead-of-time bundle, KDATILE_BUNDLE) and waits for the device, so that the kernel's
lines are on stdout when it exits.
"""

import sys

import numpy as np

import kdatile as kt


@kt.jit
def print_row(x_ptr, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    x = kt.load(x_ptr + offs, mask=offs < n, other=-1.0)
    kt.device_print("x", x)


@kt.jit
def print_kinds(x_ptr, b_ptr, n):
    offs = kt.arange(0, 2)
    x = kt.load(x_ptr + offs)
    kt.device_print("pair", offs, x.to(kt.bfloat16))
    kt.device_print("bits", x, hex=True)
    kt.device_print("flag", offs > 0)
    kt.device_print("wide", offs.to(kt.int64) + 4294967296)
    kt.device_print("n", n)
    kt.device_print("bf16", kt.load(b_ptr))


@kt.jit
def print_grid(base_ptr, R: kt.constexpr, C: kt.constexpr):
    tile = kt.arange(0, R)[:, None] * 10 + kt.arange(0, C)[None, :] + kt.load(base_ptr)
    kt.device_print("t", tile)


def cases():
    """id -> (kernel, grid, NumPy arguments, constexprs). On a GPU the small tiles are held by
    several threads of a program; each element must still print once."""
    return {
        "row": (print_row, (2,), [np.array([0.5, 1.25, 3.0, 1e-8, 7.0, 8.0], np.float32), 6],
                {"BLOCK": 4}),
        "kinds": (print_kinds, (1,),
                  [np.array([1.5, -2.0], np.float32), np.array([0x3F80], np.uint16), 7], {}),
        # An array argument puts the launch on the GPU (it decides the device).
        "grid": (print_grid, (1,), [np.zeros(1, np.int32)], {"R": 2, "C": 4}),
    }


def run(case: str, cuda: bool) -> None:
    kernel, grid, args, constexprs = cases()[case]
    if cuda:
        import torch

        def to_cuda(a):
            if not isinstance(a, np.ndarray):
                return a
            t = torch.from_numpy(a.copy())
            return (t.view(torch.bfloat16) if a.dtype == np.uint16 else t).cuda()

        args = [to_cuda(a) for a in args]
    kernel[grid](*args, **constexprs)
    if cuda:
        torch.cuda.synchronize()


if __name__ == "__main__":
    run(sys.argv[1], "--cuda" in sys.argv[2:])
