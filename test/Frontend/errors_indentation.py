# Indentation whose meaning depends on the tab size is an error, as in Python.
# RUN: not kda-compile %s --kernel mixed --target cpu --signature 'o=*f32' --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --strict-whitespace
# Tabs alone (or spaces alone) are fine:
# RUN: printf 'import kdatile.language as kt\n@kt.jit\ndef tabs(o):\n\tx = 1.0\n\tif x > 0:\n\t\tkt.store(o, x)\n' > %t.py
# RUN: kda-compile %t.py --kernel tabs --target cpu --signature 'o=*f32' --emit tile -o - \
# RUN:   | FileCheck %s --check-prefix=TABS
# TABS: tile.store

import kdatile.language as kt


@kt.jit
def mixed(o):
        x = 1.0
	kt.store(o, x)
# CHECK: errors_indentation.py:[[@LINE-1]]:2: error: inconsistent use of tabs and spaces in indentation
