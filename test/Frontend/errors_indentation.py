# Indentation whose meaning depends on the tab size is an error, as in Python.
# RUN: not kda-compile %s --kernel mixed --target cpu --signature 'o=*f32' --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --strict-whitespace
# A deeper line whose depth needs tabs of 8 (four spaces, then a tab), and a dedent to a
# level equal only with tabs of 8 (a tab after eight spaces):
# RUN: printf 'import kdatile.language as kt\n@kt.jit\ndef k(o):\n    if 1 > 0:\n\tkt.store(o, 1.0)\n' > %t.indent.py
# RUN: not kda-compile %t.indent.py --kernel k --target cpu --signature 'o=*f32' --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=INDENT
# INDENT: indent.py:5:2: error: inconsistent use of tabs and spaces in indentation
# RUN: printf 'import kdatile.language as kt\n@kt.jit\ndef k(o):\n\tif 1 > 0:\n\t\tx = 1.0\n        kt.store(o, 1.0)\n' > %t.dedent.py
# RUN: not kda-compile %t.dedent.py --kernel k --target cpu --signature 'o=*f32' --emit tile \
# RUN:   -o - 2>&1 | FileCheck %s --check-prefix=DEDENT
# DEDENT: dedent.py:6:9: error: inconsistent use of tabs and spaces in indentation
# A form feed restarts the column count, as in Python:
# RUN: printf 'import kdatile.language as kt\n@kt.jit\ndef k(o):\n\f    kt.store(o, 1.0)\n' > %t.ff.py
# RUN: kda-compile %t.ff.py --kernel k --target cpu --signature 'o=*f32' --emit tile -o - \
# RUN:   | FileCheck %s --check-prefix=TABS
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
