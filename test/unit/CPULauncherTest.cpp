//===- CPULauncherTest.cpp - programs of a grid, in clusters --------------===//
#include "kda/Runtime/CPULauncher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace kda;

namespace {

/// What a compiled kernel's entry reads: args[0] -> float *in, args[1] ->
/// float *out, args[2] -> the cluster exchange (TileToCPU.cpp), which takes
/// the value and the number of the kernel's sum.
using Exchange = float (*)(float, int32_t);

/// out[p] = the sum of in over p's cluster (clusters of 4 along y), where p is
/// the linear program id.
void sumOverYQuads(void **args, int32_t x, int32_t y, int32_t z, int32_t nx,
                   int32_t ny, int32_t nz) {
  const float *in = *static_cast<float **>(args[0]);
  float *out = *static_cast<float **>(args[1]);
  Exchange exchange = *static_cast<Exchange *>(args[2]);
  int32_t p = x + nx * (y + ny * z);
  out[p] = exchange(in[p], 0);
}

/// Only even programs sum: a misuse the launcher must report, not hang on.
void sumOnEvenX(void **args, int32_t x, int32_t, int32_t, int32_t, int32_t,
                int32_t) {
  Exchange exchange = *static_cast<Exchange *>(args[2]);
  if (x % 2 == 0)
    (void)exchange(1.0f, 0);
}

/// Every program sums once, but even and odd ones at different sums.
void sumAtDifferentPoints(void **args, int32_t x, int32_t, int32_t, int32_t,
                          int32_t, int32_t) {
  Exchange exchange = *static_cast<Exchange *>(args[2]);
  (void)exchange(1.0f, x % 2);
}

class ClustersSumInRankOrder : public ::testing::TestWithParam<int32_t> {};

/// With every thread budget: one group of 4 threads (budget 1 or 4), or
/// several groups running clusters at once (8, 12: 2 and 3 groups).
TEST_P(ClustersSumInRankOrder, AtEveryThreadBudget) {
  // Values whose fp32 sum depends on the order: ((1e8 + 1) - 1e8) + 1 = 1
  // in rank order, 2 or 0 in others.
  const int32_t grid[3] = {3, 8, 2}, cluster[3] = {1, 4, 1};
  const float pattern[4] = {1e8f, 1.0f, -1e8f, 1.0f};
  std::vector<float> in(48), out(48, -1.0f);
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 3; ++x)
        in[x + 3 * (y + 8 * z)] = pattern[y % 4] * float(x + 1);
  float *inPtr = in.data(), *outPtr = out.data();
  void *args[] = {&inPtr, &outPtr};
  std::string error;
  ASSERT_TRUE(launchCPUKernelInClusters(sumOverYQuads, grid, cluster, args, 2,
                                        GetParam(), error))
      << error;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 3; ++x) {
        float want = 0.0f;
        for (int r = 0; r < 4; ++r)
          want = r == 0 ? pattern[0] * float(x + 1)
                        : want + pattern[r] * float(x + 1);
        EXPECT_EQ(out[x + 3 * (y + 8 * z)], want) << x << " " << y << " " << z;
      }
}

INSTANTIATE_TEST_SUITE_P(CPULauncher, ClustersSumInRankOrder,
                         ::testing::Values(1, 4, 8, 12, 0));

TEST(CPULauncher, SumsAtDifferentPointsFail) {
  const int32_t grid[3] = {4, 1, 1}, cluster[3] = {2, 1, 1};
  float *none = nullptr;
  void *args[] = {&none, &none};
  std::string error;
  EXPECT_FALSE(launchCPUKernelInClusters(sumAtDifferentPoints, grid, cluster,
                                         args, 2, 0, error));
  EXPECT_NE(error.find("or different ones"), std::string::npos) << error;
}

TEST(CPULauncher, GridMustDivideIntoClusters) {
  const int32_t grid[3] = {3, 3, 1}, cluster[3] = {1, 2, 1};
  float *none = nullptr;
  void *args[] = {&none, &none};
  std::string error;
  EXPECT_FALSE(launchCPUKernelInClusters(sumOverYQuads, grid, cluster, args, 2,
                                         0, error));
  EXPECT_NE(error.find("grid (3, 3, 1) is not a multiple of the cluster shape "
                       "(1, 2, 1)"),
            std::string::npos)
      << error;
}

TEST(CPULauncher, UnevenSumsFailInsteadOfHanging) {
  const int32_t grid[3] = {4, 3, 1}, cluster[3] = {2, 1, 1};
  float *none = nullptr;
  void *args[] = {&none, &none};
  std::string error;
  EXPECT_FALSE(
      launchCPUKernelInClusters(sumOnEvenX, grid, cluster, args, 2, 4, error));
  // (A budget of 4 threads runs the six clusters in two groups at once.)
  EXPECT_NE(error.find("different numbers of cluster sums"), std::string::npos)
      << error;
}

} // namespace
