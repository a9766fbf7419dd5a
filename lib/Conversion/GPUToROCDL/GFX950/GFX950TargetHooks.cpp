//===- GFX950TargetHooks.cpp - gfx950 (MI355X) ----------------------------===//
#include "../AMDTargetHooks.h"

// gfx950: wave64, 160 KiB of LDS per workgroup.
std::unique_ptr<kda::TargetHooks> kda::createGFX950TargetHooks() {
  return std::make_unique<AMDTargetHooks>(/*waveSize=*/64,
                                          /*ldsBytes=*/160 * 1024);
}
