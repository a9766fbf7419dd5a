//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
#ifndef KDA_TILE_OPS
#define KDA_TILE_OPS

include "Tile/TileDialect.td"
include "Tile/TileAttrs.td"
include "Tile/TileTypes.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of the running program along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Tile construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "the integers [start, end) as a 1-D tile";
  let description = [{
    ```mlir
    %r = tile.range 0, 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result", "src",
                   "::mlir::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "a tile with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat a tile along its dimensions of size 1";
  let description = [{
    ```mlir
    %b = tile.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a dimension of size 1";
  let description = [{
    ```mlir
    %e = tile.expand_dims %x {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tile with another shape (row-major order)";
  let description = [{
    ```mlir
    %r = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "permute the dimensions of a tile";
  let description = [{
    `result.shape[i] = src.shape[order[i]]`.
    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "move a tile's elements to another layout";
  let description = [{
    Same shape and element type, different layout. Lowering moves data
    between registers, lanes or warps (through shared memory when needed).
    ```mlir
    %y = tile.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element offsets";
  let description = [{
    Offsets count elements of the pointee type, not bytes.
    ```mlir
    %q = tile.addptr %p, %off : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    TypesMatchWith<"result holds the pointee type", "ptr", "result",
                   "::kda::tile::getPointeeLikeType($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kda::tile::getI1LikeType($_self)",
                   "!::llvm::cast<::kda::tile::LoadOp>(&$_op).getMask() || std::equal_to<>()">,
    TypesMatchWith<"other has the result type", "ptr", "other",
                   "::kda::tile::getPointeeLikeType($_self)",
                   "!::llvm::cast<::kda::tile::LoadOp>(&$_op).getOther() || std::equal_to<>()">,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "masked load of a pointer tile";
  let description = [{
    Lanes whose mask is false read nothing and yield `other` (zero when absent).
    ```mlir
    %v = tile.load %p mask %m other %z : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                   Optional<Tile_Value>:$other);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr (`mask` $mask^)? (`other` $other^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"value holds the pointee type", "ptr", "value",
                   "::kda::tile::getPointeeLikeType($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kda::tile::getI1LikeType($_self)", "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    MemoryEffects<[MemWrite]>]> {
  let summary = "masked store to a pointer tile";
  let description = [{
    Lanes whose mask is false write nothing.
    ```mlir
    tile.store %p, %v mask %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$value,
                   Optional<Tile_BoolLike>:$mask);
  let assemblyFormat = [{
    $ptr `,` $value (`mask` $mask^)? attr-dict `:` type($ptr)
  }];
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Xchg", 3, "xchg">]> {
  let cppNamespace = "::kda::tile";
}

def Tile_MemorySemantic : I32EnumAttr<"MemorySemantic",
    "ordering of an atomic against the program's other memory accesses", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::kda::tile";
}

def Tile_MemoryScope : I32EnumAttr<"MemoryScope",
    "the threads an atomic's ordering is guaranteed towards", [
    I32EnumAttrCase<"CTA", 0, "cta">,
    I32EnumAttrCase<"GPU", 1, "gpu">,
    I32EnumAttrCase<"System", 2, "sys">]> {
  let cppNamespace = "::kda::tile";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    TypesMatchWith<"value holds the pointee type", "ptr", "value",
                   "::kda::tile::getPointeeLikeType($_self)">,
    TypesMatchWith<"result holds the pointee type", "ptr", "result",
                   "::kda::tile::getPointeeLikeType($_self)">,
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kda::tile::getI1LikeType($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read-modify-writes: once per program, or per element";
  let description = [{
    Atomically combines `value` into `*ptr` and returns the old value. With
    scalars the operation happens once per program (on a GPU one thread does
    it and the result reaches every thread). With tiles it happens once per
    element whose mask is true, however many threads hold the element (masked
    elements return 0 and touch no memory); elements sharing an address are
    combined one after another in an unspecified order. The semantic orders
    the operation against all of the program's memory accesses: `release`
    makes every earlier access of the program visible to whoever acquires the
    new value, `acquire` makes what the releasing program did visible to
    every later access; `scope` says towards which threads. Kinds: `add`,
    `max`, `min` (signed) and `xchg` on i32/i64; `add` and `xchg` on f32.
    ```mlir
    %old = tile.atomic_rmw add %counter, %one {sem = acq_rel, scope = gpu}
        : !tile.ptr<i32>
    %olds = tile.atomic_rmw add %bins, %ones mask %m {sem = relaxed,
        scope = gpu} : tensor<64x!tile.ptr<i32>>
    ```
  }];
  let arguments = (ins Tile_AtomicKind:$kind, Tile_PtrLike:$ptr,
                   Tile_Value:$value, Optional<Tile_BoolLike>:$mask,
                   Tile_MemorySemantic:$sem, Tile_MemoryScope:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $kind $ptr `,` $value (`mask` $mask^)? ` ` `{` `sem` `=` $sem `,` `scope`
    `=` $scope `}` attr-dict `:` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory, asynchronous copies and barriers
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared", [
    MemoryEffects<[MemAlloc]>]> {
  let summary = "a buffer in shared memory for the program's lifetime";
  let description = [{
    Each op is its own buffer (two ops are never merged), placed in the
    kernel's entry block so its size is known when the kernel is compiled.
    ```mlir
    %buf = tile.alloc_shared : !tile.smem<2x32x128xf32>
    ```
  }];
  let results = (outs Tile_SharedBufferType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_SmemIndexOp : Tile_Op<"smem_index", [Pure]> {
  let summary = "one slice of a shared buffer's leading dimension";
  let description = [{
    An index outside the leading dimension is undefined behaviour, as for
    an out-of-bounds pointer.
    ```mlir
    %slot = tile.smem_index %buf[%i] : !tile.smem<2x32x128xf32> -> !tile.smem<32x128xf32>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer, I32:$index);
  let results = (outs Tile_SharedBufferType:$result);
  let assemblyFormat = [{
    $buffer `[` $index `]` attr-dict `:` qualified(type($buffer)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_SmemLoadOp : Tile_Op<"smem_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a whole shared buffer into a tile";
  let description = [{
    ```mlir
    %t = tile.smem_load %slot : !tile.smem<32x128xf32> -> tensor<32x128xf32>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $buffer attr-dict `:` qualified(type($buffer)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_SmemStoreOp : Tile_Op<"smem_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a tile into a whole shared buffer";
  let description = [{
    ```mlir
    tile.smem_store %slot, %t : !tile.smem<32x128xf32>, tensor<32x128xf32>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer, Tile_Tensor:$value);
  let assemblyFormat = [{
    $buffer `,` $value attr-dict `:` qualified(type($buffer)) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [
    TypesMatchWith<"mask has the shape of ptr", "ptr", "mask",
                   "::kda::tile::getI1LikeType($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying global memory into a shared buffer";
  let description = [{
    Element `i` of the buffer receives `*ptr[i]`, or zero where the mask is
    false (that address is not read). The copy runs in the background: its
    data may be read only after a `tile.async_wait` that covers it, and the
    buffer must not be written meanwhile. Each op is one group for
    `tile.async_wait`. Targets without asynchronous copies (the host, AMD
    for now) copy at once.
    ```mlir
    tile.async_copy %slot, %ptrs mask %m : !tile.smem<32x128xf32>, tensor<32x128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer,
                   RankedTensorOf<[Tile_PointerType]>:$ptr,
                   Optional<RankedTensorOf<[I1]>>:$mask);
  let assemblyFormat = [{
    $buffer `,` $ptr (`mask` $mask^)? attr-dict `:` qualified(type($buffer))
    `,` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_MakeTensorDescOp : Tile_Op<"make_tensor_desc", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "describe a strided global tensor read and written in blocks";
  let description = [{
    The tensor at `base` with `shape` (i32 per dimension) and `strides`
    (i64 elements per dimension, so that byte offsets are 64-bit), in
    blocks of the result type's block shape.
    ```mlir
    %d = tile.make_tensor_desc %base, [%m, %n], [%ld, %c1] : !tile.ptr<bf16> -> !tile.tensor_desc<64x128xbf16>
    ```
  }];
  let arguments = (ins Tile_PointerType:$base, Variadic<I32>:$shape,
                   Variadic<I64>:$strides);
  let results = (outs Tile_TensorDescType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:`
    qualified(type($base)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncLoadOp : Tile_Op<"async_load", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a block of a described tensor into a shared buffer";
  let description = [{
    Copies the block whose first element is at `offsets` (i32 per
    dimension, any sign) of the tensor `desc` describes into `buffer` (the
    block's shape), zeros where the block leaves the tensor. One group of
    asynchronous copies, as `tile.async_copy`: `tile.async_wait` counts it.
    ```mlir
    tile.async_load %d[%i, %j], %buf : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$offsets,
                   Tile_SharedBufferType:$buffer);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `,` $buffer attr-dict `:` qualified(type($desc)) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncStoreOp : Tile_Op<"async_store", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "write a shared buffer to a block of a described tensor";
  let description = [{
    Writes `buffer` to the block at `offsets` of the tensor `desc`
    describes; elements outside the tensor are not written. The write has
    finished when the op returns (on gfx1250 each wave waits for its Tensor
    Data Mover store).
    ```mlir
    tile.async_store %d[%i, %j], %buf : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$offsets,
                   Tile_SharedBufferType:$buffer);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `,` $buffer attr-dict `:` qualified(type($desc)) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the program's asynchronous copies";
  let description = [{
    Waits until at most `pending` of the program's most recent
    `tile.async_copy` and `tile.async_load` ops are still in flight (on
    gfx1250, `s_wait_tensorcnt` for the loads on the Tensor Data Mover), then
    synchronizes the
    program's threads: every thread sees the data of every finished copy,
    whichever thread issued it.
    ```mlir
    tile.async_wait {pending = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending);
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "synchronize the program's threads";
  let description = [{
    Every thread waits for the others; their shared and global memory
    accesses before the barrier are visible to every thread after it.
    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Launch order (programmatic dependent launch)
//===----------------------------------------------------------------------===//

def Tile_WaitPriorLaunchesOp : Tile_Op<"wait_prior_launches", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the kernels launched before this one on its stream";
  let description = [{
    Blocks until every kernel launched earlier on the stream has finished and
    its memory writes are visible. A kernel holding this op may be launched
    before the previous kernel on its stream has finished (on sm_90a the
    runtime sets programmatic stream serialization), so its launch and setup
    overlap the previous kernel's tail. The op must sit at the top level of
    the kernel, before any operation that reads or writes memory, so nothing
    the previous kernel writes is touched early.
    ```mlir
    %pid = tile.program_id 0
    tile.wait_prior_launches
    %v = tile.load %p : ...
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_LaunchDependentsOp : Tile_Op<"launch_dependents", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "let the next kernel on the stream start launching";
  let description = [{
    Once every program of the kernel has run this op (or exited), a kernel
    launched after it with an early launch may start; that kernel still waits
    for this one to finish in its `tile.wait_prior_launches`, so the op only
    moves the next launch earlier and never exposes unfinished writes.
    ```mlir
    tile.launch_dependents
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print values at run time, element by element";
  let description = [{
    For each operand and each of its elements, the program prints one line
    `pid (x, y, z) idx (i, j) PREFIX: VALUE` (with `(operand k)` after the
    prefix when there are several operands; a scalar prints without `idx`,
    once per program). Floats print widened to f64 (`%.9g`, `%.17g` for f64),
    integers in decimal, or both as hexadecimal bit patterns with `hex`. The host prints
    to stdout, NVIDIA GPUs through `vprintf`, AMD GPUs through the runtime's
    printf buffer.
    ```mlir
    tile.print "acc" %acc : tensor<4x8xf32, #blocked>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex,
                   Variadic<Tile_Value>:$args);
  let assemblyFormat = "$prefix ($args^ `:` type($args))? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Thread-block clusters
//===----------------------------------------------------------------------===//

def Tile_ClusterSumOp : Tile_Op<"cluster_sum", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "sum a scalar over the programs of a cluster";
  let description = [{
    Programs whose ids differ only along `axis`, within an aligned run of
    `size` of them, form a cluster. Every program of a cluster gets the sum
    of their `value`s, added in rank order (the same bits in each program).
    The kernel is launched in clusters of that shape (on NVIDIA sm_90a a
    thread-block cluster: the programs run at the same time and exchange
    through distributed shared memory); the host runs a cluster's programs on
    threads of their own. Every program of a cluster must execute each
    `tile.cluster_sum` the same number of times, so the op may sit under a
    branch taken alike by the whole cluster but not in a loop, and all of a
    kernel's cluster sums use one cluster shape.
    ```mlir
    %total = tile.cluster_sum %partial {axis = 2 : i32, size = 4 : i32} : f32
    ```
  }];
  let arguments = (ins F32:$value,
                   ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis,
                   ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<8>]>:$size);
  let results = (outs F32:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and matrix products
//===----------------------------------------------------------------------===//

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Prod", 3, "prod">]> {
  let cppNamespace = "::kda::tile";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis";
  let description = [{
    Reducing the only axis of a 1-D tile yields a scalar. Float max/min
    propagate NaN; on i1, max is "any" and min is "all" (sum and prod are
    rejected: widen to an integer first).
    ```mlir
    %s = tile.reduce sum %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "inclusive scan of tiles along one axis with a combiner region";
  let description = [{
    Element `i` along `axis` of each result combines elements `0 .. i` of
    the sources in order (`n - 1 .. i` with `reverse`); the other coordinates
    are independent. The combiner takes the running values of every source,
    then the next elements, and yields the new running values; it must be
    associative and compute on scalars only (no memory, no tiles).
    ```mlir
    %c = tile.scan %g {axis = 0 : i32, reverse = false} : tensor<64x128xf32> {
    ^bb0(%acc: f32, %x: f32):
      %s = arith.addf %acc, %x : f32
      tile.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis,
                   BoolAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = "$srcs attr-dict `:` type($srcs) $combiner";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, HasParent<"ScanOp">]> {
  let summary = "the values a combiner region produces";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def Tile_InputPrecision : I32EnumAttr<"InputPrecision",
    "how the products of fp32 operands are formed", [
    I32EnumAttrCase<"IEEE", 0, "ieee">,
    I32EnumAttrCase<"TF32", 1, "tf32">]> {
  let cppNamespace = "::kda::tile";
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product of 2-D tiles accumulated in fp32";
  let description = [{
    `result = acc + a @ b` with `a: MxK`, `b: KxN`, `acc: MxN` fp32. With
    `inputPrecision = tf32` (fp32 operands only) each operand is first
    rounded to tf32 (10 mantissa bits, to nearest, ties away from zero); the
    products of tf32 values are exact in fp32.
    ```mlir
    %e = tile.dot %x, %y, %c precision tf32 : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
    ```
    ```mlir
    %d = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
    ```
    With `async`, a product the matrix unit reads from shared memory
    (`tile.shared_dot`) may still be running when the op returns: its
    result is read only through `tile.dot_wait` or as the accumulator of
    the next asynchronous product. Elsewhere the product completes at once.
  }];
  let arguments = (ins Tile_FloatTensor:$a, Tile_FloatTensor:$b,
                   RankedTensorOf<[F32]>:$acc,
                   DefaultValuedAttr<Tile_InputPrecision,
                                     "::kda::tile::InputPrecision::IEEE">:$inputPrecision,
                   UnitAttr:$isAsync);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`precision` $inputPrecision^)? (`async` $isAsync^)? attr-dict
    `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_SharedDotOp : Tile_Op<"shared_dot", [MemoryEffects<[MemRead]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product whose operands the matrix unit reads from shared memory";
  let description = [{
    `result = acc + a @ b` like `tile.dot`, with `a: MxK` and `b: KxN` read
    where they lie in shared memory (NVIDIA wgmma shared-memory descriptors)
    instead of from registers: both are 16-bit float buffers with a
    `#tile.nvmma_shared` layout, `a` K-contiguous and `b` N-contiguous. M is
    a multiple of 64 (a warpgroup's rows), K of 16. `tile-shared-dots` makes
    it from a `tile.dot` of two `tile.smem_load`s; the accumulator's layout
    is `#tile.mma<{instr = wgmma_m64k16, ...}>`.
    ```mlir
    %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>, !tile.smem<64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>> -> tensor<64x128xf32>
    ```
    With `async` (from an asynchronous `tile.dot`) the product is one
    group of matrix instructions left in flight (`tile.dot_wait`).
  }];
  let arguments = (ins Tile_SharedBufferType:$a, Tile_SharedBufferType:$b,
                   RankedTensorOf<[F32]>:$acc, UnitAttr:$isAsync);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`async` $isAsync^)? attr-dict `:` qualified(type($a))
    `,` qualified(type($b)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DotWaitOp : Tile_Op<"dot_wait", [MemoryEffects<[MemRead]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "wait for asynchronous matrix products";
  let description = [{
    Returns `acc` once at most `pending` groups of asynchronous products
    (`tile.shared_dot` with `async`, one group each) are still running, in
    issue order: with `pending = n` all but the newest n have finished, and
    the shared memory they read may be written again (after a barrier, for
    the other threads' products). Where products complete at once it only
    returns `acc`.
    ```mlir
    %r = tile.dot_wait %acc {pending = 1 : i32} : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$acc, I32Attr:$pending);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$acc attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // KDA_TILE_OPS
