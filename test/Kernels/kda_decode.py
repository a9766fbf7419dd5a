# The fused KDA decode step's kernels (kernels/kda_decode*.py: short conv + SiLU, q/k L2-norm,
# gate, beta sigmoid, delta rule, sigmoid-gated RMSNorm) on the three GPU targets, at the Kimi-K3 TP8 shape
# H = 12, D = 128, lower-bound gate, fp32 [V, K] state, 4 warps: a [128, 128] fp32 state per
# program. The compiles are those of the launches kdatile.ops picks, from
# `python3 -m kdatile.ops.export` (%{kda_decode_<target>} and the like, test/lit.cfg.py): the
# signatures the JIT uses for contiguous 16-byte aligned tensors (bf16 activations, a
# channel-major [slots, C, 3] conv cache, so stride_cs_w is specialized to 1); a -D after one
# changes a constexpr.
#
# A whole head is walked in steps of 32 value rows (BLK: kernels/kda_decode_steps.py), as GPUs
# run it at that batch, so a [32, 128] fp32
# state block is in flight per step. The state rows are contiguous and the pool 16-byte aligned,
# so the state is read and written with 128-bit accesses; exp(g) is the hardware exp2 (v_exp_f32,
# ex2.approx), sm_90a's fp32 divisions and norms are div.full and rsqrt.approx (no IEEE
# refinement with a slow path), the products are fused multiply-adds, the row and vector reductions are
# cross-lane exchanges (ds_bpermute / DPP, shfl.sync.bfly), and nothing spills on any target.
#
# RUN: kda-compile %{kda_decode_gfx950} --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %{kda_decode_gfx1250} --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %{kda_decode_sm_90a} --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 --implicit-check-not=.local \
# RUN:   --implicit-check-not=rcp.rn --implicit-check-not=sqrt.rn --implicit-check-not=div.rn
# RUN: %if ptxas %{ kda-compile %{kda_decode_sm_90a} --emit cubin -o %t.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
#
# A whole head per program in one step (kernels/kda_decode.py): the [128, 128] fp32 block is
# loaded at once; no spills.
# RUN: kda-compile %{kda_decode_head_gfx950} --fail-on-spill --emit hsaco -o %t.head.gfx950.hsaco \
# RUN:   --stats 2>&1 | FileCheck %s --check-prefixes=HEAD-GFX950,AMD-STATS
# RUN: kda-compile %{kda_decode_head_gfx1250} --fail-on-spill --emit hsaco \
# RUN:   -o %t.head.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefixes=HEAD-GFX1250,AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_decode_head_sm_90a} --emit cubin -o %t.head.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# HEAD-GFX950: resource usage of kernel 'kda_decode' (gfx950, wave64)
# HEAD-GFX1250: resource usage of kernel 'kda_decode' (gfx1250, wave32)
#
# The f_b variant (raw_g = bf16(f_b_weight[h] @ f_a[n]) computed in the kernel): no spills
# (--fail-on-spill makes a spill an error on AMD; the sm_90a report is checked).
# RUN: kda-compile %{kda_decode_fb_gfx950} --fail-on-spill --emit hsaco -o %t.fb.gfx950.hsaco \
# RUN:   --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS
# RUN: kda-compile %{kda_decode_fb_gfx1250} --fail-on-spill --emit hsaco -o %t.fb.gfx1250.hsaco \
# RUN:   --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS
# RUN: %if ptxas %{ kda-compile %{kda_decode_fb_sm_90a} --emit cubin -o %t.fb.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
#
# A head split over four programs (BV = 32: kernels/kda_decode_split.py, what small batches run
# on AMD GPUs; sm_90a runs
# them in a cluster instead, and kda_decode_tickets is that launch forced there): each program
# publishes its partial results and takes a ticket with one device-scope acq_rel atomic add
# (release fence, barrier, one thread's atomic, barrier, acquire fence); still no spills.
# RUN: kda-compile %{kda_decode_bv32_gfx950} --fail-on-spill \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=SPLIT-GFX950
# RUN: kda-compile %{kda_decode_bv32_gfx1250} --fail-on-spill \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=SPLIT-GFX1250
# RUN: kda-compile %{kda_decode_tickets_sm_90a} \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=SPLIT-SM90
# RUN: %if ptxas %{ kda-compile %{kda_decode_tickets_sm_90a} --emit cubin -o %t.split.cubin \
# RUN:   --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
#
# The state streamed through two shared-memory buffers (STAGES = 2, what larger batches run
# with an fp32 state): block copies of the pool as [slots * H, D, D], the first block's before
# the conv, a wait and a barrier per step, 128-bit shared loads. On sm_90a TMA copies (one
# tensor map, mbarrier waits), on gfx1250 the Tensor Data Mover (descriptor in SGPRs,
# s_wait_tensorcnt); with element copies, 16-byte cp.async copies. No spills.
# RUN: kda-compile %{kda_decode_sm_90a} -D STAGES=2 \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=STAGES-SM90 --implicit-check-not=.local
# RUN: kda-compile %{kda_decode_sm_90a} -D STAGES=2 --block-copies=elements \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=STAGES-CA --implicit-check-not=.local
# RUN: kda-compile %{kda_decode_gfx1250} -D STAGES=2 \
# RUN:   --fail-on-spill --emit asm -o - | FileCheck %s --check-prefix=STAGES-GFX1250

# STAGES-SM90-LABEL: .visible .entry kda_decode_steps(
# STAGES-SM90: .param .align 128 .b8 kda_decode_steps_param_23[128]
# STAGES-SM90: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# STAGES-SM90: ex2.approx
# STAGES-SM90: mbarrier.try_wait.parity.shared.b64
# STAGES-SM90: bar.sync 0;
# STAGES-SM90: ld.shared.v4.{{[bf]}}32
# STAGES-SM90: ret;

# STAGES-CA-LABEL: .visible .entry kda_decode_steps(
# STAGES-CA: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
# STAGES-CA: cp.async.commit_group;
# STAGES-CA: ex2.approx
# STAGES-CA: cp.async.wait_group 0;
# STAGES-CA-NEXT: bar.sync 0;
# STAGES-CA: ld.shared.v4.{{[bf]}}32

# STAGES-GFX1250-LABEL: kda_decode_steps:
# STAGES-GFX1250: tensor_load_to_lds s[{{[0-9]+}}:{{[0-9]+}}], s[{{[0-9]+}}:{{[0-9]+}}]
# STAGES-GFX1250: s_wait_tensorcnt
# STAGES-GFX1250: s_barrier
# STAGES-GFX1250: ds_load_b128

# SPLIT-GFX950-LABEL: kda_decode_split:
# SPLIT-GFX950: buffer_wbl2
# SPLIT-GFX950: s_barrier
# SPLIT-GFX950: global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}] sc0
# SPLIT-GFX950: s_barrier
# SPLIT-GFX950: buffer_inv sc1

# SPLIT-GFX1250-LABEL: kda_decode_split:
# SPLIT-GFX1250: global_wb scope:SCOPE_DEV
# SPLIT-GFX1250: global_atomic_add_u32 {{.*}} th:TH_ATOMIC_RETURN scope:SCOPE_DEV
# SPLIT-GFX1250: global_inv scope:SCOPE_DEV

# SPLIT-SM90-LABEL: .visible .entry kda_decode_split(
# SPLIT-SM90: fence.acq_rel.gpu;
# SPLIT-SM90-NEXT: bar.sync 0;
# SPLIT-SM90: atom.global.add.u32
# SPLIT-SM90: bar.sync 0;
# SPLIT-SM90: fence.acq_rel.gpu;

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: kda_decode_steps:
# GFX950: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: v_exp_f32
# GFX950: {{ds_bpermute_b32|_dpp}}
# GFX950: global_store_dwordx4
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: kda_decode_steps:
# GFX1250: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250: v_exp_f32
# GFX1250: {{ds_bpermute_b32|_dpp}}
# GFX1250: global_store_b128
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry kda_decode_steps(
# SM90: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90-DAG: shfl.sync.bfly.b32
# SM90-DAG: ex2.approx{{(\.ftz)?}}.f32
# SM90-DAG: fma.rn.f32
# SM90: st.global.v4.{{[bf]}}32
# SM90-DAG: rsqrt.approx.f32
# SM90-DAG: div.full.f32
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'kda_decode_{{steps|split}}' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'kda_decode_{{steps|split}}' (gfx1250, wave32)
# AMD-STATS: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'kda_decode{{(_steps|_split)?}}' (sm_90a, warp 32)
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes

# A one-step program (BV = BLK = 32: a head split over 4 programs, the small-batch launch) issues
# the slot index's load and all 21 loads that do not depend on the slot (the q, k and v
# channels' conv input and 4 weights, raw_g, A_log, dt_bias, beta, the output gate, the norm
# weight) before the slot's test, the first scf.if, so their latencies overlap.
# RUN: kda-compile %{kda_decode_tickets_sm_90a} --emit tile -o %t.one.mlir
# RUN: awk '/scf.if/ { exit } /tile.load/ { n++ } END { print "loads before the slot test:", n }' \
# RUN:   %t.one.mlir | FileCheck %s --check-prefix=ONE-STEP
# ONE-STEP: loads before the slot test: 22

# In a cluster (kernels/kda_decode_cluster.py, the ops' small-batch launches on sm_90a; here a
# head over 8 programs of 16 rows)
# the head's programs run as one thread-block cluster and exchange their sums of squares through
# shared memory: no ticket atomic, no workspace access; each normalizes its own rows.
# RUN: kda-compile %{kda_decode_cluster4_sm_90a} -D BV=16 \
# RUN:   --emit ptx -o - | FileCheck %s --check-prefix=CLUSTER --implicit-check-not=atom.
# CLUSTER: .reqnctapercluster 1, 1, 8
# CLUSTER: barrier.cluster.wait.aligned;
# CLUSTER: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
# CLUSTER: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64

# That one-step program in a cluster writes its layouts: q, k and v each cross once from one
# channel per thread to the state block's slices, the outputs cross back, and the sum of
# squares crosses warps: 9 barriers. With the layouts the pass chooses it took 21.
# RUN: kda-compile %{kda_decode_cluster4_sm_90a} --emit ptx -o - \
# RUN:   | awk '/bar.sync/ { n++ } END { print "barriers:", n }' \
# RUN:   | FileCheck %s --check-prefix=CLUSTER-EXCHANGES
# CLUSTER-EXCHANGES: barriers: 9{{$}}

# The fused f_b projection with a [K, V] state, in two 32-row shared-memory stages: its [128, 128]
# weight, read once, must not decide the layout of the [128, 32] state blocks (it did: each
# element on 4 lanes, 255 registers and 504 bytes of spills per thread on sm_90a).
# RUN: %if ptxas %{ kda-compile %{kda_decode_fb_sm_90a} -D STATE_KV=True -D STAGES=2 \
# RUN:   --fail-on-spill --emit ptx -o %t.fbkv.ptx %}

# The kernel's promises are asserted, and a failed assertion ends the compile at once (this one
# went on for 36 s and 1.2 GB of tiles 2**32 rows tall).
# RUN: not kda-compile %{kda_decode_bv32_gfx950} -D BV=4294967296 --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-BV --implicit-check-not=error:
# RUN: not kda-compile %{kda_decode_sm_90a} -D BLK=48 --emit tile -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BAD-BLK --implicit-check-not=error:
# BAD-BV: error: static assertion failed: BV must split D into a power-of-two number of blocks, at least 2
# BAD-BLK: error: static assertion failed: BLK must divide D into at least two steps
