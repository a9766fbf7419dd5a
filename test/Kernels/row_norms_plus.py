# row_norms_plus (test/python/dsl_kernels.py): out[m] = sqrt(sum_n x[m, n]^2) + y[m],
# a reduction whose result meets a loaded tile, on the three GPU targets
# (assembly and resource usage).
#
# y is loaded directly in the layout of the row sums (the slice of the [M, N]
# tile's layout), since the add ties the two together: no layout conversion,
# so no shared memory and no barrier (kernels with a conversion:
# transpose_add.py, column_sums.py's cross-warp exchange). x is loaded with
# 128-bit loads (contiguous rows, 16-byte aligned pointers); the row
# reduction is a cross-lane butterfly within a warp. y and out, in the slice
# layout, are read and written one 32-bit access per row a thread holds.
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=16 -D N=128 \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=s_barrier --implicit-check-not=ds_write --implicit-check-not=ds_read
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=GFX950 --implicit-check-not=s_barrier --implicit-check-not=ds_write --implicit-check-not=ds_read
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=16 -D N=128 \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=s_barrier --implicit-check-not=ds_store --implicit-check-not=ds_load
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=s_barrier --implicit-check-not=ds_store --implicit-check-not=ds_load
#
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=16 -D N=128 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not=.shared --implicit-check-not=bar.sync
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=64 -D N=32 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not=.shared --implicit-check-not=bar.sync
# RUN: %if ptxas %{ kda-compile %kda_src/test/python/dsl_kernels.py --kernel row_norms_plus --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16' -D M=16 -D N=128 \
# RUN:   --emit cubin -o %t.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: row_norms_plus:
# GFX950: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: {{ds_bpermute_b32|_dpp}}
# GFX950: v_sqrt_f32
# GFX950: global_store_dword
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: row_norms_plus:
# GFX1250: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250: {{ds_bpermute_b32|_dpp}}
# GFX1250: v_sqrt_f32
# GFX1250: global_store_b
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry row_norms_plus(
# SM90: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90: shfl.sync.bfly.b32
# SM90: sqrt.{{.*}}f32
# SM90: st.global
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'row_norms_plus' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'row_norms_plus' (gfx1250, wave32)
# AMD-STATS: LDS {{ *}}0 bytes/workgroup
# AMD-STATS-NEXT: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'row_norms_plus' (sm_90a, warp 32)
# SM90-STATS: shared memory {{ *}}0 bytes/block
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
# SM90-STATS-NEXT: barriers {{ *}}0{{$}}
