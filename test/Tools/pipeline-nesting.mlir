// kdatile's pipelines run on the module; nested under another op they are a
// pipeline error (not an abort of the tool).
// RUN: not kda-opt %s --pass-pipeline='builtin.module(func.func(kda-cpu-lower))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: not kda-opt %s --pass-pipeline='builtin.module(func.func(kda-tile-simplify))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIMPLIFY
// RUN: not kda-opt %s --pass-pipeline='builtin.module(func.func(kda-gpu-lower{target=sm_90a}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=GPU
// RUN: kda-opt %s --pass-pipeline='builtin.module(kda-cpu-pipeline)' | FileCheck %s --check-prefix=OK

// CPU: error: 'kda-cpu-lower' runs on builtin.module, not nested under 'func.func'
// SIMPLIFY: error: 'kda-tile-simplify' runs on builtin.module, not nested under 'func.func'
// GPU: error: 'kda-gpu-lower' runs on builtin.module, not nested under 'func.func'
// OK: llvm.func @k__kda_cpu

func.func @k() attributes {tile.kernel} {
  return
}
