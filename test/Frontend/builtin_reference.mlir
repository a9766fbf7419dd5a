// The builtin reference is generated from the frontend's table: docs/builtins.md must be its
// current output, and the JSON form (what Python's help(kt.X) reads) carries the same entries.
// RUN: kda-compile --builtins | diff - %kda_src/docs/builtins.md
// RUN: kda-compile --builtins=json | FileCheck %s
// RUN: not kda-compile --builtins=html 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kda-compile --target cpu 2>&1 | FileCheck %s --check-prefix=NOINPUT

// CHECK: {"example":"x = kt.load(x_ptr + offs, mask=offs < n, other=0.0)
// CHECK-SAME: "kind":"function","name":"load"
// CHECK-SAME: "signature":"kt.load(pointer, mask=None, other=None, cache_modifier=None, eviction_policy=None, volatile=None)"
// CHECK-SAME: "spelling":"kt.load"
// BAD: error: --builtins takes markdown or json, not 'html'
// NOINPUT: error: no input file
