//===- GFX950TargetHooks.cpp - gfx950 hooks -------------------------------===//
#include "../AMDTargetHooks.h"

// gfx950 (MI355X): wave64; the ROCDL lowering is the same as the other AMD
// chips, with the wave size and LDS budget of the chip's GPUTargetInfo.
std::unique_ptr<kda::TargetHooks>
kda::createGFX950TargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<AMDTargetHooks>(info);
}
