// RUN: kda-opt %s --legalize-host-narrow-floats -split-input-file -verify-diagnostics

// Arithmetic in a narrow float must have been widened to f32 before.
llvm.func @add_bf16(%x: bf16) -> bf16 {
  // expected-error @+1 {{'llvm.fadd' op computes in a 16-bit float on the host}}
  %y = llvm.fadd %x, %x : bf16
  llvm.return %y : bf16
}

// -----

llvm.func @compare_f16(%x: f16) -> i1 {
  // expected-error @+1 {{'llvm.fcmp' op computes in a 16-bit float on the host}}
  %c = llvm.fcmp "olt" %x, %x : f16
  llvm.return %c : i1
}
