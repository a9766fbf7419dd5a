//===- GFX1250TargetHooks.cpp - gfx1250 -----------------------------------===//
#include "../AMDTargetHooks.h"

// gfx1250: wave32; the LDS budget kept at the 64 KiB every workgroup gets.
std::unique_ptr<kda::TargetHooks> kda::createGFX1250TargetHooks() {
  return std::make_unique<AMDTargetHooks>(/*waveSize=*/32,
                                          /*ldsBytes=*/64 * 1024);
}
