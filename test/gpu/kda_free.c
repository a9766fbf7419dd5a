/* kda_free for the LLVM-free GPU runtime library test/gpu builds
 * (lib/CAPI/CAPIGPU.cpp + lib/Runtime); libkda.so defines it in CAPI.cpp. */
#include <stdlib.h>
void kda_free(void *ptr) { free(ptr); }
