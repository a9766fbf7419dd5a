//===- CPULauncher.h - run a compiled kernel over its grid ------*- C++ -*-===//
#ifndef KDA_RUNTIME_CPULAUNCHER_H
#define KDA_RUNTIME_CPULAUNCHER_H

#include <cstdint>
#include <string>

namespace kda {
/// The C entry point kda-compile emits for the host target.
using CPUKernelEntry = void (*)(void **args, int32_t pidX, int32_t pidY,
                                int32_t pidZ, int32_t numX, int32_t numY,
                                int32_t numZ);

/// Runs every program of the grid. Programs are independent, so a large grid
/// is split into contiguous chunks over up to `numThreads` threads (0: the
/// hardware concurrency). Returns false with `error` set on bad arguments.
bool launchCPUKernel(CPUKernelEntry entry, int32_t gridX, int32_t gridY,
                     int32_t gridZ, void **args, int32_t numThreads,
                     std::string &error);
} // namespace kda

#endif // KDA_RUNTIME_CPULAUNCHER_H
