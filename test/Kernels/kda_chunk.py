# kernels/kda_chunk.py (chunk_kda's two launches) on the three GPU targets at the Kimi-K3 TP8
# prefill (H = 12, D = 128, bf16 inputs, lower-bound gate, 8 x 1024 tokens), with the
# signatures and constexprs of the launches kdatile.ops picks (`python3 -m kdatile.ops.export`:
# %{kda_chunk_prep_<target>}, %{kda_chunk_scan_<target>}; test/lit.cfg.py).
#
# kda_chunk_prep: on sm_90a the anchored intra-chunk pairs run on tf32 mma.sync (m16n8k8) and
# the WY products on bf16 mma.sync (m16n8k16); without the lower bound's guarantee
# (ANCHORED=False) the same tf32 products serve the key slices whose decay over the chunk is
# mild, beside the pair-by-pair loop for steep ones. Gated linear attention's prep stores its
# transposed blocks as 16-byte runs of tokens (no 2-byte stores). The WY products reduce
# over the chunk's 16 tokens: on gfx950 v_mfma_f32_16x16x16_bf16, and the pairs (fp32
# operands that allow tf32) on its fp32 MFMA, v_mfma_f32_16x16x4_f32; gfx1250's bf16 WMMA reduces over 32, and takes the
# WY products with the upper 16 of K zero, and the pairs (no tf32 instruction there) as three
# bf16 products of the fp32 factors' high and low parts (PAIRS_BF16X3): 14 WMMAs, no fused
# multiply-add products.
# No spills on AMD at the op's 2 warps (the columns go 32 at a time); the LDS stays far below
# gfx950's 80 KB for two workgroups per CU.
#
# kda_chunk_scan: the next chunk's blocks copied into a shared-memory ring (16-byte cp.async on
# sm_90a) while the state products (reductions over K = 128) run on bf16 mma.sync (sm_90a),
# v_mfma_f32_16x16x32_bf16 (gfx950) and v_wmma_f32_16x16x32_bf16 (gfx1250), those over the
# chunk's 16 tokens on v_mfma_f32_16x16x16_bf16 (gfx950) and the same WMMA with K zero-padded
# (gfx1250: 17 a wave and chunk, no fused multiply-add products); no spills on AMD. On sm_90a the
# transposed state is every product's A operand in place and the blocks are B operands read
# by ldmatrix: nothing is stored to shared memory but the copies. Six chunks in the ring on
# sm_90a: the wait lets (6 - 2) x 6 copies run on.
#
# kda_chunk_summary (one 8192-token sequence, which GPUs scan in four segments): the same
# scan's SUMMARY pass, each segment's affine map of the state; no output product or store (its
# only global stores are the state's rows, fp32 pairs), no spills.
# RUN: kda-compile %{kda_chunk_summary_sm_90a} --emit ptx -o - \
# RUN:   | FileCheck %s --check-prefix=SUMMARY-SM90 --implicit-check-not=st.shared \
# RUN:       --implicit-check-not=st.global.b32
# RUN: kda-compile %{kda_chunk_summary_gfx950} --emit hsaco -o %t.sum.gfx950.hsaco --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_chunk_summary_gfx1250} --emit hsaco -o %t.sum.gfx1250.hsaco --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=AMD-STATS
#
# RUN: kda-compile %{kda_chunk_prep_sm_90a} --num-warps 2 --emit ptx -o - | FileCheck %s --check-prefix=PREP-SM90
# RUN: kda-compile %{kda_chunk_prep_sm_90a} --num-warps 2 -D ANCHORED=False --emit ptx -o - \
# RUN:   | FileCheck %s --check-prefix=PAIRS-SM90
# RUN: kda-compile %{kda_chunk_scan_sm_90a} --emit ptx -o - \
# RUN:   | FileCheck %s --check-prefix=SCAN-SM90 --implicit-check-not=st.shared
# KDA's prep keeps 8 programs a multiprocessor (its qg and the delta rule's w and u leave from
# their computing layout: a conversion held both copies, 128 -> 149 registers):
# RUN: %if ptxas %{ kda-compile %{kda_chunk_prep_sm_90a} --num-warps 2 --emit cubin \
# RUN:   -o %t.prep.cubin --stats 2>&1 | FileCheck %s --check-prefix=KDA-PREP-SM90-STATS %}
# The ring's 126 KB leave room for one program a multiprocessor:
# RUN: %if ptxas %{ kda-compile %{kda_chunk_scan_sm_90a} --emit cubin -o %t.scan.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SCAN-SM90-STATS %}
# Gated DeltaNet's prep (chunk_gated_delta_rule: one decay per row, Qwen3-Next's 32 value heads
# over 16 q/k heads): q k^T and k k^T on tf32 mma.sync times the rows' decays; no spills on AMD.
# DEFINE: %{gdn} = -D GATE_PER_HEAD=True -D USE_GATE=False -D USE_LOWER_BOUND=False \
# DEFINE:   -D ANCHORED=False -D USE_BETA_SIGMOID=False -D HAS_A_LOG=False -D HAS_DT_BIAS=False \
# DEFINE:   -D H=16 -D HV=32
# RUN: kda-compile %{kda_chunk_prep_sm_90a} --num-warps 2 %{gdn} --emit ptx -o - | FileCheck %s --check-prefix=PREP-SM90
# RUN: kda-compile %{kda_chunk_prep_gfx950} --num-warps 2 %{gdn} --emit hsaco -o %t.gdn.gfx950.hsaco --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_chunk_prep_gfx1250} --num-warps 2 %{gdn} --emit hsaco -o %t.gdn.gfx1250.hsaco --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=AMD-STATS
# As FLA's GatedDeltaNet layer calls it: the softplus gate with the head's A_log and dt_bias
# in the prep, beta logits; no spills, and on sm_90a 8 programs a multiprocessor.
# DEFINE: %{gdn_gate} = -D USE_GATE=True -D HAS_A_LOG=True -D HAS_DT_BIAS=True \
# DEFINE:   -D USE_BETA_SIGMOID=True
# RUN: kda-compile %{kda_chunk_prep_gfx950} --num-warps 2 %{gdn} %{gdn_gate} --emit hsaco \
# RUN:   -o %t.gdng.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_chunk_prep_gfx1250} --num-warps 2 %{gdn} %{gdn_gate} --emit hsaco \
# RUN:   -o %t.gdng.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_chunk_prep_sm_90a} --num-warps 2 %{gdn} %{gdn_gate} \
# RUN:   --emit cubin -o %t.gdng.cubin --stats 2>&1 | FileCheck %s --check-prefix=PREP-SM90-STATS %}
# RUN: not kda-compile %{kda_chunk_prep_sm_90a} %{gdn} %{gdn_gate} -D USE_LOWER_BOUND=True \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BAD-GDN --implicit-check-not=error:
# BAD-GDN: error: static assertion failed: GATE_PER_HEAD takes the softplus gate, pair by pair
#
# Gated linear attention (chunk_gla, DELTA_RULE=False): no solve in the prep (no solve loop,
# no w), no w S in the scan; no spills.
# DEFINE: %{gla} = -D DELTA_RULE=False -D USE_GATE=False -D USE_LOWER_BOUND=False \
# DEFINE:   -D ANCHORED=False -D USE_BETA_SIGMOID=False -D HAS_A_LOG=False -D HAS_DT_BIAS=False \
# DEFINE:   -D USE_QK_L2NORM=False
# RUN: kda-compile %{kda_chunk_prep_sm_90a} --num-warps 2 %{gla} --emit ptx -o - \
# RUN:   | FileCheck %s --check-prefix=GLA-PREP-SM90 --implicit-check-not=st.global.b16
# RUN: kda-compile %{kda_chunk_prep_gfx950} --num-warps 2 %{gla} --emit hsaco -o %t.gla.gfx950.hsaco --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_chunk_prep_gfx1250} --num-warps 2 %{gla} --emit hsaco -o %t.gla.gfx1250.hsaco --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_chunk_scan_gfx950} -D DELTA_RULE=False --emit hsaco \
# RUN:   -o %t.gla.scan.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_chunk_prep_gfx950} --num-warps 2 --emit asm -o - --stats 2>%t.prep.gfx950 \
# RUN:   | FileCheck %s --check-prefixes=PREP-AMD,PREP-GFX950
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.prep.gfx950
# RUN: kda-compile %{kda_chunk_scan_gfx950} --emit asm -o - --stats 2>%t.scan.gfx950 \
# RUN:   | FileCheck %s --check-prefix=SCAN-GFX950
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.scan.gfx950
#
# RUN: kda-compile %{kda_chunk_prep_gfx1250} --num-warps 2 --emit asm -o - --stats 2>%t.prep.gfx1250 \
# RUN:   | FileCheck %s --check-prefixes=PREP-AMD,PREP-GFX1250
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.prep.gfx1250
# RUN: kda-compile %{kda_chunk_scan_gfx1250} --emit asm -o - --stats 2>%t.scan.gfx1250 \
# RUN:   | FileCheck %s --check-prefix=SCAN-GFX1250
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.scan.gfx1250

# PREP-SM90: .visible .entry kda_chunk_prep(
# PREP-SM90-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# PREP-SM90-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# PAIRS-SM90-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# PAIRS-SM90-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# PAIRS-SM90-DAG: ex2.approx
# GLA-PREP-SM90: .visible .entry kda_chunk_prep(
# GLA-PREP-SM90: st.global.v4.b32
# SCAN-SM90: .visible .entry kda_chunk_scan(
# SCAN-SM90: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
# SCAN-SM90: cp.async.wait_group 24
# SCAN-SM90: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# SCAN-SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# SCAN-SM90-STATS: spill stores {{ *}}0 bytes
# KDA-PREP-SM90-STATS: spill stores {{ *}}0 bytes
# KDA-PREP-SM90-STATS: occupancy {{ *}}16  warps/SM (register limit)
# PREP-SM90-STATS: resource usage of kernel 'kda_chunk_prep' (sm_90a, warp 32)
# PREP-SM90-STATS: spill stores {{ *}}0 bytes
# PREP-SM90-STATS: occupancy {{ *}}16  warps/SM (register limit)
# SCAN-SM90-STATS: occupancy {{ *}}4  warps/SM (shared-memory limit)
# SUMMARY-SM90: .visible .entry kda_chunk_scan(
# SUMMARY-SM90: cp.async.wait_group 24
# SUMMARY-SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# SUMMARY-SM90: st.global.v2.b32

# PREP-AMD-LABEL: kda_chunk_prep:
# PREP-GFX950-DAG: v_mfma_f32_16x16x4_f32
# PREP-GFX950-DAG: v_mfma_f32_16x16x16_bf16
# PREP-GFX1250-COUNT-14: v_wmma_f32_16x16x32_bf16
# PREP-GFX1250-NOT: v_wmma
# PREP-AMD: s_endpgm
# SCAN-GFX950-LABEL: kda_chunk_scan:
# SCAN-GFX950-DAG: v_mfma_f32_16x16x32_bf16
# SCAN-GFX950-DAG: v_mfma_f32_16x16x16_bf16
# SCAN-GFX1250-LABEL: kda_chunk_scan:
# SCAN-GFX1250-COUNT-17: v_wmma_f32_16x16x32_bf16
# SCAN-GFX1250-NOT: v_wmma
# SCAN-GFX1250: s_endpgm

# AMD-STATS: LDS {{ *[1-7]?[0-9]?[0-9]?[0-9]?[0-9]}} bytes/workgroup
# AMD-STATS: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}
