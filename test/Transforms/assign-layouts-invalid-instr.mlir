// RUN: kda-opt %s --tile-assign-layouts="matrix-instrs=wmma_16x16x16" --verify-diagnostics

// expected-error @below {{tile-assign-layouts: unknown matrix instruction 'wmma_16x16x16'}}
module {
}
