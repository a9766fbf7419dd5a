# kernels/kda_recurrent.py (the multi-token KDA recurrent core: varlen, per-token slots,
# num_accepted_tokens, every in-kernel switch on) on the three GPU targets, at the Kimi-K3 shape
# H = 12, K = V = 128, one program per (sequence, head) (BV = V) with 8 warps: a [128, 128]
# fp32 state per program carried in registers across the token loop. The signatures and
# constexprs are those of the launches kdatile.ops picks, from `python3 -m kdatile.ops.export`
# (%{kda_recurrent_<target>}: fixed-length tokens, BV = 32; %{kda_recurrent_bf16_kv_<target>}:
# a bf16 [K, V] pool; test/lit.cfg.py), with the constexprs below changed by -D and the warps
# by --num-warps.
#
# DEFINE: %{varlen} = -D IS_VARLEN=True -D HAS_NUM_ACCEPTED=True
#
# The state rows are contiguous and the pool 16-byte aligned, so the state is read once and
# written after every token with 128-bit accesses; exp(g) is the hardware exp2 (v_exp_f32,
# ex2.approx), the row reductions are cross-lane butterflies, and nothing spills. The [K, V]
# layout with a bf16 pool compiles without spills too.
#
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %{kda_recurrent_sm_90a} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=SM90
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
#
# The launch kdatile.ops runs at one token per sequence: BV = 32 on 4 warps with the starting
# state prefetched (PREFETCH_STATE). On sm_90a the block is one TMA copy (the pool as [slots,
# H * V, K]; its tensor map a kernel parameter) issued before the first token's loads and
# norms, and waited for on its barrier only before the delta rule (then read from shared
# memory); with element copies (ELEMENT_COPIES, what kdatile.ops launches on sm_90a for at
# most 8 sequences, or every copy with --block-copies=elements), 16-byte cp.async copies take
# its place. On AMD the same source compiles without spills.
# RUN: kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} \
# RUN:   -D PREFETCH_STATE=True --emit asm --line-info=false -o - | FileCheck %s --check-prefix=PF
# RUN: kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} -D ELEMENT_COPIES=True \
# RUN:   -D PREFETCH_STATE=True --emit asm --line-info=false -o - | FileCheck %s --check-prefix=PFE
# RUN: kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} --block-copies=elements \
# RUN:   -D PREFETCH_STATE=True --emit asm --line-info=false -o - | FileCheck %s --check-prefix=PFE
# On gfx950 the prefetch is LDS DMA: per wave 8 rows of 512 bytes in 4 buffer loads into LDS
# (16 bytes per lane, M0 the instruction's base, the hardware's bounds check zero-filling),
# with per-lane global_load_lds copies for tiles whose span exceeds a buffer's 31-bit offsets,
# waited for with s_waitcnt vmcnt (the compiler counts the instructions in flight).
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=4 %{varlen} \
# RUN:   -D PREFETCH_STATE=True --emit asm -o %t.pf.gfx950.s --stats 2>%t.pf.gfx950.stats
# RUN: FileCheck %s --check-prefix=PF950 --implicit-check-not=scratch_ --input-file %t.pf.gfx950.s
# RUN: grep -c "buffer_load_dwordx4 v[0-9]*, s\[[0-9]*:[0-9]*\], 0 offen lds" %t.pf.gfx950.s \
# RUN:   | FileCheck %s --check-prefix=PF950-COPIES
# RUN: grep -c "global_load_lds_dwordx4" %t.pf.gfx950.s | FileCheck %s --check-prefix=PF950-COPIES
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.pf.gfx950.stats
# PF950-LABEL: kda_recurrent:
# PF950-DAG: global_load_lds_dwordx4 v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}]
# PF950-DAG: buffer_load_dwordx4 v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}], 0 offen lds
# PF950-DAG: s_waitcnt vmcnt(0) lgkmcnt(0)
# PF950-DAG: ds_read_b128
# PF950-COPIES: {{^}}4{{$}}
# On gfx1250 the prefetch is one Tensor Data Mover load per wave (the pool as [slots, H * V,
# K], a [1, 32, 128] block, 8 rows per wave), waited for with s_wait_tensorcnt. At the Gluon
# seed's configuration (H = 24, 32 value rows, 4 waves, varlen) the recurrent core takes at
# most the seed's 90 VGPRs, with the prefetch read by the first token before its loads (as
# kdatile.ops launches it on gfx1250) and without the prefetch.
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=4 %{varlen} -D H=24 \
# RUN:   -D PREFETCH_STATE=True -D READ_STATE_FIRST=True --emit asm -o - --stats \
# RUN:   2>%t.pf.gfx1250.stats | FileCheck %s --check-prefix=PF1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=AMD-STATS,SEED-VGPRS --input-file %t.pf.gfx1250.stats
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=4 %{varlen} -D H=24 --emit hsaco \
# RUN:   -o %t.seed.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefixes=SEED-VGPRS,AMD-STATS
# SEED-VGPRS: VGPRs {{ *([1-8]?[0-9]|90)$}}
# PF1250-LABEL: kda_recurrent:
# PF1250: tensor_load_to_lds s[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+}}:{{[0-9]+}}]
# PF1250-NOT: tensor_load_to_lds
# PF1250: s_wait_tensorcnt 0x0
# PF1250: s_barrier_signal -1
#
# [K, V] layout, bf16 pool: no spills on any target.
# RUN: kda-compile %{kda_recurrent_bf16_kv_gfx950} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit hsaco -o %t.kv.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_recurrent_bf16_kv_gfx1250} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit hsaco -o %t.kv.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_bf16_kv_sm_90a} --num-warps=8 %{varlen} -D BV=128 \
# RUN:   --emit cubin -o %t.kv.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
#
# Gated DeltaNet as fused_recurrent_gated_delta_rule runs it: Qwen3-Next's 32 value heads over
# 16 q/k heads (GVA), one log decay per token and head, the state written once per sequence
# (FINAL_STATE_ONLY): no spills on any target.
# DEFINE: %{gdn} = -D H=32 -D QK_H=16 -D GATE_PER_HEAD=True -D USE_GATE=False \
# DEFINE:   -D USE_LOWER_BOUND=False -D USE_BETA_SIGMOID=False -D FINAL_STATE_ONLY=True
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=4 %{varlen} %{gdn} \
# RUN:   --emit hsaco -o %t.gdn.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=4 %{varlen} %{gdn} \
# RUN:   --emit hsaco -o %t.gdn.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} %{gdn} --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} %{gdn} \
# RUN:   --emit cubin -o %t.gdn.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# Gated DeltaNet as gdn_recurrent runs it for speculative decoding: per-token slots and
# num_accepted_tokens, beta logits, the state written after every token at 2 warps (the
# launch for several tokens per sequence); no spills on any target.
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=2 %{varlen} %{gdn} \
# RUN:   -D FINAL_STATE_ONLY=False -D USE_BETA_SIGMOID=True --emit hsaco \
# RUN:   -o %t.gdns.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=2 %{varlen} %{gdn} \
# RUN:   -D FINAL_STATE_ONLY=False -D USE_BETA_SIGMOID=True --emit hsaco \
# RUN:   -o %t.gdns.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=2 %{varlen} %{gdn} \
# RUN:   -D FINAL_STATE_ONLY=False -D USE_BETA_SIGMOID=True --emit cubin -o %t.gdns.cubin \
# RUN:   --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# As FLA's GatedDeltaNet layer calls fused_recurrent_gated_delta_rule: the softplus gate of
# the head's A_log and dt_bias in the kernel, beta = 2 sigmoid(beta) (ALLOW_NEG_EIGVAL), [V, K]
# states; no spills.
# DEFINE: %{gdn_gate} = -D USE_GATE=True -D USE_BETA_SIGMOID=True -D ALLOW_NEG_EIGVAL=True
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=4 %{varlen} %{gdn} %{gdn_gate} \
# RUN:   --emit hsaco -o %t.gdng.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=4 %{varlen} %{gdn} %{gdn_gate} \
# RUN:   --emit hsaco -o %t.gdng.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} %{gdn} \
# RUN:   %{gdn_gate} --emit cubin -o %t.gdng.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
# A per-head gate of the lower-bound form is rejected.
# RUN: not kda-compile %{kda_recurrent_sm_90a} %{gdn} -D USE_GATE=True -D USE_LOWER_BOUND=True \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BAD-GATE --implicit-check-not=error:
# BAD-GATE: error: static assertion failed: a per-head gate (GATE_PER_HEAD) takes the softplus form
# FLA's calls without an initial state or output_final_state: the zero start, no pool read
# and no state written (ZERO_START with OUTPUTS_ONLY); no spills.
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} -D SEQUENCE_SLOTS=True \
# RUN:   -D ZERO_START=True -D FINAL_STATE_ONLY=True -D OUTPUTS_ONLY=True --emit cubin \
# RUN:   -o %t.outputs.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# RUN: kda-compile %{kda_recurrent_gfx950} -D SEQUENCE_SLOTS=True -D ZERO_START=True \
# RUN:   -D FINAL_STATE_ONLY=True -D OUTPUTS_ONLY=True --emit hsaco -o %t.outputs.gfx950.hsaco \
# RUN:   --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# OUTPUTS_ONLY outside a final-state-only launch is rejected.
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D OUTPUTS_ONLY=True --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-OUT --implicit-check-not=error:
# BAD-OUT: error: static assertion failed: OUTPUTS_ONLY is a FINAL_STATE_ONLY launch without FINAL_STATE_OUT
# Gated linear attention as fused_recurrent_gla runs it (DELTA_RULE=False: S <- S exp(g) +
# v k^T, beta not read): the update is an outer product with no S k reduction, so the token
# loop has one cross-lane reduction (o) instead of two; no spills on any target.
# DEFINE: %{gla} = -D USE_GATE=False -D USE_LOWER_BOUND=False -D USE_BETA_SIGMOID=False \
# DEFINE:   -D USE_QK_L2NORM=False -D FINAL_STATE_ONLY=True -D DELTA_RULE=False
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=4 %{varlen} %{gla} \
# RUN:   --emit asm -o - --stats 2>%t.gla.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GLA950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.gla.gfx950.stats
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=4 %{varlen} %{gla} \
# RUN:   --emit hsaco -o %t.gla.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} %{gla} \
# RUN:   --emit cubin -o %t.gla.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# GLA950-LABEL: kda_recurrent:
# GLA950: v_exp_f32
# GLA950: s_endpgm
# FLA's per-value-channel forms: GLA with decays per value row (GATE_VALUE) run in reverse
# (REVERSE, one state per sequence), and Gated DeltaNet with per-key and per-value decays
# beside its per-head one (GATE_KEY, GATE_VALUE) and one beta per value row (BETA_PER_VALUE);
# no spills on any target.
# DEFINE: %{gla_gv} = %{gla} -D GATE_VALUE=True -D REVERSE=True -D SEQUENCE_SLOTS=True \
# DEFINE:   -D HAS_NUM_ACCEPTED=False
# DEFINE: %{gdn_gv} = %{gdn} -D GATE_KEY=True -D GATE_VALUE=True -D BETA_PER_VALUE=True
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=4 %{gla_gv} --emit hsaco \
# RUN:   -o %t.glagv.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %{kda_recurrent_gfx1250} --num-warps=4 %{varlen} %{gdn_gv} --emit hsaco \
# RUN:   -o %t.gdngv.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{gla_gv} \
# RUN:   --emit cubin -o %t.glagv.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} %{gdn_gv} \
# RUN:   --emit cubin -o %t.gdngv.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# FLA's defaults, no decay (HAS_G=False) and Gated DeltaNet's beta of ones (UNIT_BETA): g and
# beta are not read; no spills. The in-kernel gate needs g, and UNIT_BETA takes no sigmoid.
# RUN: kda-compile %{kda_recurrent_gfx950} --num-warps=4 %{varlen} %{gdn} -D HAS_G=False \
# RUN:   -D UNIT_BETA=True --emit hsaco -o %t.nog.gfx950.hsaco --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_sm_90a} --num-warps=4 %{varlen} %{gdn} \
# RUN:   -D HAS_G=False -D UNIT_BETA=True --emit cubin -o %t.nog.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D HAS_G=False --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-NOG --implicit-check-not=error:
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D UNIT_BETA=True --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-UNIT --implicit-check-not=error:
# BAD-NOG: error: static assertion failed: the in-kernel gate (USE_GATE) activates g
# BAD-UNIT: error: static assertion failed: UNIT_BETA reads no beta
# Reversed tokens need one state per sequence (no slot table read in token order), and a
# record holds no per-value decays.
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D REVERSE=True --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-REV --implicit-check-not=error:
# RUN: not kda-compile %{kda_recurrent_records_sm_90a} -D GATE_VALUE=True --emit tile -o - \
# RUN:   2>&1 | FileCheck %s --check-prefix=BAD-GV --implicit-check-not=error:
# BAD-REV: error: static assertion failed: REVERSE runs one state per sequence (SEQUENCE_SLOTS)
# BAD-GV: error: static assertion failed: a record holds g's decays only (no GATE_KEY or GATE_VALUE)
# Speculative state as per-token records (kda_recurrent_records, STATE_RECORDS): the accepted
# records replayed onto the committed state in a loop before the tokens, each token storing
# e = exp(g), k (value block 0) and its d rows instead of a state; no spills on any target.
# RUN: kda-compile %{kda_recurrent_records_gfx950} --num-warps=2 --emit asm -o - \
# RUN:   --stats 2>%t.rec.gfx950.stats | FileCheck %s --check-prefix=REC950
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.rec.gfx950.stats
# RUN: kda-compile %{kda_recurrent_records_gfx1250} --num-warps=2 --emit hsaco \
# RUN:   -o %t.rec.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_recurrent_records_sm_90a} --num-warps=2 \
# RUN:   --emit cubin -o %t.rec.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# REC950-LABEL: kda_recurrent:
# REC950: v_exp_f32
# REC950: global_store_dwordx4
# REC950: s_endpgm
# A QK_H that does not divide H is rejected.
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D QK_H=5 --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-QK --implicit-check-not=error:
# BAD-QK: error: static assertion failed: H must be a multiple of QK_H
#
# The kernel's promises are asserted, and a failed assertion ends the compile at once.
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D BV=48 --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-BV --implicit-check-not=error:
# RUN: not kda-compile %{kda_recurrent_gfx950} -D K=96 --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-K --implicit-check-not=error:
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D K=96 -D BK=64 --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-K --implicit-check-not=error:
# RUN: not kda-compile %{kda_recurrent_sm_90a} -D V=100 -D PREFETCH_STATE=True --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=BAD-PF --implicit-check-not=error:
# BAD-BV: error: static assertion failed: BV must be a power of two
# BAD-K: error: static assertion failed: K must be a power of two, or BK one above it
# BAD-PF: error: static assertion failed: the state's block copy needs K a power of two and BV dividing V
#
# Head dims of any size: K = 100 held as 128 columns (BK), V = 100 in 32-row tiles, the
# padding masked, with no spills.
# RUN: kda-compile %{kda_recurrent_sm_90a} -D K=100 -D V=100 -D BK=128 --emit cubin \
# RUN:   -o %t.k100.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS
# RUN: kda-compile %{kda_recurrent_gfx950} -D K=100 -D V=100 -D BK=128 --emit hsaco \
# RUN:   -o %t.k100.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: kda_recurrent:
# GFX950: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: v_exp_f32
# GFX950: {{ds_bpermute_b32|_dpp}}
# GFX950: global_store_dwordx4
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: kda_recurrent:
# GFX1250: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250: v_exp_f32
# GFX1250: {{ds_bpermute_b32|_dpp}}
# GFX1250: global_store_b128
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry kda_recurrent(
# SM90: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90: ex2.approx{{(\.ftz)?}}.f32
# SM90: shfl.sync.bfly.b32
# SM90: st.global.v4.{{[bf]}}32
# SM90: ret;

# PF: .visible .entry kda_recurrent(
# PF: .param .align 128 .b8 kda_recurrent_param_{{[0-9]+}}[128]
# PF: mbarrier.init.shared.b64
# PF: mbarrier.arrive.expect_tx.shared.b64 %{{.*}}, [kda_smem_0], %r{{[0-9]+}};
# PF: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# PF: ld.global.v4.b16
# PF: rsqrt.approx.f32
# PF: mbarrier.try_wait.parity.shared.b64
# PF: bar.sync 0;
# PF-NEXT: ld.shared.v4.b32
# PF: ex2.approx{{(\.ftz)?}}.f32
# PF: st.global.v4.b32
# PF-NOT: cp.async.cg

# PFE: .visible .entry kda_recurrent(
# PFE-NOT: .param .align 128
# PFE: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, {{16|%r[0-9]+}};
# PFE: cp.async.commit_group;
# PFE: ld.global.v4.b16
# PFE: rsqrt.approx.f32
# PFE: cp.async.wait_group 0;
# PFE-NEXT: bar.sync 0;
# PFE-NEXT: ld.shared.v4.b32
# PFE: ex2.approx{{(\.ftz)?}}.f32
# PFE: st.global.v4.b32
# One read of the copy (the first real token's); the wait of a sequence no token read.
# PFE-NOT: ld.shared.v4.b32
# PFE: cp.async.wait_group 0;
# PFE-NEXT: bar.sync 0;
# PFE-NOT: ld.shared

# GFX950-STATS: resource usage of kernel 'kda_recurrent' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'kda_recurrent' (gfx1250, wave32)
# AMD-STATS: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'kda_recurrent' (sm_90a, warp 32)
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
