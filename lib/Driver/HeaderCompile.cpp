//===- HeaderCompile.cpp - kda-compile --emit header ----------------------===//
//
// Compiles the kernel as usual (a cubin or HSACO for GPU targets, written to
// a scratch file; tile IR for the CPU target, which checks the kernel and
// gives its parameters) and wraps the result in a C/C++ header
// (kda/Target/HeaderGen.h). A cubin needs ptxas; without it the header
// embeds the PTX, which the CUDA driver compiles when the module loads.
//
//===----------------------------------------------------------------------===//
#include "kda/Driver/Compiler.h"
#include "kda/Target/GPUTarget.h"
#include "kda/Target/HeaderGen.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <variant>

using namespace kda;

namespace {
std::string signatureText(const std::vector<frontend::ParamSpec> &params) {
  std::string out;
  for (const frontend::ParamSpec &p : params) {
    if (!out.empty())
      out += ", ";
    out += p.name + "=" + (p.isPointer ? "*" : "") +
           frontend::dtypeName(p.type).str();
    if (p.divisibility > 1)
      out += ":" + std::to_string(p.divisibility);
  }
  return out;
}

std::string constexprText(
    const std::map<std::string, frontend::ConstexprValue> &constexprs) {
  std::string out;
  llvm::raw_string_ostream os(out);
  bool first = true;
  for (const auto &[name, value] : constexprs) {
    os << (first ? "" : ", ") << name << "=";
    first = false;
    if (auto *i = std::get_if<int64_t>(&value))
      os << *i;
    else if (auto *d = std::get_if<double>(&value))
      os << llvm::format("%g", *d);
    else if (auto *b = std::get_if<bool>(&value))
      os << (*b ? "True" : "False");
    else
      os << frontend::dtypeName(std::get<frontend::DType>(value));
  }
  return out;
}

/// Compiles `options` with `emit` into a scratch file and reads it back.
CompileResult compileToBytes(mlir::MLIRContext &ctx, CompileOptions options,
                             EmitKind emit, std::string &bytes) {
  CompileResult result;
  llvm::SmallString<128> scratch;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kda-header", "bin", scratch)) {
    result.error = "error: cannot create a temporary file: " + ec.message();
    return result;
  }
  options.emit = emit;
  options.outputPath = scratch.str().str();
  result = compileKernel(ctx, options);
  if (result.ok) {
    auto buffer = llvm::MemoryBuffer::getFile(scratch, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (buffer) {
      bytes = (*buffer)->getBuffer().str();
    } else {
      result.ok = false;
      result.error = "error: cannot read back '" + scratch.str().str() +
                     "': " + buffer.getError().message();
    }
  }
  llvm::sys::fs::remove(scratch);
  return result;
}
} // namespace

CompileResult kda::compileKernelHeader(mlir::MLIRContext &ctx,
                                       const CompileOptions &options) {
  HeaderKernel kernel;
  kernel.kernelName = options.request.kernelName;
  kernel.target = options.target;
  kernel.constexprs = constexprText(options.request.constexprs);
  kernel.compilerVersion = getCompilerVersion();

  CompileResult result;
  std::optional<GPUTargetInfo> gpu = lookupGPUTarget(options.target);
  if (!gpu) {
    CompileOptions tile = options;
    tile.emit = EmitKind::Tile;
    result = compileKernel(ctx, tile);
  } else if (gpu->isAMD()) {
    kernel.platform = "hip";
    kernel.imageKind = "hsaco";
    result = compileToBytes(ctx, options, EmitKind::Hsaco, kernel.image);
  } else {
    kernel.platform = "cuda";
    kernel.imageKind = "cubin";
    // The header's launcher passes the kernel's own parameters only, not
    // tensor maps: its block copies copy elements.
    CompileOptions cuda = options;
    cuda.blockCopyEngine = false;
    result = compileToBytes(ctx, cuda, EmitKind::Cubin, kernel.image);
    if (!result.ok &&
        llvm::StringRef(result.error).contains("cannot find ptxas")) {
      CompileOptions ptx = cuda;
      ptx.emit = EmitKind::Ptx;
      result = compileKernel(ctx, ptx);
      kernel.imageKind = "ptx";
      // The driver reads PTX up to its NUL.
      kernel.image = result.text + '\0';
    }
  }
  if (!result.ok)
    return result;
  if (gpu) {
    kernel.target = gpu->name;
    kernel.blockSize = options.numWarps * gpu->waveSize;
    kernel.sharedBytes = static_cast<unsigned>(result.sharedBytes);
  }
  for (int d = 0; d < 3; ++d)
    kernel.clusterShape[d] = result.clusterShape[d];
  kernel.earlyLaunch = result.earlyLaunch;
  for (const frontend::ParamSpec &p : result.params)
    kernel.params.push_back(
        {p.name, p.isPointer, frontend::dtypeName(p.type).str()});
  kernel.signature = signatureText(result.params);

  result.text.clear();
  if (!generateKernelHeader(kernel, result.text, result.error)) {
    result.ok = false;
    return result;
  }
  result.ok = true;
  return result;
}
