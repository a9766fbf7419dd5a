//===- MatrixDescriptor.h - wgmma shared-memory descriptors -----*- C++ -*-===//
//
// The 64-bit descriptor through which wgmma.mma_async reads an operand from
// shared memory (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start
// address, 16-29 the leading dimension byte offset (LBO), 32-45 the stride
// dimension byte offset (SBO), each encoded as (x & 0x3FFFF) >> 4; bits
// 49-51 the base offset (0 here: every swizzle pattern starts aligned);
// bits 62-63 the swizzle mode (none 0, 128 bytes 1, 64 bytes 2, 32 bytes 3).
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_GPUTONVVM_MATRIXDESCRIPTOR_H
#define KDA_CONVERSION_GPUTONVVM_MATRIXDESCRIPTOR_H

#include <cstdint>

namespace kda::nvvm {

/// A byte address or offset as a descriptor field: (bytes & kFieldMask) >>
/// kFieldShift (16-byte units, 14 bits).
constexpr uint64_t kFieldMask = 0x3FFFF;
constexpr unsigned kFieldShift = 4;
constexpr uint64_t encodeDescriptorField(uint64_t bytes) {
  return (bytes & kFieldMask) >> kFieldShift;
}

/// The descriptor of an operand at shared address `startAddress` (bytes),
/// its fields as above; `swizzleBytes` is 0, 32, 64 or 128.
uint64_t encodeMatrixDescriptor(uint64_t startAddress,
                                uint64_t leadingByteOffset,
                                uint64_t strideByteOffset,
                                unsigned swizzleBytes);

} // namespace kda::nvvm

#endif // KDA_CONVERSION_GPUTONVVM_MATRIXDESCRIPTOR_H
