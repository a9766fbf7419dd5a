# pipelined_copy (test/python/smem_kernels.py): rows streamed through a ring of shared-memory
# slots by asynchronous copies, on sm_90a.
#
# Three 64x128 fp32 slots take 96 KiB, beyond the 48 KiB a static allocation may take: the
# buffers live in one dynamically sized allocation (no static shared global), each slot at its
# offset in it, filled by 16-byte cp.async; the resource report gives the bytes each launch
# provides (ptxas, where installed, for the report).
# RUN: kda-compile %kda_src/test/python/smem_kernels.py --kernel pipelined_copy --target sm_90a \
# RUN:   --signature 'src=*f32:16, dst=*f32:16, n=i32, ld=i32:16' -D BLOCK=64 -D COLS=128 \
# RUN:   -D STAGES=3 --emit ptx -o - | FileCheck %s --check-prefix=DYN
# DYN: .extern .shared .align 16 .b8 kda_dynamic_smem[];
# DYN-NOT: .shared .align {{[0-9]+}} .b8 kda_smem_
# DYN: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
# RUN: %if ptxas %{ kda-compile %kda_src/test/python/smem_kernels.py --kernel pipelined_copy \
# RUN:   --target sm_90a --signature 'src=*f32:16, dst=*f32:16, n=i32, ld=i32:16' -D BLOCK=64 \
# RUN:   -D COLS=128 -D STAGES=3 --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=DYN-STATS %}
# DYN-STATS: shared memory {{ *}}0 {{ *}}bytes/block (static)
# DYN-STATS-NEXT: shared memory {{ *}}98304 {{ *}}bytes/block (dynamic)
# The generated header launches with those bytes (kda_gpu_launch_ex opts the function in).
# RUN: kda-compile %kda_src/test/python/smem_kernels.py --kernel pipelined_copy --target sm_90a \
# RUN:   --signature 'src=*f32:16, dst=*f32:16, n=i32, ld=i32:16' -D BLOCK=64 -D COLS=128 \
# RUN:   -D STAGES=3 --emit header -o - | FileCheck %s --check-prefix=HEADER
# HEADER: #define PIPELINED_COPY_SHARED_BYTES 98304u
# HEADER: return kda_gpu_launch_ex("cuda", function,
# HEADER-NEXT: PIPELINED_COPY_BLOCK_SIZE, 1, 1, PIPELINED_COPY_SHARED_BYTES, stream
#
# Two 32x16 slots (4 KiB) stay a static global.
# RUN: kda-compile %kda_src/test/python/smem_kernels.py --kernel pipelined_copy --target sm_90a \
# RUN:   --signature 'src=*f32:16, dst=*f32:16, n=i32, ld=i32:16' -D BLOCK=32 -D COLS=16 \
# RUN:   -D STAGES=2 --emit ptx -o - | FileCheck %s --check-prefix=STATIC
# STATIC: .shared .align 16 .b8 kda_smem_0[4096];
# STATIC-NOT: kda_dynamic_smem
#
# gfx950: consecutive lanes' 16-byte groups are consecutive in each slot, so the copies are
# LDS DMA (global_load_lds_dwordx4 at the wave's base; the rows past n store their zeros
# themselves). A 32x128 fp32 slot is 4 instructions per thread, and each wait leaves the
# newest copy in flight: vmcnt(4) before the LDS-only barrier, not vmcnt(0).
# RUN: kda-compile %kda_src/test/python/smem_kernels.py --kernel pipelined_copy --target gfx950 \
# RUN:   --signature 'src=*f32:16, dst=*f32:16, n=i32, ld=i32:16' -D BLOCK=32 -D COLS=128 \
# RUN:   -D STAGES=3 --emit asm -o - | FileCheck %s --check-prefix=GFX950
# GFX950-LABEL: pipelined_copy:
# GFX950: global_load_lds_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}], off
# GFX950: s_waitcnt vmcnt(4) lgkmcnt(0)
# GFX950-NEXT: s_barrier
# GFX950: global_load_lds_dwordx4
# GFX950: ds_read_b128
