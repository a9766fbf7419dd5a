// RUN: kda-opt %s --convert-tile-to-gpu=target=sm_90a | FileCheck %s --check-prefix=NV
// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx950 | FileCheck %s --check-prefix=AMD
// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx1250 | FileCheck %s --check-prefix=AMD

// The wait for the previous kernel on the stream and the early start of the
// next are grid dependency control on sm_90a, the wait as volatile assembly
// that clobbers memory (no access may move above it); AMD launches on a
// stream run one after another, so both are dropped there.

module attributes {tile.num_warps = 4 : i32} {
// NV-LABEL: func.func @launch_order
// NV: nvvm.read.ptx.sreg.ctaid.x
// NV-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// NV: llvm.load
// NV: nvvm.griddepcontrol launch_dependents
// NV-NEXT: return

// AMD-LABEL: func.func @launch_order
// AMD-NOT: griddepcontrol
// AMD: rocdl.workgroup.id.x
// AMD: llvm.load
// AMD-NOT: griddepcontrol
// AMD: return
func.func @launch_order(%p: !tile.ptr<f32>) -> (i32, f32) {
  %pid = tile.program_id 0
  tile.wait_prior_launches
  %v = tile.load %p : !tile.ptr<f32>
  tile.launch_dependents
  return %pid, %v : i32, f32
}
}
