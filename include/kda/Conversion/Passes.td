//===- Passes.td - kdatile conversion passes ---------------*- tablegen -*-===//
#ifndef KDA_CONVERSION_PASSES
#define KDA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTileToCPU : Pass<"convert-tile-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower tile ops to tensor/linalg/scf for host execution";
  let description = [{
    Prepares a kernel for the host: layouts are dropped (a host program is one
    thread; `tile.convert_layout` folds away), pointers become 64-bit addresses, program
    ids become trailing i32 arguments (`pid_x, pid_y, pid_z, num_x, num_y,
    num_z`), and every tile op becomes value-semantic tensor, linalg and scf
    ops that bufferize. Masked-off lanes of loads and stores never touch
    memory. An entry point `<kernel>__kda_cpu(ptr args, i32 pid x3, i32 num
    x3)` unpacks an argument array for the C launcher. A cluster sum calls
    the launcher's exchange, a hidden last argument read after the runtime
    ones; such a kernel exports its cluster shape (`<kernel>__kda_cluster_shape`).

    Before:
    ```mlir
    func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
      %pid = tile.program_id 0
      %r = tile.range 0, 4 : tensor<4xi32>
      %ps = tile.splat %p : tensor<4x!tile.ptr<f32>>
      %q = tile.addptr %ps, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
      %v = tile.load %q : tensor<4x!tile.ptr<f32>>
      ...
    ```
    After (abridged):
    ```mlir
    func.func private @k(%p: i64, %pid_x: i32, ...) {
      %r = tensor.generate { ... index_cast ... }
      %ps = tensor.splat %p : tensor<4xi64>
      %q = arith.addi %ps, (extsi %r * 4)
      %v = tensor.generate { llvm.inttoptr ...; llvm.load ... }
    func.func @k__kda_cpu(%args: !llvm.ptr, %px: i32, ...) { ... call @k }
    ```

    With `check-bounds`, every global-memory access is checked against the
    extents of the pointer arguments it may derive from, read from a table
    the launcher passes after the runtime arguments (before the exchange);
    an access outside them is reported with its source position and skipped
    (a load yields zero). Such a kernel exports `<kernel>__kda_bounds_checked`.
  }];
  let options = [
    Option<"checkBounds", "check-bounds", "bool", /*default=*/"false",
           "check every global-memory access against its arrays' extents">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def LegalizeHostNarrowFloats
    : Pass<"legalize-host-narrow-floats", "::mlir::ModuleOp"> {
  let summary = "Make host code independent of the CPU's bf16/f16 support";
  let description = [{
    Runs last in kda-cpu-lower, on the LLVM dialect, after every bf16/f16
    computation was widened to f32. x86-64 CPUs without native conversions
    (below AVX512-BF16, resp. F16C) would lower a conversion, and the selects
    and phis of narrow floats, to calls of compiler-rt/libgcc helpers
    (`__truncsfbf2`, `__extendhfsf2`, ...) that a kernel library does not
    link. Here `llvm.fpext` from and `llvm.fptrunc` to bf16/f16 become
    integer code (round to nearest even, NaN kept quiet; f64 sources are
    first rounded to odd in f32 so that they round once), and every other
    bf16/f16 value becomes the i16 holding its bits: loads, stores, selects,
    block arguments, vector element ops, constants, globals and function
    types. An op that would still compute in a narrow float is an error.

    Before:
    ```mlir
    %h = llvm.fptrunc %x : f32 to bf16
    %s = llvm.select %m, %h, %zero : i1, bf16
    llvm.store %s, %p : bf16, !llvm.ptr
    ```
    After (abridged):
    ```mlir
    %b = llvm.bitcast %x : f32 to i32
    %r = llvm.lshr (%b + 0x7fff + ((%b >> 16) & 1)), 16   // or the quiet NaN
    %h = llvm.trunc %r : i32 to i16
    %s = llvm.select %m, %h, %zero : i1, i16
    llvm.store %s, %p : i16, !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Distribute tiles over the threads of a GPU program";
  let description = [{
    Every tile must carry a distributed layout (run `tile-assign-layouts`
    first). Each thread computes the registers its layout gives it: a tile
    becomes an LLVM struct of registers; elementwise ops apply per register;
    broadcasts, transposes and layout conversions permute registers or go
    through shared memory; reductions combine registers, then lanes with XOR
    shuffles, then warps through shared memory; loads and stores are guarded
    per register by their mask. Math becomes LLVM intrinsics every GPU
    backend lowers natively. A cluster sum exchanges through the cluster's
    shared memory (a buffer per sum, prepared at the kernel's entry), and
    the module records the cluster shape (`kda.cluster_shape`). Block copies
    kept for the target's engine run on it: per wave on gfx1250's Tensor
    Data Mover; on sm_90a's tensor memory accelerator from one thread, each
    descriptor's tensor map a hidden kernel parameter (its recipe in the
    kernel's `kda.tensor_maps`) and loads completing on a ring of barriers
    made at the kernel's entry. Target specifics (special registers,
    shuffles, barriers, clusters, copy engines) come from the target's
    hooks.

    Before:
    ```mlir
    %r = tile.range 0, 128 : tensor<128xi32, #blocked>
    %s = tile.reduce sum %x {axis = 0 : i32} : tensor<128xf32, #blocked> -> f32
    ```
    After (abridged, one thread):
    ```mlir
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %r = llvm.insertvalue ... : !llvm.struct<(i32, i32, i32, i32)>
    %p = llvm.fadd ...          // registers
    %q = nvvm.shfl.sync bfly ... // lanes
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "GPU target: sm_90a, gfx950 or gfx1250">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::ROCDL::ROCDLDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def FinalizeGPUKernels : Pass<"finalize-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Give lowered kernels their target's kernel attributes";
  let description = [{
    Runs after the function signatures reached the LLVM dialect: marks each
    `tile.kernel` function as a kernel of the target with its launch bounds
    (`tile.num_warps` times the wave size threads) and turns
    `tile.divisibility` argument hints of pointers into `llvm.align`.

    Before: `llvm.func @k(%p: !llvm.ptr<1> {tile.divisibility = 16 : i32}) attributes {tile.kernel}`
    After:  `llvm.func @k(%p: !llvm.ptr<1> {llvm.align = 16 : i64}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}`
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "GPU target: sm_90a, gfx950 or gfx1250">
  ];
}

def AttachLineInfo : Pass<"attach-line-info", "::mlir::ModuleOp"> {
  let summary = "Give LLVM functions debug scopes so ops' source lines reach the code object";
  let description = [{
    The LLVM IR translation keeps an op's FileLineColLoc as a DILocation only
    inside a function with a DISubprogram. This pass gives each defined
    `llvm.func` one (named after the function, in the file of its location)
    under a compile unit of the requested emission kind, and rewrites each
    op's location to the source line that wrote it: the innermost position
    of an inlined DSL call (its callee's line), placed in the file that holds
    it (a lexical block of that file when it is not the function's, e.g. the
    DSL standard library). Ops without a source line lose their location.

    Before: `llvm.fadd %a, %b : f32 loc(callsite("stdlib.py":12:5 at "k.py":30:9))`
    After:  `llvm.fadd %a, %b : f32 loc(fused<#di_lexical_block_file>["stdlib.py":12:5])`,
            with `llvm.func @k(...) loc(fused<#di_subprogram>["k.py":20:1])`
  }];
  let options = [
    Option<"emissionKind", "emission-kind", "std::string",
           /*default=*/"\"line-tables\"",
           "line-tables (DWARF line tables) or directives (NVPTX .loc/.file "
           "only, what ptxas reads for line info)">
  ];
}

#endif // KDA_CONVERSION_PASSES
