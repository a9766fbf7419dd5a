# Errors of explicit layouts.
# RUN: not kda-compile %s --kernel bad_lanes --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=LANES
# RUN: not kda-compile %s --kernel bad_rank --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=RANK
# RUN: not kda-compile %s --kernel bad_expand --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=EXPAND
# RUN: not kda-compile %s --kernel not_layout --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NOT-LAYOUT
# A written layout for 4 warps in a launch of 8: the error names the DSL line even where the
# tile is a constant the folder merged from two (a merged constant has no location).
# RUN: not kda-compile %s --kernel warps_mismatch --target sm_90a --signature 'o=*f32:16' \
# RUN:   --num-warps 8 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=WARPS
# A `num_warps` constexpr is the program's warps: on a GPU target it takes --num-warps, and
# another value is an error at the parameter.
# RUN: kda-compile %s --kernel span_warps --target sm_90a --signature 'o=*f32:16' \
# RUN:   --num-warps 8 --emit tile -o - | FileCheck %s --check-prefix=SPAN
# RUN: not kda-compile %s --kernel span_warps --target sm_90a --signature 'o=*f32:16' \
# RUN:   --num-warps 8 -D num_warps=4 --emit tile -o - 2>&1 | FileCheck %s --check-prefix=SPAN-BAD
# RUN: not kda-compile %s --kernel bad_mma --target sm_90a --signature 'o=*f32:16' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=MMA
# RUN: not kda-compile %s --kernel mma_on_gfx950 --target gfx950 --signature 'o=*f32:16' \
# RUN:   -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=MMA-TARGET

import kdatile as kt

BL = kt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])


@kt.jit
def bad_lanes(o):
    # LANES: errors_layouts.py:[[@LINE+1]]:9: error: invalid kt.BlockedLayout(): threadsPerWarp entries must be powers of two, got 3
    L = kt.BlockedLayout([1, 4], [8, 3], [4, 1], [1, 0])


@kt.jit
def bad_rank(o):
    # RANK: errors_layouts.py:[[@LINE+1]]:45: error: the layout does not fit a tile of type tensor<16xi32>: {{.*}} has rank 2 but the tile has rank 1
    x = kt.convert_layout(kt.arange(0, 16), BL)


@kt.jit
def bad_expand(o):
    r = kt.arange(0, 16, layout=kt.SliceLayout(1, BL))
    # EXPAND: errors_layouts.py:[[@LINE+1]]:11: error: cannot expand a tile with layout #tile.slice<{dim = 1, {{.*}} at axis 0; expand it at axis 1 or convert its layout first
    y = r[None, :]


@kt.jit
def not_layout(o):
    # NOT-LAYOUT: errors_layouts.py:[[@LINE+1]]:45: error: kt.convert_layout() needs a layout such as kt.BlockedLayout(...), got int constant 3
    x = kt.convert_layout(kt.arange(0, 16), 3)


@kt.jit
def warps_mismatch(o):
    L = kt.BlockedLayout([1], [32], [4], [0])
    offs = kt.arange(0, 128, layout=L)
    kt.store(o + offs, kt.zeros((128,), kt.float32, layout=L))
    # WARPS: errors_layouts.py:[[@LINE+1]]:5: error: layout #tile.blocked<{{.*}}warpsPerCTA = [4]{{.*}}> spreads over 32 lanes x 4 warps, but the target runs 32 lanes x 8 warps (a written layout must span the launch's num_warps)
    kt.store(o + 128 + offs, kt.zeros((128,), kt.float32, layout=L))


# SPAN: tile.range 0, 256 : tensor<256xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
# SPAN-BAD: errors_layouts.py:[[@LINE+2]]:19: error: constexpr 'num_warps' must be the program's warps (8, --num-warps)
@kt.jit
def span_warps(o, num_warps: kt.constexpr = 4):
    offs = kt.arange(0, 32 * num_warps, layout=kt.BlockedLayout([1], [32], [num_warps], [0]))
    kt.store(o + offs, offs.to(kt.float32))


@kt.jit
def bad_mma(o):
    offs = kt.arange(0, 16)
    x = kt.zeros((16, 16), kt.float32)
    # MMA: errors_layouts.py:[[@LINE+1]]:43: error: kt.MmaLayout() instr must be 'mma_m16n8k16', 'mfma_32x32x16', 'mfma_16x16x32', 'wmma_16x16x32', 'mma_m16n8k8_tf32', 'wgmma_m64k16', 'mfma_16x16x16' or 'mfma_16x16x4_f32', got 'wmma_16x16x16'
    a = kt.convert_layout(x, kt.MmaLayout("wmma_16x16x16", "c", [4, 1]))
    # MMA: errors_layouts.py:[[@LINE+1]]:59: error: kt.MmaLayout() operand must be 'a', 'b' or 'c', got 'd'
    b = kt.convert_layout(x, kt.MmaLayout("mma_m16n8k16", "d", [4, 1]))
    # MMA: errors_layouts.py:[[@LINE+1]]:30: error: the layout does not fit a tile of type tensor<16x16xf32>: mma layout operand a holds bf16 or f16 elements, not 'f32'
    c = kt.convert_layout(x, kt.MmaLayout("mma_m16n8k16", "a", [4, 1]))
    # MMA: errors_layouts.py:[[@LINE+1]]:30: error: invalid kt.MmaLayout(): mma layout warpsPerCTA must be [along M, along N]
    d = kt.convert_layout(x, kt.MmaLayout("mma_m16n8k16", "c", [4]))
    kt.store(o + offs[:, None] * 16 + offs[None, :], a + b + c + d)


@kt.jit
def mma_on_gfx950(o):
    offs = kt.arange(0, 16)
    x = kt.convert_layout(kt.zeros((16, 8), kt.float32), kt.MmaLayout("mma_m16n8k16", "c", [4, 1]))
    # MMA-TARGET: error: layout #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}> needs mma_m16n8k16, which gfx950 does not have
    kt.store(o + offs[:, None] * 8 + kt.arange(0, 8)[None, :], x)

