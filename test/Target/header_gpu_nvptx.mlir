// --emit header for sm_90a: the cubin embedded as bytes, the block size from
// --num-warps x 32, and a launcher over kda_gpu_load / kda_gpu_launch_ex. The
// C program using it builds against libkda and, without an NVIDIA driver,
// fails cleanly at the first launch.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: kda-compile %s --kernel k --target sm_90a --signature 'x=*f32, n=i32' \
// RUN:   --num-warps 2 --emit header -o %t/k.h
// RUN: FileCheck %s --input-file %t/k.h
// RUN: %kda_cc -std=c99 -Wall -Wextra -Werror -I %kda_include -include %t/k.h \
// RUN:   %S/Inputs/header_gpu_load.c -L %kda_libdir -lkda -Wl,-rpath,%kda_libdir -o %t/run
// RUN: %t/run | FileCheck %s --check-prefix=EXEC
// RUN: %kda_cc -x c++ -std=c++17 -fsyntax-only -Wall -Werror -I %kda_include \
// RUN:   -include %t/k.h %S/Inputs/header_gpu_load.c

// CHECK:      *   kernel:     k
// CHECK-NEXT: *   target:     sm_90a
// CHECK-NEXT: *   code:       cubin, {{[0-9]+}} bytes, for kda_gpu_load("cuda")
// CHECK-NEXT: *   signature:  x=*f32, n=i32
// CHECK:      #define K_BLOCK_SIZE 64u
// CHECK-NEXT: #define K_SHARED_BYTES 0u
// CHECK-NEXT: #define K_LAUNCH_FLAGS 0u
// CHECK:      static const unsigned char k_sm_90a_image[{{[0-9]+}}]
// The cubin is an ELF file.
// CHECK:          = {
// CHECK-NEXT:         0x7f,0x45,0x4c,0x46,
// CHECK:      static inline int k_function(void **function, char **error) {
// CHECK-NEXT:   static void *cached = NULL;
// CHECK:          if (kda_gpu_load("cuda", k_sm_90a_image, sizeof(k_sm_90a_image), "k",
// CHECK:      static inline int k_launch(float *x, int32_t n, kda_dim3 grid,
// CHECK-NEXT:     void *stream, char **error) {
// CHECK:        void *args[] = {(void *)&x, (void *)&n};
// CHECK-NEXT:   return kda_gpu_launch_ex("cuda", function, grid.x, grid.y, grid.z,
// CHECK-NEXT:                            K_BLOCK_SIZE, 1, 1, K_SHARED_BYTES, stream,
// CHECK-NEXT:                            K_LAUNCH_FLAGS, args, error);

// EXEC: {{k_launch: ok|k_launch failed: libcuda.so.1 not found}}

module {
  llvm.func @k(%x: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
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
