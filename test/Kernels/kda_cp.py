# kernels/kda_cp.py (the context-parallel prefill's state transition and output correction)
# on the three GPU targets at the prefill's shape (H = 12, K = V = 128, bf16 inputs, [K, V]
# states), from `python3 -m kdatile.ops.export --checks` (%{kda_cp_compose_<target>},
# %{kda_cp_correct_<target>}; test/lit.cfg.py). Both products run on the matrix instructions
# (bf16 operands, fp32 accumulation) and nothing spills.
#
# RUN: kda-compile %{kda_cp_compose_gfx950} --emit asm -o - --stats 2>%t.c950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.c950.stats
# RUN: kda-compile %{kda_cp_correct_gfx950} --emit asm -o - --stats 2>%t.o950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.o950.stats
# RUN: kda-compile %{kda_cp_compose_gfx1250} --emit asm -o - --stats 2>%t.c1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.c1250.stats
# RUN: kda-compile %{kda_cp_correct_gfx1250} --emit asm -o - --stats 2>%t.o1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.o1250.stats
# RUN: kda-compile %{kda_cp_compose_sm_90a} --emit asm -o - | FileCheck %s --check-prefix=SM90
# RUN: kda-compile %{kda_cp_correct_sm_90a} --emit asm -o - | FileCheck %s --check-prefix=SM90
# RUN: %if ptxas %{ kda-compile %{kda_cp_compose_sm_90a} --emit cubin -o %t.c.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
# RUN: %if ptxas %{ kda-compile %{kda_cp_correct_sm_90a} --emit cubin -o %t.o.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
#
# kda_segment_starts (the state before each segment of a sequence chunk_kda scans in segments,
# %{kda_segment_starts_<target>} from the main jobs): the chain's products as three bf16
# products of split fp32 factors on the same matrix instructions; no spills.
# RUN: kda-compile %{kda_segment_starts_gfx950} --emit asm -o - --stats 2>%t.s950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.s950.stats
# RUN: kda-compile %{kda_segment_starts_gfx1250} --emit asm -o - --stats 2>%t.s1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 --implicit-check-not=scratch_
# RUN: FileCheck %s --check-prefix=AMD-STATS --input-file %t.s1250.stats
# RUN: kda-compile %{kda_segment_starts_sm_90a} --emit asm -o - | FileCheck %s --check-prefix=SM90
# RUN: %if ptxas %{ kda-compile %{kda_segment_starts_sm_90a} --emit cubin -o %t.s.cubin --stats \
# RUN:   2>&1 | FileCheck %s --check-prefix=SM90-STATS %}

# GFX950: v_mfma_f32_{{(32x32x16|16x16x32)}}_bf16
# GFX950: s_endpgm

# GFX1250: v_wmma_f32_16x16x32_bf16
# GFX1250: s_endpgm

# AMD-STATS: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# SM90: ret;

# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes
