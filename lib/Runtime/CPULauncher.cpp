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
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <system_error>
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

/// The programs of one cluster, each on a thread of its own (its rank), meet
/// at every cluster sum and when they finish: a generation barrier over the
/// cluster, with the values in one of two slot rows by the parity of the
/// sum (a rank can be one sum ahead, writing the other row, but not two).
/// Ranks that meet at different points (different sums, or one at a sum and
/// another finished) break the run: every later meeting returns at once, so
/// nothing hangs, and the launch fails.
class ClusterRun {
public:
  explicit ClusterRun(unsigned size) : size(size), slots(2 * size) {}

  /// The meeting point of a program's end (sums are numbered from 0).
  static constexpr int32_t kProgramEnd = -1;

  float sum(unsigned rank, uint64_t count, int32_t point, float value) {
    float *row = &slots[(count & 1) * size];
    row[rank] = value;
    if (!meet(point))
      return std::numeric_limits<float>::quiet_NaN();
    float total = row[0];
    for (unsigned r = 1; r < size; ++r)
      total += row[r];
    return total;
  }
  void finishProgram() { (void)meet(kProgramEnd); }
  /// Releases every rank (a rank could not be started).
  void breakRun() {
    std::lock_guard<std::mutex> lock(mutex);
    broken = true;
    ++generation;
    met.notify_all();
  }
  bool isBroken() {
    std::lock_guard<std::mutex> lock(mutex);
    return broken;
  }

private:
  bool meet(int32_t point) {
    std::unique_lock<std::mutex> lock(mutex);
    if (broken)
      return false;
    if (arrived == 0)
      phasePoint = point;
    else if (point != phasePoint)
      mixed = true;
    uint64_t mine = generation;
    if (++arrived == size) {
      broken = mixed;
      arrived = 0;
      mixed = false;
      ++generation;
      met.notify_all();
    } else {
      met.wait(lock, [&] { return generation != mine; });
    }
    return !broken;
  }

  unsigned size;
  std::vector<float> slots;
  std::mutex mutex;
  std::condition_variable met;
  unsigned arrived = 0;
  int32_t phasePoint = kProgramEnd;
  bool mixed = false;
  uint64_t generation = 0;
  bool broken = false;
};

/// What a cluster sum on this thread meets: its run, rank and sum count.
thread_local ClusterRun *currentRun = nullptr;
thread_local unsigned currentRank = 0;
thread_local uint64_t currentSums = 0;

/// The exchange host kernels call for tile.cluster_sum (TileToCPU.cpp):
/// `point` numbers the kernel's sums, so ranks at different ones are caught.
float sumOverCluster(float value, int32_t point) {
  return currentRun->sum(currentRank, currentSums++, point, value);
}

} // namespace

bool kda::launchCPUKernelInClusters(CPUKernelEntry entry, const int32_t grid[3],
                                    const int32_t clusterShape[3], void **args,
                                    int32_t numArgs, int32_t numThreads,
                                    std::string &error) {
  int64_t size = 1;
  for (int d = 0; d < 3; ++d) {
    if (clusterShape[d] < 1) {
      error = "cluster dimensions must be positive";
      return false;
    }
    size *= clusterShape[d];
  }
  if (size == 1)
    return launchCPUKernel(entry, grid[0], grid[1], grid[2], args, numThreads,
                           error);
  if (!entry || numArgs < 0) {
    error = !entry ? "kernel entry point is null" : "numArgs is negative";
    return false;
  }
  auto triple = [](const int32_t v[3]) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
           std::to_string(v[2]) + ")";
  };
  for (int d = 0; d < 3; ++d)
    if (grid[d] < 0 || grid[d] % clusterShape[d]) {
      error = "grid " + triple(grid) + " is not a multiple of the cluster " +
              "shape " + triple(clusterShape) +
              ": the kernel's programs sum over clusters (kt.cluster_sum)";
      return false;
    }
  int64_t clusters[3] = {grid[0] / clusterShape[0], grid[1] / clusterShape[1],
                         grid[2] / clusterShape[2]};
  int64_t numClusters = clusters[0] * clusters[1] * clusters[2];
  std::vector<void *> argv(args, args + numArgs);
  float (*exchange)(float, int32_t) = sumOverCluster;
  argv.push_back(reinterpret_cast<void *>(&exchange));

  // Clusters are dealt round-robin to groups of `size` threads (one per
  // rank), as many groups as the thread budget holds (at least one).
  unsigned budget = numThreads > 0
                        ? unsigned(numThreads)
                        : std::max(1u, std::thread::hardware_concurrency());
  int64_t numGroups = std::clamp<int64_t>(budget / size, 1, numClusters);
  std::vector<std::unique_ptr<ClusterRun>> runs;
  for (int64_t g = 0; g < numGroups; ++g)
    runs.push_back(std::make_unique<ClusterRun>(static_cast<unsigned>(size)));
  auto runRank = [&](int64_t group, unsigned rank) {
    ClusterRun &run = *runs[group];
    currentRun = &run;
    currentRank = rank;
    currentSums = 0;
    // Ranks as %cluster_ctarank numbers them: x fastest.
    int32_t rx = int32_t(rank % clusterShape[0]);
    int32_t ry = int32_t((rank / clusterShape[0]) % clusterShape[1]);
    int32_t rz = int32_t(rank / (clusterShape[0] * clusterShape[1]));
    for (int64_t c = group; c < numClusters; c += numGroups) {
      int32_t cx = int32_t(c % clusters[0]);
      int32_t cy = int32_t((c / clusters[0]) % clusters[1]);
      int32_t cz = int32_t(c / (clusters[0] * clusters[1]));
      entry(argv.data(), cx * clusterShape[0] + rx, cy * clusterShape[1] + ry,
            cz * clusterShape[2] + rz, grid[0], grid[1], grid[2]);
      run.finishProgram();
    }
    currentRun = nullptr;
  };
  std::vector<std::thread> threads;
  try {
    for (int64_t g = 0; g < numGroups; ++g)
      for (unsigned rank = g == 0 ? 1 : 0; rank < size; ++rank)
        threads.emplace_back(runRank, g, rank);
  } catch (const std::system_error &e) {
    for (auto &run : runs)
      run->breakRun(); // the started ranks return from their meetings
    for (std::thread &t : threads)
      t.join();
    error = std::string("cannot start the threads of a cluster: ") + e.what();
    return false;
  }
  runRank(0, 0);
  for (std::thread &t : threads)
    t.join();
  std::fflush(stdout); // lines of kt.device_print, as launchCPUKernel
  bool broken = false;
  for (auto &run : runs)
    broken |= run->isBroken();
  if (broken) {
    error = "the programs of a cluster made different numbers of cluster "
            "sums, or different ones (kt.cluster_sum must be reached by every "
            "program of a cluster alike); the results are wrong";
    return false;
  }
  return true;
}

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
  } else {
    // Several chunks per thread balance programs of uneven cost.
    int64_t numChunks = std::min<int64_t>(total, int64_t(threads) * 4);
    int64_t chunk = (total + numChunks - 1) / numChunks;
    numChunks = (total + chunk - 1) / chunk;
    pool->run(numChunks, threads, [&](int64_t i) {
      runRange(i * chunk, std::min(total, (i + 1) * chunk));
    });
  }
  // Lines of kt.device_print appear before the caller's next output.
  std::fflush(stdout);
  return true;
}

void kda::reportOutOfBounds(int64_t *table, const char *site, int64_t address,
                            int32_t argument) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (table[1] != 0)
    return; // the launch's first access is the one reported
  table[1] = reinterpret_cast<int64_t>(site);
  table[2] = address;
  table[3] = argument;
}
