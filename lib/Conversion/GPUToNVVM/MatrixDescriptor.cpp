//===- MatrixDescriptor.cpp - wgmma shared-memory descriptors -------------===//
#include "kda/Conversion/GPUToNVVM/MatrixDescriptor.h"

#include "llvm/Support/ErrorHandling.h"

uint64_t kda::nvvm::encodeMatrixDescriptor(uint64_t startAddress,
                                           uint64_t leadingByteOffset,
                                           uint64_t strideByteOffset,
                                           unsigned swizzleBytes) {
  uint64_t mode;
  switch (swizzleBytes) {
  case 0:
    mode = 0;
    break;
  case 128:
    mode = 1;
    break;
  case 64:
    mode = 2;
    break;
  case 32:
    mode = 3;
    break;
  default:
    llvm_unreachable("wgmma swizzles 0, 32, 64 or 128 bytes");
  }
  return encodeDescriptorField(startAddress) |
         encodeDescriptorField(leadingByteOffset) << 16 |
         encodeDescriptorField(strideByteOffset) << 32 | mode << 62;
}
