// RUN: kda-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the tile dialect verifiers (TileOps.cpp,
// TileTypes.cpp, SharedMemoryOps.cpp) and of the ODS constraints they rely on.

//===----------------------------------------------------------------------===//
// Pointer type
//===----------------------------------------------------------------------===//

// expected-error @below {{pointee must be an integer or float type, got 'tensor<4xf32>'}}
func.func @ptr_to_tensor(%p: !tile.ptr<tensor<4xf32>>) {
  return
}

// -----

// expected-error @below {{pointee must be an integer or float type, got '!tile.ptr<f32>'}}
func.func @ptr_to_ptr(%p: !tile.ptr<!tile.ptr<f32>>) {
  return
}

// -----

// expected-error @below {{pointee must be an integer or float type, got 'index'}}
func.func @ptr_to_index(%p: !tile.ptr<index>) {
  return
}

//===----------------------------------------------------------------------===//
// program_id / num_programs
//===----------------------------------------------------------------------===//

// -----

func.func @program_id_axis_too_large() -> i32 {
  // expected-error @below {{attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %0 = tile.program_id 3
  return %0 : i32
}

// -----

func.func @program_id_axis_negative() -> i32 {
  // expected-error @below {{attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0}}
  %0 = tile.program_id -1
  return %0 : i32
}

// -----

func.func @num_programs_axis_too_large() -> i32 {
  // expected-error @below {{attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %0 = tile.num_programs 3
  return %0 : i32
}

//===----------------------------------------------------------------------===//
// range
//===----------------------------------------------------------------------===//

// -----

func.func @range_empty() -> tensor<1xi32> {
  // expected-error @below {{'tile.range' op end (4) must be greater than start (4)}}
  %0 = tile.range 4, 4 : tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

func.func @range_negative_empty() -> tensor<1xi32> {
  // expected-error @below {{'tile.range' op end (-4) must be greater than start (-4)}}
  %0 = tile.range -4, -4 : tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

func.func @range_negative_wrong_size() -> tensor<4xi32> {
  // expected-error @below {{'tile.range' op result has 4 elements but the range holds 8}}
  %0 = tile.range -4, 4 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @range_reversed() -> tensor<4xi32> {
  // expected-error @below {{'tile.range' op end (0) must be greater than start (4)}}
  %0 = tile.range 4, 0 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @range_wrong_size() -> tensor<16xi32> {
  // expected-error @below {{'tile.range' op result has 16 elements but the range holds 8}}
  %0 = tile.range 0, 8 : tensor<16xi32>
  return %0 : tensor<16xi32>
}

// -----

func.func @range_not_1d() -> tensor<2x4xi32> {
  // expected-error @below {{'tile.range' op result must be a 1-D tile, got 'tensor<2x4xi32>'}}
  %0 = tile.range 0, 8 : tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @range_not_i32() -> tensor<8xi64> {
  // expected-error @below {{'tile.range' op result #0 must be ranked tensor of 32-bit signless integer values}}
  %0 = "tile.range"() <{start = 0 : i32, end = 8 : i32}> : () -> tensor<8xi64>
  return %0 : tensor<8xi64>
}

//===----------------------------------------------------------------------===//
// splat
//===----------------------------------------------------------------------===//

// -----

func.func @splat_elem_mismatch(%x: f32) -> tensor<4xf16> {
  // expected-error @below {{'tile.splat' op failed to verify that result element type matches the scalar}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_bad_dim(%x: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'tile.broadcast' op dimension 0 of size 2 cannot broadcast to 4}}
  %0 = tile.broadcast %x : tensor<2x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @broadcast_rank(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'tile.broadcast' op source rank 1 differs from result rank 2}}
  %0 = tile.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @broadcast_elem(%x: tensor<1x8xf32>) -> tensor<4x8xf16> {
  // expected-error @below {{'tile.broadcast' op element types differ: 'f32' vs 'f16'}}
  %0 = tile.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

//===----------------------------------------------------------------------===//
// expand_dims
//===----------------------------------------------------------------------===//

// -----

func.func @expand_dims_axis_too_large(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @below {{'tile.expand_dims' op axis 2 out of range [0, 1]}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Attributes are signed: a negative axis is reported as such.
func.func @expand_dims_axis_negative(%x: tensor<4xf32>) -> tensor<1x4xf32> {
  // expected-error @below {{'tile.expand_dims' op axis -1 out of range [0, 1]}}
  %0 = tile.expand_dims %x {axis = -1 : i32} : tensor<4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @expand_dims_wrong_shape(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @below {{'tile.expand_dims' op expected result shape 1x4, got 'tensor<4x1xf32>'}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @expand_dims_wrong_elem(%x: tensor<4xf32>) -> tensor<4x1xf16> {
  // expected-error @below {{'tile.expand_dims' op element types differ: 'f32' vs 'f16'}}
  %0 = tile.expand_dims %x {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf16>
  return %0 : tensor<4x1xf16>
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<16xf32> {
  // expected-error @below {{'tile.reshape' op source has 32 elements but result has 16}}
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @reshape_elem(%x: tensor<4x8xf32>) -> tensor<32xi32> {
  // expected-error @below {{'tile.reshape' op element types differ}}
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

//===----------------------------------------------------------------------===//
// trans
//===----------------------------------------------------------------------===//

// -----

func.func @trans_order_size(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @below {{'tile.trans' op order has 3 entries for a rank-2 tile}}
  %0 = tile.trans %x {order = array<i32: 1, 0, 2>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @trans_repeated(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // expected-error @below {{'tile.trans' op order is not a permutation}}
  %0 = tile.trans %x {order = array<i32: 1, 1>} : tensor<4x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @trans_out_of_range(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @below {{'tile.trans' op order is not a permutation}}
  %0 = tile.trans %x {order = array<i32: 2, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @trans_negative(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @below {{'tile.trans' op order is not a permutation}}
  %0 = tile.trans %x {order = array<i32: -1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @trans_wrong_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'tile.trans' op expected result type 'tensor<8x4xf32>', got 'tensor<4x8xf32>'}}
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// addptr
//===----------------------------------------------------------------------===//

// -----

func.func @addptr_shape(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<64xi32>) -> tensor<128x!tile.ptr<f32>> {
  // expected-error @below {{'tile.addptr' op pointer shape and offset shape differ}}
  %0 = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, tensor<64xi32>
  return %0 : tensor<128x!tile.ptr<f32>>
}

// -----

func.func @addptr_tile_ptr_scalar_offset(%p: tensor<128x!tile.ptr<f32>>, %o: i32) -> tensor<128x!tile.ptr<f32>> {
  // expected-error @below {{'tile.addptr' op pointer and offset must both be tiles or both scalars}}
  %0 = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, i32
  return %0 : tensor<128x!tile.ptr<f32>>
}

// -----

func.func @addptr_scalar_ptr_tile_offset(%p: !tile.ptr<f32>, %o: tensor<4xi32>) -> !tile.ptr<f32> {
  // expected-error @below {{'tile.addptr' op pointer and offset must both be tiles or both scalars}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, tensor<4xi32>
  return %0 : !tile.ptr<f32>
}

// -----

func.func @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) -> !tile.ptr<f32> {
  // expected-error @below {{'tile.addptr' op operand #1 must be}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return %0 : !tile.ptr<f32>
}

// -----

func.func @addptr_result_type(%p: !tile.ptr<f32>, %o: i32) -> !tile.ptr<f16> {
  // expected-error @below {{'tile.addptr' op failed to verify that all of {ptr, result} have same type}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  return %0 : !tile.ptr<f16>
}

//===----------------------------------------------------------------------===//
// load / store
//===----------------------------------------------------------------------===//

// -----

// 'other' without a mask, for any pointee type, tile or scalar, custom or
// generic form.
func.func @load_other_without_mask(%p: tensor<4x!tile.ptr<i1>>, %o: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @below {{'tile.load' op 'other' requires a mask}}
  %0 = tile.load %p other %o : tensor<4x!tile.ptr<i1>>
  return %0 : tensor<4xi1>
}

// -----

func.func @load_other_without_mask_f32(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tile.load' op 'other' requires a mask}}
  %0 = tile.load %p other %o : tensor<4x!tile.ptr<f32>>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_other_without_mask_scalar(%p: !tile.ptr<f32>, %o: f32) -> f32 {
  // expected-error @below {{'tile.load' op 'other' requires a mask}}
  %0 = tile.load %p other %o : !tile.ptr<f32>
  return %0 : f32
}

// -----

func.func @load_other_without_mask_generic(%p: !tile.ptr<i32>, %o: i32) -> i32 {
  // expected-error @below {{'tile.load' op 'other' requires a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (!tile.ptr<i32>, i32) -> i32
  return %0 : i32
}

// -----

func.func @load_result_type(%p: tensor<4x!tile.ptr<f32>>) -> tensor<4xf16> {
  // expected-error @below {{'tile.load' op failed to verify that result holds the pointee type}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @load_mask_shape(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) -> tensor<4xf32> {
  // expected-error @below {{'tile.load' op failed to verify that mask has the shape of ptr}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_other_type(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @below {{'tile.load' op failed to verify that other has the result type}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xi1>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_not_pointer(%p: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{'tile.load' op operand #0 must be}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @store_value_type(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @below {{'tile.store' op failed to verify that value holds the pointee type}}
  "tile.store"(%p, %v) : (tensor<4x!tile.ptr<f32>>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @store_mask_shape(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<2x2xi1>) {
  // expected-error @below {{'tile.store' op failed to verify that mask has the shape of ptr}}
  "tile.store"(%p, %v, %m) : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>, tensor<2x2xi1>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_too_large(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tile.reduce' op axis 2 out of range for a rank-2 tile}}
  %0 = tile.reduce sum %x {axis = 2 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_axis_negative(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tile.reduce' op axis -1 out of range for a rank-2 tile}}
  %0 = tile.reduce sum %x {axis = -1 : i32} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// i1 max/min are any/all; a sum of i1 has no sensible result type.
func.func @reduce_sum_i1(%x: tensor<8xi1>) -> i1 {
  // expected-error @below {{'tile.reduce' op cannot sum i1 values: widen them to an integer type}}
  %0 = tile.reduce sum %x {axis = 0 : i32} : tensor<8xi1> -> i1
  return %0 : i1
}

// -----

func.func @reduce_sum_i1_2d(%x: tensor<2x8xi1>) -> tensor<2xi1> {
  // expected-error @below {{'tile.reduce' op cannot sum i1 values: widen them to an integer type}}
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<2x8xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @reduce_result_shape(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tile.reduce' op expected result type 'tensor<4xf32>', got 'tensor<8xf32>'}}
  %0 = tile.reduce max %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_1d_to_tensor(%x: tensor<8xi32>) -> tensor<1xi32> {
  // expected-error @below {{'tile.reduce' op expected result type 'i32', got 'tensor<1xi32>'}}
  %0 = tile.reduce min %x {axis = 0 : i32} : tensor<8xi32> -> tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

func.func @reduce_result_elem(%x: tensor<4x8xf32>) -> tensor<4xf16> {
  // expected-error @below {{'tile.reduce' op expected result type 'tensor<4xf32>', got 'tensor<4xf16>'}}
  %0 = tile.reduce sum %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @scan_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tile.scan' op axis 1 out of range for a rank-1 tile}}
  %0 = tile.scan %x {axis = 1 : i32, reverse = false} : tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @scan_pointers(%x: tensor<8x!tile.ptr<f32>>) -> tensor<8x!tile.ptr<f32>> {
  // expected-error @below {{'tile.scan' op cannot scan a tile of pointers}}
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<8x!tile.ptr<f32>> {
  ^bb0(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>):
    tile.yield %a : !tile.ptr<f32>
  }
  return %0 : tensor<8x!tile.ptr<f32>>
}

// -----

func.func @scan_shapes(%x: tensor<8xf32>, %y: tensor<4xf32>) {
  // expected-error @below {{'tile.scan' op sources must share one shape and layout, got 'tensor<8xf32>' and 'tensor<4xf32>'}}
  %0:2 = tile.scan %x, %y {axis = 0 : i32, reverse = false} : tensor<8xf32>, tensor<4xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
    tile.yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @scan_combiner_arguments(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tile.scan' op combiner must take 2 scalars (running values, then elements) of the sources' element types}}
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<8xf32> {
  ^bb0(%a: f32, %b: i32):
    tile.yield %a : f32
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @scan_combiner_results(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tile.scan' op combiner must yield 1 scalars of the sources' element types}}
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %i = arith.fptosi %a : f32 to i32
    tile.yield %i : i32
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @scan_combiner_memory(%x: tensor<8xf32>, %p: !tile.ptr<f32>) -> tensor<8xf32> {
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @below {{'tile.load' op in a scan combiner must compute on scalars without touching memory}}
    %v = tile.load %p : !tile.ptr<f32>
    tile.yield %v : f32
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_pointers(%x: tensor<8x!tile.ptr<f32>>) -> !tile.ptr<f32> {
  // expected-error @below {{'tile.reduce' op cannot reduce a tile of pointers}}
  %0 = tile.reduce sum %x {axis = 0 : i32} : tensor<8x!tile.ptr<f32>> -> !tile.ptr<f32>
  return %0 : !tile.ptr<f32>
}

// -----

func.func @reduce_bad_kind(%x: tensor<8xf32>) -> f32 {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, prod]}}
  %0 = tile.reduce mean %x {axis = 0 : i32} : tensor<8xf32> -> f32
  return %0 : f32
}

// -----

func.func @reduce_prod_i1(%x: tensor<8xi1>) -> i1 {
  // expected-error @below {{'tile.reduce' op cannot prod i1 values: widen them to an integer type}}
  %0 = tile.reduce prod %x {axis = 0 : i32} : tensor<8xi1> -> i1
  return %0 : i1
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

// -----

func.func @dot_not_2d(%a: tensor<16xf32>, %b: tensor<16x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{'tile.dot' op operands must be 2-D tiles}}
  %0 = tile.dot %a, %b, %c : tensor<16xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @dot_acc_not_2d(%a: tensor<16x4xf32>, %b: tensor<4x8xf32>, %c: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @below {{'tile.dot' op operands must be 2-D tiles}}
  %0 = tile.dot %a, %b, %c : tensor<16x4xf32>, tensor<4x8xf32> -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

func.func @dot_contraction(%a: tensor<16x32xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{'tile.dot' op contraction sizes differ: a is 16x32, b is 16x8}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{'tile.dot' op accumulator must be 16x8}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @dot_elem_mismatch(%a: tensor<16x32xbf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{'tile.dot' op a and b element types differ: 'bf16' vs 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @dot_int_operands(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{'tile.dot' op operand #0 must be ranked tensor of}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @dot_acc_not_f32(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>, %c: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  // expected-error @below {{'tile.dot' op operand #2 must be ranked tensor of 32-bit float values}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xbf16>
  return %0 : tensor<16x8xbf16>
}

// -----

func.func @atomic_float_max(%p: !tile.ptr<f32>, %v: f32) -> f32 {
  // expected-error @below {{'tile.atomic_rmw' op 'max' needs an integer value; floats support add and xchg}}
  %0 = tile.atomic_rmw max %p, %v {sem = acq_rel, scope = gpu} : !tile.ptr<f32>
  return %0 : f32
}

// -----

func.func @atomic_tile_pointer_scalar_value(%p: tensor<4x!tile.ptr<i32>>, %v: i32) -> i32 {
  // expected-error @below {{'tile.atomic_rmw' op failed to verify that value holds the pointee type}}
  %0 = "tile.atomic_rmw"(%p, %v) {kind = 0 : i32, sem = 3 : i32, scope = 1 : i32} : (tensor<4x!tile.ptr<i32>>, i32) -> i32
  return %0 : i32
}

// -----

func.func @atomic_mask_shape(%p: tensor<4x!tile.ptr<i32>>, %v: tensor<4xi32>, %m: tensor<8xi1>) -> tensor<4xi32> {
  // expected-error @below {{'tile.atomic_rmw' op failed to verify that mask has the shape of ptr}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) {kind = 0 : i32, sem = 3 : i32, scope = 1 : i32} : (tensor<4x!tile.ptr<i32>>, tensor<4xi32>, tensor<8xi1>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @atomic_bf16(%p: !tile.ptr<bf16>, %v: bf16) -> bf16 {
  // expected-error @below {{'tile.atomic_rmw' op needs i32, i64 or f32 values, got 'bf16'}}
  %0 = tile.atomic_rmw add %p, %v {sem = relaxed, scope = gpu} : !tile.ptr<bf16>
  return %0 : bf16
}

// -----

func.func @atomic_tile_float_min(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tile.atomic_rmw' op 'min' needs an integer value; floats support add and xchg}}
  %0 = tile.atomic_rmw min %p, %v {sem = relaxed, scope = gpu} : tensor<4x!tile.ptr<f32>>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Shared buffers, asynchronous copies and barriers
//===----------------------------------------------------------------------===//

// -----

// expected-error @below {{a shared buffer needs at least one dimension}}
func.func @smem_rank_0(%b: !tile.smem<f32>) {
  return
}

// -----

func.func @smem_zero_dim() {
  // expected-error @below {{shared buffer dimensions must be positive}}
  %0 = tile.alloc_shared : !tile.smem<2x0x4xf32>
  return
}

// -----

func.func @smem_i1() {
  // expected-error @below {{shared buffer elements must be integers or floats of 8 bits or more, got 'i1'}}
  %0 = tile.alloc_shared : !tile.smem<4x8xi1>
  return
}

// -----

func.func @smem_ptr() {
  // expected-error @below {{shared buffer elements must be integers or floats of 8 bits or more, got '!tile.ptr<f32>'}}
  %0 = tile.alloc_shared : !tile.smem<4x!tile.ptr<f32>>
  return
}

// -----

func.func @smem_padded_order() {
  // expected-error @below {{padded shared buffers are row-major: order must be [1, 0]}}
  %0 = tile.alloc_shared : !tile.smem<4x32xf32, #tile.padded_shared<{interval = 32, padding = 1, order = [0, 1]}>>
  return
}

// -----

func.func @smem_padded_interval() {
  // expected-error @below {{a padding interval of 256 elements does not divide the 128 elements of the last two dimensions}}
  %0 = tile.alloc_shared : !tile.smem<2x4x32xf32, #tile.padded_shared<{interval = 256, padding = 1, order = [1, 0]}>>
  return
}

// -----

func.func @smem_padded_zero() {
  // expected-error @below {{padded_shared padding must be positive}}
  %0 = tile.alloc_shared : !tile.smem<4x32xf32, #tile.padded_shared<{interval = 32, padding = 0, order = [1, 0]}>>
  return
}

// -----

func.func @smem_swizzled_rank_1() {
  // expected-error @below {{a shared buffer with a layout needs rows: rank 2 or more}}
  %0 = tile.alloc_shared : !tile.smem<64xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0]}>>
  return
}

// -----

func.func @smem_swizzled_order() {
  // expected-error @below {{swizzled shared buffers are row-major: order must be [1, 0]}}
  %0 = tile.alloc_shared : !tile.smem<64x64xf32, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]}>>
  return
}

// -----

func.func @smem_swizzled_short_rows() {
  // expected-error @below {{a row of 16 elements does not hold 4 phases of 8-element groups}}
  %0 = tile.alloc_shared : !tile.smem<64x16xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>>
  return
}

// -----

func.func @smem_dynamic() {
  // expected-error @below {{expected static shape}}
  %0 = tile.alloc_shared : !tile.smem<?x4xf32>
  return
}

// -----

// A buffer's size is fixed when the kernel is compiled: one per function.
func.func @alloc_shared_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{'tile.alloc_shared' op must be in the entry block of a function (not in a loop or a branch)}}
    %0 = tile.alloc_shared : !tile.smem<4x8xf32>
  }
  return
}

// -----

func.func @alloc_shared_in_if(%c: i1) {
  scf.if %c {
    // expected-error @below {{'tile.alloc_shared' op must be in the entry block of a function (not in a loop or a branch)}}
    %0 = tile.alloc_shared : !tile.smem<4x8xf32>
  }
  return
}

// -----

func.func @alloc_shared_not_entry_block(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-error @below {{'tile.alloc_shared' op must be in the entry block of a function (not in a loop or a branch)}}
  %0 = tile.alloc_shared : !tile.smem<4x8xf32>
  cf.br ^bb2
^bb2:
  return
}

// -----

func.func @smem_index_rank_1(%i: i32) {
  %buf = tile.alloc_shared : !tile.smem<8xf32>
  // expected-error @below {{'tile.smem_index' op needs a buffer of rank 2 or more, got '!tile.smem<8xf32>'}}
  %0 = "tile.smem_index"(%buf, %i) : (!tile.smem<8xf32>, i32) -> !tile.smem<8xf32>
  return
}

// -----

func.func @smem_index_result(%i: i32) {
  %buf = tile.alloc_shared : !tile.smem<2x16x64xf32>
  // expected-error @below {{'tile.smem_index' op result must be '!tile.smem<16x64xf32>', got '!tile.smem<2x16x64xf32>'}}
  %0 = tile.smem_index %buf[%i] : !tile.smem<2x16x64xf32> -> !tile.smem<2x16x64xf32>
  return
}

// -----

func.func @smem_index_result_element(%i: i32) {
  %buf = tile.alloc_shared : !tile.smem<2x16x64xf32>
  // expected-error @below {{'tile.smem_index' op result must be '!tile.smem<16x64xf32>', got '!tile.smem<16x64xbf16>'}}
  %0 = tile.smem_index %buf[%i] : !tile.smem<2x16x64xf32> -> !tile.smem<16x64xbf16>
  return
}

// -----

func.func @smem_index_i64(%i: i64) {
  %buf = tile.alloc_shared : !tile.smem<2x16xf32>
  // expected-error @below {{'tile.smem_index' op operand #1 must be 32-bit signless integer}}
  %0 = "tile.smem_index"(%buf, %i) : (!tile.smem<2x16xf32>, i64) -> !tile.smem<16xf32>
  return
}

// -----

func.func @smem_load_shape() -> tensor<16x32xf32> {
  %buf = tile.alloc_shared : !tile.smem<16x64xf32>
  // expected-error @below {{'tile.smem_load' op result 'tensor<16x32xf32>' does not match the buffer '!tile.smem<16x64xf32>'}}
  %0 = tile.smem_load %buf : !tile.smem<16x64xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @smem_load_element() -> tensor<16x64xf16> {
  %buf = tile.alloc_shared : !tile.smem<16x64xbf16>
  // expected-error @below {{'tile.smem_load' op result 'tensor<16x64xf16>' does not match the buffer '!tile.smem<16x64xbf16>'}}
  %0 = tile.smem_load %buf : !tile.smem<16x64xbf16> -> tensor<16x64xf16>
  return %0 : tensor<16x64xf16>
}

// -----

func.func @smem_store_shape(%t: tensor<64x16xf32>) {
  %buf = tile.alloc_shared : !tile.smem<16x64xf32>
  // expected-error @below {{'tile.smem_store' op value 'tensor<64x16xf32>' does not match the buffer '!tile.smem<16x64xf32>'}}
  tile.smem_store %buf, %t : !tile.smem<16x64xf32>, tensor<64x16xf32>
  return
}

// -----

func.func @smem_store_element(%t: tensor<16x64xi32>) {
  %buf = tile.alloc_shared : !tile.smem<16x64xf32>
  // expected-error @below {{'tile.smem_store' op value 'tensor<16x64xi32>' does not match the buffer '!tile.smem<16x64xf32>'}}
  tile.smem_store %buf, %t : !tile.smem<16x64xf32>, tensor<16x64xi32>
  return
}

// -----

func.func @async_copy_shared_pointers(%p: tensor<16x!tile.ptr<f32, 3>>) {
  %buf = tile.alloc_shared : !tile.smem<16xf32>
  // expected-error @below {{'tile.async_copy' op copies from global memory (address space 1), got '!tile.ptr<f32, 3>'}}
  tile.async_copy %buf, %p : !tile.smem<16xf32>, tensor<16x!tile.ptr<f32, 3>>
  return
}

// -----

func.func @async_copy_pointee(%p: tensor<16x!tile.ptr<f16>>) {
  %buf = tile.alloc_shared : !tile.smem<16xf32>
  // expected-error @below {{'tile.async_copy' op pointee tile 'tensor<16xf16>' does not match the buffer '!tile.smem<16xf32>'}}
  tile.async_copy %buf, %p : !tile.smem<16xf32>, tensor<16x!tile.ptr<f16>>
  return
}

// -----

func.func @async_copy_shape(%p: tensor<4x16x!tile.ptr<f32>>) {
  %buf = tile.alloc_shared : !tile.smem<16x4xf32>
  // expected-error @below {{'tile.async_copy' op pointee tile 'tensor<4x16xf32>' does not match the buffer '!tile.smem<16x4xf32>'}}
  tile.async_copy %buf, %p : !tile.smem<16x4xf32>, tensor<4x16x!tile.ptr<f32>>
  return
}

// -----

func.func @async_copy_scalar_pointer(%p: !tile.ptr<f32>) {
  %buf = tile.alloc_shared : !tile.smem<16xf32>
  // expected-error @below {{'tile.async_copy' op operand #1 must be ranked tensor of}}
  "tile.async_copy"(%buf, %p) : (!tile.smem<16xf32>, !tile.ptr<f32>) -> ()
  return
}

// -----

func.func @async_copy_mask_shape(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  %buf = tile.alloc_shared : !tile.smem<16xf32>
  // expected-error @below {{'tile.async_copy' op failed to verify that mask has the shape of ptr}}
  "tile.async_copy"(%buf, %p, %m) : (!tile.smem<16xf32>, tensor<16x!tile.ptr<f32>>, tensor<8xi1>) -> ()
  return
}

// -----

func.func @async_wait_negative() {
  // expected-error @below {{attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0}}
  tile.async_wait {pending = -1 : i32}
  return
}

// -----

func.func @async_wait_missing() {
  // expected-error @below {{requires attribute 'pending'}}
  tile.async_wait
  return
}

//===----------------------------------------------------------------------===//
// wait_prior_launches
//===----------------------------------------------------------------------===//

// -----

func.func @wait_after_a_load(%p: !tile.ptr<f32>) -> f32 {
  %pid = tile.program_id 0
  // expected-note @below {{this access comes first}}
  %v = tile.load %p : !tile.ptr<f32>
  // expected-error @below {{must come before every memory access of the kernel}}
  tile.wait_prior_launches
  return %v : f32
}

// -----

func.func @wait_after_a_store_in_a_branch(%p: !tile.ptr<f32>, %c: i1) {
  %x = arith.constant 1.0 : f32
  scf.if %c {
    // expected-note @below {{this access comes first}}
    tile.store %p, %x : !tile.ptr<f32>
  }
  // expected-error @below {{must come before every memory access of the kernel}}
  tile.wait_prior_launches
  return
}

// -----

func.func @wait_twice() {
  // expected-note @below {{the first wait}}
  tile.wait_prior_launches
  // expected-error @below {{appears twice in the kernel}}
  tile.wait_prior_launches
  return
}

// -----

func.func @wait_after_an_atomic(%p: !tile.ptr<i32>, %x: i32) {
  // expected-note @below {{this access comes first}}
  %old = tile.atomic_rmw add %p, %x {sem = relaxed, scope = gpu} : !tile.ptr<i32>
  // expected-error @below {{must come before every memory access of the kernel}}
  tile.wait_prior_launches
  return
}

// -----

func.func @wait_after_a_load_in_a_loop(%p: !tile.ptr<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @below {{this access comes first}}
    %v = tile.load %p : !tile.ptr<f32>
  }
  // expected-error @below {{must come before every memory access of the kernel}}
  tile.wait_prior_launches
  return
}

// -----

// Shared memory may be allocated before the wait; an asynchronous copy into it
// reads global memory.
func.func @wait_after_an_async_copy(%p: tensor<64x!tile.ptr<i8>>) {
  %bytes = tile.alloc_shared : !tile.smem<64xi8>
  // expected-note @below {{this access comes first}}
  tile.async_copy %bytes, %p : !tile.smem<64xi8>, tensor<64x!tile.ptr<i8>>
  // expected-error @below {{must come before every memory access of the kernel}}
  tile.wait_prior_launches
  return
}

// -----

func.func private @opaque()

// A call may touch any memory.
func.func @wait_after_a_call() {
  // expected-note @below {{this access comes first}}
  func.call @opaque() : () -> ()
  // expected-error @below {{must come before every memory access of the kernel}}
  tile.wait_prior_launches
  return
}

// -----

func.func @wait_in_a_branch(%c: i1) {
  scf.if %c {
    // expected-error @below {{must be at the top level of the kernel, not in a loop, a branch or a region}}
    tile.wait_prior_launches
  }
  return
}

//===----------------------------------------------------------------------===//
// cluster_sum
//===----------------------------------------------------------------------===//

// -----

func.func @cluster_sum_in_loop(%x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{must not be in a loop: every program of a cluster runs it once per call}}
    %s = tile.cluster_sum %x {axis = 0 : i32, size = 2 : i32} : f32
  }
  return
}

// -----

func.func @cluster_sum_too_large(%x: f32) -> f32 {
  // expected-error @below {{attribute 'size' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 8}}
  %s = tile.cluster_sum %x {axis = 0 : i32, size = 9 : i32} : f32
  return %s : f32
}

// -----

func.func @cluster_sum_bad_axis(%x: f32) -> f32 {
  // expected-error @below {{attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %s = tile.cluster_sum %x {axis = 3 : i32, size = 2 : i32} : f32
  return %s : f32
}

// -----

func.func @cluster_sum_not_f32(%x: f16) -> f32 {
  // expected-error @below {{operand #0 must be 32-bit float}}
  %s = "tile.cluster_sum"(%x) {axis = 0 : i32, size = 2 : i32} : (f16) -> f32
  return %s : f32
}

// -----

func.func @dot_tf32_bf16(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{'tile.dot' op tf32 rounds fp32 operands, not 'bf16'}}
  %d = tile.dot %a, %b, %c precision tf32 : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @smem_nvmma_element_bits() {
  // expected-error @below {{an nvmma_shared layout of 16-bit elements cannot hold 'f32'}}
  %0 = tile.alloc_shared : !tile.smem<64x64xf32, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  return
}

// -----

func.func @smem_nvmma_partial_row() {
  // expected-error @below {{a row of 32 elements is not whole 128-byte swizzle rows of 64 elements}}
  %0 = tile.alloc_shared : !tile.smem<64x32xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  return
}

// -----

func.func @smem_nvmma_rows() {
  // expected-error @below {{an nvmma_shared buffer needs a multiple of 8 rows, got 12}}
  %0 = tile.alloc_shared : !tile.smem<12x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  return
}

// -----

func.func @smem_nvmma_rank_1() {
  // expected-error @below {{a shared buffer with a layout needs rows: rank 2 or more}}
  %0 = tile.alloc_shared : !tile.smem<64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  return
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
func.func @shared_dot_contraction(%c: tensor<64x64xf32>) {
  %a = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %b = tile.alloc_shared : !tile.smem<128x64xbf16, #nv>
  // expected-error @below {{contraction sizes differ: a is 64x64, b is 128x64}}
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16, #nv>, !tile.smem<128x64xbf16, #nv> -> tensor<64x64xf32>
  return
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
func.func @shared_dot_acc_shape(%c: tensor<64x128xf32>) {
  %a = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %b = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  // expected-error @below {{accumulator must be 64x64}}
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16, #nv>, !tile.smem<64x64xbf16, #nv> -> tensor<64x128xf32>
  return
}

// -----

func.func @shared_dot_dtype(%c: tensor<64x64xf32>) {
  %a = tile.alloc_shared : !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  %b = tile.alloc_shared : !tile.smem<64x64xf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  // expected-error @below {{a and b must both hold bf16 or both f16, got 'bf16' and 'f16'}}
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>, !tile.smem<64x64xf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>> -> tensor<64x64xf32>
  return
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
func.func @shared_dot_plain_buffer(%c: tensor<64x64xf32>) {
  %a = tile.alloc_shared : !tile.smem<64x64xbf16>
  %b = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  // expected-error @below {{a needs a #tile.nvmma_shared layout, got '!tile.smem<64x64xbf16>'}}
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16>, !tile.smem<64x64xbf16, #nv> -> tensor<64x64xf32>
  return
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
func.func @shared_dot_rows(%c: tensor<32x64xf32>) {
  %a = tile.alloc_shared : !tile.smem<32x64xbf16, #nv>
  %b = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  // expected-error @below {{needs M a multiple of 64, K of 16 and N of 8, got 32x64x64}}
  %d = tile.shared_dot %a, %b, %c : !tile.smem<32x64xbf16, #nv>, !tile.smem<64x64xbf16, #nv> -> tensor<32x64xf32>
  return
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#mma = #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>
func.func @shared_dot_acc_layout(%c: tensor<64x64xf32, #mma>) {
  %a = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  %b = tile.alloc_shared : !tile.smem<64x64xbf16, #nv>
  // expected-error @below {{accumulator layout must be a wgmma_m64k16 #tile.mma, got #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>}}
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x64xbf16, #nv>, !tile.smem<64x64xbf16, #nv> -> tensor<64x64xf32, #mma>
  return
}

// -----

func.func @tensor_desc_rank(%base: !tile.ptr<f32>, %m: i32, %s: i64) {
  // expected-error @below {{needs one size and one stride per dimension of the block (2), got 1 and 1}}
  %d = tile.make_tensor_desc %base, [%m], [%s] : !tile.ptr<f32> -> !tile.tensor_desc<8x8xf32>
  return
}

// -----

func.func @tensor_desc_pointee(%base: !tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @below {{base points to 'f16' but the descriptor holds 'f32'}}
  %d = tile.make_tensor_desc %base, [%m], [%s] : !tile.ptr<f16> -> !tile.tensor_desc<8xf32>
  return
}

// -----

func.func @tensor_desc_shared_base(%base: !tile.ptr<f32, 3>, %m: i32, %s: i64) {
  // expected-error @below {{describes global memory (address space 1), got '!tile.ptr<f32, 3>'}}
  %d = tile.make_tensor_desc %base, [%m], [%s] : !tile.ptr<f32, 3> -> !tile.tensor_desc<8xf32>
  return
}

// -----

// expected-error @below {{tensor descriptor block dimensions must be powers of two, got 6}}
func.func @tensor_desc_block(%d: !tile.tensor_desc<6x8xf32>) {
  return
}

// -----

// expected-error @below {{a tensor descriptor's block has 1 to 5 dimensions, got 6}}
func.func @tensor_desc_block_rank(%d: !tile.tensor_desc<2x2x2x2x2x2xf32>) {
  return
}

// -----

func.func @async_load_offsets(%d: !tile.tensor_desc<8x8xf32>, %i: i32) {
  %buf = tile.alloc_shared : !tile.smem<8x8xf32>
  // expected-error @below {{needs one offset per dimension of the block (2), got 1}}
  tile.async_load %d[%i], %buf : !tile.tensor_desc<8x8xf32>, !tile.smem<8x8xf32>
  return
}

// -----

func.func @async_store_buffer(%d: !tile.tensor_desc<8x8xf32>, %i: i32) {
  %buf = tile.alloc_shared : !tile.smem<8x16xf32>
  // expected-error @below {{buffer '!tile.smem<8x16xf32>' does not hold a block of '!tile.tensor_desc<8x8xf32>'}}
  tile.async_store %d[%i, %i], %buf : !tile.tensor_desc<8x8xf32>, !tile.smem<8x16xf32>
  return
}

// -----

#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
func.func @async_load_layout(%d: !tile.tensor_desc<8x64xbf16, #nv>, %i: i32) {
  %buf = tile.alloc_shared : !tile.smem<8x64xbf16>
  // expected-error @below {{buffer '!tile.smem<8x64xbf16>' does not have the descriptor's layout #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>}}
  tile.async_load %d[%i, %i], %buf : !tile.tensor_desc<8x64xbf16, #nv>, !tile.smem<8x64xbf16>
  return
}

// -----

// A descriptor's layout is one a buffer of its block may have.
// expected-error @below {{a row of 32 elements is not whole 128-byte swizzle rows of 64 elements}}
func.func @tensor_desc_layout(%d: !tile.tensor_desc<8x32xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>) {
  return
}

// -----

func.func @dot_wait_pending(%acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{pending must not be negative, got -1}}
  %w = tile.dot_wait %acc {pending = -1 : i32} : tensor<16x16xf32>
  return %w : tensor<16x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Alignment hints
//===----------------------------------------------------------------------===//

func.func @hint_not_pow2(%a: i32, %b: i32) {
  // expected-error @below {{'tile.multiple_of' values must be powers of two, got 12}}
  %c = arith.muli %a, %b {tile.multiple_of = array<i64: 12>} : i32
  return
}

// -----

func.func @hint_rank(%a: tensor<4xi32>) {
  // expected-error @below {{'tile.max_contiguous' has 2 values for a result of rank 1}}
  %c = arith.addi %a, %a {tile.max_contiguous = array<i64: 4, 1>} : tensor<4xi32>
  return
}

// -----

func.func @hint_type(%a: i32) {
  // expected-error @below {{'tile.multiple_of' must be an i64 array}}
  %c = arith.addi %a, %a {tile.multiple_of = 4 : i64} : i32
  return
}

// -----

func.func @hint_results(%a: i32) {
  // expected-error @below {{'tile.multiple_of' needs an op with one result}}
  "tile.barrier"() {tile.multiple_of = array<i64: 4>} : () -> ()
  return
}

// -----

func.func @print_pointer(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{operand 0 is a pointer; only numbers are printed}}
  tile.print "p" %p : !tile.ptr<f32>
  return
}
