//===- LaneCopies.cpp - gfx950 copies into LDS without registers ----------===//
#include "kda/Conversion/GPUToROCDL/GFX950/LaneCopies.h"

#include <algorithm>

namespace {
constexpr unsigned kNoExportWait = 0x7 << 4, kNoLDSWait = 0xF << 8;
unsigned encodeVectorMemoryCount(unsigned count) {
  return (count & 0xF) | ((count >> 4) << 14);
}
} // namespace

unsigned kda::gfx950::getVectorMemoryWait(unsigned pending) {
  return encodeVectorMemoryCount(std::min(pending, kMaxVectorMemoryCount)) |
         kNoExportWait | kNoLDSWait;
}

unsigned kda::gfx950::getLDSWait() {
  return encodeVectorMemoryCount(kMaxVectorMemoryCount) | kNoExportWait;
}

int64_t kda::gfx950::getLaneCopyInstructions(int64_t elements,
                                             int64_t elementBytes,
                                             int64_t vectorBytes,
                                             unsigned waveSize) {
  int64_t perInstruction = int64_t(waveSize) * vectorBytes;
  return (elements * elementBytes + perInstruction - 1) / perInstruction;
}
