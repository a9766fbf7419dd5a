//===- HeaderGen.h - C/C++ headers for ahead-of-time users ------*- C++ -*-===//
//
// `kda-compile --emit header` writes one self-describing header per compiled
// kernel: for GPU targets the code object embedded as a byte array and a
// typed `<kernel>_launch(...)` that loads it once (kda_gpu_load) and
// launches it (kda_gpu_launch); for the CPU target the declaration of the
// `<kernel>__kda_cpu` entry point (defined by `--emit obj` / `--emit so` of
// the same kernel) and a typed launcher over kda_cpu_launch.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_TARGET_HEADERGEN_H
#define KDA_TARGET_HEADERGEN_H

#include <string>
#include <vector>

namespace kda {

struct HeaderParam {
  std::string name;
  bool isPointer = false;
  /// Element type of a pointer or the scalar's type: "f32", "bf16", "i32".
  std::string dtype;
};

struct HeaderKernel {
  /// The kernel's symbol (a C identifier).
  std::string kernelName;
  /// "cpu" or a GPU target name ("sm_90a", "gfx950", ...).
  std::string target;
  /// Runtime parameters, in the order the kernel takes them.
  std::vector<HeaderParam> params;
  /// Programs per cluster (x, y, z) of a kernel with kt.cluster_sum: its
  /// grid must be a multiple (the CPU launcher runs each cluster's programs
  /// on threads of their own; GPU code objects carry the shape).
  int32_t clusterShape[3] = {1, 1, 1};
  /// GPU targets: the kernel calls kt.wait_prior_launches, so its launches
  /// pass KDA_LAUNCH_EARLY.
  bool earlyLaunch = false;
  /// For the comment at the top: signature and constexprs as given.
  std::string signature, constexprs, compilerVersion;

  // GPU targets only.
  /// "cuda" or "hip": the kda_gpu_* platform.
  std::string platform;
  /// The code object bytes and what they are: "cubin", "ptx" or "hsaco".
  std::string image, imageKind;
  /// Threads per block (num_warps x wave size) and dynamic shared memory.
  unsigned blockSize = 128;
  unsigned sharedBytes = 0;
};

/// The C type of a scalar of `dtype` ("f32" -> "float", "bf16" ->
/// "uint16_t" holding the bits, "i1" -> "bool"); empty if unknown.
std::string getHeaderCType(const std::string &dtype);

/// The header text. Fails (returns false with `error`) on names that are not
/// C identifiers or unknown dtypes.
bool generateKernelHeader(const HeaderKernel &kernel, std::string &header,
                          std::string &error);

} // namespace kda

#endif // KDA_TARGET_HEADERGEN_H
