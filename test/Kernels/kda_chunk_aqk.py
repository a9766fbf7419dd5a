# kernels/kda_chunk_aqk.py: the prefill's intra-chunk products at D = 128. The blocks below
# the diagonal are matrix products of 16 x 128 anchored operands on each GPU target, with no
# spills; the diagonal blocks and the cumulative decay stay elementwise.
#
# DEFINE: %{aqk} = kda-compile %kda_src/kernels/kda_chunk_aqk.py --kernel kda_chunk_aqk \
# DEFINE:   --signature 'q_ptr=*bf16:16, k_ptr=*bf16:16, g_ptr=*f32:16, gamma_ptr=*f32:16, a_ptr=*f32:16, T=i32, scale=f32' \
# DEFINE:   -D H=32 -D D=128
# RUN: %{aqk} --target sm_90a --emit ptx -o - | FileCheck %s --check-prefix=SM90
# RUN: %{aqk} --target gfx950 --emit asm -o - --stats 2>%t.gfx950 | FileCheck %s --check-prefix=GFX950
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx950
# RUN: %{aqk} --target gfx1250 --emit asm -o - --stats 2>%t.gfx1250 | FileCheck %s --check-prefix=GFX1250
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx1250
# RUN: %if ptxas %{ %{aqk} --target sm_90a --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# GFX950: v_mfma_f32_16x16x32_bf16
# GFX1250: v_wmma_f32_16x16x32_bf16
# AMD-STATS: VGPR spills {{ *}}0
# SM90-STATS: spill stores {{ *}}0 bytes
