// RUN: kda-opt %s --legalize-host-narrow-floats -split-input-file | FileCheck %s

// bf16 -> f32 is a shift into the upper half.
// CHECK-LABEL: llvm.func @extend_bf16(
// CHECK-SAME: %[[X:.*]]: i16) -> f32
// CHECK-NEXT: %[[W:.*]] = llvm.zext %[[X]] : i16 to i32
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: %[[H:.*]] = llvm.shl %[[W]], %[[S]] : i32
// CHECK-NEXT: %[[F:.*]] = llvm.bitcast %[[H]] : i32 to f32
// CHECK-NEXT: llvm.return %[[F]] : f32
llvm.func @extend_bf16(%x: bf16) -> f32 {
  %f = llvm.fpext %x : bf16 to f32
  llvm.return %f : f32
}

// -----

// f32 -> bf16 rounds to nearest even in integer code; the select and the
// store move i16.
// CHECK-LABEL: llvm.func @truncate_select_store(
// CHECK-SAME: %{{.*}}: f32, %{{.*}}: i1, %{{.*}}: !llvm.ptr)
// CHECK-NOT: bf16
// CHECK: llvm.mlir.constant(32767 : i32)
// CHECK: llvm.trunc %{{.*}} : i32 to i16
// CHECK: llvm.mlir.constant(0 : i16) : i16
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i16
// CHECK: llvm.store %{{.*}}, %{{.*}} : i16, !llvm.ptr
// CHECK-NOT: bf16
llvm.func @truncate_select_store(%x: f32, %m: i1, %p: !llvm.ptr) {
  %h = llvm.fptrunc %x : f32 to bf16
  %zero = llvm.mlir.constant(0.0 : bf16) : bf16
  %s = llvm.select %m, %h, %zero : i1, bf16
  llvm.store %s, %p : bf16, !llvm.ptr
  llvm.return
}

// -----

// Block arguments (phis), vectors, GEP element types and constants of f16.
// CHECK-LABEL: llvm.func @phi_vector(
// CHECK-NOT: f16
// CHECK: llvm.mlir.constant(dense<15360> : vector<4xi16>) : vector<4xi16>
// CHECK: llvm.getelementptr %{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, i16
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<4xi16>
// CHECK: ^bb1(%{{.*}}: vector<4xi16>):
// CHECK: llvm.extractelement %{{.*}}[%{{.*}} : i32] : vector<4xi16>
// CHECK-NOT: f16
llvm.func @phi_vector(%p: !llvm.ptr, %c: i1) -> f16 {
  %one = llvm.mlir.constant(dense<1.0> : vector<4xf16>) : vector<4xf16>
  %q = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, f16
  %v = llvm.load %q : !llvm.ptr -> vector<4xf16>
  llvm.cond_br %c, ^bb1(%v : vector<4xf16>), ^bb1(%one : vector<4xf16>)
^bb1(%w: vector<4xf16>):
  %i = llvm.mlir.constant(0 : i32) : i32
  %e = llvm.extractelement %w[%i : i32] : vector<4xf16>
  llvm.return %e : f16
}

// -----

// f16 <-> f32 conversions of vectors: integer code, the subnormal cases
// through an exact f32 subtraction / addition.
// CHECK-LABEL: llvm.func @f16_vectors(
// CHECK-NOT: llvm.fpext
// CHECK-NOT: llvm.fptrunc
// CHECK: llvm.fsub %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: llvm.trunc %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK-NOT: f16
llvm.func @f16_vectors(%x: vector<8xf16>) -> vector<8xf16> {
  %f = llvm.fpext %x : vector<8xf16> to vector<8xf32>
  %g = llvm.fmul %f, %f : vector<8xf32>
  %h = llvm.fptrunc %g : vector<8xf32> to vector<8xf16>
  llvm.return %h : vector<8xf16>
}

// -----

// f64 sources are rounded to odd in f32 first (one rounding in all).
// CHECK-LABEL: llvm.func @from_f64(
// CHECK: llvm.fptrunc %{{.*}} : f64 to f32
// CHECK: llvm.or %{{.*}}, %{{.*}} : i32
// CHECK: llvm.trunc %{{.*}} : i32 to i16
// CHECK-NOT: bf16
llvm.func @from_f64(%x: f64) -> bf16 {
  %h = llvm.fptrunc %x : f64 to bf16
  llvm.return %h : bf16
}

// -----

// Globals and their initializers.
// CHECK: llvm.mlir.global internal constant @table(dense<[16256, -16512]> : tensor<2xi16>) {addr_space = 0 : i32} : !llvm.array<2 x i16>
llvm.mlir.global internal constant @table(dense<[1.0, -1.0]> : tensor<2xbf16>) : !llvm.array<2 x bf16>
