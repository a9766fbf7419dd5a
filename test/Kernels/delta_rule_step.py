# kernels/delta_rule_step.py on the three GPU targets (assembly and resource
# usage), at the KDA head size V = K = 128: a [128, 128] fp32 state per program.
#
# The kernel needs no layout conversion: q, k and g are loaded directly in the
# slice of the state's layout that expand_dims wants, and v in the layout of
# the row sums u it meets in v - u (a slice of the state's layout too), so
# nothing moves through shared memory: no LDS / shared memory, no barrier, on
# all three targets. The state rows are contiguous (K is a constexpr) and the
# pointers 16-byte aligned, so the state, q, k and g are read with 128-bit
# accesses. v, in the row sums' layout, gives each thread rows that are not
# contiguous: one 32-bit load per row (global loads on gfx950 and sm_90a,
# wave-uniform scalar loads on gfx1250, whose warps hold whole rows; beta is
# a scalar load). exp(g) is the hardware exp2 (v_exp_f32, ex2.approx), the two
# row reductions are cross-lane butterflies, and the state stays in
# registers: no spills.
#
# RUN: kda-compile %kda_src/kernels/delta_rule_step.py --kernel delta_rule_step --target gfx950 \
# RUN:   --signature 'q_ptr=*f32:16, k_ptr=*f32:16, v_ptr=*f32:16, g_ptr=*f32:16, beta_ptr=*f32:16, state_ptr=*f32:16, o_ptr=*f32:16' \
# RUN:   -D V=128 -D K=128 --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 \
# RUN:       --implicit-check-not=s_barrier --implicit-check-not=ds_write --implicit-check-not=ds_read
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %kda_src/kernels/delta_rule_step.py --kernel delta_rule_step --target gfx1250 \
# RUN:   --signature 'q_ptr=*f32:16, k_ptr=*f32:16, v_ptr=*f32:16, g_ptr=*f32:16, beta_ptr=*f32:16, state_ptr=*f32:16, o_ptr=*f32:16' \
# RUN:   -D V=128 -D K=128 --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=global_load_b32 \
# RUN:       --implicit-check-not=s_barrier --implicit-check-not=ds_store --implicit-check-not=ds_load
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %kda_src/kernels/delta_rule_step.py --kernel delta_rule_step --target sm_90a \
# RUN:   --signature 'q_ptr=*f32:16, k_ptr=*f32:16, v_ptr=*f32:16, g_ptr=*f32:16, beta_ptr=*f32:16, state_ptr=*f32:16, o_ptr=*f32:16' \
# RUN:   -D V=128 -D K=128 --emit asm -o - | FileCheck %s --check-prefix=SM90 \
# RUN:       --implicit-check-not=.shared --implicit-check-not=bar.sync --implicit-check-not=barrier
# RUN: %if ptxas %{ kda-compile %kda_src/kernels/delta_rule_step.py --kernel delta_rule_step --target sm_90a \
# RUN:   --signature 'q_ptr=*f32:16, k_ptr=*f32:16, v_ptr=*f32:16, g_ptr=*f32:16, beta_ptr=*f32:16, state_ptr=*f32:16, o_ptr=*f32:16' \
# RUN:   -D V=128 -D K=128 --emit cubin -o %t.cubin --stats 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SM90-STATS %}

# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: delta_rule_step:
# GFX950: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: v_exp_f32
# GFX950: {{ds_bpermute_b32|_dpp}}
# GFX950: global_store_dwordx4
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: delta_rule_step:
# GFX1250: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250: v_exp_f32
# GFX1250: {{ds_bpermute_b32|_dpp}}
# GFX1250: global_store_b128
# GFX1250: s_endpgm
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry delta_rule_step(
# SM90: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90: ex2.approx{{(\.ftz)?}}.f32
# SM90: shfl.sync.bfly.b32
# SM90: st.global.v4.{{[bf]}}32
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'delta_rule_step' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'delta_rule_step' (gfx1250, wave32)
# AMD-STATS: LDS {{ *}}0 bytes/workgroup
# AMD-STATS-NEXT: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'delta_rule_step' (sm_90a, warp 32)
# SM90-STATS: shared memory {{ *}}0 bytes/block
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
# SM90-STATS-NEXT: barriers {{ *}}0{{$}}
