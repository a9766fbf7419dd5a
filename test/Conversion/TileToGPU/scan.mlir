// RUN: kda-opt %s --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// A scan through scratch memory: log2(n) rounds, each writing the tile,
// then reading for each element the one 2^k rows before it.

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @cumsum
// 8 rows: rounds of 1, 2 and 4 rows (16 elements a row).
// CHECK-COUNT-3: llvm.mlir.constant(-{{16|32|64}} : i32)
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.icmp "sge"
// CHECK: llvm.load
// CHECK: llvm.fadd
// CHECK: llvm.select
func.func @cumsum(%x: tensor<8x16xf32, #l>) -> tensor<8x16xf32, #l> {
  %0 = tile.scan sum %x {axis = 0 : i32, reverse = false} : tensor<8x16xf32, #l>
  return %0 : tensor<8x16xf32, #l>
}
}
