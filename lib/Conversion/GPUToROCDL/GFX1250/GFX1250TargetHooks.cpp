//===- GFX1250TargetHooks.cpp - gfx1250 hooks -----------------------------===//
#include "../AMDTargetHooks.h"

// gfx1250: wave32; the ROCDL lowering is the same as the other AMD chips, with
// the wave size and LDS budget of the chip's GPUTargetInfo.
std::unique_ptr<kda::TargetHooks>
kda::createGFX1250TargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<AMDTargetHooks>(info);
}
