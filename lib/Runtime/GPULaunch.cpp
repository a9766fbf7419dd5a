//===- GPULaunch.cpp - what the GPU loaders share -------------------------===//
#include "kda/Runtime/GPULaunch.h"

#include <cstring>

bool kda::isTextImage(const void *image, size_t size) {
  if (!image || size < 4)
    return size > 0;
  const auto *bytes = static_cast<const unsigned char *>(image);
  static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
  // CUDA fat binary (0xba55ed50, little-endian) and clang offload bundles.
  static const unsigned char fatbin[4] = {0x50, 0xed, 0x55, 0xba};
  static const char bundle[] = "__CLANG_OFFLOAD_BUNDLE__";
  if (!std::memcmp(bytes, elf, 4) || !std::memcmp(bytes, fatbin, 4))
    return false;
  if (size >= sizeof(bundle) - 1 &&
      !std::memcmp(bytes, bundle, sizeof(bundle) - 1))
    return false;
  return true;
}
