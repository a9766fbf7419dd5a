//===- CUDALoader.cpp - the CUDA driver API, opened at first use ----------===//
//
// Only the handful of driver entry points kdatile needs, declared here with
// the driver's C types (no CUDA headers are needed to build). Every entry
// point is resolved once, when libcuda.so.1 is first opened.
//
//===----------------------------------------------------------------------===//
#include "kda/Runtime/CUDALoader.h"
#include "kda/Runtime/TensorMap.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

using namespace kda;

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

/// CUlaunchAttribute: an id, padding to 8 bytes and a 64-byte value union
/// (programmaticStreamSerializationAllowed is its first int).
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "the driver's layout");

/// CUlaunchConfig.
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
/// Without opting in, a block may use at most 48 KiB of shared memory.
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamIsCapturing)(CUstream, int *);
  /// CUDA 11.8 and later; resolved at first use (only early launches need
  /// it).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                               void **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  /// CUDA 12 and later; resolved at first use (older drivers launch all
  /// else).
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);

  /// Empty once the driver is usable; the reason otherwise.
  std::string failure;

  std::mutex mutex;
  /// The module of every function loadKernel returned.
  std::map<CUfunction, CUmodule> modules;
  /// Dynamic shared memory each function was opted into.
  std::map<CUfunction, uint32_t> sharedLimits;
};

std::string describe(Driver &d, const char *call, CUresult rc) {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(rc, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(rc, &text);
  std::string message = std::string(call) + " failed: ";
  message += name ? name : "CUDA error";
  message += " (" + std::to_string(rc) + ")";
  if (text)
    message += std::string(": ") + text;
  return message;
}

template <typename F>
bool resolve(void *handle, const char *symbol, F &fn, std::string &failure) {
  fn = reinterpret_cast<F>(dlsym(handle, symbol));
  if (fn)
    return true;
  if (failure.empty())
    failure = std::string("libcuda.so.1 has no ") + symbol +
              " (the NVIDIA driver is too old)";
  return false;
}

Driver &driver() {
  static Driver *d = [] {
    auto *d = new Driver();
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      d->failure = std::string("libcuda.so.1 not found: ") +
                   (why ? why : "dlopen failed") +
                   " (CUDA launches need the NVIDIA driver)";
      return d;
    }
    std::string &f = d->failure;
    resolve(handle, "cuGetErrorString", d->cuGetErrorString, f);
    resolve(handle, "cuGetErrorName", d->cuGetErrorName, f);
    resolve(handle, "cuInit", d->cuInit, f);
    resolve(handle, "cuDeviceGet", d->cuDeviceGet, f);
    resolve(handle, "cuCtxGetCurrent", d->cuCtxGetCurrent, f);
    resolve(handle, "cuCtxSetCurrent", d->cuCtxSetCurrent, f);
    resolve(handle, "cuCtxGetDevice", d->cuCtxGetDevice, f);
    resolve(handle, "cuDevicePrimaryCtxRetain", d->cuDevicePrimaryCtxRetain, f);
    resolve(handle, "cuModuleLoadData", d->cuModuleLoadData, f);
    resolve(handle, "cuModuleGetFunction", d->cuModuleGetFunction, f);
    resolve(handle, "cuModuleUnload", d->cuModuleUnload, f);
    resolve(handle, "cuFuncSetAttribute", d->cuFuncSetAttribute, f);
    resolve(handle, "cuLaunchKernel", d->cuLaunchKernel, f);
    resolve(handle, "cuStreamIsCapturing", d->cuStreamIsCapturing, f);
    d->cuLaunchKernelEx = reinterpret_cast<decltype(d->cuLaunchKernelEx)>(
        dlsym(handle, "cuLaunchKernelEx"));
    d->cuTensorMapEncodeTiled =
        reinterpret_cast<decltype(d->cuTensorMapEncodeTiled)>(
            dlsym(handle, "cuTensorMapEncodeTiled"));
    if (!f.empty())
      return d;
    if (CUresult rc = d->cuInit(0); rc != CUDA_SUCCESS)
      f = describe(*d, "cuInit", rc);
    return d;
  }();
  return *d;
}

/// The driver, or null with `error` set when it cannot be used.
Driver *getDriver(std::string &error) {
  Driver &d = driver();
  if (!d.failure.empty()) {
    error = d.failure;
    return nullptr;
  }
  return &d;
}

/// Makes sure the calling thread has a current context: the one it has
/// (PyTorch's), else device 0's primary context.
bool ensureContext(Driver &d, std::string &error) {
  CUcontext ctx = nullptr;
  if (CUresult rc = d.cuCtxGetCurrent(&ctx); rc != CUDA_SUCCESS) {
    error = describe(d, "cuCtxGetCurrent", rc);
    return false;
  }
  if (ctx)
    return true;
  CUdevice device = 0;
  if (CUresult rc = d.cuDeviceGet(&device, 0); rc != CUDA_SUCCESS) {
    error = describe(d, "cuDeviceGet", rc);
    return false;
  }
  if (CUresult rc = d.cuDevicePrimaryCtxRetain(&ctx, device);
      rc != CUDA_SUCCESS) {
    error = describe(d, "cuDevicePrimaryCtxRetain", rc);
    return false;
  }
  if (CUresult rc = d.cuCtxSetCurrent(ctx); rc != CUDA_SUCCESS) {
    error = describe(d, "cuCtxSetCurrent", rc);
    return false;
  }
  return true;
}
} // namespace

bool cuda::isAvailable(std::string &error) {
  return getDriver(error) != nullptr;
}

bool cuda::getCurrentDevice(int &device, std::string &error) {
  Driver *d = getDriver(error);
  if (!d || !ensureContext(*d, error))
    return false;
  if (CUresult rc = d->cuCtxGetDevice(&device); rc != CUDA_SUCCESS) {
    error = describe(*d, "cuCtxGetDevice", rc);
    return false;
  }
  return true;
}

bool cuda::loadKernel(const void *image, size_t size, const char *name,
                      void **function, std::string &error) {
  if (!image || size == 0 || !name || !function) {
    error = "cuda: loadKernel needs an image, its size, a kernel name and "
            "somewhere to put the function";
    return false;
  }
  Driver *d = getDriver(error);
  if (!d || !ensureContext(*d, error))
    return false;
  // PTX is text the driver reads up to its NUL.
  std::string text;
  if (isTextImage(image, size)) {
    text.assign(static_cast<const char *>(image), size);
    image = text.c_str();
  }
  CUmodule module = nullptr;
  if (CUresult rc = d->cuModuleLoadData(&module, image); rc != CUDA_SUCCESS) {
    error = describe(*d, "cuModuleLoadData", rc);
    return false;
  }
  CUfunction fn = nullptr;
  if (CUresult rc = d->cuModuleGetFunction(&fn, module, name);
      rc != CUDA_SUCCESS) {
    error =
        describe(*d, "cuModuleGetFunction", rc) + " (kernel '" + name + "')";
    d->cuModuleUnload(module);
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(d->mutex);
    d->modules[fn] = module;
  }
  *function = fn;
  return true;
}

bool cuda::launchKernel(void *function, const GPULaunchConfig &c, void **args,
                        std::string &error) {
  if (!function) {
    error = "cuda: launch of a null function";
    return false;
  }
  Driver *d = getDriver(error);
  if (!d || !ensureContext(*d, error))
    return false;
  if (c.sharedBytes > kDefaultSharedLimit) {
    std::lock_guard<std::mutex> lock(d->mutex);
    uint32_t &limit = d->sharedLimits[function];
    if (limit < c.sharedBytes) {
      if (CUresult rc = d->cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(c.sharedBytes));
          rc != CUDA_SUCCESS) {
        error = describe(*d, "cuFuncSetAttribute", rc) + " (" +
                std::to_string(c.sharedBytes) +
                " bytes of dynamic shared memory)";
        return false;
      }
      limit = c.sharedBytes;
    }
  }
  CUresult rc = CUDA_SUCCESS;
  const char *call = "cuLaunchKernel";
  if (c.earlyLaunch && d->cuLaunchKernelEx) {
    // The kernel waits for the previous one itself (griddepcontrol.wait).
    CUlaunchAttribute early = {};
    early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    early.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {c.grid[0],  c.grid[1],  c.grid[2],     c.block[0],
                             c.block[1], c.block[2], c.sharedBytes, c.stream,
                             &early,     1};
    call = "cuLaunchKernelEx";
    rc = d->cuLaunchKernelEx(&config, function, args, nullptr);
  } else {
    rc = d->cuLaunchKernel(function, c.grid[0], c.grid[1], c.grid[2],
                           c.block[0], c.block[1], c.block[2], c.sharedBytes,
                           c.stream, args, nullptr);
  }
  if (rc != CUDA_SUCCESS) {
    error = describe(*d, call, rc) + " (grid " + std::to_string(c.grid[0]) +
            "x" + std::to_string(c.grid[1]) + "x" + std::to_string(c.grid[2]) +
            ", block " + std::to_string(c.block[0]) + "x" +
            std::to_string(c.block[1]) + "x" + std::to_string(c.block[2]) +
            ", " + std::to_string(c.sharedBytes) + " bytes of shared memory)";
    return false;
  }
  return true;
}

bool cuda::getCaptureStatus(void *stream, GPUCaptureStatus &status,
                            std::string &error) {
  Driver *d = getDriver(error);
  if (!d || !ensureContext(*d, error))
    return false;
  int value = 0;
  if (CUresult rc = d->cuStreamIsCapturing(stream, &value);
      rc != CUDA_SUCCESS) {
    error = describe(*d, "cuStreamIsCapturing", rc);
    return false;
  }
  status = static_cast<GPUCaptureStatus>(value);
  return true;
}

bool cuda::unloadKernel(void *function, std::string &error) {
  Driver *d = getDriver(error);
  if (!d)
    return false;
  CUmodule module = nullptr;
  {
    std::lock_guard<std::mutex> lock(d->mutex);
    auto it = d->modules.find(function);
    if (it == d->modules.end()) {
      error = "cuda: unloadKernel of a function loadKernel did not return";
      return false;
    }
    module = it->second;
    d->modules.erase(it);
    d->sharedLimits.erase(function);
  }
  if (CUresult rc = d->cuModuleUnload(module); rc != CUDA_SUCCESS) {
    error = describe(*d, "cuModuleUnload", rc);
    return false;
  }
  return true;
}

bool cuda::encodeTensorMap(const tma::TensorMapRequest &r, void *tensorMap,
                           std::string &error) {
  Driver *d = getDriver(error);
  if (!d)
    return false;
  if (!d->cuTensorMapEncodeTiled) {
    error = "libcuda.so.1 has no cuTensorMapEncodeTiled (the NVIDIA driver is "
            "too old for tensor memory accelerator copies)";
    return false;
  }
  // The driver numbers dimensions innermost first; strides in bytes, without
  // the innermost. Copies need only the element size (unsigned types), zeros
  // outside the tensor (no fill), the recipe's swizzle (CU_TENSOR_MAP_SWIZZLE
  // none, 32B, 64B, 128B are 0 to 3), 128-byte L2 promotion.
  constexpr int kUnsignedOfBytes[9] = {-1, 0, 1, -1, 2, -1, -1, -1, 4};
  constexpr int kL2Promotion128B = 2;
  uint64_t dims[tma::kMaxRank], strides[tma::kMaxRank];
  uint32_t box[tma::kMaxRank], elementStrides[tma::kMaxRank];
  for (int64_t i = 0; i < r.rank; ++i) {
    int64_t d = r.rank - 1 - i;
    dims[i] = uint64_t(r.shape[d]);
    box[i] = uint32_t(r.block[d]);
    elementStrides[i] = 1;
    if (i > 0)
      strides[i - 1] = uint64_t(r.strides[d] * r.elementBytes);
  }
  if (CUresult rc = d->cuTensorMapEncodeTiled(
          tensorMap, kUnsignedOfBytes[r.elementBytes], uint32_t(r.rank),
          reinterpret_cast<void *>(r.base), dims, strides, box, elementStrides,
          /*interleave=*/0,
          r.swizzleBytes == 128  ? 3
          : r.swizzleBytes == 64 ? 2
          : r.swizzleBytes == 32 ? 1
                                 : 0,
          kL2Promotion128B, /*oobFill=*/0);
      rc != CUDA_SUCCESS) {
    error = describe(*d, "cuTensorMapEncodeTiled", rc);
    return false;
  }
  return true;
}
