// --emit hsaco links a loadable AMD code object (ELF, HSA OS/ABI) with
// ld.lld; --code-object-version picks the ABI version; --stats reports.
// RUN: kda-compile %s --kernel k --target gfx950 --emit hsaco -o %t.hsaco --stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: llvm-readelf -h %t.hsaco | FileCheck %s --check-prefix=V6
// RUN: kda-compile %s --kernel k --target gfx950 --code-object-version=5 -o %t5.hsaco
// RUN: llvm-readelf -h %t5.hsaco | FileCheck %s --check-prefix=V5
// RUN: llvm-readelf --notes %t5.hsaco | FileCheck %s --check-prefix=NOTES
// RUN: kda-compile %s --kernel k --target gfx950 --emit obj -o %t.o
// RUN: llvm-readelf -h %t.o | FileCheck %s --check-prefix=OBJ

// STATS: resource usage of kernel 'k' (gfx950, wave64)
// STATS: VGPRs
// STATS: SGPRs
// STATS: occupancy {{ *[0-9]+}}  waves/SIMD

// V6: OS/ABI: AMDGPU - HSA
// V6: ABI Version: 4
// V6: Type: DYN (Shared object file)
// V6: Machine: EM_AMDGPU
// V6: Flags: {{.*}}gfx950

// V5: ABI Version: 3
// V5: Type: DYN

// NOTES: .name: k
// NOTES: .symbol: k.kd
// NOTES: .vgpr_spill_count: 0

// OBJ: Type: REL (Relocatable file)
// OBJ: Machine: EM_AMDGPU

module {
  llvm.func @k(%x: !llvm.ptr<1>, %n: i32) attributes {rocdl.kernel, rocdl.max_flat_work_group_size = 64 : i32} {
    %tid = rocdl.workitem.id.x : i32
    %bid = rocdl.workgroup.id.x : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %base = llvm.mul %bid, %c64 : i32
    %i = llvm.add %base, %tid : i32
    %in = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %in, ^body, ^exit
  ^body:
    %idx = llvm.sext %i : i32 to i64
    %p = llvm.getelementptr %x[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %l = llvm.intr.log2(%v) : (f32) -> f32
    %s = llvm.intr.sqrt(%l) : (f32) -> f32
    llvm.store %s, %p : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
