# kt.static_print prints compile-time values (and the types of runtime ones) with the call's
# file:line:col when the kernel is emitted, once per unrolled call, and emits no code.
# RUN: kda-compile %s --kernel printed --target cpu --signature 'x=*f32' -D BLOCK=64 \
# RUN:   --emit tile -o %t.mlir 2>&1 | FileCheck %s --check-prefix=PRINT
# RUN: FileCheck %s --check-prefix=IR --input-file %t.mlir
# RUN: not kda-compile %s --kernel keyword --target cpu --signature 'x=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=KEYWORD

import kdatile as kt


@kt.jit
def printed(x, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    kt.static_print("BLOCK =", BLOCK, "half", BLOCK // 2, (1, 2.5), offs)
    for i in kt.static_range(2):
        kt.static_print("step", i)
    kt.store(x + offs, kt.zeros((BLOCK,), kt.float32))


# PRINT: static_print.py:15:5: static_print: BLOCK = 64 half 32 (1, 2.5) tile of type tensor<64xi32>
# PRINT-NEXT: static_print.py:17:9: static_print: step 0
# PRINT-NEXT: static_print.py:17:9: static_print: step 1
# IR-NOT: static_print
# IR: tile.store


@kt.jit
def keyword(x):
    kt.static_print(x, end="")


# KEYWORD: static_print.py:30:24: error: kt.static_print() takes no keyword arguments
