# kernels/kda_recurrent.py (the multi-token KDA recurrent core: varlen, per-token slots,
# num_accepted_tokens, every in-kernel switch on) on the three GPU targets, at the Kimi-K3 shape
# H = 12, K = V = 128, one program per (sequence, head) (BV = V) with 8 warps: a [128, 128]
# fp32 state per program carried in registers across the token loop.
#
# DEFINE: %{sig} = q_ptr=*bf16:16, k_ptr=*bf16:16, v_ptr=*bf16:16, g_ptr=*bf16:16, beta_ptr=*bf16:16, A_log_ptr=*f32:16, dt_bias_ptr=*f32:16, state_ptr=*f32:16, state_idx_ptr=*i32:16, num_accepted_ptr=*i32:16, cu_seqlens_ptr=*i32:16, o_ptr=*bf16:16, T=i32, num_slots=i32, stride_q=i32:16, stride_k=i32:16, stride_v=i32:16, stride_g=i32:16, stride_beta=i32, stride_state_slot=i32:16, stride_si_n=i32, stride_si_t=i32, scale=f32, lower_bound=f32
# DEFINE: %{sigbf} = q_ptr=*bf16:16, k_ptr=*bf16:16, v_ptr=*bf16:16, g_ptr=*bf16:16, beta_ptr=*bf16:16, A_log_ptr=*f32:16, dt_bias_ptr=*f32:16, state_ptr=*bf16:16, state_idx_ptr=*i32:16, num_accepted_ptr=*i32:16, cu_seqlens_ptr=*i32:16, o_ptr=*bf16:16, T=i32, num_slots=i32, stride_q=i32:16, stride_k=i32:16, stride_v=i32:16, stride_g=i32:16, stride_beta=i32, stride_state_slot=i32:16, stride_si_n=i32, stride_si_t=i32, scale=f32, lower_bound=f32
# DEFINE: %{consts} = -D H=12 -D K=128 -D V=128 -D IS_VARLEN=True -D HAS_NUM_ACCEPTED=True -D USE_QK_L2NORM=True -D USE_GATE=True -D USE_LOWER_BOUND=True -D USE_BETA_SIGMOID=True
#
# The state rows are contiguous and the pool 16-byte aligned, so the state is read once and
# written after every token with 128-bit accesses; exp(g) is the hardware exp2 (v_exp_f32,
# ex2.approx), the row reductions are cross-lane butterflies, and nothing spills. The [K, V]
# layout with a bf16 pool compiles without spills too.
#
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target gfx950 \
# RUN:   --num-warps=8 --signature '%{sig}' %{consts} -D BV=128 -D STATE_KV=False \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target gfx1250 \
# RUN:   --num-warps=8 --signature '%{sig}' %{consts} -D BV=128 -D STATE_KV=False \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target sm_90a \
# RUN:   --num-warps=8 --signature '%{sig}' %{consts} -D BV=128 -D STATE_KV=False \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=SM90
# RUN: %if ptxas %{ kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target sm_90a \
# RUN:   --num-warps=8 --signature '%{sig}' %{consts} -D BV=128 -D STATE_KV=False \
# RUN:   --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
#
# The launch kdatile.ops runs at one token per sequence: BV = 32 on 4 warps with the starting
# state prefetched (PREFETCH_STATE). Its 16-byte asynchronous copies are issued before the first
# token's loads and norms, and waited for only before the delta rule (then read from shared
# memory); on AMD the same source compiles without spills.
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target sm_90a \
# RUN:   --num-warps=4 --signature '%{sig}' %{consts} -D BV=32 -D STATE_KV=False \
# RUN:   -D PREFETCH_STATE=True --emit asm -o - | FileCheck %s --check-prefix=PF
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target gfx950 \
# RUN:   --num-warps=4 --signature '%{sig}' %{consts} -D BV=32 -D STATE_KV=False \
# RUN:   -D PREFETCH_STATE=True --emit hsaco -o %t.pf.hsaco --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=AMD-STATS
#
# [K, V] layout, bf16 pool: no spills on any target.
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target gfx950 \
# RUN:   --num-warps=8 --signature '%{sigbf}' %{consts} -D BV=128 -D STATE_KV=True \
# RUN:   --emit hsaco -o %t.kv.gfx950.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target gfx1250 \
# RUN:   --num-warps=8 --signature '%{sigbf}' %{consts} -D BV=128 -D STATE_KV=True \
# RUN:   --emit hsaco -o %t.kv.gfx1250.hsaco --stats 2>&1 | FileCheck %s --check-prefix=AMD-STATS
# RUN: %if ptxas %{ kda-compile %kda_src/kernels/kda_recurrent.py --kernel kda_recurrent --target sm_90a \
# RUN:   --num-warps=8 --signature '%{sigbf}' %{consts} -D BV=128 -D STATE_KV=True \
# RUN:   --emit cubin -o %t.kv.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}
#

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
# PF: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, 16;
# PF: cp.async.commit_group;
# PF: ld.global.v4.b16
# PF: rsqrt.approx.f32
# PF: cp.async.wait_group 0;
# PF-NEXT: bar.sync 0;
# PF-NEXT: ld.shared.v4.b32
# PF: ex2.approx{{(\.ftz)?}}.f32
# PF: st.global.v4.b32
# The padding first token's read (its own wait) and the empty sequence's wait.
# PF: cp.async.wait_group 0;
# PF-NEXT: bar.sync 0;
# PF-NEXT: ld.shared.v4.b32
# PF: cp.async.wait_group 0;
# PF-NEXT: bar.sync 0;

# GFX950-STATS: resource usage of kernel 'kda_recurrent' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'kda_recurrent' (gfx1250, wave32)
# AMD-STATS: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'kda_recurrent' (sm_90a, warp 32)
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
