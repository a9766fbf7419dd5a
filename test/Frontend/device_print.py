# kt.device_print becomes tile.print at the call's line, and prints at run time on every target:
# printf on the host, vprintf on NVIDIA, OpenCL's printf on AMD, whose code object then takes the
# runtime's printf buffer and defines the buffer reservation itself (nothing left undefined).
# RUN: kda-compile %s --kernel shown --target cpu --signature 'x=*f32,n=i32' -D BLOCK=64 \
# RUN:   --emit tile --mlir-print-debuginfo -o - | FileCheck %s --check-prefix=IR
# RUN: kda-compile %s --kernel shown --target sm_90a --signature 'x=*f32,n=i32' -D BLOCK=64 \
# RUN:   --emit ptx -o - | FileCheck %s --check-prefix=PTX
# RUN: kda-compile %s --kernel shown --target gfx950 --signature 'x=*f32,n=i32' -D BLOCK=64 \
# RUN:   --emit asm -o - | FileCheck %s --check-prefix=AMD
# RUN: kda-compile %s --kernel shown --target gfx1250 --signature 'x=*f32,n=i32' -D BLOCK=64 \
# RUN:   --emit hsaco -o %t.hsaco
# RUN: llvm-readelf -s %t.hsaco | FileCheck %s --check-prefix=SYMS
# RUN: not kda-compile %s --kernel bad_prefix --target cpu --signature 'x=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=PREFIX
# RUN: not kda-compile %s --kernel bad_pointer --target cpu --signature 'x=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=POINTER
# RUN: not kda-compile %s --kernel bad_keyword --target cpu --signature 'x=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=KEYWORD
# RUN: not kda-compile %s --kernel no_values --target cpu --signature 'x=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=NOVALUES

import kdatile as kt


@kt.jit
def shown(x, n, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    v = kt.load(x + offs, mask=offs < n, other=0.0)
    kt.device_print("v", v)
    kt.device_print("n", n, hex=True)


# IR: tile.print "v" %{{.*}} : tensor<64xf32> loc([[V:#loc[0-9]*]])
# IR: tile.print "n" %{{.*}} : i32 {hex} loc([[N:#loc[0-9]*]])
# IR-DAG: [[V]] = loc("{{.*}}device_print.py":29:5)
# IR-DAG: [[N]] = loc("{{.*}}device_print.py":30:5)

# PTX: .extern .func (.param .b32 func_retval0) vprintf
# PTX: call.uni (retval0), vprintf,

# AMD: .value_kind: hidden_printf_buffer
# AMD: amdhsa.printf:
# The records: format id, argument count, argument sizes, format.
# AMD-DAG: - '{{[0-9]+}}:5:4:4:4:4:8:pid (%d, %d, %d) idx (%d) v\72 %.9g\n'
# AMD-DAG: - '{{[0-9]+}}:4:4:4:4:4:pid (%d, %d, %d) n\72 0x%x\n'

# SYMS-NOT: UND __printf_alloc
# SYMS: FUNC {{.*}} HIDDEN {{.*}} __printf_alloc


@kt.jit
def bad_prefix(x):
    kt.device_print(kt.load(x))


# PREFIX: device_print.py:[[# @LINE - 3]]:21: error: kt.device_print() takes a string literal prefix first


@kt.jit
def bad_pointer(x):
    kt.device_print("p", x)


# POINTER: device_print.py:[[# @LINE - 3]]:26: error: kt.device_print() prints numbers; argument 1 is a pointer


@kt.jit
def bad_keyword(x):
    kt.device_print("x", kt.load(x), end="")


# KEYWORD: device_print.py:[[# @LINE - 3]]:38: error: kt.device_print() got an unexpected keyword argument 'end'


@kt.jit
def no_values(x):
    kt.device_print("reached")


# NOVALUES: device_print.py:[[# @LINE - 3]]:5: error: kt.device_print() needs values to print after the prefix
