# Compile resources are bounded: a tile larger than a tile may hold (every
# target), or than the program's registers can hold (GPU targets), is an error
# at its source line, and a failed kt.static_assert ends emission.
# RUN: not kda-compile %s --kernel huge_sum --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=HUGE_SUM
# RUN: not kda-compile %s --kernel block --target gfx950 --signature 'o=*f32' \
# RUN:   -D BLOCK=1048576 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=GFX950
# RUN: not kda-compile %s --kernel block --target sm_90a --signature 'o=*f32' \
# RUN:   -D BLOCK=65536 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SM90
# RUN: kda-compile %s --kernel block --target sm_90a --signature 'o=*f32' \
# RUN:   -D BLOCK=65536 --num-warps 16 --emit tile -o - | FileCheck %s --check-prefix=SM90-16
# RUN: not kda-compile %s --kernel block --target cpu --signature 'o=*f32' \
# RUN:   -D BLOCK=2097152 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=CPU
# RUN: not kda-compile %s --kernel in_callee --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=IN_CALLEE
# RUN: not kda-compile %s --kernel in_loop --target gfx1250 --signature 'o=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=IN_LOOP
# RUN: not kda-compile %s --kernel assert_stops --target cpu --signature 'o=*f32' \
# RUN:   -D BV=4294967296 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ASSERT_STOPS \
# RUN:   --implicit-check-not=error:
# RUN: not kda-compile %s --kernel block --target sm_90a --signature 'o=*f32' -D BLOCK=64 \
# RUN:   --num-warps 64 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=WARPS-SM90
# RUN: not kda-compile %s --kernel block --target gfx950 --signature 'o=*f32' -D BLOCK=64 \
# RUN:   --num-warps 32 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=WARPS-GFX950
# RUN: not kda-compile %s --kernel assert_in_unrolled_loop --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=ASSERT_UNROLLED \
# RUN:   --implicit-check-not=error:

import kdatile.language as kt


@kt.jit
def huge_sum(o):
    # HUGE_SUM: errors_limits.py:[[@LINE+3]]:23: error: a tile of shape [2147483648, 2147483648] (4611686018427387904 elements) is larger than the 1048576 a tile may hold
    # HUGE_SUM-NEXT: {{^}}    s = kt.sum(kt.sum(kt.zeros((2**31, 2**31), kt.float32), 0), 0)
    # HUGE_SUM-NEXT: {{^}}                      ^
    s = kt.sum(kt.sum(kt.zeros((2**31, 2**31), kt.float32), 0), 0)
    kt.store(o, s)


@kt.jit
def block(o, BLOCK: kt.constexpr):
    # 2**20 over 4 waves of 64 lanes: 4096 registers a lane, gfx950 has 512.
    # GFX950: errors_limits.py:[[@LINE+8]]:12: error: a tile of shape [1048576] (1048576 elements) needs at least 4096 32-bit registers in each of the program's 256 threads, more than the 512 a thread has; use smaller blocks or more warps
    # 2**16 over 4 warps of 32 threads: 512 registers a thread, sm_90a has 255;
    # over 16 warps: 128.
    # SM90: error: a tile of shape [65536] (65536 elements) needs at least 512 32-bit registers in each of the program's 128 threads, more than the 255 a thread has
    # SM90-16: tile.range 0, 65536 : tensor<65536xi32>
    # WARPS-SM90: num_warps=64 is 2048 threads, over sm_90a's 1024 per program
    # WARPS-GFX950: num_warps=32 is 2048 threads, over gfx950's 1024 per program
    # CPU: error: a tile of shape [2097152] (2097152 elements) is larger than the 1048576 a tile may hold
    offs = kt.arange(0, BLOCK)
    kt.store(o + offs, offs.to(kt.float32))


@kt.jit
def make_big(x):
    # IN_CALLEE: errors_limits.py:[[@LINE+1]]:16: error: a tile of shape [4096, 4096]
    return x + kt.zeros((4096, 4096), kt.float32)


@kt.jit
def in_callee(o):
    # IN_CALLEE: errors_limits.py:[[@LINE+1]]:9: note: in call from here
    y = make_big(1.0)
    kt.store(o, kt.sum(kt.sum(y, 0), 0))


@kt.jit
def in_loop(o, n):
    acc = kt.zeros((64,), kt.float32)
    for i in range(n):
        # Reported once, by the loop's emission (its dry run only notes it).
        # IN_LOOP: errors_limits.py:[[@LINE+2]]:15: error: a tile of shape [1048576]
        # IN_LOOP-NOT: error:
        big = kt.full((1048576,), 1.0, kt.float32)
        acc += kt.sum(big, 0)
    kt.store(o + kt.arange(0, 64), acc)


@kt.jit
def assert_stops(o, BV: kt.constexpr):
    # Only the assertion is reported: nothing after it is emitted.
    # ASSERT_STOPS: errors_limits.py:[[@LINE+1]]:22: error: static assertion failed: BV must be at most 128
    kt.static_assert(BV <= 128, "BV must be at most 128")
    x = kt.zeros((BV, BV), kt.float32)
    undefined_after_the_assertion(x)


@kt.jit
def assert_in_unrolled_loop(o):
    for i in kt.static_range(0, 60000):
        # ASSERT_UNROLLED: errors_limits.py:[[@LINE+1]]:26: error: static assertion failed: i must stay below 3
        kt.static_assert(i < 3, "i must stay below 3")
        kt.store(o + i, 1.0)
