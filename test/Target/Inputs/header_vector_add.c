/* Uses the header kda-compile --emit header writes for kernels/vector_add.py
 * (header_cpu.py). */
#include "vector_add.h"

#include <stdio.h>

int main(void) {
  enum { N = 1000 };
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5f * (float)i;
    y[i] = (float)(N - i);
    out[i] = -1.0f;
  }
  char *error = NULL;
  kda_dim3 grid = {(N + 255) / 256, 1, 1};
  if (vector_add_launch(x, y, out, N, grid, 0, &error)) {
    printf("launch failed: %s\n", error);
    kda_free(error);
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < N; ++i)
    bad += out[i] != x[i] + y[i];
  printf("vector_add: %d elements, %d mismatches\n", N, bad);

  kda_dim3 empty = {0, 1, 1};
  printf("empty grid: %s\n",
         vector_add_launch(x, y, out, N, empty, 1, NULL) ? "failed" : "ok");

  kda_dim3 huge = {0x80000000u, 1, 1};
  if (vector_add_launch(x, y, out, N, huge, 1, &error)) {
    printf("bad grid: %s\n", error);
    kda_free(error);
  }
  return bad != 0;
}
