//===- kda-compile.cpp - ahead-of-time compiler for DSL kernels -----------===//
#include "kda/Driver/Compiler.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("kda-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<kernel file.py>"),
                                      cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel", cl::Required,
               cl::desc("Name of the @kt.jit function to compile"),
               cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string>
    target("target", cl::init("cpu"),
           cl::desc("Target: cpu (GPU targets come with the GPU backend)"),
           cl::cat(category));
static cl::list<std::string>
    defines("D", cl::Prefix,
            cl::desc("Constexpr value: -D BLOCK=128, -D EPS=1e-5, -D "
                     "FLAG=True, -D DT=bf16 (repeatable)"),
            cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<std::string> signature(
    "signature",
    cl::desc("Runtime parameters in declaration order, e.g. "
             "'x=*f32,y=*bf16:16,n=i32:16,eps=f32' (*T: pointer to T; :16: "
             "value or address divisible by 16)"),
    cl::value_desc("spec"), cl::cat(category));
static cl::list<std::string>
    includeDirs("I", cl::Prefix,
                cl::desc("Directory searched for imported DSL modules"),
                cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> stdlibDir(
    "stdlib-dir",
    cl::desc("Directory holding the DSL standard library stdlib.py "
             "(default: the source tree's python/kdatile)"),
    cl::value_desc("dir"), cl::init(KDA_SOURCE_DIR "/python/kdatile"),
    cl::cat(category));
static cl::opt<std::string>
    emit("emit", cl::init("so"),
         cl::desc("What to produce: tile (tile IR), mlir (LLVM dialect), "
                  "llvm (LLVM IR), asm, obj, so (shared library)"),
         cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::init("-"),
                                       cl::desc("Output file ('-': stdout)"),
                                       cl::value_desc("file"),
                                       cl::cat(category));
static cl::opt<bool> printTimings("time",
                                  cl::desc("Print the time of each stage"),
                                  cl::cat(category));

static const char *overview = R"(kdatile ahead-of-time compiler

Compiles one @kt.jit kernel of a DSL source file.

Example:
  kda-compile kernels/vector_add.py --kernel vector_add --target cpu \
      --signature 'x_ptr=*f32,y_ptr=*f32,out_ptr=*f32,n=i32' -D BLOCK=1024 \
      --emit so -o vector_add.so

The CPU shared library exports `<kernel>__kda_cpu(void **args, int pid_x,
int pid_y, int pid_z, int num_x, int num_y, int num_z)`; args[i] points to the
i-th runtime parameter. Errors are reported as file:line:col with the source
line. `kda-opt --kda-cpu-pipeline` replays the lowering of `--emit tile`
output.
)";

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](raw_ostream &os) {
    os << kda::getCompilerVersion() << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv, overview);

  auto fail = [](const Twine &message) {
    WithColor::error(errs(), "kda-compile") << message << "\n";
    return 1;
  };

  auto emitKind = kda::parseEmitKind(emit);
  if (!emitKind)
    return fail("unknown --emit '" + emit +
                "' (expected tile, mlir, llvm, asm, obj or so)");
  if (!kda::isSupportedTarget(target))
    return fail("unsupported --target '" + target + "' (supported: cpu)");
  if (!kda::isTextEmit(*emitKind) && outputFile == "-")
    return fail("--emit " + emit + " writes a binary file: give -o FILE");

  auto buffer = MemoryBuffer::getFile(inputFile);
  if (!buffer)
    return fail("cannot read '" + inputFile +
                "': " + buffer.getError().message());

  kda::CompileOptions options;
  options.target = target;
  options.emit = *emitKind;
  options.outputPath = outputFile;
  kda::frontend::CompileRequest &req = options.request;
  req.source = (*buffer)->getBuffer().str();
  req.filename = inputFile;
  req.kernelName = kernelName;
  req.searchPaths.assign(includeDirs.begin(), includeDirs.end());
  req.stdlibDir = stdlibDir;
  std::string error;
  if (!signature.empty()) {
    auto sig = kda::frontend::parseSignature(signature, error);
    if (!sig)
      return fail("--signature: " + error);
    req.signature = std::move(*sig);
  }
  for (const std::string &d : defines) {
    auto [name, value] = StringRef(d).split('=');
    if (name.empty() || value.empty())
      return fail("-D expects NAME=VALUE, got '" + d + "'");
    auto parsed = kda::frontend::parseConstexpr(value);
    if (!parsed)
      return fail("-D " + name + ": cannot parse '" + value +
                  "' (expected an int, a float, True/False or a dtype)");
    req.constexprs[name.str()] = *parsed;
  }

  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  kda::prepareContext(ctx);
  kda::CompileResult result = kda::compileKernel(ctx, options);
  if (printTimings)
    for (auto &[stage, seconds] : result.timings)
      errs() << format("  %-20s %8.2f ms\n", stage.c_str(), seconds * 1e3);
  if (!result.ok) {
    errs() << result.error;
    if (!StringRef(result.error).ends_with("\n"))
      errs() << "\n";
    return 1;
  }
  if (kda::isTextEmit(*emitKind)) {
    std::error_code ec;
    raw_fd_ostream os(outputFile, ec, sys::fs::OF_Text);
    if (ec)
      return fail("cannot write '" + outputFile + "': " + ec.message());
    os << result.text;
  }
  return 0;
}
