# kernels/vector_add.py on the three GPU targets (assembly and resource usage).
#
# With 16-byte aligned pointers and n divisible by 16 (what the JIT passes for
# aligned arrays), each thread's 4 contiguous elements (and the mask, which is
# uniform over them) make every global access 128 bits wide: no 32-bit global
# load or store is left. Without the hints the accesses must stay 32-bit.
#
# RUN: kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target gfx950 \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16, n=i32:16' -D BLOCK=1024 \
# RUN:   --emit asm -o - --stats 2>%t.gfx950.stats \
# RUN:   | FileCheck %s --check-prefix=GFX950 \
# RUN:       --implicit-check-not='global_load_dword v' --implicit-check-not='global_store_dword v'
# RUN: FileCheck %s --check-prefixes=GFX950-STATS,AMD-STATS --input-file %t.gfx950.stats
#
# RUN: kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16, n=i32:16' -D BLOCK=1024 \
# RUN:   --emit asm -o - --stats 2>%t.gfx1250.stats \
# RUN:   | FileCheck %s --check-prefix=GFX1250 \
# RUN:       --implicit-check-not=global_load_b32 --implicit-check-not=global_store_b32
# RUN: FileCheck %s --check-prefixes=GFX1250-STATS,AMD-STATS --input-file %t.gfx1250.stats
#
# RUN: kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16, n=i32:16' -D BLOCK=1024 \
# RUN:   --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90 \
# RUN:       --implicit-check-not='{{(ld|st)\.global(\.nc)?\.[bf]32}}'
# The PTX is accepted by ptxas, which also reports the resource usage.
# RUN: %if ptxas %{ kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target sm_90a \
# RUN:   --signature 'x_ptr=*f32:16, y_ptr=*f32:16, out_ptr=*f32:16, n=i32:16' -D BLOCK=1024 \
# RUN:   --emit cubin -o %t.cubin --stats 2>&1 | FileCheck %s --check-prefix=SM90-STATS %}
#
# Without alignment hints: 32-bit accesses only.
# RUN: kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target gfx950 \
# RUN:   --signature 'x_ptr=*f32, y_ptr=*f32, out_ptr=*f32, n=i32' -D BLOCK=1024 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=GFX950-NOALIGN --implicit-check-not=global_load_dwordx4 \
# RUN:       --implicit-check-not=global_store_dwordx4
# RUN: kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target gfx1250 \
# RUN:   --signature 'x_ptr=*f32, y_ptr=*f32, out_ptr=*f32, n=i32' -D BLOCK=1024 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=GFX1250-NOALIGN --implicit-check-not=global_load_b128 \
# RUN:       --implicit-check-not=global_store_b128
# RUN: kda-compile %kda_src/kernels/vector_add.py --kernel vector_add --target sm_90a \
# RUN:   --signature 'x_ptr=*f32, y_ptr=*f32, out_ptr=*f32, n=i32' -D BLOCK=1024 --emit asm -o - \
# RUN:   | FileCheck %s --check-prefix=SM90-NOALIGN --implicit-check-not='{{(ld|st)\.global(\.nc)?\.v[24]}}'

# gfx950 (wave64): 256 lanes x 4 elements = BLOCK, one 128-bit access per tensor.
# GFX950: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
# GFX950-LABEL: vector_add:
# GFX950: s_and_saveexec_b64
# GFX950-COUNT-2: global_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX950: v_add_f32
# GFX950: global_store_dwordx4
# GFX950: s_endpgm
# GFX950: .wavefront_size: 64

# gfx1250 (wave32): 128 lanes, two 128-bit accesses per tensor.
# GFX1250: .amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
# GFX1250-LABEL: vector_add:
# GFX1250: s_and_saveexec_b32 s{{[0-9]+}}, vcc_lo
# GFX1250-COUNT-4: global_load_b128 v[{{[0-9]+}}:{{[0-9]+}}]
# GFX1250-COUNT-2: global_store_b128
# GFX1250: .amdhsa_wavefront_size32 1
# GFX1250: .wavefront_size: 32

# SM90: .target sm_90a
# SM90: .visible .entry vector_add(
# SM90: .maxntid 128, 1, 1
# SM90-COUNT-4: ld.global{{(\.nc)?}}.v4.{{[bf]}}32
# SM90-COUNT-2: st.global.v4.{{[bf]}}32
# SM90: ret;

# GFX950-STATS: resource usage of kernel 'vector_add' (gfx950, wave64)
# GFX1250-STATS: resource usage of kernel 'vector_add' (gfx1250, wave32)
# AMD-STATS: scratch {{ *}}0 bytes/lane
# AMD-STATS-NEXT: VGPR spills {{ *}}0{{$}}
# AMD-STATS-NEXT: SGPR spills {{ *}}0{{$}}

# SM90-STATS: resource usage of kernel 'vector_add' (sm_90a, warp 32)
# SM90-STATS: stack frame {{ *}}0 bytes/thread
# SM90-STATS-NEXT: spill stores {{ *}}0 bytes
# SM90-STATS-NEXT: spill loads {{ *}}0 bytes

# GFX950-NOALIGN: global_load_dword v
# GFX950-NOALIGN: global_store_dword v
# GFX1250-NOALIGN: global_load_b32
# GFX1250-NOALIGN: global_store_b32
# SM90-NOALIGN: ld.global.{{[bf]}}32
# SM90-NOALIGN: st.global.{{[bf]}}32
