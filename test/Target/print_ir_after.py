# kda-compile --print-ir-after=PASS / --print-ir-after-all: the module after kdatile's pipeline
# passes on stderr (the compile itself unchanged); a pass that did not run is an error that
# lists those that did.
# DEFINE: %{add} = kda-compile %kda_src/kernels/vector_add.py --kernel vector_add \
# DEFINE:   --signature 'x_ptr=*f32,y_ptr=*f32,out_ptr=*f32,n=i32' -D BLOCK=64
# RUN: %{add} --target sm_90a --emit ptx -o %t.ptx --print-ir-after=tile-assign-layouts 2>&1 \
# RUN:   | FileCheck %s --check-prefix=ONE
# RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
# RUN: %{add} --target sm_90a --emit ptx -o /dev/null --print-ir-after-all 2>&1 \
# RUN:   | FileCheck %s --check-prefix=ALL
# RUN: not %{add} --target cpu --emit mlir -o /dev/null --print-ir-after=tile-assign-layouts 2>&1 \
# RUN:   | FileCheck %s --check-prefix=MISSING
# RUN: not %{add} --target cpu --print-ir-after-all --print-ir-after=cse -o %t.so 2>&1 \
# RUN:   | FileCheck %s --check-prefix=BOTH

# ONE: IR Dump After TileAssignLayouts (tile-assign-layouts)
# ONE-NEXT: module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32}
# ONE: #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
# ONE-NOT: IR Dump After
# PTX: .visible .entry vector_add(

# ALL: IR Dump After Canonicalizer (canonicalize)
# ALL: IR Dump After TileAssignLayouts (tile-assign-layouts)
# ALL: IR Dump After ConvertTileToGPU (convert-tile-to-gpu)
# ALL: IR Dump After FinalizeGPUKernels (finalize-gpu-kernels)

# MISSING: error: --print-ir-after: no pass 'tile-assign-layouts' ran; the passes that ran: {{.*}}convert-tile-to-cpu{{.*}}
# BOTH: error: --print-ir-after-all and --print-ir-after are exclusive
