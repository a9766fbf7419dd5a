# kernels/gdn_decode.py (the fused Gated DeltaNet decode step) on the three GPU targets at the
# launch kdatile.ops.gdn_decode picks for Qwen3-Next's heads (16 q/k heads, 32 value heads,
# K = V = 128, B = 64: one 8-warp program per row and q/k head, serving its two value heads),
# from `python3 -m kdatile.ops.export` (%{gdn_decode_<target>}; test/lit.cfg.py).
#
# A value head's [V, K] fp32 state is read and written with 128-bit accesses; exp is the
# hardware exp2; nothing spills. The next value head's inputs are loaded while the current one
# updates: on gfx950 that takes 103 VGPRs (96 without), 4 waves a SIMD instead of 5, which
# still holds the two 8-wave programs a CU held before; gfx1250 168 (166 without).
#
# RUN: kda-compile %{gdn_decode_gfx950} --num-warps=8 --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
# RUN: kda-compile %{gdn_decode_gfx1250} --num-warps=8 --emit asm -o - --stats \
# RUN:   2>%t.gfx1250.stats | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
# RUN: kda-compile %{gdn_decode_sm_90a} --num-warps=8 --emit asm -o - | FileCheck %s \
# RUN:   --check-prefix=SM90
# RUN: %if ptxas %{ kda-compile %{gdn_decode_sm_90a} --num-warps=8 --emit cubin -o %t.cubin \
# RUN:   --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}

# GFX950-LABEL: gdn_decode:
# GFX950-DAG: global_load_dwordx4
# GFX950-DAG: v_exp_f32
# GFX950-DAG: global_store_dwordx4
# GFX950: s_endpgm
# GFX950-STATS: VGPRs {{ *}}103

# GFX1250-LABEL: gdn_decode:
# GFX1250-DAG: global_load_b128
# GFX1250-DAG: v_exp_f32
# GFX1250-DAG: global_store_b128
# GFX1250: s_endpgm
# GFX1250-STATS: VGPRs {{ *}}168

# AMD-STATS: scratch {{ *}}0 bytes/lane
# AMD-STATS: VGPR spills {{ *}}0
# AMD-STATS: SGPR spills {{ *}}0
# GFX950-STATS: occupancy {{ *}}4 waves/SIMD
# GFX1250-STATS: occupancy {{ *}}5 waves/SIMD

# SM90-LABEL: .entry gdn_decode(
# SM90-DAG: ld.global.v4.b32
# SM90-DAG: ex2.approx
# SM90-DAG: st.global.v4.b32
# SM90: ret;
# SM90-STATS: spill stores {{ *}}0 bytes
# SM90-STATS: spill loads {{ *}}0 bytes

# At B = 1 on sm_90a a head's value rows are shared by a cluster of four 4-warp programs that
# add their sums of squares through distributed shared memory (%{gdn_decode_cluster4_sm_90a}).
# RUN: kda-compile %{gdn_decode_cluster4_sm_90a} --num-warps=4 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=CLUSTER
# RUN: %if ptxas %{ kda-compile %{gdn_decode_cluster4_sm_90a} --num-warps=4 --emit cubin \
# RUN:   -o %t.cluster.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# CLUSTER-LABEL: .entry gdn_decode(
# CLUSTER: .explicitcluster
# CLUSTER: .reqnctapercluster 1, 1, 4
# CLUSTER: barrier.cluster.arrive
# CLUSTER: barrier.cluster.wait
