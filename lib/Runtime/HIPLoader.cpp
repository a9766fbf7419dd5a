//===- HIPLoader.cpp - the HIP module API, opened at first use ------------===//
//
// The HIP entry points kdatile needs, declared with HIP's C types (no ROCm
// headers are needed to build), resolved once when libamdhip64.so is first
// opened.
//
//===----------------------------------------------------------------------===//
#include "kda/Runtime/HIPLoader.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

using namespace kda;

namespace {
using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;

constexpr hipError_t hipSuccess = 0;

struct Runtime {
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDevice)(int *);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipStreamIsCapturing)(hipStream_t, int *);
  const char *(*hipGetErrorString)(hipError_t);
  const char *(*hipGetErrorName)(hipError_t);

  std::string failure;
  std::mutex mutex;
  std::map<hipFunction_t, hipModule_t> modules;
};

std::string describe(Runtime &r, const char *call, hipError_t rc) {
  const char *name = r.hipGetErrorName ? r.hipGetErrorName(rc) : nullptr;
  const char *text = r.hipGetErrorString ? r.hipGetErrorString(rc) : nullptr;
  std::string message = std::string(call) + " failed: ";
  message += name ? name : "HIP error";
  message += " (" + std::to_string(rc) + ")";
  if (text)
    message += std::string(": ") + text;
  return message;
}

template <typename F>
void resolve(void *handle, const char *symbol, F &fn, std::string &failure) {
  fn = reinterpret_cast<F>(dlsym(handle, symbol));
  if (!fn && failure.empty())
    failure = std::string("libamdhip64.so has no ") + symbol +
              " (the ROCm runtime is too old)";
}

Runtime &runtime() {
  static Runtime *r = [] {
    auto *r = new Runtime();
    void *handle = nullptr;
    std::string why;
    for (const char *name :
         {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      if (why.empty()) {
        const char *e = dlerror();
        why = e ? e : "dlopen failed";
      }
    }
    if (!handle) {
      r->failure = "libamdhip64.so not found: " + why +
                   " (HIP launches need the ROCm runtime)";
      return r;
    }
    std::string &f = r->failure;
    resolve(handle, "hipGetErrorString", r->hipGetErrorString, f);
    resolve(handle, "hipGetErrorName", r->hipGetErrorName, f);
    resolve(handle, "hipInit", r->hipInit, f);
    resolve(handle, "hipGetDevice", r->hipGetDevice, f);
    resolve(handle, "hipModuleLoadData", r->hipModuleLoadData, f);
    resolve(handle, "hipModuleGetFunction", r->hipModuleGetFunction, f);
    resolve(handle, "hipModuleUnload", r->hipModuleUnload, f);
    resolve(handle, "hipModuleLaunchKernel", r->hipModuleLaunchKernel, f);
    resolve(handle, "hipStreamIsCapturing", r->hipStreamIsCapturing, f);
    if (!f.empty())
      return r;
    if (hipError_t rc = r->hipInit(0); rc != hipSuccess)
      f = describe(*r, "hipInit", rc);
    return r;
  }();
  return *r;
}

Runtime *getRuntime(std::string &error) {
  Runtime &r = runtime();
  if (!r.failure.empty()) {
    error = r.failure;
    return nullptr;
  }
  return &r;
}
} // namespace

bool hip::isAvailable(std::string &error) {
  return getRuntime(error) != nullptr;
}

bool hip::getCurrentDevice(int &device, std::string &error) {
  Runtime *r = getRuntime(error);
  if (!r)
    return false;
  if (hipError_t rc = r->hipGetDevice(&device); rc != hipSuccess) {
    error = describe(*r, "hipGetDevice", rc);
    return false;
  }
  return true;
}

bool hip::loadKernel(const void *image, size_t size, const char *name,
                     void **function, std::string &error) {
  if (!image || size == 0 || !name || !function) {
    error = "hip: loadKernel needs an image, its size, a kernel name and "
            "somewhere to put the function";
    return false;
  }
  Runtime *r = getRuntime(error);
  if (!r)
    return false;
  hipModule_t module = nullptr;
  if (hipError_t rc = r->hipModuleLoadData(&module, image); rc != hipSuccess) {
    error = describe(*r, "hipModuleLoadData", rc);
    return false;
  }
  hipFunction_t fn = nullptr;
  if (hipError_t rc = r->hipModuleGetFunction(&fn, module, name);
      rc != hipSuccess) {
    error =
        describe(*r, "hipModuleGetFunction", rc) + " (kernel '" + name + "')";
    r->hipModuleUnload(module);
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(r->mutex);
    r->modules[fn] = module;
  }
  *function = fn;
  return true;
}

bool hip::launchKernel(void *function, const GPULaunchConfig &c, void **args,
                       std::string &error) {
  if (!function) {
    error = "hip: launch of a null function";
    return false;
  }
  Runtime *r = getRuntime(error);
  if (!r)
    return false;
  if (hipError_t rc = r->hipModuleLaunchKernel(
          function, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1],
          c.block[2], c.sharedBytes, c.stream, args, nullptr);
      rc != hipSuccess) {
    error = describe(*r, "hipModuleLaunchKernel", rc) + " (grid " +
            std::to_string(c.grid[0]) + "x" + std::to_string(c.grid[1]) + "x" +
            std::to_string(c.grid[2]) + ", block " +
            std::to_string(c.block[0]) + "x" + std::to_string(c.block[1]) +
            "x" + std::to_string(c.block[2]) + ", " +
            std::to_string(c.sharedBytes) + " bytes of LDS)";
    return false;
  }
  return true;
}

bool hip::getCaptureStatus(void *stream, GPUCaptureStatus &status,
                           std::string &error) {
  Runtime *r = getRuntime(error);
  if (!r)
    return false;
  int value = 0;
  if (hipError_t rc = r->hipStreamIsCapturing(stream, &value);
      rc != hipSuccess) {
    error = describe(*r, "hipStreamIsCapturing", rc);
    return false;
  }
  status = static_cast<GPUCaptureStatus>(value);
  return true;
}

bool hip::unloadKernel(void *function, std::string &error) {
  Runtime *r = getRuntime(error);
  if (!r)
    return false;
  hipModule_t module = nullptr;
  {
    std::lock_guard<std::mutex> lock(r->mutex);
    auto it = r->modules.find(function);
    if (it == r->modules.end()) {
      error = "hip: unloadKernel of a function loadKernel did not return";
      return false;
    }
    module = it->second;
    r->modules.erase(it);
  }
  if (hipError_t rc = r->hipModuleUnload(module); rc != hipSuccess) {
    error = describe(*r, "hipModuleUnload", rc);
    return false;
  }
  return true;
}
