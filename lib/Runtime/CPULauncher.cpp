//===- CPULauncher.cpp - run a compiled kernel over its grid --------------===//
//
// Programs of a grid are independent. A persistent pool of worker threads
// (started on first use) takes chunks of programs from a shared counter, so a
// launch costs a wake-up rather than thread creation, and small grids run
// inline on the caller's thread.
//
//===----------------------------------------------------------------------===//
#include "kda/Runtime/CPULauncher.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

using namespace kda;

namespace {

class WorkerPool {
public:
  static WorkerPool &get() {
    static WorkerPool pool;
    return pool;
  }

  unsigned size() const { return workers.size() + 1; }

  /// Runs `job(i)` for every i in [0, numChunks) on up to `maxThreads`
  /// threads (the caller included) and returns when all are done.
  void run(int64_t numChunks, unsigned maxThreads,
           const std::function<void(int64_t)> &job) {
    std::unique_lock<std::mutex> launchLock(launchMutex);
    std::atomic<int64_t> next{0};
    auto drain = [&] {
      for (int64_t i = next++; i < numChunks; i = next++)
        job(i);
    };
    unsigned helpers = std::min<unsigned>(maxThreads - 1, workers.size());
    {
      std::lock_guard<std::mutex> lock(mutex);
      task = drain;
      pendingHelpers = helpers;
      runningHelpers = helpers;
      ++generation;
    }
    wake.notify_all();
    drain();
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return runningHelpers == 0; });
    task = nullptr;
  }

private:
  WorkerPool() {
    unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < n; ++i)
      workers.emplace_back([this] { workerLoop(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
  }

  void workerLoop() {
    uint64_t seen = 0;
    while (true) {
      std::function<void()> myTask;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] {
          return stopping || (generation != seen && pendingHelpers > 0);
        });
        if (stopping)
          return;
        seen = generation;
        --pendingHelpers;
        myTask = task;
      }
      myTask();
      std::lock_guard<std::mutex> lock(mutex);
      if (--runningHelpers == 0)
        done.notify_one();
    }
  }

  std::vector<std::thread> workers;
  std::mutex launchMutex; // one launch at a time uses the pool
  std::mutex mutex;
  std::condition_variable wake, done;
  std::function<void()> task;
  unsigned pendingHelpers = 0, runningHelpers = 0;
  uint64_t generation = 0;
  bool stopping = false;
};

} // namespace

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

  // Below this many programs the hand-off costs more than it saves.
  constexpr int64_t kMinProgramsForThreads = 8;
  WorkerPool *pool = nullptr;
  unsigned threads = 1;
  if (numThreads != 1 && total >= kMinProgramsForThreads) {
    pool = &WorkerPool::get();
    threads = numThreads > 0 ? unsigned(numThreads) : pool->size();
  }
  if (threads <= 1) {
    runRange(0, total);
    return true;
  }
  // Several chunks per thread balance programs of uneven cost.
  int64_t numChunks = std::min<int64_t>(total, int64_t(threads) * 4);
  int64_t chunk = (total + numChunks - 1) / numChunks;
  numChunks = (total + chunk - 1) / chunk;
  pool->run(numChunks, threads, [&](int64_t i) {
    runRange(i * chunk, std::min(total, (i + 1) * chunk));
  });
  return true;
}
