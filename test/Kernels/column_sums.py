# column_sums (test/python/dsl_kernels.py): out[n] = sum_m x[m, n], a reduction
# across warps, on the three GPU targets (assembly and resource usage).
#
# An [M, N] tile has its rows spread over the lanes of a warp and over the
# warps, so kt.sum(x, 0) is a cross-lane butterfly (ds_bpermute_b32 or DPP on
# AMD, shfl.sync.bfly on NVIDIA) followed by an exchange of the per-warp
# partial sums through shared memory between two barriers. The rows are
# contiguous (N is a constexpr) and the pointers 16-byte aligned, so the loads
# and the store are 128-bit, with no 32-bit global access.
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 \
# RUN:       --implicit-check-not='global_load_dword v' --implicit-check-not='global_store_dword v'
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=128 -D N=16 --num-warps=8 \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.w8.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 \
# RUN:       --implicit-check-not='global_load_dword v' --implicit-check-not='global_store_dword v'
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.w8.stats
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 \
# RUN:       --implicit-check-not=global_load_b32 --implicit-check-not=global_store_b32
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=128 -D N=16 --num-warps=8 \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.w8.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 \
# RUN:       --implicit-check-not=global_load_b32 --implicit-check-not=global_store_b32
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.w8.stats
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{(ld|st)\.global(\.nc)?\.[bf]32}}'
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=128 -D N=16 --num-warps=8 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{(ld|st)\.global(\.nc)?\.[bf]32}}'
# RUN: %if ptxas %{ kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
# RUN: %if ptxas %{ kda-compile %kda_src/test/python/dsl_kernels.py --kernel column_sums --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D M=128 -D N=16 --num-warps=8 --emit cubin -o %t.w8.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: column_sums:
# GFX950: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: {{ds_bpermute_b32|_dpp}}
# GFX950: {{ds_write|ds_store}}
# GFX950: s_waitcnt lgkmcnt(0)
# GFX950-NEXT: s_barrier
# GFX950: {{ds_read|ds_load}}
# GFX950: global_store_dwordx4
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: column_sums:
# GFX1250: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250: {{ds_bpermute_b32|_dpp}}
# GFX1250: ds_store
# GFX1250: s_wait_dscnt 0x0
# GFX1250-NEXT: s_barrier_signal -1
# GFX1250-NEXT: s_barrier_wait
# GFX1250: ds_load
# GFX1250: global_store_b128
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry column_sums(
# SM90: .shared
# SM90: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90: shfl.sync.bfly.b32
# SM90: bar.sync
# SM90: st.shared
# SM90: bar.sync
# SM90: ld.shared
# SM90: st.global.v4.{{[bf]}}32
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'column_sums' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'column_sums' (gfx1250, wave32)
# AMD-STATS: LDS {{ *[1-9][0-9]*}} bytes/workgroup
# AMD-STATS-NEXT: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'column_sums' (sm_90a, warp 32)
# SM90-STATS: shared memory {{ *[1-9][0-9]*}} bytes/block
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
# SM90-STATS-NEXT: barriers {{ *[1-9]}}
