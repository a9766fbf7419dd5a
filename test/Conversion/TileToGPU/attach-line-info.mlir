// RUN: kda-opt %s --split-input-file --attach-line-info --mlir-print-debuginfo | FileCheck %s
// RUN: kda-opt %s --split-input-file --attach-line-info=emission-kind=directives --mlir-print-debuginfo \
// RUN:   | FileCheck %s --check-prefix=DIRECTIVES
// RUN: not kda-opt %s --split-input-file --attach-line-info=emission-kind=full 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// A defined function gets a subprogram in the file of its location; an op
// keeps the innermost line of its inlined call chain, in a lexical block of
// the other file when the line is there; an op without a line loses its
// location; declarations stay as they are.

// CHECK-LABEL: llvm.func @k(
// CHECK: llvm.fadd {{.*}} loc(#[[CALLER:loc[0-9]*]])
// CHECK: llvm.fmul {{.*}} loc(#[[INLINED:loc[0-9]*]])
// CHECK: llvm.return {{.*}} loc(#[[UNKNOWN:loc[0-9]*]])
// CHECK: } loc(#[[FUNC:loc[0-9]*]])
// CHECK: llvm.func @decl() loc(#[[DECL:loc[0-9]*]])
// CHECK-DAG: #[[DECL]] = loc("k.py":1:1)
// CHECK-DAG: #[[CALLER]] = loc("dir/k.py":21:9)
// CHECK-DAG: #[[UNKNOWN]] = loc(unknown)
// CHECK-DAG: #di_file = #llvm.di_file<"k.py" in "dir">
// CHECK-DAG: #[[STDLIB:di_file[0-9]*]] = #llvm.di_file<"stdlib.py" in "lib">
// CHECK-DAG: #di_compile_unit = #llvm.di_compile_unit<{{.*}}file = #di_file, producer = "kdatile", isOptimized = true, emissionKind = LineTablesOnly>
// CHECK-DAG: #[[SP:di_subprogram[0-9]*]] = #llvm.di_subprogram<{{.*}}name = "k", linkageName = "k", file = #di_file, line = 20, scopeLine = 20
// CHECK-DAG: #[[BLOCK:di_lexical_block_file[0-9]*]] = #llvm.di_lexical_block_file<scope = #[[SP]], file = #[[STDLIB]], discriminator = 0>
// CHECK-DAG: #[[FUNC]] = loc(fused<#[[SP]]>[#{{loc[0-9]*}}])
// CHECK-DAG: #[[INLINED]] = loc(fused<#[[BLOCK]]>[#{{loc[0-9]*}}])
// DIRECTIVES: emissionKind = DebugDirectivesOnly
// BAD: attach-line-info: emission-kind must be line-tables or directives, not 'full'
module {
  llvm.func @k(%a: f32) -> f32 {
    %0 = llvm.fadd %a, %a : f32 loc("dir/k.py":21:9)
    %1 = llvm.fmul %0, %0 : f32 loc(callsite("lib/stdlib.py":5:12 at "dir/k.py":22:9))
    llvm.return %1 : f32 loc(unknown)
  } loc("dir/k.py":20:1)
  llvm.func @decl() loc("k.py":1:1)
}
