# transpose_add (test/python/dsl_kernels.py): out = x + x^T for an [N, N] fp32
# tile, a kernel with a layout conversion, on the three GPU targets (assembly
# and resource usage).
#
# kt.trans permutes the loaded tile's layout (no data moves), so x^T lives on
# other threads than the x it is added to: the transposed tile is converted
# back to x's layout through shared memory (stores between two barriers, then
# loads), before the add. The scratch rows are padded by one word, so that
# both the column-wise stores and the row-wise loads spread over the banks
# (two-address 32-bit LDS accesses on AMD instead of 128-bit loads that the
# unpadded rows' 16-way conflicting stores would pair with). x is loaded and out stored
# with 128-bit accesses (contiguous rows, 16-byte aligned pointers); no spills.
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel transpose_add --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D N=64 \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 \
# RUN:       --implicit-check-not='global_load_dword v' --implicit-check-not='global_store_dword v'
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel transpose_add --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D N=64 \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 \
# RUN:       --implicit-check-not=global_load_b32 --implicit-check-not=global_store_b32
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel transpose_add --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D N=64 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{(ld|st)\.global(\.nc)?\.[bf]32}}'
# RUN: %if ptxas %{ kda-compile %kda_src/test/python/dsl_kernels.py --kernel transpose_add --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D N=64 --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: transpose_add:
# GFX950: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: s_barrier
# GFX950: ds_write2_b32
# GFX950: s_barrier
# GFX950: ds_read2_b32
# GFX950: global_store_dwordx4
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: transpose_add:
# GFX1250: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250: s_barrier_wait
# GFX1250: ds_store_2addr_b32
# GFX1250: s_barrier_wait
# GFX1250: ds_load_2addr_b32
# GFX1250: global_store_b128
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry transpose_add(
# SM90: .shared
# SM90: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90: bar.sync
# SM90: st.shared
# SM90: bar.sync
# SM90: ld.shared
# SM90: st.global.v4.{{[bf]}}32
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'transpose_add' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'transpose_add' (gfx1250, wave32)
# AMD-STATS: LDS {{ *[1-9][0-9]*}} bytes/workgroup
# AMD-STATS-NEXT: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'transpose_add' (sm_90a, warp 32)
# SM90-STATS: shared memory {{ *[1-9][0-9]*}} bytes/block
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
# SM90-STATS-NEXT: barriers {{ *[1-9]}}
