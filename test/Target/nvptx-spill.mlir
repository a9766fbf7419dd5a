// ptxas spills when nvvm.maxnreg is below the live values; --fail-on-spill
// turns that into an error naming the kernel and the spill bytes, and the
// cubin is not left behind.
// REQUIRES: ptxas
// RUN: kda-compile %s --kernel k --target sm_90a --emit ptx --stats 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not kda-compile %s --kernel k --target sm_90a --emit cubin --fail-on-spill -o %t.cubin 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not test -e %t.cubin

// STATS: registers {{ *}}24  per thread
// STATS: spill stores {{ *[1-9][0-9]*}}  bytes
// STATS: spill loads {{ *[1-9][0-9]*}}  bytes

// FAIL: error: kernel 'k' spills registers on sm_90a (spill stores {{[1-9][0-9]*}} bytes, spill loads {{[1-9][0-9]*}} bytes, stack frame {{[0-9]+}} bytes) and spills are errors (--fail-on-spill)

module {
  llvm.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxnreg = 24 : i32} {
    %v = llvm.load volatile %in {alignment = 16 : i64} : !llvm.ptr<1> -> vector<64xf32>
    %w = llvm.load volatile %out {alignment = 16 : i64} : !llvm.ptr<1> -> vector<64xf32>
    %s = llvm.fadd %v, %w : vector<64xf32>
    llvm.store volatile %s, %out {alignment = 16 : i64} : vector<64xf32>, !llvm.ptr<1>
    llvm.return
  }
}
