//===- TargetInfoTest.cpp - CPU targets and GPU limits from LLVM ----------===//
#include "kda/Target/AMDGPU.h"
#include "kda/Target/GPUTarget.h"
#include "kda/Target/HostCodegen.h"
#include "kda/Target/NVPTX.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace kda;

namespace {
bool hasFeature(llvm::StringRef list, llvm::StringRef name) {
  llvm::SmallVector<llvm::StringRef> items;
  list.split(items, ',');
  return llvm::is_contained(items, name);
}

TEST(HostCPUTarget, BaselineHasNoAVX) {
  std::string error;
  auto target = resolveHostCPUTarget("x86-64-v2", "", error);
  ASSERT_TRUE(target) << error;
  EXPECT_EQ(target->cpu, "x86-64-v2");
  std::string required = getRequiredCPUFeatures(*target);
  EXPECT_TRUE(hasFeature(required, "sse4.2")) << required;
  EXPECT_TRUE(hasFeature(required, "popcnt")) << required;
  EXPECT_FALSE(hasFeature(required, "avx")) << required;
  EXPECT_FALSE(hasFeature(required, "f16c")) << required;
  // A baseline object runs on this (x86-64) machine.
  EXPECT_EQ(getMissingHostCPUFeatures(required), "");
}

TEST(HostCPUTarget, FeaturesAddAndRemove) {
  std::string error;
  auto target = resolveHostCPUTarget("x86-64-v2", "+avx2,-popcnt", error);
  ASSERT_TRUE(target) << error;
  std::string required = getRequiredCPUFeatures(*target);
  EXPECT_TRUE(hasFeature(required, "avx2")) << required;
  EXPECT_TRUE(hasFeature(required, "avx")) << required; // implied by avx2
  EXPECT_FALSE(hasFeature(required, "popcnt")) << required;
}

TEST(HostCPUTarget, HostIsThisMachine) {
  std::string error;
  auto target = resolveHostCPUTarget("host", "", error);
  ASSERT_TRUE(target) << error;
  EXPECT_FALSE(target->cpu.empty());
  EXPECT_EQ(getMissingHostCPUFeatures(getRequiredCPUFeatures(*target)), "");
}

TEST(HostCPUTarget, UnknownNamesAreErrors) {
  std::string error;
  EXPECT_FALSE(resolveHostCPUTarget("pentium9", "", error));
  EXPECT_NE(error.find("unknown CPU 'pentium9'"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(resolveHostCPUTarget("host", "+nosuchfeature", error));
  EXPECT_NE(error.find("bad CPU feature '+nosuchfeature'"), std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(resolveHostCPUTarget("host", "avx2", error));
  EXPECT_NE(error.find("expected +NAME or -NAME"), std::string::npos) << error;
}

TEST(HostCPUTarget, MissingFeaturesAreListed) {
  EXPECT_EQ(getMissingHostCPUFeatures("sse2,nosuchfeature,alsonot"),
            "nosuchfeature,alsonot");
  EXPECT_EQ(getMissingHostCPUFeatures(""), "");
}

TEST(GPUTargetLimits, AMDLDSFromTheBackEnd) {
  EXPECT_EQ(getAMDGPUAddressableLDSBytes("gfx950"), 163840u);
  EXPECT_EQ(getAMDGPUAddressableLDSBytes("gfx1250"), 327680u);
  EXPECT_EQ(getAMDGPUAddressableLDSBytes("gfx90a"), 65536u);
  std::optional<GPUTargetInfo> gfx1250 = lookupGPUTarget("gfx1250");
  ASSERT_TRUE(gfx1250);
  EXPECT_EQ(gfx1250->sharedMemoryBytes, 327680u);
  EXPECT_EQ(gfx1250->staticSharedMemoryBytes, 327680u);
}

TEST(GPUTargetLimits, RegistersPerThread) {
  EXPECT_EQ(getAMDGPUAddressableVGPRs("gfx950"), 512u);
  EXPECT_EQ(getAMDGPUAddressableVGPRs("gfx1250"), 1024u);
  EXPECT_EQ(getAMDGPUAddressableVGPRs("gfx90a"), 512u);
  EXPECT_EQ(getAMDGPUAddressableVGPRs("gfx1100"), 256u);
  EXPECT_EQ(lookupGPUTarget("gfx950")->registersPerThread, 512u);
  EXPECT_EQ(lookupGPUTarget("gfx1250")->registersPerThread, 1024u);
  EXPECT_EQ(lookupGPUTarget("sm_90a")->registersPerThread, 255u);
}
} // namespace

// sm_90 occupancy: whole blocks, bounded by registers (64K a multiprocessor,
// 256-register units a warp), shared memory (228 KiB, 1 KiB reserved a
// block), 64 warps and 32 blocks.
TEST(NVIDIAOccupancy, RegistersBound) {
  // 255 registers: 8192 a warp, two warps a partition; one 8-warp block.
  kda::NVIDIAOccupancy o = kda::getNVIDIAOccupancy(255, 8, 8448);
  EXPECT_EQ(o.warps, 8);
  EXPECT_EQ(o.limit, "register limit");
  // 162 registers: 5376 a warp, three a partition: three 4-warp blocks.
  EXPECT_EQ(kda::getNVIDIAOccupancy(162, 4, 0).warps, 12);
}

TEST(NVIDIAOccupancy, SharedMemoryBounds) {
  // The chunked scan's ring: 125952 bytes a block leave room for one.
  kda::NVIDIAOccupancy o = kda::getNVIDIAOccupancy(162, 4, 125952);
  EXPECT_EQ(o.warps, 4);
  EXPECT_EQ(o.limit, "shared-memory limit");
  // Two blocks of 112 KiB do not fit with their reserved KiB each...
  EXPECT_EQ(kda::getNVIDIAOccupancy(32, 4, 114 * 1024).warps, 4);
  // ...two of 113 KiB do.
  EXPECT_EQ(kda::getNVIDIAOccupancy(32, 4, 113 * 1024).warps, 8);
}

TEST(NVIDIAOccupancy, WarpAndBlockBounds) {
  kda::NVIDIAOccupancy warps = kda::getNVIDIAOccupancy(24, 4, 0);
  EXPECT_EQ(warps.warps, 64);
  EXPECT_EQ(warps.limit, "warp limit");
  kda::NVIDIAOccupancy blocks = kda::getNVIDIAOccupancy(16, 1, 0);
  EXPECT_EQ(blocks.warps, 32);
  EXPECT_EQ(blocks.limit, "block limit");
}
