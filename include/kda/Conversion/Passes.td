//===- Passes.td - kdatile conversion passes ---------------*- tablegen -*-===//
#ifndef KDA_CONVERSION_PASSES
#define KDA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTileToCPU : Pass<"convert-tile-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower tile ops to tensor/linalg/scf for host execution";
  let description = [{
    Prepares a kernel for the host: pointers become 64-bit addresses, program
    ids become trailing i32 arguments (`pid_x, pid_y, pid_z, num_x, num_y,
    num_z`), and every tile op becomes value-semantic tensor, linalg and scf
    ops that bufferize. Masked-off lanes of loads and stores never touch
    memory. An entry point `<kernel>__kda_cpu(ptr args, i32 pid x3, i32 num
    x3)` unpacks an argument array for the C launcher.

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
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // KDA_CONVERSION_PASSES
