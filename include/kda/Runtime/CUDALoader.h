//===- CUDALoader.h - the CUDA driver API, opened at first use --*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen the first time a function here is
// called. Every failure comes back as a message naming the driver call and
// the CUDA error ("cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (200):
// device kernel image is invalid"); a machine without the driver gets
// "libcuda.so.1 not found: <dlerror>".
//
// Context: the calling thread's current context is used when there is one
// (PyTorch makes its device's primary context current); otherwise the
// primary context of device 0 is retained and made current.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_RUNTIME_CUDALOADER_H
#define KDA_RUNTIME_CUDALOADER_H

#include "kda/Runtime/GPULaunch.h"

namespace kda::tma {
struct TensorMapRequest;
} // namespace kda::tma

namespace kda::cuda {

/// Whether libcuda.so.1 can be opened and initialized; `error` says why not.
bool isAvailable(std::string &error);

/// Loads a cubin, fat binary or PTX image (PTX is JIT-compiled by the
/// driver) into the current context and returns its kernel `name` as a
/// CUfunction. The module stays loaded until unloadKernel.
bool loadKernel(const void *image, size_t size, const char *name,
                void **function, std::string &error);

/// cuLaunchKernel, or cuLaunchKernelEx with programmatic stream
/// serialization for an early launch. Dynamic shared memory above 48 KiB is
/// opted into with cuFuncSetAttribute first (once per function and size).
bool launchKernel(void *function, const GPULaunchConfig &config, void **args,
                  std::string &error);

/// cuStreamIsCapturing.
bool getCaptureStatus(void *stream, GPUCaptureStatus &status,
                      std::string &error);

/// Encodes the tensor map (CUtensorMap, 128 bytes at `tensorMap`, 128-byte
/// aligned) of `request` (cuTensorMapEncodeTiled): zeros outside the
/// tensor, no swizzle.
bool encodeTensorMap(const tma::TensorMapRequest &request, void *tensorMap,
                     std::string &error);

/// Unloads the module `function` came from (cuModuleUnload).
bool unloadKernel(void *function, std::string &error);

/// The device of the current context (cuCtxGetDevice), making one current
/// as described above if there is none.
bool getCurrentDevice(int &device, std::string &error);

} // namespace kda::cuda

#endif // KDA_RUNTIME_CUDALOADER_H
