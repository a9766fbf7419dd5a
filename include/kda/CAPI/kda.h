/*===- kda.h - C API of the kdatile compiler and runtime ----------*- C -*-===*\
|*                                                                            *|
|* libkda.so exposes this API to Python (ctypes) and to ahead-of-time users.  *|
|* Requests and responses are JSON text so the API can grow without breaking  *|
|* its ABI. Every returned string is owned by the caller: free it with        *|
|* kda_free.                                                                  *|
\*===----------------------------------------------------------------------===*/
#ifndef KDA_CAPI_KDA_H
#define KDA_CAPI_KDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compiler build id: version, git revision and LLVM version. Part of
 * every cache key. Static storage; do not free. */
const char *kda_version(void);

/* The DSL's builtins as a JSON array, one object per builtin: "name",
 * "spelling" ("kt.load"), "kind" (function, method, python), "signature",
 * "params" ([{"name", "default"}]), "variadic", "tile_method", "summary",
 * "semantics", "example", "targets". Static storage; do not free. */
const char *kda_builtins(void);

/* Compiles one kernel. `request` is a JSON object:
 *   "source":       full text of the DSL file (string, required)
 *   "filename":     path shown in diagnostics (string, required)
 *   "line_offset":  added to reported line numbers (int, default 0)
 *   "kernel":       name of the @kt.jit function (string, required)
 *   "target":       "cpu" (string, default "cpu")
 *   "cpu":          CPU target: the CPU to compile for, "host" (default) or
 *                   an LLVM CPU name such as "x86-64-v2" (string)
 *   "cpu_features": CPU target: features added or removed, "+avx2,-f16c"
 *                   (string; with "host", on top of the host's)
 *   "signature":    runtime parameters, e.g. "x=*f32,n=i32:16" (string)
 *   "constexprs":   {"BLOCK": 128, "EPS": 1e-5, "FLAG": true, "DT": "bf16"};
 *                   {"X": {"float": 16.0}} is the float 16.0 (a bare 16.0 is
 *                   read as the int 16, as JSON does not tell them apart)
 *   "search_paths": directories for `import mod` (array of strings)
 *   "stdlib_dir":   directory holding stdlib.py (string)
 *   "emit":         "tile" | "mlir" | "llvm" | "asm" | "obj" | "so" |
 *                   "gpu" | "hsaco" | "ptx" | "cubin" | "header"
 *   "num_warps":    GPU targets: warps (waves) per block (int, default 4)
 *   "line_info":    GPU targets: source lines in the code object (bool,
 *                   default true)
 *   "check_bounds": CPU target: every global-memory access checked against
 *                   the extents the launcher passes (bool, default false;
 *                   see kda_cpu_report_out_of_bounds)
 *   "output":       path to write the result to (string, required for
 *                   "obj" and "so"; text results are returned inline)
 * On success returns 0 and *response is
 *   {"ok": true, "entry": "<symbol of the CPU entry point>",
 *    "params": [{"name": "x", "kind": "pointer", "dtype": "f32",
 *                "written": <whether the kernel may store through it>}, ...],
 *    "text": "<IR or assembly, for text emits>", "seconds": 0.05,
 *    "shared_bytes": <dynamic shared memory a GPU launch must provide>,
 *    "cluster_shape": [x, y, z] (programs per cluster; [1, 1, 1] unless the
 *                     kernel uses kt.cluster_sum),
 *    "early_launch": <whether a GPU launch may start before the previous
 *                    kernel on its stream ends: the kernel calls
 *                    kt.wait_prior_launches; launch it with
 *                    KDA_LAUNCH_EARLY>,
 *    "cpu": "<CPU compiled for>", "cpu_features": "<features the code may
 *           use, comma-separated; also exported by the shared object as
 *           <kernel>__kda_cpu_features>" (CPU target only)}
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

/* The CPU target a "cpu"/"cpu_features" pair of a request names (NULL: the
 * host). *response is {"ok": true, "cpu": "znver4", "cpu_features":
 * "avx,avx2,..."} (cpu_features as in kda_compile's response) or
 * {"ok": false, "error": "..."} for unknown names. */
int kda_cpu_target(const char *cpu, const char *cpu_features, char **response);

/* What a kernel compiled with "check_bounds" calls (through the first word of
 * its bounds table, read after the runtime arguments) when an access leaves
 * the arrays it may reach: records the first such access of a launch in the
 * table (words 1-3: the access's "file:line:col: kt.load" text, its byte
 * address, and the runtime argument it derives from, -1 when several may).
 * Words 4 + 2i and 5 + 2i hold argument i's extent [begin, end). */
void kda_cpu_report_out_of_bounds(int64_t *table, const char *site,
                                  int64_t address, int32_t argument);

/* The features of a "cpu_features" list that this machine's CPU lacks,
 * comma-separated ("" when code compiled with that list runs here). Free
 * the result with kda_free. */
char *kda_missing_cpu_features(const char *cpu_features);

/* Runs a compiled CPU kernel over the grid gx*gy*gz, spreading programs over
 * up to `num_threads` threads (0: one per hardware thread, used only when
 * the grid is large enough to pay for it). Returns 0, or non-zero with a
 * message in *error. */
int kda_cpu_launch(void *entry, int32_t gx, int32_t gy, int32_t gz, void **args,
                   int32_t num_threads, char **error);

/* kda_cpu_launch for a kernel whose compile result has a cluster shape
 * (cx, cy, cz) other than 1x1x1: the grid must be a multiple of it, and the
 * kernel's `num_args` arguments are followed by the cluster exchange the
 * launcher provides. `num_args` counts the runtime arguments and, for a
 * kernel compiled with "check_bounds", the bounds table after them. A
 * cluster's programs run on threads of their own. */
int kda_cpu_launch_in_clusters(void *entry, int32_t gx, int32_t gy, int32_t gz,
                               int32_t cx, int32_t cy, int32_t cz, void **args,
                               int32_t num_args, int32_t num_threads,
                               char **error);

/* ---- GPU runtime --------------------------------------------------------
 * `platform` is "cuda" (CUDA driver API, libcuda.so.1) or "hip" (HIP module
 * API, libamdhip64.so). Both libraries are opened with dlopen on first use:
 * libkda does not depend on them, and without them these functions fail
 * with a message ("libcuda.so.1 not found: ..."). Errors come back in
 * *error (plain text, free with kda_free) and a non-zero return. */

/* Grid or block dimensions. */
typedef struct kda_dim3 {
  uint32_t x, y, z;
} kda_dim3;

/* Loads a code object (CUDA: cubin, fat binary or PTX text, which the driver
 * JIT-compiles; HIP: HSACO) and returns its kernel `kernel_name` in
 * *function (a CUfunction / hipFunction_t). CUDA loads into the calling
 * thread's current context (PyTorch's), else device 0's primary context;
 * HIP into the current device. Each call loads a new module: caching
 * functions per image and device is the caller's business. */
int kda_gpu_load(const char *platform, const void *image, size_t size,
                 const char *kernel_name, void **function, char **error);

/* Unloads the module behind a function kda_gpu_load returned. */
int kda_gpu_unload(const char *platform, void *function, char **error);

/* Launches `function` on `stream` (a CUstream / hipStream_t; NULL: the
 * default stream) over grid gx*gy*gz with blocks of bx*by*bz threads and
 * `shared_bytes` of dynamic shared memory (CUDA: above 48 KiB the kernel is
 * opted in first). args[i] points to the value of the i-th kernel
 * parameter, as for cuLaunchKernel: a device pointer is passed as the
 * address of a `void *` holding it. */
int kda_gpu_launch(const char *platform, void *function, uint32_t gx,
                   uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
                   uint32_t bz, uint32_t shared_bytes, void *stream,
                   void **args, char **error);

/* A launch flag for kernels whose compile result has "early_launch": the
 * launch may start before the previous kernel on the stream ends (CUDA:
 * programmatic stream serialization; the kernel's kt.wait_prior_launches
 * waits for it). HIP launches ignore it. Never set it for other kernels:
 * they would read the previous kernel's unfinished writes. */
#define KDA_LAUNCH_EARLY 1u

/* kda_gpu_launch with `flags`, 0 or KDA_LAUNCH_EARLY; other bits are an
 * error. Where the driver lacks cuLaunchKernelEx an early launch runs in
 * order (the kernel's wait then returns at once). */
int kda_gpu_launch_ex(const char *platform, void *function, uint32_t gx,
                      uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
                      uint32_t bz, uint32_t shared_bytes, void *stream,
                      uint32_t flags, void **args, char **error);

/* Builds the 128-byte tensor map (CUtensorMap, at 128-byte aligned
 * `tensor_map`) a kernel's "tensor_map" parameter takes: `recipe` (its
 * `recipe` tokens, see kda/Runtime/TensorMap.h) evaluated on the launch's
 * `args` (each kernel parameter before the tensor maps, in order: pointers as
 * addresses, integers as themselves, anything else 0). On failure *error
 * says what is wrong and *base_arg (when not null) is the index of the
 * tensor's pointer argument. CUDA only. */
int kda_gpu_encode_tensor_map(const int64_t *recipe, size_t recipe_size,
                              const int64_t *args, size_t num_args,
                              void *tensor_map, int64_t *base_arg,
                              char **error);

/* Whether `stream` is being captured into a graph: *capturing is 0 (no),
 * 1 (active) or 2 (invalidated capture). */
int kda_gpu_is_capturing(const char *platform, void *stream, int *capturing,
                         char **error);

void kda_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* KDA_CAPI_KDA_H */
