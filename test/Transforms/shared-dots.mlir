// RUN: kda-opt %s --split-input-file --tile-shared-dots="num-warps=4 matrix-instrs=wgmma_m64k16,mma_m16n8k16" | FileCheck %s
// RUN: kda-opt %s --split-input-file --tile-shared-dots="num-warps=4 matrix-instrs=mma_m16n8k16" | FileCheck %s --check-prefix=NO-WGMMA

// A dot of two loads of nvmma_shared buffers reads them in place; the loads
// die. Without wgmma among the target's instructions nothing changes.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: tile.smem_load
// CHECK: tile.shared_dot %[[A:.*]], %[[B:.*]], %{{.*}} : !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>, !tile.smem<64x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>> -> tensor<64x128xf32>
// NO-WGMMA-LABEL: func.func @in_place
// NO-WGMMA: tile.dot
func.func @in_place(%c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %abuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %bbuf = tile.alloc_shared : !tile.smem<64x128xbf16, #nv>
  %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %b = tile.smem_load %bbuf : !tile.smem<64x128xbf16, #nv> -> tensor<64x128xbf16>
  %d = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// -----

// A load that has another user stays for it.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @shared_load
// CHECK: %[[A:.*]] = tile.smem_load
// CHECK-NOT: tile.smem_load
// CHECK: tile.shared_dot
// CHECK: return %{{.*}}, %[[A]]
func.func @shared_load(%c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xbf16>) {
  %abuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %bbuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %b = tile.smem_load %bbuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %d = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  return %d, %a : tensor<64x64xf32>, tensor<64x64xbf16>
}

// -----

// A write between a load and the dot could change the buffer: the dot keeps
// its registers.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @written_between
// CHECK-NOT: tile.shared_dot
func.func @written_between(%c: tensor<64x64xf32>, %t: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %abuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %bbuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  tile.smem_store %abuf, %t : !tile.smem<64x64xbf16, #nv>, tensor<64x64xbf16>
  %b = tile.smem_load %bbuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %d = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// Buffers in another layout, and rows the warpgroups do not divide (64 rows
// of 8 warps), keep register operands.
#sw = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @not_nvmma
// CHECK-NOT: tile.shared_dot
func.func @not_nvmma(%c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %abuf = tile.alloc_shared : !tile.smem<64x64xbf16, #sw>
  %bbuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #sw> -> tensor<64x64xbf16>
  %b = tile.smem_load %bbuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %d = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @partial_warpgroups
// CHECK-NOT: tile.shared_dot
module attributes {tile.num_warps = 8 : i32} {
func.func @partial_warpgroups(%c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %abuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %bbuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %b = tile.smem_load %bbuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %d = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
}

// -----

// An asynchronous dot reads in place as an asynchronous shared_dot.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK-LABEL: func.func @in_place_async
// CHECK: tile.shared_dot %{{.*}}, %{{.*}}, %{{.*}} async :
func.func @in_place_async(%c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %abuf = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %bbuf = tile.alloc_shared : !tile.smem<64x128xbf16, #nv>
  %a = tile.smem_load %abuf : !tile.smem<64x64xbf16, #nv> -> tensor<64x64xbf16>
  %b = tile.smem_load %bbuf : !tile.smem<64x128xbf16, #nv> -> tensor<64x128xbf16>
  %d = tile.dot %a, %b, %c async : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}
