//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
#ifndef KDA_TILE_TYPES
#define KDA_TILE_TYPES

include "Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_PointerType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "pointer to elements of a scalar type in an address space";
  let description = [{
    `!tile.ptr<f32>` points to fp32 elements in global memory (address space
    1, the default); `!tile.ptr<bf16, 3>` points to bf16 in shared memory.
    Tiles of pointers are tensors of this type.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"unsigned", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"unsigned", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Tile_SharedBufferType : TypeDef<Tile_Dialect, "SharedBuffer"> {
  let mnemonic = "smem";
  let summary = "a buffer in the program's shared memory";
  let description = [{
    `!tile.smem<2x32x128xf32>` is a row-major array of 2x32x128 fp32 values
    in shared memory (LDS on AMD), one per program, made by
    `tile.alloc_shared`. It is not a value: ops read and write it, and
    `tile.smem_index` takes one slice of its leading dimension. On the host
    each program has its own buffer on its stack.

    An optional `#tile.swizzled_shared` layout places each row of the last
    two dimensions in a permuted order of `vec`-element groups (the same
    elements, only their addresses differ, so the host ignores it):
    `!tile.smem<3x64x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2,
    maxPhase = 4, order = [1, 0]}>>`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        OptionalParameter<"::mlir::Attribute">:$layout);
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::Type":$elementType), [{
      return $_get($_ctxt, shape, elementType, ::mlir::Attribute());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
    /// The elements the buffer occupies: its elements and, in a padded
    /// buffer, the padding after each interval.
    int64_t getStorageElements() const;
    /// The buffer without its leading dimension (one slice of it).
    SharedBufferType getSliceType() const;
  }];
}

def Tile_TensorDescType : TypeDef<Tile_Dialect, "TensorDesc"> {
  let mnemonic = "tensor_desc";
  let summary = "a descriptor of blocks of a strided tensor in global memory";
  let description = [{
    `!tile.tensor_desc<64x128xbf16>` describes a global tensor of bf16
    (base pointer, runtime shape and strides, made by
    `tile.make_tensor_desc`) read and written in blocks of 64x128 by
    `tile.async_load` and `tile.async_store`. Elements of a block outside
    the tensor read as zeros and are not written. An optional shared-memory
    layout (`!tile.tensor_desc<64x64xbf16, #tile.nvmma_shared<...>>`) is the
    one its blocks land in: the copies' buffers must have it.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$blockShape,
                        "::mlir::Type":$elementType,
                        OptionalParameter<"::mlir::Attribute">:$layout);
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$blockShape,
                     "::mlir::Type":$elementType,
                     CArg<"::mlir::Attribute", "{}">:$layout), [{
      return $_get($_ctxt, blockShape, elementType, layout);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_Float : AnyTypeOf<[F32, F16, BF16, F64]>;
def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_PointerType]>;
def Tile_Tensor : RankedTensorOf<[Tile_Float, Tile_Int, Tile_PointerType]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PointerType, RankedTensorOf<[Tile_PointerType]>]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, RankedTensorOf<[Tile_Int]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;

#endif // KDA_TILE_TYPES
