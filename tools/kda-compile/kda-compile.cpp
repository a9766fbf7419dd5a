//===- kda-compile.cpp - ahead-of-time compiler for DSL kernels -----------===//
#include "kda/Driver/Compiler.h"
#include "kda/Frontend/BuiltinTable.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("kda-compile options");

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("<kernel file.py | module.mlir>"),
              cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel", cl::desc("Name of the @kt.jit function to compile"),
               cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string>
    target("target", cl::init("cpu"),
           cl::desc("Target: cpu, gfx950 (AMD MI355X, wave64), gfx1250 (AMD, "
                    "wave32), sm_90a (NVIDIA H100/H200; sm_90 is an alias)"),
           cl::cat(category));
static cl::opt<std::string>
    cpuName("cpu", cl::init("host"),
            cl::desc("CPU target: the CPU to generate code for, 'host' (this "
                     "machine's CPU and features) or an LLVM CPU name such "
                     "as x86-64-v2 (runs on any x86-64 CPU of the last 15 "
                     "years), x86-64-v3, znver4. The shared object records "
                     "the features it needs and the Python loader refuses "
                     "it on a CPU without them"),
            cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string> cpuFeatures(
    "cpu-features",
    cl::desc("CPU target: features added (+) or removed (-) on top of "
             "--cpu's, comma-separated: '+avx2,-avx512f'"),
    cl::value_desc("list"), cl::cat(category));
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
static cl::opt<std::string>
    stdlibDir("stdlib-dir",
              cl::desc("Directory holding the DSL standard library stdlib.py "
                       "(default: share/kdatile next to this tool's bin/)"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string>
    emit("emit", cl::init("so"),
         cl::desc("What to produce: tile (tile IR), mlir (LLVM dialect), "
                  "llvm (LLVM IR), asm, obj, so (shared library; the cpu "
                  "default); GPU targets: gpu (the module at the GPU "
                  "LLVM-dialect stage), llvm, asm (AMDGPU assembly; PTX on "
                  "NVIDIA), obj (AMD relocatable object), hsaco (AMD code "
                  "object; the AMD default), ptx, cubin (the NVIDIA default); "
                  "every target: header (a C/C++ header with a typed launch "
                  "function; GPU code objects embedded)"),
         cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::init("-"),
                                       cl::desc("Output file ('-': stdout)"),
                                       cl::value_desc("file"),
                                       cl::cat(category));
// Registered as "kda-stats" and renamed to "stats" in main: LLVM owns an
// option of that name (statistics of asserting builds) that it registers
// late.
static cl::opt<bool>
    printStats("kda-stats",
               cl::desc("GPU targets: print the resource usage of each kernel "
                        "(registers, shared memory, spills, occupancy) to "
                        "stderr"),
               cl::cat(category));
static cl::opt<bool>
    failOnSpill("fail-on-spill",
                cl::desc("GPU targets: fail when a kernel spills registers"),
                cl::cat(category));
static cl::opt<unsigned> codeObjectVersion(
    "code-object-version",
    cl::desc("AMD targets: code object version, 5 or 6 (default: LLVM's, 6)"),
    cl::value_desc("5|6"), cl::init(0), cl::cat(category));
static cl::opt<unsigned>
    numWarps("num-warps",
             cl::desc("GPU targets: warps (waves) per block (default 4)"),
             cl::init(4), cl::cat(category));
static cl::opt<std::string> blockCopies(
    "block-copies",
    cl::desc("GPU targets: where kt.async_load / kt.async_store run: engine "
             "(default: on TMA on sm_90a and the Tensor Data Mover on "
             "gfx1250 where they can) or elements (element copies)"),
    cl::value_desc("engine|elements"), cl::init("engine"), cl::cat(category));
static cl::opt<bool> checkBounds(
    "check-bounds",
    cl::desc("CPU target: check every global-memory access against the "
             "extents of the arrays it may reach; the launcher passes them "
             "and reports an access outside with its DSL file:line:col "
             "(a debugging mode: slower code)"),
    cl::cat(category));
static cl::opt<bool> lineInfo(
    "line-info",
    cl::desc("GPU targets: source lines of the DSL in the code object (PTX "
             ".loc directives, AMD DWARF line tables) for profilers such as "
             "ncu and rocprof (default true; --line-info=false drops them)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> printLocations(
    "mlir-print-debuginfo",
    cl::desc("Text emits of MLIR (tile, mlir, gpu): print each op's source "
             "location (file:line:col of the DSL)"),
    cl::cat(category));
static cl::opt<std::string> builtinReference(
    "builtins",
    cl::desc("Print the reference of the DSL's builtins and exit: markdown "
             "(docs/builtins.md) or json"),
    cl::value_desc("markdown|json"), cl::ValueOptional, cl::cat(category));
static cl::opt<bool> printTimings("time",
                                  cl::desc("Print the time of each stage"),
                                  cl::cat(category));
static cl::opt<bool> printIRAfterAll(
    "print-ir-after-all",
    cl::desc("Print the module to stderr after every pass of kdatile's "
             "pipelines (frontend output to LLVM dialect)"),
    cl::cat(category));
static cl::opt<std::string> printIRAfter(
    "print-ir-after",
    cl::desc("Print the module to stderr after the pass with this argument "
             "(e.g. tile-assign-layouts; kda-opt --help lists them)"),
    cl::value_desc("pass"), cl::cat(category));

static const char *overview = R"(kdatile ahead-of-time compiler

Compiles one @kt.jit kernel of a DSL source file, or resumes from a .mlir
module at any stage (tile IR, or LLVM-dialect GPU kernels marked
rocdl.kernel / nvvm.kernel for the GPU targets).

Targets: cpu, gfx950 (AMD, wave64), gfx1250 (AMD, wave32), sm_90a (NVIDIA).

Examples:
  kda-compile kernels/vector_add.py --kernel vector_add --target cpu \
      --signature 'x_ptr=*f32,y_ptr=*f32,out_ptr=*f32,n=i32' -D BLOCK=1024 \
      --emit so -o vector_add.so
  kda-compile kernel.mlir --kernel k --target gfx950 --emit asm
  kda-compile kernel.mlir --kernel k --target gfx950 --emit hsaco \
      --code-object-version=5 --stats -o k.hsaco
  kda-compile kernel.mlir --kernel k --target sm_90a --emit cubin --stats \
      --fail-on-spill -o k.cubin

Text emits (tile, mlir, gpu, llvm, asm, ptx) go to -o or stdout; binary ones
(obj, so, hsaco, cubin) need -o. PTX is assembled with ptxas ($KDA_PTXAS,
/usr/local/cuda/bin/ptxas or PATH); code objects are linked with ld.lld.

The CPU shared library exports `<kernel>__kda_cpu(void **args, int pid_x,
int pid_y, int pid_z, int num_x, int num_y, int num_z)`; args[i] points to the
i-th runtime parameter. Errors are reported as file:line:col with the source
line. `kda-opt --kda-cpu-pipeline` replays the lowering of `--emit tile`
output.
)";

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  {
    auto &options = cl::getRegisteredOptions();
    if (auto it = options.find("stats"); it != options.end())
      it->second->setArgStr("llvm-stats");
    printStats.setArgStr("stats");
  }
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](raw_ostream &os) { os << kda::getCompilerVersion() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv, overview);

  auto fail = [](const Twine &message) {
    WithColor::error(errs(), "kda-compile") << message << "\n";
    return 1;
  };

  if (builtinReference.getNumOccurrences()) {
    if (builtinReference.empty() || builtinReference == "markdown")
      outs() << kda::frontend::builtinReferenceMarkdown();
    else if (builtinReference == "json")
      outs() << kda::frontend::builtinTableJSON() << "\n";
    else
      return fail("--builtins takes markdown or json, not '" +
                  builtinReference + "'");
    return 0;
  }
  if (inputFile.empty())
    return fail("no input file (a DSL kernel file or a .mlir module; see "
                "--help)");
  if (kernelName.empty())
    return fail("--kernel NAME is required (the @kt.jit function to "
                "compile)");
  if (!kda::isSupportedTarget(target))
    return fail("unsupported --target '" + target +
                "' (supported: " + kda::getSupportedTargetList() + ")");
  // GPU targets default to their loadable code object.
  if (emit.getNumOccurrences() == 0 && target != "cpu")
    emit = StringRef(target).starts_with("sm_") ? "cubin" : "hsaco";
  auto emitKind = kda::parseEmitKind(emit);
  if (!emitKind)
    return fail("unknown --emit '" + emit +
                "' (expected tile, mlir, llvm, asm, obj, so, gpu, hsaco, ptx, "
                "cubin or header)");
  if (codeObjectVersion != 0 && codeObjectVersion != 5 &&
      codeObjectVersion != 6)
    return fail("--code-object-version must be 5 or 6");
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
  options.codeObjectVersion = codeObjectVersion;
  options.resourceReport = printStats;
  options.failOnSpill = failOnSpill;
  options.numWarps = numWarps;
  if (blockCopies != "engine" && blockCopies != "elements")
    return fail("--block-copies must be engine or elements, got '" +
                blockCopies + "'");
  options.blockCopyEngine = blockCopies == "engine";
  options.lineInfo = lineInfo;
  options.checkBounds = checkBounds;
  options.printLocations = printLocations;
  if (printIRAfterAll && !printIRAfter.empty())
    return fail("--print-ir-after-all and --print-ir-after are exclusive");
  options.printIRAfter =
      printIRAfterAll ? std::string("all") : printIRAfter.getValue();
  if (target != "cpu" &&
      (cpuName.getNumOccurrences() || cpuFeatures.getNumOccurrences()))
    return fail("--cpu and --cpu-features apply to --target cpu only");
  options.cpu = cpuName;
  options.cpuFeatures = cpuFeatures;
  kda::frontend::CompileRequest &req = options.request;
  req.source = (*buffer)->getBuffer().str();
  req.filename = inputFile;
  req.kernelName = kernelName;
  req.searchPaths.assign(includeDirs.begin(), includeDirs.end());
  req.stdlibDir = stdlibDir;
  if (!stdlibDir.empty() && !sys::fs::is_regular_file(stdlibDir + "/stdlib.py"))
    return fail("--stdlib-dir: '" + stdlibDir + "' holds no stdlib.py");
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
                  "' (expected a 64-bit int, a float, True/False or a dtype)");
    req.constexprs[name.str()] = *parsed;
  }

  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  kda::prepareContext(ctx);
  kda::CompileResult result = kda::compileKernel(ctx, options);
  if (printTimings)
    for (auto &[stage, seconds] : result.timings)
      errs() << format("  %-20s %8.2f ms\n", stage.c_str(), seconds * 1e3);
  if (printStats && result.resourceReport)
    errs() << *result.resourceReport;
  if (!printIRAfter.empty() && result.ok &&
      !llvm::is_contained(result.passesRun, printIRAfter)) {
    std::vector<std::string> ran = result.passesRun;
    llvm::sort(ran);
    ran.erase(std::unique(ran.begin(), ran.end()), ran.end());
    return fail("--print-ir-after: no pass '" + printIRAfter +
                "' ran; the passes that ran: " + llvm::join(ran, ", "));
  }
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
