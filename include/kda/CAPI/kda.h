/*===- kda.h - C API of the kdatile compiler and runtime ----------*- C -*-===*\
|*                                                                            *|
|* libkda.so exposes this API to Python (ctypes) and to ahead-of-time users.  *|
|* Requests and responses are JSON text so the API can grow without breaking  *|
|* its ABI. Every returned string is owned by the caller: free it with        *|
|* kda_free.                                                                  *|
\*===----------------------------------------------------------------------===*/
#ifndef KDA_CAPI_KDA_H
#define KDA_CAPI_KDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compiler build id: version, git revision and LLVM version. Part of
 * every cache key. Static storage; do not free. */
const char *kda_version(void);

/* Compiles one kernel. `request` is a JSON object:
 *   "source":       full text of the DSL file (string, required)
 *   "filename":     path shown in diagnostics (string, required)
 *   "line_offset":  added to reported line numbers (int, default 0)
 *   "kernel":       name of the @kt.jit function (string, required)
 *   "target":       "cpu" (string, default "cpu")
 *   "signature":    runtime parameters, e.g. "x=*f32,n=i32:16" (string)
 *   "constexprs":   {"BLOCK": 128, "EPS": 1e-5, "FLAG": true, "DT": "bf16"}
 *   "search_paths": directories for `import mod` (array of strings)
 *   "stdlib_dir":   directory holding stdlib.py (string)
 *   "emit":         "tile" | "mlir" | "llvm" | "asm" | "obj" | "so"
 *   "output":       path to write the result to (string, required for
 *                   "obj" and "so"; text results are returned inline)
 * On success returns 0 and *response is
 *   {"ok": true, "entry": "<symbol of the CPU entry point>",
 *    "params": [{"name": "x", "kind": "pointer", "dtype": "f32"}, ...],
 *    "text": "<IR or assembly, for text emits>", "seconds": 0.05}
 * On failure returns non-zero and *response is
 *   {"ok": false, "error": "file:line:col: error: ...\n<line>\n   ^\n"}
 *
 * The CPU entry point has the C signature
 *   void entry(void **args, int32_t pid_x, int32_t pid_y, int32_t pid_z,
 *              int32_t num_x, int32_t num_y, int32_t num_z);
 * where args[i] points to the value of the i-th runtime parameter (a
 * `void *` for pointers, an int32_t/int64_t/float for scalars). */
int kda_compile(const char *request, char **response);

/* The DSL files a kernel may read, for cache keys; same request fields as
 * kda_compile (emit/output ignored). *response is
 *   {"ok": true, "files": ["/abs/path/file.py", ...]} or {"ok": false, ...} */
int kda_dependencies(const char *request, char **response);

/* Runs a compiled CPU kernel over the grid gx*gy*gz, spreading programs over
 * up to `num_threads` threads (0: one per hardware thread, used only when
 * the grid is large enough to pay for it). Returns 0, or non-zero with a
 * message in *error. */
int kda_cpu_launch(void *entry, int32_t gx, int32_t gy, int32_t gz,
                   void **args, int32_t num_threads, char **error);

void kda_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* KDA_CAPI_KDA_H */
