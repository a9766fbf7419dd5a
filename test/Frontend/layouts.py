# Explicit layouts: kt.BlockedLayout / kt.SliceLayout values, `layout=` on
# constructors and kt.convert_layout. Operands of one op share the first
# laid-out operand's layout; a reduction yields a slice of its source's
# layout and expanding a slice gives back its parent.
# RUN: kda-compile %s --kernel lay --target cpu --signature 'x=*f32,o=*f32' \
# RUN:   --emit tile -o - | FileCheck %s
# RUN: kda-compile %s --kernel mma_lay --target sm_90a --signature 'x=*bf16,o=*f32' \
# RUN:   --emit tile -o - | FileCheck %s --check-prefix=MMA

import kdatile as kt

BL = kt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
COLS = kt.BlockedLayout(size_per_thread=[1, 1], threads_per_warp=[32, 1],
                        warps_per_cta=[4, 1], order=[0, 1])


# The printed layouts are long; BL is "sizePerThread = [1, 4]", COLS is
# "sizePerThread = [1, 1]".
# CHECK-LABEL: func.func @lay
@kt.jit
def lay(x, o):
    # CHECK: tile.range 0, 32 : tensor<32xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4]
    rows = kt.arange(0, 32, layout=kt.SliceLayout(1, BL))
    cols = kt.arange(0, 16, layout=kt.SliceLayout(0, BL))
    # Expanding a slice gives back its parent.
    # CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<32xi32, #tile.slice<{dim = 1, {{.*}}> -> tensor<32x1xi32, #tile.blocked<{sizePerThread = [1, 4]
    # Scalars are splat straight into the layout.
    # CHECK: tile.splat %arg0 : tensor<32x1x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4]
    # CHECK: tile.load %{{.*}} : tensor<32x16x!tile.ptr<f32>, #tile.blocked<{sizePerThread = [1, 4]
    t = kt.load(x + rows[:, None] * 16 + cols[None, :])
    # CHECK: tile.reduce sum %{{.*}} -> tensor<32xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 4]
    s = kt.sum(t, 1)
    # CHECK: tile.convert_layout %{{.*}} : tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4]{{.*}} -> tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 1]
    u = kt.convert_layout(t, COLS)
    # Mixed layouts meet in the first operand's: u is converted back.
    # CHECK: tile.convert_layout %{{.*}} : tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 1]{{.*}} -> tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4]
    # CHECK: arith.addf %{{.*}} : tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4]
    v = t + u + s[:, None]
    z = kt.zeros((32, 16), kt.float32, layout=BL)
    # Two operands broadcast to the result: the laid-out one lends its layout
    # (an outer product of a reduction and a layout-less vector; the
    # reduction's broadcast is the one CSE'd from `v` above).
    # CHECK: %[[W:.*]] = tile.load %{{.*}} : tensor<16x!tile.ptr<f32>>
    w = kt.load(x + kt.arange(0, 16))
    # It converts the [1, 16] tile, not its [32, 16] broadcast.
    # CHECK: tile.expand_dims %[[W]] {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
    # CHECK: tile.convert_layout %{{.*}} : tensor<1x16xf32> -> tensor<1x16xf32, #tile.blocked<{sizePerThread = [1, 4]
    # CHECK: tile.broadcast %{{.*}} : tensor<1x16xf32, #tile.blocked<{sizePerThread = [1, 4]{{.*}} -> tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4]
    # CHECK: arith.mulf %{{.*}} : tensor<32x16xf32, #tile.blocked<{sizePerThread = [1, 4]
    outer = s[:, None] * w[None, :]
    kt.store(o + rows[:, None] * 16 + cols[None, :], v + z + outer)


A = kt.MmaLayout("mma_m16n8k16", "a", [2, 2])
C = kt.MmaLayout(instr="mma_m16n8k16", operand="c", warps_per_cta=[2, 2])


# kt.MmaLayout: a matrix instruction's operand layout, written in the kernel; a dot of
# operands and accumulator in one instruction's layouts keeps them.
# MMA-LABEL: func.func @mma_lay
# MMA: tile.convert_layout %{{.*}} : tensor<32x16xbf16> -> tensor<32x16xbf16, #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [2, 2]}>>
# MMA: tile.dot {{.*}} -> tensor<32x16xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [2, 2]}>>
@kt.jit
def mma_lay(x, o):
    rows = kt.arange(0, 32)
    cols = kt.arange(0, 16)
    a = kt.convert_layout(kt.load(x + rows[:, None] * 16 + cols[None, :]), A)
    b = kt.load(x + cols[:, None] * 16 + cols[None, :])
    acc = kt.zeros((32, 16), kt.float32, layout=C)
    kt.store(o + rows[:, None] * 16 + cols[None, :], kt.dot(a, b, acc))

