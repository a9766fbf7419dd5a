# GPU code objects carry the DSL's source lines by default (what ncu's and rocprof's source
# views read): PTX gets .file / .loc directives, AMD code objects a DWARF line table, both from
# the ops' file:line:col. --line-info=false drops them and changes nothing else.
# RUN: kda-compile %s --kernel scaled --target sm_90a --signature 'x=*f32,n=i32' -D BLOCK=256 \
# RUN:   --emit ptx -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
# RUN: kda-compile %s --kernel scaled --target sm_90a --signature 'x=*f32,n=i32' -D BLOCK=256 \
# RUN:   --emit ptx --line-info=false -o %t.nolines.ptx
# RUN: FileCheck %s --check-prefix=NOLINES --input-file %t.nolines.ptx
# RUN: grep -v -e '\.loc' -e '\.file' -e '\.debug_' -e '^\$L__' -e '^$' %t.ptx > %t.stripped.ptx
# RUN: grep -v -e '^\$L__' -e '^$' %t.nolines.ptx | diff - %t.stripped.ptx
# RUN: %if ptxas %{ kda-compile %s --kernel scaled --target sm_90a --signature 'x=*f32,n=i32' \
# RUN:   -D BLOCK=256 --emit cubin -o %t.cubin %}
# RUN: %if ptxas %{ llvm-readelf -S %t.cubin | FileCheck %s --check-prefix=CUBIN %}
# RUN: kda-compile %s --kernel scaled --target gfx950 --signature 'x=*f32,n=i32' -D BLOCK=256 \
# RUN:   --emit hsaco -o %t.gfx950.hsaco
# RUN: llvm-dwarfdump --debug-line %t.gfx950.hsaco | FileCheck %s --check-prefix=DWARF
# RUN: kda-compile %s --kernel scaled --target gfx1250 --signature 'x=*f32,n=i32' -D BLOCK=256 \
# RUN:   --emit hsaco -o %t.gfx1250.hsaco
# RUN: llvm-dwarfdump --debug-line %t.gfx1250.hsaco | FileCheck %s --check-prefix=DWARF

import kdatile as kt


@kt.jit
def scaled(x, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    v = kt.load(x + offs, mask=offs < n)
    kt.store(x + offs, v * 2.0, mask=offs < n)


# PTX-DAG: .loc 1 27 12
# PTX-DAG: .loc 1 28 9
# PTX-DAG: .loc 1 29 5
# PTX: .file 1 "{{.*}}line_info.py"
# CUBIN: .nv_debug_line_sass
# NOLINES-NOT: .loc
# NOLINES-NOT: .file

# DWARF: name: "line_info.py"
# DWARF-DAG: {{^0x[0-9a-f]+ +}}28 9 1
# DWARF-DAG: {{^0x[0-9a-f]+ +}}29 5 1
