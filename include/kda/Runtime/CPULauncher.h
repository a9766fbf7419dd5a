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

/// Runs a kernel whose programs sum over clusters of `clusterShape` (x, y,
/// z; the compile result's cluster shape): the grid must be a multiple of
/// it. Each of a cluster's programs runs on a thread of its own, so they meet
/// at every cluster sum; as many clusters run at once as `numThreads` (0: the
/// hardware concurrency) holds groups of threads, at least one. The kernel
/// takes `numArgs` runtime arguments and reads the cluster exchange after them.
/// Fails when the grid does not divide into clusters, or when the programs of
/// a cluster did not all make the same number of cluster sums (their results
/// are then wrong). A 1x1x1 shape is launchCPUKernel.
bool launchCPUKernelInClusters(CPUKernelEntry entry, const int32_t grid[3],
                               const int32_t clusterShape[3], void **args,
                               int32_t numArgs, int32_t numThreads,
                               std::string &error);

/// The report of a kernel compiled with bounds checks (BoundsChecks.cpp in
/// the host lowering): records the first out-of-bounds access of a launch in
/// `table` (words 1-3: site text, address, argument), safely from any of the
/// launch's threads.
void reportOutOfBounds(int64_t *table, const char *site, int64_t address,
                       int32_t argument);
} // namespace kda

#endif // KDA_RUNTIME_CPULAUNCHER_H
