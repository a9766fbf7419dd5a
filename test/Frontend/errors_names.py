# Names that do not resolve, with what the message offers instead: close builtins for a
# misspelled kt.* name, star imports (not followed), the kernels a file defines, and the
# normalizations' ranks (kt.l2norm on a 2-D tile).
# RUN: not kda-compile %s --kernel misspelled_builtin --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=MISSPELLED
# RUN: not kda-compile %s --kernel unknown_builtin --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN
# RUN: not kda-compile %s --kernel star_imported --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=STAR
# RUN: not kda-compile %s --kernel l2norm_of_matrix --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --strict-whitespace --check-prefix=L2NORM
# RUN: not kda-compile %s --kernel no_such_kernel --target cpu --signature 'o=*f32' \
# RUN:   --emit tile -o - 2>&1 | FileCheck %s --check-prefix=KERNELS

import kdatile as kt
from kdatile import *  # noqa: F403


@kt.jit
def misspelled_builtin(o):
    offs = kt.arange(0, 16)
    # MISSPELLED: errors_names.py:[[@LINE+1]]:9: error: module 'kt' has no attribute 'cumsun': it is not a DSL builtin (close: kt.cumsum, kt.cummin)
    x = kt.cumsun(kt.load(o + offs), 0)
    kt.store(o + offs, x)


@kt.jit
def unknown_builtin(o):
    offs = kt.arange(0, 16)
    # UNKNOWN: errors_names.py:[[@LINE+1]]:9: error: module 'kt' has no attribute 'fft': it is not a DSL builtin{{$}}
    x = kt.fft(kt.load(o + offs))
    kt.store(o + offs, x)


@kt.jit
def star_imported(o):
    offs = kt.arange(0, 16)
    # STAR: errors_names.py:[[@LINE+1]]:24: error: name 'sigmoid' is not defined (names from `from kdatile import *` are not followed: import them by name, e.g. `import kdatile as kt`)
    kt.store(o + offs, sigmoid(kt.load(o + offs)))  # noqa: F405


@kt.jit
def l2norm_of_matrix(o):
    offs = kt.arange(0, 16)[:, None] * 16 + kt.arange(0, 16)[None, :]
    # L2NORM: error: static assertion failed: kt.l2norm normalizes a 1-D tile; for the rows of a 2-D tile use kt.l2norm_rows
    # L2NORM: errors_names.py:[[@LINE+2]]:24: note: in call from here
    # L2NORM-NEXT: {{^}}    kt.store(o + offs, kt.l2norm(kt.load(o + offs)))
    kt.store(o + offs, kt.l2norm(kt.load(o + offs)))

# KERNELS: error: no @kt.jit function named 'no_such_kernel' in {{.*}}errors_names.py (it defines: l2norm_of_matrix, misspelled_builtin, star_imported, unknown_builtin)
