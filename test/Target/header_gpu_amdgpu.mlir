// --emit header for the AMD targets: the HSACO embedded, blocks of
// num_warps x wave size (64 on gfx950, 32 on gfx1250), and the "hip"
// platform. Without a ROCm runtime the launch fails cleanly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kda-compile %s --kernel k --target gfx950 --signature 'x=*f32, n=i32' \
// RUN:   --emit header -o %t/k.h
// RUN: FileCheck %s --input-file %t/k.h
// RUN: kda-compile %s --kernel k --target gfx1250 --signature 'x=*f32, n=i32' \
// RUN:   --num-warps 8 --emit header | FileCheck %s --check-prefix=GFX1250
// RUN: %kda_cc -std=c99 -Wall -Wextra -Werror -I %kda_include -include %t/k.h \
// RUN:   %S/Inputs/header_gpu_load.c -L %kda_libdir -lkda -Wl,-rpath,%kda_libdir -o %t/run
// RUN: %t/run | FileCheck %s --check-prefix=EXEC

// CHECK:      *   target:     gfx950
// CHECK-NEXT: *   code:       hsaco, {{[0-9]+}} bytes, for kda_gpu_load("hip")
// CHECK:      #define K_BLOCK_SIZE 256u
// CHECK:      static const unsigned char k_gfx950_image[
// CHECK:        0x7f,0x45,0x4c,0x46,
// CHECK:      kda_gpu_load("hip", k_gfx950_image, sizeof(k_gfx950_image), "k",
// CHECK:      return kda_gpu_launch_ex("hip", function,

// GFX1250: target:     gfx1250
// GFX1250: #define K_BLOCK_SIZE 256u

// EXEC: {{k_launch: ok|k_launch failed: libamdhip64.so not found}}

module {
  llvm.func @k(%x: !llvm.ptr<1>, %n: i32) attributes {rocdl.kernel} {
    %tid = rocdl.workitem.id.x : i32
    %in = llvm.icmp "slt" %tid, %n : i32
    llvm.cond_br %in, ^body, ^exit
  ^body:
    %idx = llvm.sext %tid : i32 to i64
    %p = llvm.getelementptr %x[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %w = llvm.fadd %v, %v : f32
    llvm.store %w, %p : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
