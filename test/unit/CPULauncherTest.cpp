//===- CPULauncherTest.cpp - programs of a grid, in clusters --------------===//
#include "kda/Runtime/CPULauncher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace kda;

namespace {

/// What a compiled kernel's entry reads: args[0] -> float *in, args[1] ->
/// float *out, args[2] -> the cluster exchange (TileToCPU.cpp).
using Exchange = float (*)(float);

/// out[p] = the sum of in over p's cluster (clusters of 2 along y), where p is
/// the linear program id.
void sumOverYPairs(void **args, int32_t x, int32_t y, int32_t z, int32_t nx,
                   int32_t ny, int32_t nz) {
  const float *in = *static_cast<float **>(args[0]);
  float *out = *static_cast<float **>(args[1]);
  Exchange exchange = *static_cast<Exchange *>(args[2]);
  int32_t p = x + nx * (y + ny * z);
  out[p] = exchange(in[p]);
}

/// Only even programs sum: a misuse the launcher must report, not hang on.
void sumOnEvenX(void **args, int32_t x, int32_t, int32_t, int32_t, int32_t,
                int32_t) {
  Exchange exchange = *static_cast<Exchange *>(args[2]);
  if (x % 2 == 0)
    (void)exchange(1.0f);
}

TEST(CPULauncher, ClustersSumInRankOrder) {
  const int32_t grid[3] = {3, 4, 2}, cluster[3] = {1, 2, 1};
  std::vector<float> in(24), out(24, -1.0f);
  for (int i = 0; i < 24; ++i)
    in[i] = 0.25f * float(i) + 1e-7f * float(i * i);
  float *inPtr = in.data(), *outPtr = out.data();
  void *args[] = {&inPtr, &outPtr};
  std::string error;
  ASSERT_TRUE(launchCPUKernelInClusters(sumOverYPairs, grid, cluster, args, 2,
                                        0, error))
      << error;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 3; ++x) {
        int y0 = y & ~1;
        float want = in[x + 3 * (y0 + 4 * z)] + in[x + 3 * (y0 + 1 + 4 * z)];
        EXPECT_EQ(out[x + 3 * (y + 4 * z)], want) << x << " " << y << " " << z;
      }
}

TEST(CPULauncher, GridMustDivideIntoClusters) {
  const int32_t grid[3] = {3, 3, 1}, cluster[3] = {1, 2, 1};
  float *none = nullptr;
  void *args[] = {&none, &none};
  std::string error;
  EXPECT_FALSE(launchCPUKernelInClusters(sumOverYPairs, grid, cluster, args, 2,
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
      launchCPUKernelInClusters(sumOnEvenX, grid, cluster, args, 2, 0, error));
  EXPECT_NE(error.find("different numbers of cluster sums"), std::string::npos)
      << error;
}

} // namespace
