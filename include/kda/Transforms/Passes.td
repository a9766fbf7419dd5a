//===- Passes.td - target-independent tile passes ----------*- tablegen -*-===//
#ifndef KDA_TRANSFORMS_PASSES
#define KDA_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Give every tile a distributed layout";
  let description = [{
    Walks each function in order (into scf regions) and gives every tile
    (ranked tensor) without a layout one, chosen locally and
    deterministically from the op that defines it:

    - `tile.range`, `tile.splat`, dense `arith.constant`, `tile.reshape`:
      the default blocked layout of the shape (element bits; pointers 64,
      i1 8);
    - `tile.reduce`: `#tile.slice<{dim = axis, parent = <source layout>}>`;
    - `tile.scan`: the source layout;
    - `tile.expand_dims`: the parent of a slice source; any other source is
      first converted to a slice of the result's default layout;
    - `tile.broadcast`: the source layout;
    - `tile.trans`: the blocked source layout with its dimensions permuted (no
      data moves); other sources are first converted to their default;
    - elementwise ops and `tile.addptr`: the first tile operand's layout;
      other operands are converted to it;
    - `tile.load`: the pointers' layout (mask and other converted);
      `tile.store`: the value's layout wins (pointers and mask converted);
    - `tile.smem_load`: the layout its users prefer (buffers have none);
      `tile.async_copy`: the pointers' layout (mask converted); pointers
      built from ranges and splats take the default layout of their own
      shape (the widest accesses), not the function's;
    - `tile.shared_dot`: `#tile.mma<{instr = wgmma_m64k16, operand = c,
      warpsPerCTA = [num-warps, 1]}>` for the result and the accumulator;
    - `tile.dot`: with bf16 or f16 operands (fp32 ones with `precision
      tf32`), the first of `matrix-instrs` of that kind whose tile divides
      the product, else the first whose K the product's pads with zeros held
      in registers (getMatrixKSteps: a 16-long reduction on gfx1250's K = 32
      WMMA): `#tile.mma` of that instruction for the result and the
      accumulator (all warps along M when the result reaches another dot's
      `a` through elementwise ops or loop-carried values and M has a row of
      instruction tiles per warp; else each doubling of the warps splits the
      side a warp covers more of, rows on a tie), its `a` and `b` layouts
      for the operands,
      which a `tile.smem_load` producing them takes directly; otherwise
      accumulator and result take the result's default layout;
    - `scf.for`/`scf.while`/`scf.if`: carried values take the layouts of the
      values entering them (a loop-carried dot accumulator its `#tile.mma`
      layout, its init converted); yields are converted where they differ.

    Layouts already present (written in the DSL) are never changed: ops are
    fitted to them by converting operands. Inserted converts carry the unit
    attribute `tile.implicit`. The module attributes `tile.num_warps` and
    `tile.wave_size` (i32) record the distribution; when already present
    they override the options.

    Before:
    ```mlir
    %r = tile.range 0, 128 : tensor<128xi32>
    %p = tile.splat %base : tensor<128x!tile.ptr<f32>>
    %q = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
    After (`num-warps=4`, `wave-size=32`):
    ```mlir
    #i32 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    #ptr = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32} {
      %r = tile.range 0, 128 : tensor<128xi32, #i32>
      %p = tile.splat %base : tensor<128x!tile.ptr<f32>, #ptr>
      %c = tile.convert_layout %r {tile.implicit} : tensor<128xi32, #i32> -> tensor<128xi32, #ptr>
      %q = tile.addptr %p, %c : tensor<128x!tile.ptr<f32>, #ptr>, tensor<128xi32, #ptr>
    ```
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "warps per program (when the module does not say)">,
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"32",
           "lanes per warp: 32 (NVIDIA, gfx1250) or 64 (gfx950)">,
    ListOption<"matrixInstrs", "matrix-instrs", "std::string",
               "matrix instructions tile.dot may use, preferred first "
               "(mma_m16n8k16, mma_m16n8k8_tf32, wgmma_m64k16, mfma_32x32x16, mfma_16x16x32, "
               "mfma_16x16x16, mfma_16x16x4_f32, wmma_16x16x32; the GPU "
               "pipeline passes its target's)">
  ];
}

def TileSharedDots : Pass<"tile-shared-dots", "::mlir::ModuleOp"> {
  let summary = "Let the matrix unit read dot operands from shared memory";
  let description = [{
    On a target whose matrix unit reads its operands from shared memory
    (`wgmma_m64k16` among `matrix-instrs`: NVIDIA sm_90a), a `tile.dot`
    whose operands are `tile.smem_load`s of whole `#tile.nvmma_shared`
    buffers becomes a `tile.shared_dot` of those buffers, and the loads
    die. It applies when the operands are bf16 or f16 with
    `a` [M, K] and `b` [K, N] (each buffer's rows contiguous: K-major `a`,
    N-major `b`), M a multiple of 16 x `num-warps` (whole warpgroups along
    M: `num-warps` a multiple of 4), K of 16 and N of 8, and no op that may
    write memory lies between the loads and the dot. Other dots keep
    their register operands.

    Before (`num-warps=4 matrix-instrs=wgmma_m64k16`):
    ```mlir
    %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
    %b = tile.smem_load %bbuf : !tile.smem<64x128xbf16, #nv> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    ```
    After:
    ```mlir
    %d = tile.shared_dot %abuf, %bbuf, %c : !tile.smem<64x64xbf16, #nv>, !tile.smem<64x128xbf16, #nv> -> tensor<64x128xf32>
    ```
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "warps per program (the module's tile.num_warps wins)">,
    ListOption<"matrixInstrs", "matrix-instrs", "std::string",
               "the target's matrix instructions (as tile-assign-layouts')">
  ];
}

def TileExpandTensorDescs
    : Pass<"tile-expand-tensor-descs", "::mlir::ModuleOp"> {
  let summary = "Copy blocks of described tensors element by element";
  let description = [{
    The portable form of the tensor-descriptor copies, for targets without
    a block-copy engine: each `tile.async_load` becomes a `tile.async_copy`
    of the block's pointers (`base + sum_d (offset_d + i_d) * stride_d`,
    64-bit) masked to the elements inside the tensor (`0 <= offset_d + i_d
    < shape_d`), so outside ones read as zeros, and each
    `tile.async_store` a `tile.smem_load` of the buffer and a masked
    `tile.store`. The descriptor must be made by a `tile.make_tensor_desc`
    in the same function (kernels are inlined first); made descriptors
    without other users die.

    Before:
    ```mlir
    %d = tile.make_tensor_desc %base, [%m], [%s] : !tile.ptr<f32> -> !tile.tensor_desc<64xf32>
    tile.async_load %d[%i], %buf : !tile.tensor_desc<64xf32>, !tile.smem<64xf32>
    ```
    After:
    ```mlir
    %r = tile.range 0, 64 : tensor<64xi32>
    %idx = arith.addi %r, %is : tensor<64xi32>   // %is: tile.splat %i
    %off = arith.muli %idx64, %ss : tensor<64xi64>  // extended, times the stride
    %p = tile.addptr %bases, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi64>
    %in = arith.andi %nonneg, %below : tensor<64xi1>  // 0 <= idx < m
    tile.async_copy %buf, %p mask %in : ...
    ```

    With `engine=tdm` (gfx1250's Tensor Data Mover), the copies the engine
    can do stay for the GPU lowering: a row-major buffer (or, for loads, a
    padded one the engine can pad), a last stride of 1, at most 5
    dimensions of at most 65535 elements, 1, 2, 4 or 8-byte elements, and
    offsets known not to be negative (the engine cannot start before the
    tensor's first element).

    With `engine=buffer` (gfx950's bounds-checked buffer loads into LDS and
    buffer stores, per lane), the copies stay into and out of a row-major
    buffer with a last stride of 1 and offsets known not to be negative,
    and the op records the bytes each lane moves (`kda.copy_vector_bytes`):
    16 or 4, the widest that divides the block's rows and, as known
    divisors, the base's alignment, every stride and the innermost offset
    in bytes, and the innermost dimension in bytes.
    ```mlir
    tile.async_load %d[%i, %c0], %buf {kda.copy_vector_bytes = 16 : i64}
        : !tile.tensor_desc<32x128xf32>, !tile.smem<32x128xf32>
    ```

    With `engine=tma` (sm_90a's tensor memory accelerator), the copies stay
    whose tensor map the host can build, and the descriptor records how
    (`kda.tensor_map`, kda/Runtime/TensorMap.h): its base is an argument of
    a `tile.kernel` function known to be 16-byte aligned, its shape and
    strides are sums, differences and products of the kernel's integer
    arguments and constants, every stride but the last (1) a known multiple
    of 16 bytes, the block at most 256 elements per dimension with whole
    16-byte rows, into a buffer without a layout, the innermost offset a
    known multiple of 16 bytes (TMA faults on other starts); the other
    offsets of loads may have any sign, those of stores are known not to be
    negative (TMA stores fault there), and a store's innermost dimension is
    known to be whole 16-byte units (TMA leaves a cut unit unwritten).
    ```mlir
    %d = tile.make_tensor_desc %base, [%m, %n], [%ld, %c1]
        {kda.tensor_map = array<i64: 2, 2, 0, 0, 32, 64, 2, 1, 1, 2, 1, 2, 2, 1, 3>}
        : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
    tile.async_load %d[%i, %j], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
    ```

    A descriptor marked `tile.element_copies`
    (`kt.make_tensor_descriptor(copies="elements")`) has every copy
    expanded, whatever the engine.
  }];
  let options = [
    Option<"engine", "engine", "std::string", /*default=*/"\"\"",
           "the target's block-copy engine: tdm, tma, buffer, or none (\"\")">
  ];
}

def TileRemoveLayoutConversions
    : Pass<"tile-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "Remove layout conversions that are redundant or avoidable";
  let description = [{
    Local clean-ups of `tile.convert_layout`, applied to a fixed point:

    - a conversion between layouts with the same linear layout (same
      register, lane and warp mapping) moves nothing: it is removed when its
      users accept the source (and otherwise lowers to nothing);
    - `convert(convert(x))` becomes one conversion, or none when it ends
      where it started;
    - a conversion of a value computed by a cheap chain (`tile.splat`,
      `tile.range`, dense constants, and elementwise ops, `tile.addptr`,
      `tile.broadcast`, `tile.expand_dims` over cheap values, at most 8 deep)
      is replaced by the chain recomputed in the target layout
      (rematerialization); the originals die when nothing else uses them.

    Conversions the user wrote (no `tile.implicit` attribute) are removed
    only when they move nothing; the others are free to go.

    Before:
    ```mlir
    %r = tile.range 0, 128 : tensor<128xi32, #a>
    %c = tile.convert_layout %r {tile.implicit} : tensor<128xi32, #a> -> tensor<128xi32, #b>
    %q = tile.addptr %p, %c : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
    ```
    After:
    ```mlir
    %r = tile.range 0, 128 : tensor<128xi32, #b>
    %q = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
    ```
  }];
}

def TestPrintAxisInfo : Pass<"test-print-axis-info", "::mlir::ModuleOp"> {
  let summary = "Attach the AxisInfo analysis results to ops (testing)";
  let description = [{
    Runs the AxisInfo analysis and records, on every op with one integer,
    pointer or tile result, the attribute `tile.axis_info = {contiguity =
    array<i64: ...>, divisibility = array<i64: ...>, constancy = array<i64:
    ...>}`, and on every `tile.load`/`tile.store` of a pointer tile
    `tile.vector_width`: the elements one access can move along the fastest
    dimension of the pointers' layout, at most 16 bytes.

    ```mlir
    %r = tile.range 0, 128 {tile.axis_info = {constancy = array<i64: 1>,
        contiguity = array<i64: 128>, divisibility = array<i64: 1073741824>}}
        : tensor<128xi32>
    ```
  }];
}

#endif // KDA_TRANSFORMS_PASSES
