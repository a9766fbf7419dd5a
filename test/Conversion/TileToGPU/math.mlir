// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NV --implicit-check-not=__nv_
// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,AMD --implicit-check-not=__ocml_

// Math becomes LLVM intrinsics every GPU back end lowers natively, never
// device-library calls: exp(x) = exp2(x * log2(e)), log(x) = log2(x) * ln(2),
// rsqrt(x) = 1 / sqrt(x) on AMD. NVPTX selects llvm.log2 only as a library
// call, so NVIDIA takes log2 from lg2.approx, and its fp32 rsqrt (when `afn`
// allows approximation, as kt.rsqrt's does) from rsqrt.approx.

module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f64)
// CHECK: %[[L2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK: %[[XS:.*]] = llvm.fmul %[[X]], %[[L2E]] : f32
// CHECK: %[[E:.*]] = llvm.intr.exp2(%[[XS]]) : (f32) -> f32
// NV: %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[X]]) : (f32) -> f32
// AMD: %[[LG:.*]] = llvm.intr.log2(%[[X]]) : (f32) -> f32
// CHECK: %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK: %[[L:.*]] = llvm.fmul %[[LG]], %[[LN2]] : f32
// NV: %[[RS:.*]] = llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%[[X]]) : (f32) -> f32
// AMD: %[[SQ:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// AMD: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// AMD: %[[RS:.*]] = llvm.fdiv %[[ONE]], %[[SQ]] : f32
// CHECK: %[[L2E64:.*]] = llvm.mlir.constant(1.4426950408889634 : f64) : f64
// CHECK: %[[YS:.*]] = llvm.fmul %[[Y]], %[[L2E64]] : f64
// CHECK: %[[E64:.*]] = llvm.intr.exp2(%[[YS]]) : (f64) -> f64
// CHECK: %[[E2:.*]] = llvm.intr.exp2(%[[X]]) : (f32) -> f32
// CHECK: %[[AB:.*]] = llvm.intr.fabs(%[[X]]) : (f32) -> f32
// CHECK: %[[FL:.*]] = llvm.intr.floor(%[[X]]) : (f32) -> f32
// CHECK: return %[[E]], %[[L]], %[[RS]], %[[E64]], %[[E2]], %[[AB]], %[[FL]]
func.func @scalar(%x: f32, %y: f64) -> (f32, f32, f32, f64, f32, f32, f32) {
  %a = math.exp %x : f32
  %b = math.log %x : f32
  %c = math.rsqrt %x fastmath<afn> : f32
  %d = math.exp %y : f64
  %e = math.exp2 %x : f32
  %f = math.absf %x : f32
  %g = math.floor %x : f32
  return %a, %b, %c, %d, %e, %f, %g : f32, f32, f32, f64, f32, f32, f32
}
}

// -----

// On tiles, per register.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 2 : i32} {
// CHECK-LABEL: func.func @tile
// CHECK-SAME: !llvm.struct<(f32, f32)>
// CHECK-COUNT-2: llvm.intr.exp2
// CHECK-NOT: math.
// CHECK: return
func.func @tile(%x: tensor<128xf32, #l>) -> tensor<128xf32, #l> {
  %e = math.exp %x : tensor<128xf32, #l>
  return %e : tensor<128xf32, #l>
}
}

// -----

// sin and cos: approximate instructions on NVIDIA (llvm.sin/cos would be
// library calls there), the intrinsics on AMD.
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @trig
// NV: llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// NV: llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// AMD: llvm.intr.sin
// AMD: llvm.intr.cos
func.func @trig(%x: f32) -> (f32, f32) {
  %s = math.sin %x : f32
  %c = math.cos %x : f32
  return %s, %c : f32, f32
}
}

// -----

// Float division and square roots, scalars and tiles (per register). Ops
// marked `afn` (the DSL's `/`, kt.sqrt, kt.rsqrt) take, for fp32 on NVIDIA,
// the fast instructions Triton uses (div.full, sqrt.approx; within 2 ulp)
// instead of IEEE forms with a refinement and a slow-path branch; unmarked
// ones (the DSL's `//`, whose floor needs the exact quotient, kt.div_rn,
// kt.sqrt_rn), f64 and AMD stay IEEE, keeping the op's other flags.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 2 : i32} {
// CHECK-LABEL: func.func @divide
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f64
// NV: llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X]], %[[Y]]) : (f32, f32) -> f32
// NV: llvm.call_intrinsic "llvm.nvvm.sqrt.approx.f"(%[[X]]) : (f32) -> f32
// AMD: llvm.fdiv %[[X]], %[[Y]] : f32
// AMD: llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK: llvm.fdiv %[[X]], %[[Y]] : f32
// CHECK: llvm.fdiv %[[X]], %[[Y]] {fastmathFlags = #llvm.fastmath<nnan>} : f32
// CHECK: llvm.fdiv %[[Z]], %[[Z]] : f64
// CHECK: llvm.intr.sqrt(%[[Z]]) : (f64) -> f64
// CHECK: llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK: %[[ROOT:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK: llvm.fdiv %{{.*}}, %[[ROOT]] : f32
// NV-COUNT-2: llvm.call_intrinsic "llvm.nvvm.div.full"
// AMD-COUNT-2: llvm.fdiv {{.*}} : f32
// CHECK-NOT: arith.divf
// CHECK: return
func.func @divide(%x: f32, %y: f32, %z: f64, %t: tensor<128xf32, #l>)
    -> (f32, f32, f32, f32, f64, f64, f32, f32, tensor<128xf32, #l>) {
  %q = arith.divf %x, %y fastmath<afn> : f32
  %r = math.sqrt %x fastmath<afn> : f32
  %exact = arith.divf %x, %y : f32
  %flagged = arith.divf %x, %y fastmath<nnan> : f32
  %q64 = arith.divf %z, %z fastmath<afn> : f64
  %r64 = math.sqrt %z fastmath<afn> : f64
  %rn = math.sqrt %x : f32
  %rrn = math.rsqrt %x : f32
  %qt = arith.divf %t, %t fastmath<afn> : tensor<128xf32, #l>
  return %q, %r, %exact, %flagged, %q64, %r64, %rn, %rrn, %qt
      : f32, f32, f32, f32, f64, f64, f32, f32, tensor<128xf32, #l>
}
}

// -----

// A vector division (which no tile lowering makes) is left to ArithToLLVM.
module attributes {tile.num_warps = 2 : i32} {
// CHECK-LABEL: func.func @vector_divide
// CHECK: arith.divf %{{.*}}, %{{.*}} : vector<2xf32>
func.func @vector_divide(%v: vector<2xf32>) -> vector<2xf32> {
  %q = arith.divf %v, %v : vector<2xf32>
  return %q : vector<2xf32>
}
}
