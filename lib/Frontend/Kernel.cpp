//===- Kernel.cpp - frontend entry points ---------------------------------===//
//
// emitKernel builds the kernel's func.func from the request (runtime
// parameters become arguments, constexpr parameters become compile-time
// values) and hands the body to the statement emitter. Diagnostics are
// collected as text. After an error emission goes on at the next statement,
// so independent errors are all reported, unless the error was fatal; every
// inserted op's tiles are checked against the request's TileLimits.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <set>

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

Emitter::Emitter(MLIRContext &ctx, ModuleLoader &loader,
                 std::string &diagnostics)
    : ctx(ctx), loader(loader), diagnostics(diagnostics), builder(&ctx) {
  builder.setListener(this);
}

std::nullopt_t Emitter::error(SourceLoc at, const llvm::Twine &message) {
  if (dryRunDepth > 0) {
    dryRunFailed = true;
    return std::nullopt;
  }
  if (errorCount >= kMaxErrors)
    return std::nullopt;
  ++errorCount;
  LoadedModule *module = frame ? frame->module : loader.mainModule(diagnostics);
  if (!module) {
    diagnostics += "error: " + message.str() + "\n";
    return std::nullopt;
  }
  diagnostics += formatDiagnostic(*module, at, "error", message.str());
  for (Frame *f = frame; f && f->caller; f = f->caller)
    diagnostics += formatDiagnostic(*f->caller->module, f->callLoc, "note",
                                    "in call from here");
  return std::nullopt;
}

std::nullopt_t Emitter::fatalError(SourceLoc at, const llvm::Twine &message) {
  if (dryRunDepth == 0)
    stopped = true;
  return error(at, message);
}

std::optional<DValue>
Emitter::staticPrint(const std::vector<Arg> &positional,
                     const std::vector<std::pair<std::string, Arg>> &kw,
                     SourceLoc at) {
  if (!kw.empty())
    return error(kw.front().second.keywordLoc,
                 "kt.static_print() takes no keyword arguments");
  // Printed when the kernel is emitted (never in a dry run), as Triton's: a
  // specialization taken from the cache prints nothing.
  if (dryRunDepth > 0)
    return DValue::of(Constant::none());
  std::string text;
  for (const Arg &arg : positional) {
    if (!text.empty())
      text += " ";
    if (std::optional<Constant> c = asConstant(arg.value))
      text += c->kind == Constant::Kind::Str ? c->str : c->str_();
    else
      text += describe(arg.value);
  }
  LoadedModule *module = frame ? frame->module : loader.mainModule(diagnostics);
  if (module)
    llvm::errs() << module->displayName << ":" << at.line + module->lineOffset
                 << ":" << at.col << ": ";
  llvm::errs() << "static_print: " << text << "\n";
  return DValue::of(Constant::none());
}

std::optional<DValue>
Emitter::devicePrint(const std::vector<Arg> &positional,
                     const std::vector<std::pair<std::string, Arg>> &kw,
                     SourceLoc at) {
  bool hex = false;
  for (const auto &[name, arg] : kw) {
    if (name != "hex")
      return error(arg.keywordLoc,
                   "kt.device_print() got an unexpected keyword argument '" +
                       name + "'");
    std::optional<Constant> c = asConstant(arg.value);
    if (!c || c->kind != Constant::Kind::Bool)
      return error(arg.loc, "kt.device_print(): hex must be True or False");
    hex = c->intValue != 0;
  }
  std::optional<Constant> prefix =
      positional.empty() ? std::nullopt : asConstant(positional[0].value);
  if (!prefix || prefix->kind != Constant::Kind::Str)
    return error(positional.empty() ? at : positional[0].loc,
                 "kt.device_print() takes a string literal prefix first");
  if (positional.size() < 2)
    return error(at, "kt.device_print() needs values to print after the prefix "
                     "(kt.static_print prints text at compile time)");
  std::vector<Value> values;
  for (size_t i = 1; i < positional.size(); ++i) {
    const Arg &arg = positional[i];
    if (std::optional<Constant> c = asConstant(arg.value);
        c && c->kind == Constant::Kind::Str)
      return error(arg.loc, "kt.device_print() prints numbers and tiles; put "
                            "text in the prefix");
    std::optional<Value> v = toRuntime(arg.value, arg.loc);
    if (!v)
      return std::nullopt;
    if (isa<kda::tile::PointerType>(getElementTypeOrSelf(v->getType())))
      return error(arg.loc, "kt.device_print() prints numbers; argument " +
                                std::to_string(i) + " is a pointer");
    values.push_back(*v);
  }
  kda::tile::PrintOp::create(builder, loc(at), prefix->str, hex, values);
  return DValue::of(Constant::none());
}

namespace {
/// a * b, saturating at INT64_MAX (both non-negative).
int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t product;
  return llvm::MulOverflow(a, b, product) ? INT64_MAX : product;
}
} // namespace

std::string Emitter::tileLimitViolation(RankedTensorType type) const {
  int64_t elements = 1;
  for (int64_t dim : type.getShape())
    elements = saturatingMul(elements, std::max<int64_t>(dim, 0));
  auto describeTile = [&] {
    std::string shape = formatShape(type.getShape());
    return "a tile of shape " + shape + " (" + std::to_string(elements) +
           " elements)";
  };
  if (elements > tileLimits.maxElements)
    return describeTile() + " is larger than the " +
           std::to_string(tileLimits.maxElements) + " a tile may hold";
  if (!tileLimits.threadsPerProgram || !tileLimits.registersPerThread)
    return "";
  // Narrow elements pack into a register; 64-bit ones (pointers, offsets)
  // count as one, since their tiles mostly fold into addressing.
  Type elem = type.getElementType();
  int64_t bits = elem.isIntOrFloat()
                     ? std::min<int64_t>(elem.getIntOrFloatBitWidth(), 32)
                     : 32;
  // Spread over every thread, each holds at least this many registers of it.
  int64_t perThread = saturatingMul(elements, bits) /
                      (32 * (int64_t)tileLimits.threadsPerProgram);
  if (perThread <= tileLimits.registersPerThread)
    return "";
  return describeTile() + " needs at least " + std::to_string(perThread) +
         " 32-bit registers in each of the program's " +
         std::to_string(tileLimits.threadsPerProgram) +
         " threads, more than the " +
         std::to_string(tileLimits.registersPerThread) +
         " a thread has; use smaller blocks or more warps";
}

void Emitter::notifyOperationInserted(Operation *op,
                                      OpBuilder::InsertPoint previous) {
  if (stopped || !frame)
    return;
  for (Type type : op->getResultTypes()) {
    auto tile = dyn_cast<RankedTensorType>(type);
    if (!tile)
      continue;
    std::string violation = tileLimitViolation(tile);
    if (violation.empty())
      continue;
    // The op was built at loc(at) of the current frame: recover `at`.
    Location l = op->getLoc();
    if (auto callSite = dyn_cast<CallSiteLoc>(l))
      l = callSite.getCallee();
    SourceLoc at;
    if (auto fileLoc = dyn_cast<FileLineColLoc>(l)) {
      at.line = fileLoc.getLine() - frame->module->lineOffset;
      at.col = fileLoc.getColumn();
    }
    fatalError(at, violation);
    return;
  }
}

Location Emitter::loc(SourceLoc at) {
  if (!frame)
    return UnknownLoc::get(&ctx);
  Location fileLoc =
      FileLineColLoc::get(&ctx, frame->module->displayName,
                          at.line + frame->module->lineOffset, at.col);
  if (frame->callSiteLoc)
    return CallSiteLoc::get(fileLoc, *frame->callSiteLoc);
  return fileLoc;
}

OwningOpRef<ModuleOp> Emitter::emitKernel(const CompileRequest &request) {
  LoadedModule *main = loader.mainModule(diagnostics);
  if (!main)
    return nullptr;
  auto it = main->parsed.symbols.find(request.kernelName);
  if (it == main->parsed.symbols.end() ||
      it->second.kind == SymbolKind::Global ||
      it->second.kind == SymbolKind::OtherGlobal ||
      it->second.kind == SymbolKind::Import ||
      it->second.kind == SymbolKind::ImportFrom) {
    std::string defined;
    for (const auto &[name, symbol] : main->parsed.symbols)
      if (symbol.kind == SymbolKind::Function ||
          symbol.kind == SymbolKind::BrokenFunction)
        defined += (defined.empty() ? "" : ", ") + name;
    diagnostics += "error: no @kt.jit function named '" + request.kernelName +
                   "' in " + request.filename +
                   (defined.empty() ? " (it defines none)"
                                    : " (it defines: " + defined + ")") +
                   "\n";
    return nullptr;
  }
  tileLimits = request.tileLimits;
  Frame kernelFrame;
  kernelFrame.module = main;
  frame = &kernelFrame;
  const ModuleSymbol &sym = it->second;
  if (sym.kind == SymbolKind::OtherFunction) {
    error(sym.loc, "'" + request.kernelName +
                       "' is not a @kt.jit function (missing decorator?)");
    return nullptr;
  }
  if (sym.kind == SymbolKind::BrokenFunction) {
    error(sym.errorLoc, sym.error);
    return nullptr;
  }
  FunctionDef *fn = sym.function;
  kernelFrame.function = fn;
  callStack.push_back(fn);

  ctx.loadDialect<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, kda::tile::TileDialect>();

  std::set<std::string> paramNames;
  for (const Param &p : fn->params)
    paramNames.insert(p.name);
  for (const ParamSpec &spec : request.signature.params)
    if (!paramNames.count(spec.name)) {
      error(fn->loc, "the signature names '" + spec.name +
                         "', which is not a parameter of '" + fn->name + "'");
      return nullptr;
    }

  for (const auto &entry : request.constexprs)
    if (!paramNames.count(entry.first)) {
      error(fn->loc, "a constexpr value is given for '" + entry.first +
                         "', which is not a parameter of '" + fn->name + "'");
      return nullptr;
    }

  // Classify parameters; runtime ones become function arguments.
  std::vector<const ParamSpec *> runtimeSpecs;
  std::vector<bool> isConstexpr;
  SmallVector<Type> argTypes;
  for (const Param &p : fn->params) {
    bool constexprParam = isConstexprAnnotation(p.annotation.get()) ||
                          request.constexprs.count(p.name);
    isConstexpr.push_back(constexprParam);
    if (constexprParam)
      continue;
    const ParamSpec *spec = request.signature.find(p.name);
    if (!spec) {
      error(p.loc,
            "runtime parameter '" + p.name + "' is missing from the signature");
      return nullptr;
    }
    Type elem = dtypeToMLIR(ctx, spec->type);
    argTypes.push_back(spec->isPointer ? kda::tile::PointerType::get(elem)
                                       : elem);
    runtimeSpecs.push_back(spec);
  }
  // The signature is the launch's argument list (headers, runtimes): exactly
  // the runtime parameters, in declaration order.
  for (auto [i, spec] : llvm::enumerate(request.signature.params)) {
    if (std::find(runtimeSpecs.begin(), runtimeSpecs.end(), &spec) ==
        runtimeSpecs.end()) {
      error(fn->loc, "the signature names '" + spec.name +
                         "', a constexpr parameter of '" + fn->name +
                         "' (annotated kt.constexpr or given with -D)");
      return nullptr;
    }
    if (runtimeSpecs[i] != &spec) {
      std::string order;
      for (const ParamSpec *s : runtimeSpecs)
        order += (order.empty() ? "" : ", ") + s->name;
      error(fn->loc, "the signature lists '" + spec.name +
                         "' out of order; list the runtime parameters of '" +
                         fn->name + "' in declaration order: " + order);
      return nullptr;
    }
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc(fn->loc));
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, loc(fn->loc), fn->name,
                                   builder.getFunctionType(argTypes, {}));
  func->setAttr("tile.kernel", builder.getUnitAttr());
  for (auto [i, spec] : llvm::enumerate(runtimeSpecs))
    if (spec->divisibility > 1)
      func.setArgAttr(i, "tile.divisibility",
                      builder.getI32IntegerAttr(spec->divisibility));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  unsigned argIndex = 0;
  for (auto [i, p] : llvm::enumerate(fn->params)) {
    if (!isConstexpr[i]) {
      kernelFrame.locals[p.name] = DValue::of(entry->getArgument(argIndex++));
      continue;
    }
    auto given = request.constexprs.find(p.name);
    if (p.name == "num_warps" && request.numWarps) {
      // The program's warps, which layouts written in the kernel must span.
      int64_t warps = *request.numWarps;
      if (given != request.constexprs.end() &&
          given->second != ConstexprValue(warps)) {
        error(p.loc, "constexpr 'num_warps' must be the program's warps (" +
                         std::to_string(warps) + ", --num-warps)");
        return nullptr;
      }
      kernelFrame.locals[p.name] =
          DValue::of(Constant::fromConstexprValue(ConstexprValue(warps)));
      continue;
    }
    if (given != request.constexprs.end()) {
      kernelFrame.locals[p.name] =
          DValue::of(Constant::fromConstexprValue(given->second));
      continue;
    }
    if (!p.defaultValue) {
      error(p.loc, "constexpr parameter '" + p.name + "' needs a value");
      return nullptr;
    }
    std::optional<DValue> value =
        evalInModule(main, *p.defaultValue, "the default of '" + p.name + "'");
    if (!value)
      return nullptr;
    kernelFrame.locals[p.name] = *value;
  }

  if (failed(emitBody(fn->body)))
    return nullptr;
  if (kernelFrame.returnValue &&
      !kernelFrame.returnValue->isConstKind(Constant::Kind::None)) {
    error(fn->loc, "kernel '" + fn->name + "' must not return a value");
    return nullptr;
  }
  builder.setInsertionPointToEnd(&func.getBody().back());
  func::ReturnOp::create(builder, loc(fn->loc));

  std::string verifyErrors;
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        verifyErrors += diag.str() + "\n";
      return success();
    });
    if (failed(verify(*module))) {
      diagnostics +=
          "error: internal error: the frontend produced invalid "
          "IR (please report this): " +
          (verifyErrors.empty() ? "verification failed\n" : verifyErrors);
      return nullptr;
    }
  }
  return module;
}

OwningOpRef<ModuleOp> kda::frontend::emitKernel(MLIRContext &ctx,
                                                const CompileRequest &request,
                                                std::string &diagnostics) {
  ModuleLoader loader(request);
  Emitter emitter(ctx, loader, diagnostics);
  OwningOpRef<ModuleOp> module = emitter.emitKernel(request);
  if (!module && diagnostics.empty())
    diagnostics = "error: internal error: emission failed without a message\n";
  return module;
}

bool kda::frontend::listDependencies(const CompileRequest &request,
                                     std::vector<std::string> &files,
                                     std::string &diagnostics) {
  ModuleLoader loader(request);
  LoadedModule *main = loader.mainModule(diagnostics);
  if (!main)
    return false;
  // Breadth-first over imports; modules that are not files on the search
  // path (numpy, torch, ...) are not DSL dependencies.
  for (size_t i = 0; i < loader.modules().size(); ++i) {
    LoadedModule *module = loader.modules()[i].get();
    auto imports = module->parsed.imports;
    for (auto &[dotted, level] : imports) {
      if (level == 0 && (isLanguageModule(dotted) ||
                         llvm::StringRef(dotted).starts_with("kdatile.")))
        continue;
      std::string error;
      loader.findModule(dotted, level, module, error);
      if (!error.empty()) {
        diagnostics += error;
        return false;
      }
    }
  }
  std::string error;
  loader.stdlib(error);
  if (!error.empty()) {
    diagnostics += error;
    return false;
  }
  files.clear();
  for (auto &module : loader.modules())
    files.push_back(module->absolutePath);
  return true;
}
