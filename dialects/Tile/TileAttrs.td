//===- TileAttrs.td - tile layouts -------------------------*- tablegen -*-===//
//
// Layouts say which thread of a program holds which element of a tile
// (distributed layouts) or how a buffer is arranged in shared memory (shared
// layouts). They live in the encoding slot of the tile's tensor type.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_TILE_ATTRS
#define KDA_TILE_ATTRS

include "Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "elements spread over registers, lanes and warps in blocks";
  let description = [{
    Each thread holds `sizePerThread` contiguous elements per dimension; the
    lanes of a warp tile `threadsPerWarp`, the warps of a program tile
    `warpsPerCTA`; `order` lists dimensions fastest first. A tile larger than
    the resulting block repeats it in more registers; a smaller one is
    replicated. All sizes are powers of two and the lanes multiply to the
    wave size.
    ```mlir
    #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
                   warpsPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
    `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
    `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    unsigned getNumWarps() const;
    unsigned getWaveSize() const;
  }];
}

def Tile_SliceLayoutAttr : Tile_Attr<"SliceLayout", "slice",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "a parent layout with one dimension removed";
  let description = [{
    The layout of a reduction's result: the threads that held the reduced
    dimension hold copies of each result element.
    ```mlir
    #tile.slice<{dim = 1, parent = #tile.blocked<{...}>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

def Tile_MatrixInstr : I32EnumAttr<"MatrixInstr",
    "a matrix-multiply instruction with fp32 results (16-bit, tf32 or fp32 inputs)", [
    I32EnumAttrCase<"MmaM16N8K16", 0, "mma_m16n8k16">,
    I32EnumAttrCase<"Mfma32x32x16", 1, "mfma_32x32x16">,
    I32EnumAttrCase<"Mfma16x16x32", 2, "mfma_16x16x32">,
    I32EnumAttrCase<"Wmma16x16x32", 3, "wmma_16x16x32">,
    I32EnumAttrCase<"MmaM16N8K8Tf32", 4, "mma_m16n8k8_tf32">,
    I32EnumAttrCase<"WgmmaM64K16", 5, "wgmma_m64k16">,
    I32EnumAttrCase<"Mfma16x16x16", 6, "mfma_16x16x16">,
    I32EnumAttrCase<"Mfma16x16x4F32", 7, "mfma_16x16x4_f32">]> {
  let cppNamespace = "::kda::tile";
  let genSpecializedAttr = 0;
}

def Tile_MatrixOperand : I32EnumAttr<"MatrixOperand",
    "an operand of a matrix product: a [M, K], b [K, N], c [M, N]", [
    I32EnumAttrCase<"A", 0, "a">,
    I32EnumAttrCase<"B", 1, "b">,
    I32EnumAttrCase<"C", 2, "c">]> {
  let cppNamespace = "::kda::tile";
  let genSpecializedAttr = 0;
}

def Tile_MmaLayoutAttr : Tile_Attr<"MmaLayout", "mma",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "an operand's fragments of a matrix instruction, tiled over warps";
  let description = [{
    The elements of one operand of a matrix product held as the matrix
    instruction `instr` expects them (mma.sync m16n8k16 on NVIDIA GPUs, MFMA
    on gfx950; kda/Layout/MatrixLayouts.h has the tables): the instruction's
    fragment, tiled over the program's warps `warpsPerCTA` = [along M, along
    N] (M fastest), then repeated over registers along the tile's columns and
    then its rows. `a` is replicated across the warps along N, `b` across
    those along M. A tile smaller than the warps' block is replicated.
    ```mlir
    #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [2, 2]}>
    ```
  }];
  let parameters = (ins EnumParameter<Tile_MatrixInstr>:$instr,
                        EnumParameter<Tile_MatrixOperand>:$operand,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = [{
    `<` `{` `instr` `=` $instr `,` `operand` `=` $operand `,`
    `warpsPerCTA` `=` `[` $warpsPerCTA `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() const {
      return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
    }
    /// The same instruction and warps for another operand.
    MmaLayoutAttr withOperand(MatrixOperand operand) const {
      return get(getContext(), getInstr(), operand, getWarpsPerCTA());
    }
  }];
}

def Tile_SwizzledSharedLayoutAttr
    : Tile_Attr<"SwizzledSharedLayout", "swizzled_shared"> {
  let summary = "shared-memory layout with XOR swizzling";
  let description = [{
    Rows (along `order[0]`) are split into `vec`-element groups whose index
    is XORed with `(row / perPhase) % maxPhase` to spread bank accesses.
    ```mlir
    #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,`
    `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_NVMMASharedLayoutAttr
    : Tile_Attr<"NVMMASharedLayout", "nvmma_shared"> {
  let summary = "shared-memory layout of NVIDIA matrix-unit operands";
  let description = [{
    The layout the NVIDIA matrix unit (wgmma shared-memory descriptors) and
    its swizzled copies read: the last two dimensions [R, C] are stored as
    C / W column blocks of R rows of `swizzleBytes` (W = swizzleBytes * 8 /
    elementBits elements), each block row-major, and inside every 1024 bytes
    the 16-byte group g of byte offset o moves to g ^ ((o / 128) %
    (swizzleBytes / 16)): the hardware's 32-, 64- and 128-byte swizzles.
    Rows must come in multiples of 8 so that each swizzle period is whole.
    ```mlir
    #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzleBytes, "unsigned":$elementBits);
  let assemblyFormat = [{
    `<` `{` `swizzleBytes` `=` $swizzleBytes `,` `elementBits` `=`
    $elementBits `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements in one row of a column block.
    int64_t getBlockColumns() const {
      return int64_t(getSwizzleBytes()) * 8 / getElementBits();
    }
  }];
}

def Tile_PaddedSharedLayoutAttr
    : Tile_Attr<"PaddedSharedLayout", "padded_shared"> {
  let summary = "shared-memory layout with padding";
  let description = [{
    A shared buffer stored row-major (order [1, 0]) with `padding` unused
    elements after every `interval` elements of its row-major index, so that
    the element at index i lives at i + (i / interval) * padding. With the
    interval a row (or a multiple of it) and an odd number of words of
    padding, a column of the buffer falls on distinct banks. The interval is
    a power of two dividing the elements of the last two dimensions, so each
    slice of the leading dimensions holds whole intervals.
    ```mlir
    #tile.padded_shared<{interval = 32, padding = 1, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$interval, "unsigned":$padding,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `interval` `=` $interval `,` `padding` `=` $padding `,`
    `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Where the element of row-major index `index` is stored.
    int64_t getPaddedIndex(int64_t index) const {
      return index + index / getInterval() * getPadding();
    }
  }];
}

#endif // KDA_TILE_ATTRS
