//===- HIPLoader.h - the HIP module API, opened at first use ----*- C++ -*-===//
//
// libamdhip64.so is opened with dlopen the first time a function here is
// called; without it every call fails with "libamdhip64.so not found: ...".
// Errors name the HIP call and error ("hipModuleLoadData failed:
// hipErrorInvalidImage (200): ...").
//
// HIP has no separate context to manage: modules load on the calling
// thread's current device (hipSetDevice, which PyTorch does).
//
//===----------------------------------------------------------------------===//
#ifndef KDA_RUNTIME_HIPLOADER_H
#define KDA_RUNTIME_HIPLOADER_H

#include "kda/Runtime/GPULaunch.h"

namespace kda::hip {

bool isAvailable(std::string &error);

/// Loads an HSACO (or offload bundle) and returns kernel `name` as a
/// hipFunction_t.
bool loadKernel(const void *image, size_t size, const char *name,
                void **function, std::string &error);

/// hipModuleLaunchKernel.
bool launchKernel(void *function, const GPULaunchConfig &config, void **args,
                  std::string &error);

/// hipStreamIsCapturing.
bool getCaptureStatus(void *stream, GPUCaptureStatus &status,
                      std::string &error);

/// hipModuleUnload of the module `function` came from.
bool unloadKernel(void *function, std::string &error);

/// hipGetDevice.
bool getCurrentDevice(int &device, std::string &error);

} // namespace kda::hip

#endif // KDA_RUNTIME_HIPLOADER_H
