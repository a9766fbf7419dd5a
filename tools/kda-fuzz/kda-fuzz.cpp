//===- kda-fuzz.cpp - libFuzzer target: frontend and pipelines ------------===//
//
// Each input is a DSL source whose first line names the compile, as
// kda-compile's options would:
//
//   # kda-fuzz: --target gfx950 --kernel k --signature x=*f32,n=i32 -D B=64
//
// (--target, --kernel, --signature, --num-warps and -D; the signature has no
// spaces). The kernel goes through the frontend and the target's pipelines
// down to the LLVM dialect (the CPU's kda-cpu-lower, the GPU lowering to the
// GPU LLVM-dialect stage), in memory: no back end, no files, no tools. A
// compile error is an answer; a crash, a sanitizer report, an input that
// runs past -timeout or grows past -rss_limit_mb is a bug. Inputs without the
// header line are skipped. docs/testing.md says how to run it.
//
//===----------------------------------------------------------------------===//
#include "kda/Driver/Compiler.h"
#include "kda/Frontend/Frontend.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

using namespace llvm;

namespace {
constexpr StringLiteral kHeader = "# kda-fuzz:";

/// The compile the header line asks for, or std::nullopt when it is not one
/// kda-compile would accept.
std::optional<kda::CompileOptions> parseHeader(StringRef line) {
  if (!line.consume_front(kHeader))
    return std::nullopt;
  SmallVector<StringRef> words;
  line.split(words, ' ', -1, /*KeepEmpty=*/false);
  kda::CompileOptions options;
  kda::frontend::CompileRequest &req = options.request;
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    StringRef flag = words[i], value = words[i + 1];
    std::string error;
    if (flag == "--target") {
      if (!kda::isSupportedTarget(value))
        return std::nullopt;
      options.target = value.str();
    } else if (flag == "--kernel") {
      req.kernelName = value.str();
    } else if (flag == "--signature") {
      std::optional<kda::frontend::KernelSignature> sig =
          kda::frontend::parseSignature(value, error);
      if (!sig)
        return std::nullopt;
      req.signature = std::move(*sig);
    } else if (flag == "--num-warps") {
      // kda-compile takes any unsigned; the ops launch 1 to 32 warps.
      unsigned warps = 0;
      if (value.getAsInteger(10, warps) || warps == 0 || warps > 32)
        return std::nullopt;
      options.numWarps = warps;
    } else if (flag == "-D") {
      auto [name, text] = value.split('=');
      std::optional<kda::frontend::ConstexprValue> parsed =
          kda::frontend::parseConstexpr(text);
      if (name.empty() || !parsed)
        return std::nullopt;
      req.constexprs[name.str()] = *parsed;
    } else {
      return std::nullopt;
    }
  }
  if (req.kernelName.empty())
    return std::nullopt;
  options.emit =
      options.target == "cpu" ? kda::EmitKind::MLIR : kda::EmitKind::Gpu;
  return options;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  std::optional<kda::CompileOptions> options =
      parseHeader(input.take_until([](char c) { return c == '\n'; }));
  if (!options)
    return 0;
  kda::frontend::CompileRequest &req = options->request;
  req.source = input.str();
  req.filename = "input.py";
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  kda::prepareContext(ctx);
  (void)kda::compileKernel(ctx, *options);
  return 0;
}
