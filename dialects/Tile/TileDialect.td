//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
#ifndef KDA_TILE_DIALECT
#define KDA_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::kda::tile";
  let summary = "Value-semantic tiles for GPU and CPU kernels";
  let description = [{
    Tiles are builtin ranked tensors (so `arith` and `math` apply elementwise);
    the encoding slot is reserved for a layout attribute. The dialect adds a
    pointer type and the operations lowering must treat specially: program
    ids, ranges, shape manipulation, pointer arithmetic, masked memory
    access, reductions and matrix products.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // KDA_TILE_DIALECT
