/* The generated header of test/gpu/Inputs/smoke_add.mlir (prepare.py writes
 * it with --emit header --num-warps 8) on a real GPU: allocate with the
 * driver API (dlopen, no CUDA headers), launch through smoke_add_launch, and
 * check out = x + alpha * y. Prints "header_smoke: ok" or what failed. */
#include "smoke_add.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

typedef int (*MemAlloc)(unsigned long long *, size_t);
typedef int (*Memcpy)(void *, const void *, size_t);
typedef int (*MemcpyHtoD)(unsigned long long, const void *, size_t);
typedef int (*MemcpyDtoH)(void *, unsigned long long, size_t);
typedef int (*Sync)(void);

int main(void) {
  enum { N = 1000 };
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  /* The header itself must fail cleanly without a driver. */
  char *error = NULL;
  void *function = NULL;
  if (smoke_add_function(&function, &error)) {
    printf("header_smoke: load failed: %s\n", error);
    kda_free(error);
    return cuda ? 1 : 0;
  }
  MemAlloc alloc = (MemAlloc)dlsym(cuda, "cuMemAlloc_v2");
  MemcpyHtoD h2d = (MemcpyHtoD)dlsym(cuda, "cuMemcpyHtoD_v2");
  MemcpyDtoH d2h = (MemcpyDtoH)dlsym(cuda, "cuMemcpyDtoH_v2");
  Sync sync = (Sync)dlsym(cuda, "cuCtxSynchronize");
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.25f;
    y[i] = (float)(i % 7) - 3.0f;
  }
  unsigned long long dx, dy, dout;
  if (alloc(&dx, sizeof x) || alloc(&dy, sizeof y) || alloc(&dout, sizeof out) ||
      h2d(dx, x, sizeof x) || h2d(dy, y, sizeof y)) {
    printf("header_smoke: allocation failed\n");
    return 1;
  }
  kda_dim3 grid = {(N + SMOKE_ADD_BLOCK_SIZE - 1) / SMOKE_ADD_BLOCK_SIZE, 1, 1};
  if (smoke_add_launch((float *)(uintptr_t)dx, (float *)(uintptr_t)dy,
                       (float *)(uintptr_t)dout, N, 2.0f, grid, NULL, &error)) {
    printf("header_smoke: launch failed: %s\n", error);
    kda_free(error);
    return 1;
  }
  if (sync() || d2h(out, dout, sizeof out)) {
    printf("header_smoke: synchronize/copy failed\n");
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < N; ++i)
    bad += fabsf(out[i] - (x[i] + 2.0f * y[i])) > 1e-6f;
  /* An error from the driver comes back as text. */
  kda_dim3 too_big = {1, 1u << 20, 1};
  int rc = smoke_add_launch((float *)(uintptr_t)dx, (float *)(uintptr_t)dy,
                            (float *)(uintptr_t)dout, N, 2.0f, too_big, NULL, &error);
  printf("header_smoke: %s (%d mismatches); bad grid: %s\n", bad ? "FAILED" : "ok", bad,
         rc ? error : "no error?!");
  if (rc)
    kda_free(error);
  return bad != 0 || rc == 0;
}
