# kernels/matmul.py: a 128x128 bf16 tile with K slices of 64 (two steps of 32) on a
# three-stage ring compiles to the matrix instructions of each GPU target with no spills and
# no layout conversion through scratch: the ring's 96 KiB are the only shared memory (the
# operands are read from it, the accumulator stays in its layout through the K loop and is
# stored from it). sm_90a: wgmma reading both operands from the 1024-byte aligned
# nvmma_shared ring (64-byte swizzled a, 128-byte b) that TMA fills (one thread per block, the
# tensor maps' swizzles those of the ring: a in one 32-column box, b in two 64-column boxes),
# after a proxy fence; each slice's two groups of products stay in flight (wgmma.wait_group 2)
# until the next slice's are issued, then a barrier frees the previous slice's slot for the
# next copies; gfx950: MFMA 32x32x16, a read by ds_read_b128 (K-contiguous rows) and b by
# ds_read_b64_tr_b16; gfx1250: WMMA, b read by ds_load_tr16_b128. Where the warpgroups do
# not divide the rows (64 rows on 8 warps), sm_90a keeps mma.sync on ldmatrix reads.
#
# DEFINE: %{mm} = kda-compile %kda_src/kernels/matmul.py --kernel matmul \
# DEFINE:   --signature 'a_ptr=*bf16:16, b_ptr=*bf16:16, c_ptr=*bf16:16, M=i32, N=i32, K=i32:16, stride_am=i32:16, stride_bk=i32:16, stride_cm=i32:16' \
# DEFINE:   -D BLOCK_N=128 -D BLOCK_K=64 -D STAGES=3
# RUN: %{mm} -D BLOCK_M=128 --target sm_90a --emit ptx --line-info=false -o %t.ptx
# RUN: FileCheck %s --input-file %t.ptx --check-prefix=SM90 --implicit-check-not=fma.rn.f32 \
# RUN:   --implicit-check-not=mma.sync --implicit-check-not=ldmatrix
# RUN: FileCheck %s --input-file %t.ptx --check-prefix=WGMMA
# RUN: %{mm} -D BLOCK_M=64 --num-warps 8 --target sm_90a --emit ptx -o - \
# RUN:   | FileCheck %s --check-prefix=SM90-MMA --implicit-check-not=wgmma.mma_async
# RUN: %{mm} -D BLOCK_M=128 --target gfx950 --emit asm -o - --stats 2>%t.gfx950 | FileCheck %s \
# RUN:   --check-prefix=GFX950 --implicit-check-not=v_fmac_f32 --implicit-check-not=ds_read_u16
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx950
# RUN: %{mm} -D BLOCK_M=128 --target gfx1250 --emit asm -o - --stats 2>%t.gfx1250 | FileCheck %s \
# RUN:   --check-prefix=GFX1250 --implicit-check-not=v_fmac_f32 --implicit-check-not=ds_load_u16
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gfx1250
# RUN: %if ptxas %{ %{mm} -D BLOCK_M=128 --target sm_90a --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# SM90: .extern .shared .align 1024 .b8 kda_dynamic_smem[];
# SM90: .param .align 128 .b8 matmul_param_9[128],
# SM90-NEXT: .param .align 128 .b8 matmul_param_10[128]
# SM90-NOT: cp.async.cg
# SM90: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# SM90: mbarrier.try_wait.parity.shared.b64
# SM90: wgmma.commit_group.sync.aligned;
# SM90: wgmma.commit_group.sync.aligned;
# SM90-NEXT: // begin inline asm
# SM90-NEXT: wgmma.wait_group.sync.aligned 2;
# SM90-NEXT: // end inline asm
# SM90-NEXT: bar.sync 0;
# SM90: cp.async.bulk.tensor.2d
# SM90: wgmma.wait_group.sync.aligned 0;

# Per K slice: two k16 steps of each 32-wide step, for each of the warpgroup's two row blocks.
# WGMMA: fence.proxy.async.shared::cta;
# WGMMA: wgmma.fence.sync.aligned;
# WGMMA-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
# WGMMA-NOT: wgmma.mma_async

# SM90-MMA-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# SM90-MMA-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# SM90-MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

# GFX950-LABEL: matmul:
# GFX950-DAG: ds_read_b128
# GFX950-DAG: ds_read_b64_tr_b16
# GFX950-DAG: v_mfma_f32_32x32x16_bf16
# GFX950: s_endpgm

# GFX1250-LABEL: matmul:
# GFX1250-DAG: ds_load_b128
# GFX1250-DAG: ds_load_tr16_b128
# GFX1250-DAG: v_wmma_f32_16x16x32_bf16
# GFX1250: s_endpgm

# AMD-STATS: LDS {{ *}}98304 bytes/workgroup
# AMD-STATS: VGPR spills {{ *}}0

# The ring and, after it (the most aligned buffers go first), TMA's 8 completion barriers:
# 64 bytes.
# SM90-STATS: shared memory {{ *}}98368 {{ *}}bytes/block (dynamic)
# SM90-STATS: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
