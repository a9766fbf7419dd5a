//===- CPULauncher.cpp - run a compiled kernel over its grid --------------===//
#include "kda/Runtime/CPULauncher.h"

#include <algorithm>
#include <thread>
#include <vector>

using namespace kda;

bool kda::launchCPUKernel(CPUKernelEntry entry, int32_t gridX, int32_t gridY,
                          int32_t gridZ, void **args, int32_t numThreads,
                          std::string &error) {
  if (!entry) {
    error = "kernel entry point is null";
    return false;
  }
  if (gridX < 0 || gridY < 0 || gridZ < 0) {
    error = "grid dimensions must be non-negative, got (" +
            std::to_string(gridX) + ", " + std::to_string(gridY) + ", " +
            std::to_string(gridZ) + ")";
    return false;
  }
  if (numThreads < 0) {
    error = "num_threads must be non-negative";
    return false;
  }
  int64_t total = int64_t(gridX) * gridY * gridZ;
  if (total == 0)
    return true;

  auto runRange = [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      int32_t x = int32_t(p % gridX);
      int32_t y = int32_t((p / gridX) % gridY);
      int32_t z = int32_t(p / (int64_t(gridX) * gridY));
      entry(args, x, y, z, gridX, gridY, gridZ);
    }
  };

  int64_t threads = numThreads > 0
                        ? numThreads
                        : std::max(1u, std::thread::hardware_concurrency());
  // Starting a thread costs tens of microseconds: only small grids per thread
  // would not pay for it.
  constexpr int64_t kMinProgramsPerThread = 4;
  threads = std::min(threads, total / kMinProgramsPerThread);
  if (threads <= 1) {
    runRange(0, total);
    return true;
  }
  std::vector<std::thread> workers;
  int64_t chunk = (total + threads - 1) / threads;
  for (int64_t begin = chunk; begin < total; begin += chunk)
    workers.emplace_back(runRange, begin, std::min(total, begin + chunk));
  runRange(0, std::min(total, chunk));
  for (std::thread &t : workers)
    t.join();
  return true;
}
