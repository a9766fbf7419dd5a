# kt.wait_prior_launches() and kt.launch_dependents() become their tile ops; the wait lets the
# runtime launch the kernel before the previous one ends (sm_90a: griddepcontrol, and the
# generated header passes KDA_LAUNCH_EARLY), so it must come before every memory access, at
# the kernel's top level: errors point at the call.
# RUN: kda-compile %s --kernel scale --target cpu --signature 'x_ptr=*f32,out_ptr=*f32,n=i32' \
# RUN:   -D BLOCK=64 --emit tile -o - | FileCheck %s
# CHECK: tile.program_id 0
# CHECK: tile.wait_prior_launches
# CHECK: tile.load
# CHECK: tile.launch_dependents
# CHECK: tile.store
# RUN: kda-compile %s --kernel scale --target sm_90a --signature \
# RUN:   'x_ptr=*f32,out_ptr=*f32,n=i32' -D BLOCK=64 --emit ptx -o - | FileCheck %s --check-prefix=PTX
# PTX: .entry scale
# PTX-NOT: {{(ld|st|atom|red)(\.[a-z]+)*\.global|cp\.async}}
# PTX: griddepcontrol.wait;
# PTX: ld.global
# PTX: griddepcontrol.launch_dependents;
# PTX: st.global
# RUN: kda-compile %s --kernel scale --target sm_90a --signature \
# RUN:   'x_ptr=*f32,out_ptr=*f32,n=i32' -D BLOCK=64 --emit header -o - \
# RUN:   | FileCheck %s --check-prefix=HEADER
# HEADER: #define SCALE_LAUNCH_FLAGS KDA_LAUNCH_EARLY
# HEADER: SCALE_LAUNCH_FLAGS, args, error);
# RUN: kda-compile %s --kernel plain --target sm_90a --signature 'x_ptr=*f32' --emit header \
# RUN:   -o - | FileCheck %s --check-prefix=PLAIN
# PLAIN: #define PLAIN_LAUNCH_FLAGS 0u
# RUN: not kda-compile %s --kernel in_branch --target cpu --signature 'x_ptr=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=BRANCH
# BRANCH: launch_order.py:[[@LINE+41]]:9: error: kt.wait_prior_launches() must be called at the top level of the kernel, not in a loop, a branch or a called function
# RUN: not kda-compile %s --kernel in_loop --target cpu --signature 'x_ptr=*f32,n=i32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=LOOP
# LOOP: launch_order.py:[[@LINE+53]]:9: error: kt.wait_prior_launches() must be called at the top level of the kernel, not in a loop, a branch or a called function
# RUN: not kda-compile %s --kernel after_load --target cpu --signature 'x_ptr=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=AFTER
# AFTER: launch_order.py:[[@LINE+42]]:5: error: kt.wait_prior_launches() must come before the kernel's first memory access (line [[@LINE+41]])
# RUN: not kda-compile %s --kernel after_helper_load --target cpu --signature 'x_ptr=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=HELPER
# HELPER: launch_order.py:[[@LINE+60]]:5: error: kt.wait_prior_launches() must come before the kernel's first memory access (line [[@LINE+59]], in the function called there, at line [[@LINE+54]])
# RUN: not kda-compile %s --kernel twice --target cpu --signature 'x_ptr=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=TWICE
# TWICE: launch_order.py:[[@LINE+64]]:5: error: kt.wait_prior_launches() is called twice (line [[@LINE+63]]): the first wait covers every kernel launched before it
# The launch-order calls under a constexpr branch, launch_dependents before the wait: fine.
# RUN: kda-compile %s --kernel waits_if --target sm_90a --signature 'x_ptr=*f32' -D WAIT=1 \
# RUN:   --emit ptx -o - | FileCheck %s --check-prefix=WAITS
# WAITS: griddepcontrol.launch_dependents;
# WAITS: griddepcontrol.wait;
# RUN: kda-compile %s --kernel waits_if --target sm_90a --signature 'x_ptr=*f32' -D WAIT=0 \
# RUN:   --emit header -o - | FileCheck %s --check-prefix=NOWAIT
# NOWAIT: #define WAITS_IF_LAUNCH_FLAGS 0u
import kdatile as kt


@kt.jit
def scale(x_ptr, out_ptr, n, BLOCK: kt.constexpr):
    offs = kt.program_id(0) * BLOCK + kt.arange(0, BLOCK)
    kt.wait_prior_launches()
    x = kt.load(x_ptr + offs, mask=offs < n)
    kt.launch_dependents()
    kt.store(out_ptr + offs, x * 2.0, mask=offs < n)


@kt.jit
def plain(x_ptr):
    kt.store(x_ptr, 1.0)


@kt.jit
def in_branch(x_ptr, n):
    if n > 0:
        kt.wait_prior_launches()
    kt.store(x_ptr, 1.0)


@kt.jit
def after_load(x_ptr):
    x = kt.load(x_ptr)
    kt.wait_prior_launches()
    kt.store(x_ptr, x + 1.0)


@kt.jit
def in_loop(x_ptr, n):
    i = 0
    while i < n:
        kt.wait_prior_launches()
        i += 1
    kt.store(x_ptr, 1.0)


@kt.jit
def read_one(p):
    return kt.load(p)


@kt.jit
def after_helper_load(x_ptr):
    x = read_one(x_ptr)
    kt.wait_prior_launches()
    kt.store(x_ptr, x + 1.0)


@kt.jit
def twice(x_ptr):
    kt.wait_prior_launches()
    kt.wait_prior_launches()
    kt.store(x_ptr, 1.0)


@kt.jit
def waits_if(x_ptr, WAIT: kt.constexpr):
    kt.launch_dependents()
    if WAIT:
        kt.wait_prior_launches()
    kt.store(x_ptr, 1.0)
