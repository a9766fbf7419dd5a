// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx950 --canonicalize --cse | FileCheck %s

// A 32x128 fp32 block load on 4 wave64s, 16 bytes per lane: each wave's 8
// rows (4 KiB) in 4 buffer loads into LDS (1 KiB each: M0 the instruction's
// base, lane l 16 bytes past lane l - 1) through one raw buffer resource
// based at the wave's first element (2^31 - 1 records, gfx9's flags 159744).
// Lanes outside the tensor take offset 2^31, past the records: the hardware
// reads zeros. Only a tile whose strides are non-negative and whose span
// fits 31 bits takes that path; the other takes per-lane 64-bit addresses
// (global_load_lds), lanes outside storing their zeros. A wait for all but
// the newest copy leaves its 4 instructions in flight: vmcnt(4) (3956).
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 64 : i32} {
// CHECK-LABEL: func.func @load
// CHECK-DAG: %[[OUT:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
// CHECK-DAG: %[[RECORDS:.*]] = llvm.mlir.constant(2147483647 : i64) : i64
// CHECK-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(159744 : i32) : i32
// CHECK: rocdl.readfirstlane %{{.*}} : i64
// CHECK: llvm.icmp "sle" %{{.*}}, %[[RECORDS]] : i64
// CHECK: scf.if %{{.*}} {
// CHECK: %[[RSRC:.*]] = rocdl.make.buffer.rsrc %{{.*}}, %{{.*}}, %[[RECORDS]], %[[FLAGS]] : <1> to <8>
// CHECK: llvm.select %{{.*}}, %{{.*}}, %[[OUT]] : i1, i32
// CHECK: rocdl.raw.ptr.buffer.load.lds %[[RSRC]], %{{.*}}, %{{.*}}, %{{.*}} {alias_scopes = [#{{.*}}]}
// CHECK-COUNT-3: rocdl.raw.ptr.buffer.load.lds %[[RSRC]]
// CHECK-NOT: rocdl.raw.ptr.buffer.load.lds
// CHECK: } else {
// CHECK-COUNT-4: rocdl.global.load.lds %{{.*}}, %{{.*}}, 16, 0, 0
// CHECK-NOT: rocdl.global.load.lds
// CHECK: rocdl.s.waitcnt 3956
// CHECK-NEXT: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.barrier
func.func @load(%base: !tile.ptr<f32>, %m: i32, %ld: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<32x128xf32>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<f32> -> !tile.tensor_desc<32x128xf32>
  tile.async_load %d[%c0, %c0], %buf {kda.copy_vector_bytes = 16 : i64} : !tile.tensor_desc<32x128xf32>, !tile.smem<32x128xf32>
  tile.async_wait {pending = 1 : i32}
  return
}
}

// -----

// A store reads each lane's 16 bytes from LDS and buffer-stores them (lanes
// outside the tensor are dropped by the bounds check), then waits for every
// vector-memory operation: vmcnt(0) (3952). A 2x64 bf16 block puts one row on
// each of 2 waves (the other two skip the copy); a row is 128 bytes, so
// lanes 8 and up of its one instruction stay idle.
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 64 : i32} {
// CHECK-LABEL: func.func @store
// CHECK: %[[WAVE:.*]] = rocdl.readfirstlane %{{.*}} : i32
// CHECK: %[[ACTIVE:.*]] = llvm.icmp "ult" %[[WAVE]], %{{.*}} : i32
// CHECK: scf.if %[[ACTIVE]] {
// CHECK: rocdl.make.buffer.rsrc
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: rocdl.raw.ptr.buffer.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: rocdl.s.waitcnt 3952
func.func @store(%base: !tile.ptr<bf16>, %m: i32, %ld: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<2x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] : !tile.ptr<bf16> -> !tile.tensor_desc<2x64xbf16>
  tile.async_store %d[%c0, %c0], %buf {kda.copy_vector_bytes = 16 : i64} : !tile.tensor_desc<2x64xbf16>, !tile.smem<2x64xbf16>
  return
}
}
