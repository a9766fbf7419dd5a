// A kernel whose register budget ("amdgpu-num-vgpr") is far below its live
// values spills to scratch: --stats shows the counts, --fail-on-spill makes
// it an error that names the kernel.
// RUN: kda-compile %s --kernel k --target gfx950 --emit asm --stats 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not kda-compile %s --kernel k --target gfx950 --emit asm --fail-on-spill 2>&1 >/dev/null | FileCheck %s --check-prefix=FAIL950
// RUN: not kda-compile %s --kernel k --target gfx1250 --emit hsaco --fail-on-spill -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=FAIL1250
// RUN: not test -e %t.hsaco

// STATS: scratch {{ *[1-9][0-9]*}}  bytes/lane
// STATS: VGPR spills {{ *[1-9][0-9]*$}}

// FAIL950: error: kernel 'k' spills registers on gfx950 (VGPR spills {{[1-9][0-9]*}}, SGPR spills 0, scratch {{[0-9]+}} bytes) and spills are errors (--fail-on-spill)
// FAIL1250: error: kernel 'k' spills registers on gfx1250 (VGPR spills {{[1-9][0-9]*}}

module {
  llvm.func @k(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {rocdl.kernel, rocdl.max_flat_work_group_size = 256 : i32, passthrough = [["amdgpu-num-vgpr", "24"]]} {
    // Volatile accesses keep their order: all 128 loaded values are live at
    // once.
    %v = llvm.load volatile %in {alignment = 16 : i64} : !llvm.ptr<1> -> vector<64xf32>
    %w = llvm.load volatile %out {alignment = 16 : i64} : !llvm.ptr<1> -> vector<64xf32>
    %s = llvm.fadd %v, %w : vector<64xf32>
    llvm.store volatile %s, %out {alignment = 16 : i64} : vector<64xf32>, !llvm.ptr<1>
    llvm.return
  }
}
