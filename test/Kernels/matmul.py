# kernels/matmul.py: a 128x128 bf16 tile with K slices of 32 on a four-stage ring compiles to
# the matrix instructions of each GPU target with no spills and no layout conversion through
# scratch: the swizzled ring's 64 KiB are the only shared memory (the operands are read from
# it in their instruction layouts, the accumulator stays in its layout through the K loop and
# is stored from it). sm_90a: mma.sync fed by 16-byte cp.async and ldmatrix; gfx950: MFMA
# 32x32x16; gfx1250: WMMA. (Slices of 64 in two steps spill 44 bytes on sm_90a: the swizzled
# addresses of both steps stay live.)
#
# DEFINE: %{mm} = kda-compile %kda_src/kernels/matmul.py --kernel matmul \
# DEFINE:   --signature 'a_ptr=*bf16:16, b_ptr=*bf16:16, c_ptr=*bf16:16, M=i32, N=i32, K=i32:16, stride_am=i32:16, stride_bk=i32:16, stride_cm=i32:16' \
# DEFINE:   -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32 -D STAGES=4
# RUN: %{mm} --target sm_90a --emit ptx -o - | FileCheck %s --check-prefix=SM90 \
# RUN:   --implicit-check-not=fma.rn.f32
# RUN: %{mm} --target gfx950 --emit asm -o - --stats 2>%t.gfx950 | FileCheck %s \
# RUN:   --check-prefix=GFX950 --implicit-check-not=v_fmac_f32
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx950
# RUN: %{mm} --target gfx1250 --emit asm -o - --stats 2>%t.gfx1250 | FileCheck %s \
# RUN:   --check-prefix=GFX1250 --implicit-check-not=v_fmac_f32
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx1250
# RUN: %if ptxas %{ %{mm} --target sm_90a --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# SM90: .extern .shared .align 16 .b8 kda_dynamic_smem[];
# SM90-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
# SM90-DAG: cp.async.wait_group{{[[:space:]]+}}4;
# SM90-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# SM90-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# SM90-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

# GFX950-LABEL: matmul:
# GFX950: v_mfma_f32_32x32x16_bf16
# GFX950: s_endpgm

# GFX1250-LABEL: matmul:
# GFX1250: v_wmma_f32_16x16x32_bf16
# GFX1250: s_endpgm

# AMD-STATS: LDS {{ *}}65536 bytes/workgroup
# AMD-STATS: VGPR spills {{ *}}0

# SM90-STATS: shared memory {{ *}}65536 {{ *}}bytes/block (dynamic)
# SM90-STATS: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
