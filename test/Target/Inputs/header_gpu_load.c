/* Included after a `--emit header` header of a kernel `k` taking (float *x,
 * int32_t n) (header_gpu_*.mlir, via -include): loads and launches it, or
 * prints why it cannot (no GPU driver on the build machine). */
#include <stdio.h>

int main(void) {
  char *error = NULL;
  kda_dim3 grid = {1, 1, 1};
  if (k_launch(NULL, 0, grid, NULL, &error)) {
    printf("k_launch failed: %s\n", error);
    kda_free(error);
    return 0;
  }
  printf("k_launch: ok\n");
  return 0;
}
