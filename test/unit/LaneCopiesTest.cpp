//===- LaneCopiesTest.cpp - gfx950 LDS DMA wait counts --------------------===//
//
// Field by field against the gfx9 s_waitcnt SIMM16 layout: vmcnt [3:0] and
// [15:14], expcnt [6:4], lgkmcnt [11:8].
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/GPUToROCDL/GFX950/LaneCopies.h"

#include <gtest/gtest.h>

using namespace kda::gfx950;

namespace {
unsigned vmcnt(unsigned simm) { return (simm & 0xF) | ((simm >> 14) & 3) << 4; }
unsigned expcnt(unsigned simm) { return (simm >> 4) & 0x7; }
unsigned lgkmcnt(unsigned simm) { return (simm >> 8) & 0xF; }
} // namespace

TEST(LaneCopies, VectorMemoryWaitFields) {
  for (unsigned pending : {0u, 1u, 5u, 15u, 16u, 17u, 48u, 63u}) {
    unsigned simm = getVectorMemoryWait(pending);
    EXPECT_EQ(vmcnt(simm), pending);
    // The other counters are left alone (their largest values).
    EXPECT_EQ(expcnt(simm), 7u);
    EXPECT_EQ(lgkmcnt(simm), 15u);
    // Bits 7, 12 and 13 belong to no counter on gfx9.
    EXPECT_EQ(simm & 0x3080u, 0u);
  }
  EXPECT_EQ(getVectorMemoryWait(0), 0x0F70u); // s_waitcnt vmcnt(0)
  EXPECT_EQ(getVectorMemoryWait(17), 0x4F71u);
}

TEST(LaneCopies, VectorMemoryWaitClamps) {
  // vmcnt has 6 bits: a larger bound waits for at most 63.
  EXPECT_EQ(vmcnt(getVectorMemoryWait(64)), 63u);
  EXPECT_EQ(vmcnt(getVectorMemoryWait(1000)), 63u);
}

TEST(LaneCopies, LDSWaitFields) {
  unsigned simm = getLDSWait();
  EXPECT_EQ(lgkmcnt(simm), 0u);
  EXPECT_EQ(vmcnt(simm), 63u);
  EXPECT_EQ(expcnt(simm), 7u);
  EXPECT_EQ(simm, 0xC07Fu); // s_waitcnt lgkmcnt(0)
}

TEST(LaneCopies, InstructionsPerCopy) {
  // 32 x 128 fp32 rows, 16 bytes per lane of a wave64: 16 KiB / 1 KiB.
  EXPECT_EQ(getLaneCopyInstructions(32 * 128, 4, 16, 64), 16);
  // A tile of 80 bf16 with 4 bytes per lane: 160 bytes, one partial wave.
  EXPECT_EQ(getLaneCopyInstructions(80, 2, 4, 64), 1);
  // A wave moves 1 KiB per instruction at 16 bytes per lane: 257 fp32 take
  // a second one, and five at 4 bytes per lane.
  EXPECT_EQ(getLaneCopyInstructions(257, 4, 16, 64), 2);
  EXPECT_EQ(getLaneCopyInstructions(257, 4, 4, 64), 5);
}
