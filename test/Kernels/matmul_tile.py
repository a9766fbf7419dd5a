# matmul_tile (test/python/dsl_kernels.py): out = c + a @ b for bf16 tiles, on the three
# GPU targets. tile-assign-layouts gives the dot the layouts of the target's matrix
# instruction: on sm_90a 64x64x32 on 4 warps is 16 mma.sync m16n8k16 per warp (the warps
# along M, 8 tiles along N, 2 steps of K); on gfx950 two 32x32x16 MFMAs per wave (2 x 2
# waves); on gfx1250 four 16x16x32 WMMAs per wave (4 waves along M). No spills.
#
# DEFINE: %{matmul} = kda-compile %kda_src/test/python/dsl_kernels.py --kernel matmul_tile \
# DEFINE:   --signature 'a_ptr=*bf16:16, b_ptr=*bf16:16, c_ptr=*f32:16, out_ptr=*f32:16' \
# DEFINE:   -D M=64 -D N=64 -D K=32
# RUN: %{matmul} --target sm_90a --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not=fma.rn.f32
# RUN: %{matmul} --target gfx950 --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=v_fmac_f32 \
# RUN:       --implicit-check-not=v_fma_f32
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx950.stats
# RUN: %{matmul} --target gfx1250 --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=v_fmac_f32 \
# RUN:       --implicit-check-not=v_dual_fmac_f32
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx1250.stats
# A reduction of 16 on 16 rows (too few for 32x32x16) takes gfx950's 16x16x16 MFMA (bf16
# operands as i16): two per wave, the 4 waves along N.
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel matmul_tile --target gfx950 \
# RUN:   --signature 'a_ptr=*bf16:16, b_ptr=*bf16:16, c_ptr=*f32:16, out_ptr=*f32:16' \
# RUN:   -D M=16 -D N=128 -D K=16 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=GFX950-K16 --implicit-check-not=v_fmac_f32
# fp32 operands that allow tf32 take gfx950's fp32 MFMA: [16, 32] x [32, 16], 8 K steps of 4.
# RUN: kda-compile %kda_src/test/python/dsl_kernels.py --kernel matmul_tile --target gfx950 \
# RUN:   --signature 'a_ptr=*f32:16, b_ptr=*f32:16, c_ptr=*f32:16, out_ptr=*f32:16' \
# RUN:   -D M=16 -D N=16 -D K=32 -D TF32=True --num-warps 1 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=GFX950-F32 --implicit-check-not=v_fmac_f32 \
# RUN:       --implicit-check-not=v_fma_f32
# RUN: %if ptxas %{ %{matmul} --target sm_90a --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# SM90-LABEL: .entry matmul_tile
# SM90-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# SM90-NOT: mma.sync
# SM90: ret;

# GFX950-LABEL: matmul_tile:
# GFX950-COUNT-2: v_mfma_f32_32x32x16_bf16
# GFX950-NOT: v_mfma
# GFX950: s_endpgm

# GFX950-K16-LABEL: matmul_tile:
# GFX950-K16-COUNT-2: v_mfma_f32_16x16x16_bf16
# GFX950-K16-NOT: v_mfma
# GFX950-F32-COUNT-8: v_mfma_f32_16x16x4_f32
# GFX950-F32-NOT: v_mfma
# GFX950-K16: s_endpgm

# AMD-STATS: VGPR spills {{ *}}0

# GFX1250-LABEL: matmul_tile:
# GFX1250-COUNT-4: v_wmma_f32_16x16x32_bf16
# GFX1250-NOT: v_wmma
# GFX1250: s_endpgm

# SM90-STATS: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
