//===- TensorMap.cpp - TMA tensor-map recipes -----------------------------===//
#include "kda/Runtime/TensorMap.h"

using namespace kda;
using namespace kda::tma;

bool tma::isSwizzleSupported(int64_t bytes) {
  return bytes == 0 || bytes == 32 || bytes == 64 || bytes == 128;
}

bool tma::isBlockSupported(const int64_t *block, size_t rank,
                           int64_t elementBytes, int64_t swizzleBytes) {
  if (rank < 1 || rank > size_t(kMaxRank) || !isSwizzleSupported(swizzleBytes))
    return false;
  for (size_t d = 0; d < rank; ++d)
    if (block[d] < 1 || block[d] > kMaxBlockDim)
      return false;
  int64_t rowBytes = block[rank - 1] * elementBytes;
  return swizzleBytes ? rowBytes == swizzleBytes : rowBytes % kAlignment == 0;
}

void tma::appendRecipe(std::vector<int64_t> &out, int64_t elementBytes,
                       int64_t baseArg, int64_t swizzleBytes,
                       const std::vector<int64_t> &block,
                       const std::vector<std::vector<int64_t>> &shape,
                       const std::vector<std::vector<int64_t>> &strides) {
  out.push_back(elementBytes);
  out.push_back(int64_t(block.size()));
  out.push_back(baseArg);
  out.push_back(swizzleBytes);
  out.insert(out.end(), block.begin(), block.end());
  for (const std::vector<std::vector<int64_t>> *exprs : {&shape, &strides})
    for (const std::vector<int64_t> &e : *exprs) {
      out.push_back(int64_t(e.size()));
      out.insert(out.end(), e.begin(), e.end());
    }
}

namespace {
/// Reads a recipe front to back; every read is bounds-checked.
struct Reader {
  const int64_t *tokens;
  size_t size, at = 0;
  bool next(int64_t &v) {
    if (at >= size)
      return false;
    v = tokens[at++];
    return true;
  }
};

/// One postfix expression; overflow and malformed programs fail.
bool evaluate(Reader &r, const int64_t *args, size_t numArgs, int64_t &value,
              std::string &error) {
  int64_t count;
  if (!r.next(count) || count < 1 || size_t(count) > r.size - r.at) {
    error = "malformed tensor-map recipe";
    return false;
  }
  std::vector<int64_t> stack;
  size_t end = r.at + size_t(count);
  while (r.at < end) {
    int64_t token = r.tokens[r.at++], operand;
    if (token == kPushConstant || token == kPushArgument) {
      if (r.at >= end) {
        error = "malformed tensor-map recipe";
        return false;
      }
      operand = r.tokens[r.at++];
      if (token == kPushArgument &&
          (operand < 0 || size_t(operand) >= numArgs)) {
        error = "tensor-map recipe names argument " + std::to_string(operand) +
                " of " + std::to_string(numArgs);
        return false;
      }
      stack.push_back(token == kPushConstant ? operand : args[operand]);
      continue;
    }
    if (stack.size() < 2 || (token != kAdd && token != kSub && token != kMul)) {
      error = "malformed tensor-map recipe";
      return false;
    }
    int64_t b = stack.back();
    stack.pop_back();
    int64_t &a = stack.back();
    bool overflow = token == kAdd   ? __builtin_add_overflow(a, b, &a)
                    : token == kSub ? __builtin_sub_overflow(a, b, &a)
                                    : __builtin_mul_overflow(a, b, &a);
    if (overflow) {
      error = "a tensor descriptor's shape or stride overflows 64 bits";
      return false;
    }
  }
  if (stack.size() != 1) {
    error = "malformed tensor-map recipe";
    return false;
  }
  value = stack.back();
  return true;
}
} // namespace

bool tma::evaluateRecipe(const int64_t *recipe, size_t size,
                         const int64_t *args, size_t numArgs,
                         TensorMapRequest &request, int64_t &baseArg,
                         std::string &error) {
  Reader r{recipe, size};
  int64_t bytes, rank, swizzleBytes;
  if (!r.next(bytes) || !r.next(rank) || !r.next(baseArg) ||
      !r.next(swizzleBytes) || !isSwizzleSupported(swizzleBytes) || rank < 1 ||
      rank > kMaxRank ||
      (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) || baseArg < 0 ||
      size_t(baseArg) >= numArgs) {
    error = "malformed tensor-map recipe";
    return false;
  }
  request = TensorMapRequest();
  request.elementBytes = bytes;
  request.rank = rank;
  request.base = uint64_t(args[baseArg]);
  request.swizzleBytes = swizzleBytes;
  for (int64_t d = 0; d < rank; ++d)
    if (!r.next(request.block[d])) {
      error = "malformed tensor-map recipe";
      return false;
    }
  if (!isBlockSupported(request.block, size_t(rank), bytes, swizzleBytes)) {
    error = "malformed tensor-map recipe";
    return false;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!evaluate(r, args, numArgs, request.shape[d], error))
      return false;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (!evaluate(r, args, numArgs, request.strides[d], error))
      return false;
  request.strides[rank - 1] = 1;
  if (r.at != size) {
    error = "malformed tensor-map recipe";
    return false;
  }
  if (request.base % kAlignment) {
    error = "the tensor's base address " + std::to_string(request.base) +
            " is not a multiple of 16 bytes";
    return false;
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (request.shape[d] < 1 || request.shape[d] > kMaxDim) {
      error = "dimension " + std::to_string(d) + " of the tensor is " +
              std::to_string(request.shape[d]) +
              " elements; the tensor memory accelerator needs 1 to 2^32";
      return false;
    }
    if (d + 1 == rank)
      continue;
    int64_t strideBytes = request.strides[d] * bytes;
    if (request.strides[d] < 1 || strideBytes % kAlignment ||
        strideBytes >= kMaxStrideBytes) {
      error = "stride " + std::to_string(d) + " of the tensor is " +
              std::to_string(request.strides[d]) +
              " elements; the tensor memory accelerator needs a positive "
              "multiple of 16 bytes below 2^40";
      return false;
    }
  }
  return true;
}
