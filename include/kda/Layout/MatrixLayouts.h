//===- MatrixLayouts.h - operand layouts of matrix instructions -*- C++ -*-===//
//
// Which lane and register of a warp (wave) holds which element of the
// operands and the result of the matrix-multiply instructions kt.dot maps
// to, as linear layouts (kda/Layout/LinearLayout.h), and those fragments
// tiled over a block's warps and repeated over registers to cover a tile.
// Register indices count elements: two 16-bit operand elements share one
// 32-bit register (element 2i in its low half), an fp32 accumulator is one.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_LAYOUT_MATRIXLAYOUTS_H
#define KDA_LAYOUT_MATRIXLAYOUTS_H

#include "Tile/TileDialect.h"
#include "kda/Layout/LinearLayout.h"

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <optional>

namespace kda {

using tile::MatrixInstr;   // Tile/TileAttrs.td
using tile::MatrixOperand; // A [M, K], B [K, N], C [M, N]

/// The instruction's [M, N, K]; wgmma_m64k16's N is its smallest, 8 (it
/// takes any multiple of 8 up to 256).
std::array<int64_t, 3> getMatrixInstructionShape(MatrixInstr instr);

/// How many steps of `instr` a product reducing over `k` takes: k / K for a
/// multiple of the instruction's K, 1 for a smaller power of two whose
/// missing K the operands' fragments hold in registers alone (their layouts
/// wrap there and the lowering zeroes those registers; the MFMA fragments,
/// which spread K over lane groups, do not pad), else 0: no fit.
int64_t getMatrixKSteps(MatrixInstr instr, int64_t k);

/// The lanes of the warp or wave that executes the instruction.
unsigned getMatrixInstructionLanes(MatrixInstr instr);

/// One instruction's fragment of `operand`: a layout over its [M, K],
/// [K, N] or [M, N] tile from registers and lanes (no warp bits). For
/// wgmma_m64k16 only C, one warp's [16, 8] of it: its operands stay in
/// shared memory.
LinearLayout getMatrixFragmentLayout(MatrixInstr instr, MatrixOperand operand);

/// The fp32 accumulator of wgmma.mma_async.m64nNk16 (sm_90a) over its
/// [64, N] tile, N a power of two from 8 to 256: a warpgroup of four warps,
/// warp w holding rows 16w to 16w + 15 as mma.sync's m16n8 accumulator
/// repeated along N.
LinearLayout getWgmmaAccumulatorLayout(int64_t n);

/// `operand` of a tile of `shape` ([M, K], [K, N] or [M, N], powers of two)
/// computed by a block of warps arranged `warps` = [warps along M, warps
/// along N] (#tile.mma): the instruction's fragment, then the warps tiled
/// over M (fastest) and N, then registers repeating the pattern along the
/// tile's columns, then its rows. A and B are replicated across the warps of
/// the other dimension (those warps' bases are zero) and span their whole K.
/// A tile smaller than the warps' block wraps (replication).
LinearLayout makeMatrixLayout(MatrixInstr instr, MatrixOperand operand,
                              llvm::ArrayRef<int64_t> shape,
                              std::array<unsigned, 2> warps);

/// How a 2-D tile of 16-bit elements in `layout` is read from a row-major
/// shared buffer of its shape with 8x8 matrix loads (NVIDIA ldmatrix): lane t
/// receives elements (t / 4, 2 (t % 4) + {0, 1}) of each 8x8 block, or
/// (2 (t % 4) + {0, 1}, t / 4) transposed, into one 32-bit register. A
/// layout qualifies when register bit 0 and the five lane bits are that
/// pattern and every other register and warp bit steps whole 8x8 blocks:
/// then each load of `matrices` blocks fills 2 * matrices consecutive
/// registers, block j the pair starting at register 2j of the group, and the
/// lanes 8j .. 8j + 7 give the addresses of block j's rows. The mma.sync A
/// operand takes the plain loads, B (stored K x N) the transposed ones.
struct MatrixLoadPlan {
  bool transposed;
  unsigned matrices; ///< 8x8 blocks per load: 1, 2 or 4
};
std::optional<MatrixLoadPlan> getMatrixLoadPlan(const LinearLayout &layout);

/// AMD's transposing 16-bit shared-memory loads: gfx950 ds_read_b64_tr_b16
/// ({4, 16}) and gfx1250 ds_load_tr16_b128 ({8, 8}). Each group of
/// `groupLanes` consecutive lanes reads an `elements` x `groupLanes` block of
/// a row-major [K, N] buffer, every lane giving the address of `elements`
/// consecutive elements of one row (lane s of the group: row s / (groupLanes
/// / elements), columns from elements * (s % (groupLanes / elements))), and
/// lane i receives column i of the block, its rows in register order.
struct TransposedLoad {
  unsigned elements;
  unsigned groupLanes;
};

/// For a 2-D tile in `layout` ([K, N]) read with `load`: where each lane's
/// address points, as a layout whose register r (a multiple of
/// load.elements) and lane give the coordinate of the first element that
/// lane supplies for the load of registers r .. r + elements - 1. A layout
/// qualifies when register bits 0 .. log2(elements) - 1 step K by 1, 2, ...,
/// lane bits 0 .. log2(groupLanes) - 1 step N by 1, 2, ..., and every other
/// register, lane and warp bit steps whole blocks (K by multiples of
/// `elements`, N of `groupLanes`); else nullopt.
std::optional<LinearLayout> getTransposedLoadSources(const LinearLayout &layout,
                                                     TransposedLoad load);

} // namespace kda

#endif // KDA_LAYOUT_MATRIXLAYOUTS_H
