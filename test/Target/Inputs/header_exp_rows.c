/* Uses the header kda-compile --emit header writes for exp_rows
 * (header_cpu.py): the kernel's object calls libm. */
#include "exp_rows.h"

#include <math.h>
#include <stdio.h>

int main(void) {
  enum { N = 100 };
  static float x[N], want[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.05f * (float)(i - N / 2);
    want[i] = expf(x[i]);
  }
  char *error = NULL;
  kda_dim3 grid = {(N + 63) / 64, 1, 1};
  if (exp_rows_launch(x, N, grid, 0, &error)) {
    printf("launch failed: %s\n", error);
    kda_free(error);
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < N; ++i)
    bad += fabsf(x[i] - want[i]) > 1e-6f * want[i];
  printf("exp_rows: %d elements, %d mismatches\n", N, bad);
  return bad != 0;
}
