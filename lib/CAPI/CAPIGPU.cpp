//===- CAPIGPU.cpp - the GPU runtime half of the C API --------------------===//
//
// kda_gpu_* of kda.h: thin wrappers over the CUDA and HIP loaders. Kept apart
// from CAPI.cpp (the compiler half) because it needs nothing but
// lib/Runtime, so it can also be built without LLVM (see test/gpu/).
//
//===----------------------------------------------------------------------===//
#include "kda/CAPI/kda.h"
#include "kda/Runtime/CUDALoader.h"
#include "kda/Runtime/HIPLoader.h"
#include "kda/Runtime/TensorMap.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace kda;

namespace {
enum class Platform { CUDA, HIP };

int fail(char **error, const std::string &message) {
  if (error) {
    *error = static_cast<char *>(std::malloc(message.size() + 1));
    std::memcpy(*error, message.c_str(), message.size() + 1);
  }
  return 1;
}

bool parsePlatform(const char *name, Platform &platform, std::string &error) {
  if (name && !std::strcmp(name, "cuda")) {
    platform = Platform::CUDA;
    return true;
  }
  if (name && !std::strcmp(name, "hip")) {
    platform = Platform::HIP;
    return true;
  }
  error = std::string("unknown GPU platform '") + (name ? name : "(null)") +
          "' (expected \"cuda\" or \"hip\")";
  return false;
}
} // namespace

extern "C" {

int kda_gpu_load(const char *platform, const void *image, size_t size,
                 const char *kernel_name, void **function, char **error) {
  std::string message;
  Platform p;
  if (!parsePlatform(platform, p, message))
    return fail(error, message);
  bool ok = p == Platform::CUDA
                ? cuda::loadKernel(image, size, kernel_name, function, message)
                : hip::loadKernel(image, size, kernel_name, function, message);
  return ok ? 0 : fail(error, message);
}

int kda_gpu_unload(const char *platform, void *function, char **error) {
  std::string message;
  Platform p;
  if (!parsePlatform(platform, p, message))
    return fail(error, message);
  bool ok = p == Platform::CUDA ? cuda::unloadKernel(function, message)
                                : hip::unloadKernel(function, message);
  return ok ? 0 : fail(error, message);
}

int kda_gpu_launch(const char *platform, void *function, uint32_t gx,
                   uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
                   uint32_t bz, uint32_t shared_bytes, void *stream,
                   void **args, char **error) {
  return kda_gpu_launch_ex(platform, function, gx, gy, gz, bx, by, bz,
                           shared_bytes, stream, /*flags=*/0, args, error);
}

int kda_gpu_launch_ex(const char *platform, void *function, uint32_t gx,
                      uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
                      uint32_t bz, uint32_t shared_bytes, void *stream,
                      uint32_t flags, void **args, char **error) {
  std::string message;
  Platform p;
  if (!parsePlatform(platform, p, message))
    return fail(error, message);
  if (flags & ~KDA_LAUNCH_EARLY)
    return fail(error, "unknown launch flags " + std::to_string(flags) +
                           " (only KDA_LAUNCH_EARLY = 1 exists)");
  GPULaunchConfig config;
  config.grid[0] = gx;
  config.grid[1] = gy;
  config.grid[2] = gz;
  config.block[0] = bx;
  config.block[1] = by;
  config.block[2] = bz;
  config.sharedBytes = shared_bytes;
  config.stream = stream;
  config.earlyLaunch = flags & KDA_LAUNCH_EARLY;
  bool ok = p == Platform::CUDA
                ? cuda::launchKernel(function, config, args, message)
                : hip::launchKernel(function, config, args, message);
  return ok ? 0 : fail(error, message);
}

int kda_gpu_encode_tensor_map(const int64_t *recipe, size_t recipe_size,
                              const int64_t *args, size_t num_args,
                              void *tensor_map, int64_t *base_arg,
                              char **error) {
  std::string message;
  tma::TensorMapRequest request;
  int64_t base = -1;
  if (!recipe || !tensor_map || (num_args && !args))
    return fail(error, "kda_gpu_encode_tensor_map needs a recipe, the "
                       "arguments and somewhere to put the map");
  bool ok = tma::evaluateRecipe(recipe, recipe_size, args, num_args, request,
                                base, message) &&
            cuda::encodeTensorMap(request, tensor_map, message);
  if (base_arg)
    *base_arg = base;
  return ok ? 0 : fail(error, message);
}

int kda_gpu_is_capturing(const char *platform, void *stream, int *capturing,
                         char **error) {
  std::string message;
  Platform p;
  if (!parsePlatform(platform, p, message))
    return fail(error, message);
  GPUCaptureStatus status = GPUCaptureStatus::None;
  bool ok = p == Platform::CUDA
                ? cuda::getCaptureStatus(stream, status, message)
                : hip::getCaptureStatus(stream, status, message);
  if (!ok)
    return fail(error, message);
  if (capturing)
    *capturing = static_cast<int>(status);
  return 0;
}

} // extern "C"
