//===- GPULaunch.h - what the GPU loaders share -----------------*- C++ -*-===//
//
// The CUDA driver (CUDALoader.h) and HIP (HIPLoader.h) loaders have the same
// shape: load a code object and look up one kernel, launch it on a stream,
// ask whether a stream is being captured into a graph. Both open their
// vendor library with dlopen on first use, so libkda has no link-time
// dependency on either and works on machines without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_RUNTIME_GPULAUNCH_H
#define KDA_RUNTIME_GPULAUNCH_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kda {

/// One kernel launch. `args[i]` points to the value of the i-th kernel
/// parameter (a device pointer is passed as the address of a `void *`).
struct GPULaunchConfig {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  /// Dynamic shared memory (LDS) in bytes.
  uint32_t sharedBytes = 0;
  /// CUstream / hipStream_t; null is the legacy default stream.
  void *stream = nullptr;
  /// The launch may start before the previous kernel on the stream ends
  /// (CUDA: programmatic stream serialization); only for kernels that wait
  /// for it (kt.wait_prior_launches). HIP ignores it.
  bool earlyLaunch = false;
};

/// Stream capture status, as both vendors number it.
enum class GPUCaptureStatus : int { None = 0, Active = 1, Invalidated = 2 };

/// Whether `image` starts like text (PTX) rather than an ELF or fat binary;
/// text images are handed to the driver NUL-terminated.
bool isTextImage(const void *image, size_t size);

} // namespace kda

#endif // KDA_RUNTIME_GPULAUNCH_H
