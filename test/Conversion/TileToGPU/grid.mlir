// RUN: kda-opt %s --convert-tile-to-gpu=target=sm_90a | FileCheck %s --check-prefix=NV
// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx950 | FileCheck %s --check-prefix=AMD
// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx1250 | FileCheck %s --check-prefix=AMD

// Program ids are the block/workgroup ids; program counts are nctaid on
// NVIDIA and, on AMD, the dispatch packet's grid size (u32 at byte 12 + 4 *
// axis) over its workgroup size (u16 at byte 4 + 2 * axis), with no
// device-library call.

module attributes {tile.num_warps = 4 : i32} {
// NV-LABEL: func.func @grid
// NV: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// NV: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// NV: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// NV: %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// NV: %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// NV: %[[NZ:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// NV: return %[[X]], %[[Y]], %[[Z]], %[[NX]], %[[NY]], %[[NZ]]

// AMD-LABEL: func.func @grid
// AMD-NOT: llvm.call @
// AMD: %[[X:.*]] = rocdl.workgroup.id.x : i32
// AMD: %[[Y:.*]] = rocdl.workgroup.id.y : i32
// AMD: %[[Z:.*]] = rocdl.workgroup.id.z : i32
// AMD: %[[P0:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// AMD: %[[G0A:.*]] = llvm.getelementptr %[[P0]][12] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// AMD: %[[G0:.*]] = llvm.load %[[G0A]] {{.*}} : !llvm.ptr<4> -> i32
// AMD: %[[W0A:.*]] = llvm.getelementptr %[[P0]][4] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// AMD: %[[W0:.*]] = llvm.load %[[W0A]] {{.*}} : !llvm.ptr<4> -> i16
// AMD: %[[W0X:.*]] = llvm.zext %[[W0]] : i16 to i32
// AMD: %[[NX:.*]] = llvm.udiv %[[G0]], %[[W0X]] : i32
// AMD: %[[P1:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"()
// AMD: llvm.getelementptr %[[P1]][16]
// AMD: llvm.getelementptr %[[P1]][6]
// AMD: %[[NY:.*]] = llvm.udiv
// AMD: %[[P2:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"()
// AMD: llvm.getelementptr %[[P2]][20]
// AMD: llvm.getelementptr %[[P2]][8]
// AMD: %[[NZ:.*]] = llvm.udiv
// AMD: return %[[X]], %[[Y]], %[[Z]], %[[NX]], %[[NY]], %[[NZ]]
func.func @grid() -> (i32, i32, i32, i32, i32, i32) attributes {tile.kernel} {
  %x = tile.program_id 0
  %y = tile.program_id 1
  %z = tile.program_id 2
  %nx = tile.num_programs 0
  %ny = tile.num_programs 1
  %nz = tile.num_programs 2
  return %x, %y, %z, %nx, %ny, %nz : i32, i32, i32, i32, i32, i32
}
}
