# kernels/l2norm_rows.py on the three GPU targets (assembly and resource usage).
#
# A [BLOCK_M, BLOCK_N] = [4, 128] tile, rows reduced with kt.sum(x * x, 1). Each
# row lies within one wave/warp, so the reduction is a butterfly of cross-lane
# exchanges (ds_bpermute_b32 or DPP on AMD, shfl.sync.bfly on NVIDIA) with no
# shared memory or barrier.
#
# Rows are addressed through runtime strides and the columns are masked with
# cols < N. 128-bit accesses are only legal when the row starts are 16-byte
# aligned (pointers and strides divisible by 4 elements) and the mask is uniform
# over each thread's 4 contiguous columns (N divisible by 4): with the hints
# x_ptr/out_ptr=*f32:16, N/stride_xm/stride_om=i32:16 every access is 128-bit (64-bit on
# gfx950, whose 256 threads hold the 512 elements two each rather than leave half of them
# holding copies).
# With arbitrary N and strides (the general case, e.g. N=100 in a padded
# matrix) they must stay 32-bit, and do.
#
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32:16, stride_xm=i32:16, stride_om=i32:16, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefixes=GFX950,GFX950-V4 --implicit-check-not=s_barrier \
# RUN:       --implicit-check-not='global_load_dword v' --implicit-check-not='global_store_dword v'
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32:16, stride_xm=i32:16, stride_om=i32:16, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefixes=GFX1250,GFX1250-V4 --implicit-check-not=s_barrier \
# RUN:       --implicit-check-not=global_load_b32 --implicit-check-not=global_store_b32
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32:16, stride_xm=i32:16, stride_om=i32:16, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefixes=SM90,SM90-V4 --implicit-check-not=bar.sync \
# RUN:       --implicit-check-not='{{(ld|st)\.global(\.nc)?\.[bf]32}}'
# RUN: %if ptxas %{ kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32:16, stride_xm=i32:16, stride_om=i32:16, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
#
# Arbitrary N and strides (aligned base pointers do not help): 32-bit accesses.
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32, stride_xm=i32, stride_om=i32, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - --stats 2>%t.gfx950.s32.stats \
# RUN:   | FileCheck %s --check-prefixes=GFX950,GFX950-S32 --implicit-check-not=s_barrier \
# RUN:       --implicit-check-not=global_load_dwordx4 --implicit-check-not=global_store_dwordx4
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx950.s32.stats
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32, stride_xm=i32, stride_om=i32, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefixes=GFX1250,GFX1250-S32 --implicit-check-not=s_barrier \
# RUN:       --implicit-check-not=global_load_b128 --implicit-check-not=global_store_b128
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32, stride_xm=i32, stride_om=i32, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefixes=SM90,SM90-S32 --implicit-check-not=bar.sync \
# RUN:       --implicit-check-not='{{(ld|st)\.global(\.nc)?\.v[24]}}'
# Strides divisible by 16 but N arbitrary: the mask is not uniform over 4 columns.
# RUN: kda-compile %kda_src/kernels/l2norm_rows.py --kernel l2norm_rows --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16, M=i32, N=i32, stride_xm=i32:16, stride_om=i32:16, eps=f32' \
# RUN:   -D BLOCK_M=4 -D BLOCK_N=128 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefixes=SM90,SM90-S32 --implicit-check-not=bar.sync \
# RUN:       --implicit-check-not='{{(ld|st)\.global(\.nc)?\.v[24]}}'

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: l2norm_rows:
# GFX950-V4: global_load_dwordx2 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950-S32: global_load_dword v
# GFX950: {{ds_bpermute_b32|_dpp}}
# GFX950: v_sqrt_f32
# GFX950-V4: global_store_dwordx2
# GFX950-S32: global_store_dword v
# GFX950: s_endpgm
# GFX950: .group_segment_fixed_size: 0
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: l2norm_rows:
# GFX1250-V4: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250-S32: global_load_b32
# GFX1250: {{ds_bpermute_b32|_dpp}}
# GFX1250: v_sqrt_f32
# GFX1250-V4: global_store_b128
# GFX1250-S32: global_store_b32
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .group_segment_fixed_size: 0
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry l2norm_rows(
# SM90-NOT: .shared
# SM90-V4: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90-S32: ld.global{{(\.nc)?}}.{{[bf]}}32
# SM90: shfl.sync.bfly.b32
# SM90: sqrt.{{.*}}f32
# SM90-V4: st.global.v4.{{[bf]}}32
# SM90-S32: st.global.{{[bf]}}32
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'l2norm_rows' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'l2norm_rows' (gfx1250, wave32)
# AMD-STATS: LDS {{ *}}0 bytes/workgroup
# AMD-STATS-NEXT: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'l2norm_rows' (sm_90a, warp 32)
# SM90-STATS: shared memory {{ *}}0 bytes/block
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
