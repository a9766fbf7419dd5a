//===- TensorMap.h - TMA tensor maps the runtime builds ---------*- C++ -*-===//
//
// On sm_90a a block copy of a tensor descriptor runs on the tensor memory
// accelerator (TMA), which reads a 128-byte tensor map (CUtensorMap) the
// driver encodes on the host (cuTensorMapEncodeTiled). The compiler keeps a
// descriptor for TMA when the host can compute it from the launch's
// arguments; it passes the map as a hidden kernel parameter and describes
// how to build it by a recipe of int64 tokens, which the runtime evaluates
// before each launch:
//
//   [element bytes, rank, base argument index, swizzle bytes,
//    block dims (outermost first) x rank,
//    shape expressions (outermost first) x rank,
//    stride expressions (outermost first) x (rank - 1)]
//
// where each expression is [token count, tokens...] in postfix order:
// kPushConstant v, kPushArgument i (the i-th kernel parameter's value:
// a pointer's address or an integer), kAdd, kSub, kMul. The innermost stride
// is 1. Shapes and strides count elements. The swizzle (0, 32, 64 or 128
// bytes) is the one the block lands with in shared memory: with one, every
// box row is exactly that many bytes, and inside each 1024 bytes the 16-byte
// group g of byte offset o lands at g ^ ((o / 128) % (swizzle / 16)), as the
// matrix unit reads a #tile.nvmma_shared column block. The limits below are
// TMA's; the
// compiler keeps only copies within them, the runtime checks the values it
// computes.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_RUNTIME_TENSORMAP_H
#define KDA_RUNTIME_TENSORMAP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kda::tma {

/// Bytes of a CUtensorMap, and its alignment on the host and as a kernel
/// parameter (the driver's CUtensorMap is alignas(128)).
inline constexpr int64_t kTensorMapBytes = 128;
inline constexpr int64_t kTensorMapAlignment = 128;
inline constexpr int64_t kMaxRank = 5;
/// Elements of a block per dimension.
inline constexpr int64_t kMaxBlockDim = 256;
/// The global address, every stride in bytes, and the innermost block
/// dimension in bytes are multiples of this.
inline constexpr int64_t kAlignment = 16;
/// Shared-memory blocks start at multiples of this.
inline constexpr int64_t kSharedAlignment = 128;
/// Strides in bytes are below 2^40; dimensions at most 2^32.
inline constexpr int64_t kMaxStrideBytes = int64_t(1) << 40;
inline constexpr int64_t kMaxDim = int64_t(1) << 32;

enum Token : int64_t {
  kPushConstant = 0,
  kPushArgument = 1,
  kAdd = 2,
  kSub = 3,
  kMul = 4,
};

/// A tensor map's parameters, outermost dimension first.
struct TensorMapRequest {
  int64_t elementBytes = 0;
  int64_t rank = 0;
  uint64_t base = 0;
  int64_t shape[kMaxRank] = {};
  /// Elements; the innermost is 1.
  int64_t strides[kMaxRank] = {};
  int64_t block[kMaxRank] = {};
  /// 0 (none), 32, 64 or 128.
  int64_t swizzleBytes = 0;
};

/// Whether `bytes` is a swizzle TMA writes: 0 (none), 32, 64 or 128.
bool isSwizzleSupported(int64_t bytes);

/// Whether a block copy of `block` (outermost first) of `elementBytes`
/// elements fits TMA: rank 1 to 5, at most 256 elements per dimension, an
/// innermost dimension of whole 16-byte units, or of `swizzleBytes` exactly
/// when swizzled.
bool isBlockSupported(const int64_t *block, size_t rank, int64_t elementBytes,
                      int64_t swizzleBytes = 0);

/// Evaluates `recipe` with the launch's argument values `args` (pointers as
/// addresses, integers as themselves) and checks the result against TMA's
/// limits. On failure `error` says what is wrong (which dimension or
/// stride, with its value) and the base's argument index is in `baseArg`.
bool evaluateRecipe(const int64_t *recipe, size_t size, const int64_t *args,
                    size_t numArgs, TensorMapRequest &request, int64_t &baseArg,
                    std::string &error);

/// The recipe's tokens appended to `out` for a copy of `block` of
/// `elementBytes` elements from argument `baseArg` landing with
/// `swizzleBytes`' swizzle, given the shape and stride expressions (postfix
/// tokens each, outermost first; strides without the innermost).
void appendRecipe(std::vector<int64_t> &out, int64_t elementBytes,
                  int64_t baseArg, int64_t swizzleBytes,
                  const std::vector<int64_t> &block,
                  const std::vector<std::vector<int64_t>> &shape,
                  const std::vector<std::vector<int64_t>> &strides);

} // namespace kda::tma

#endif // KDA_RUNTIME_TENSORMAP_H
