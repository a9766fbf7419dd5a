//===- MatrixDescriptorTest.cpp - wgmma shared-memory descriptors ---------===//
//
// Field by field against the PTX ISA's "Matrix Descriptor Format": start
// address bits 0-13, leading dimension byte offset 16-29, stride dimension
// byte offset 32-45 (each (x & 0x3FFFF) >> 4), base offset 49-51 (0), swizzle
// mode 62-63 (128 B: 1, 64 B: 2, 32 B: 3, none: 0).
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/GPUToNVVM/MatrixDescriptor.h"

#include <gtest/gtest.h>

using namespace kda::nvvm;

namespace {
uint64_t field(uint64_t descriptor, unsigned first, unsigned bits) {
  return (descriptor >> first) & ((uint64_t(1) << bits) - 1);
}
} // namespace

TEST(MatrixDescriptor, Fields) {
  uint64_t d = encodeMatrixDescriptor(0x1230, 4096, 1024, 128);
  EXPECT_EQ(field(d, 0, 14), 0x123u);
  EXPECT_EQ(field(d, 16, 14), 256u);
  EXPECT_EQ(field(d, 32, 14), 64u);
  EXPECT_EQ(field(d, 49, 3), 0u);
  EXPECT_EQ(field(d, 62, 2), 1u);
  // Nothing outside the fields.
  EXPECT_EQ(field(d, 14, 2) | field(d, 30, 2) | field(d, 46, 3) |
                field(d, 52, 10),
            0u);
}

TEST(MatrixDescriptor, SwizzleModes) {
  EXPECT_EQ(field(encodeMatrixDescriptor(0, 16, 512, 64), 62, 2), 2u);
  EXPECT_EQ(field(encodeMatrixDescriptor(0, 16, 256, 32), 62, 2), 3u);
  EXPECT_EQ(field(encodeMatrixDescriptor(0, 16, 128, 0), 62, 2), 0u);
}

TEST(MatrixDescriptor, AddressesWrapAt256KiB) {
  // 18 address bits, in 16-byte units: the shared window's offsets.
  EXPECT_EQ(field(encodeMatrixDescriptor(0x3FFF0, 0, 0, 128), 0, 14), 0x3FFFu);
  EXPECT_EQ(field(encodeMatrixDescriptor(0x40010, 0, 0, 128), 0, 14), 1u);
  EXPECT_EQ(encodeDescriptorField(1024), 64u);
}
