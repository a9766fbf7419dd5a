//===- Emitter.h - DSL syntax tree to tile IR -------------------*- C++ -*-===//
//
// Private to lib/Frontend. The emitter walks a kernel's syntax tree with an
// OpBuilder, evaluating compile-time values as it goes and inlining every
// DSL callee at its call site. Its methods are split by concern:
//   Kernel.cpp               entry points, kernel arguments, diagnostics
//   Emitter.cpp              statements and control flow
//   LoopAnalysis.cpp         which variables a runtime loop carries
//   ExprEmitter.cpp          expressions, names, modules, attributes
//   Operators.cpp            arithmetic, comparison and boolean operators
//   Calls.cpp                calls and inlining of DSL functions
//   Builtins.cpp             argument binding, kt.* and Python builtins
//   MemoryReduceBuiltins.cpp loads, stores, reductions, dot
//   AtomicBuiltins.cpp       kt.atomic_add / max / min / xchg
//   SharedMemoryBuiltins.cpp shared buffers, async copies, barriers
//   ShapeMathBuiltins.cpp    shape builtins and elementwise math
//   Layouts.cpp              explicit layouts
//   TypePromotion.cpp        constants, casts, promotion, broadcasting
//
//===----------------------------------------------------------------------===//
#ifndef KDA_LIB_FRONTEND_EMITTER_H
#define KDA_LIB_FRONTEND_EMITTER_H

#include "kda/Frontend/BuiltinTable.h"
#include "kda/Frontend/ConstexprEval.h"
#include "kda/Frontend/ModuleLoader.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include <map>
#include <optional>
#include <tuple>

namespace kda::frontend::detail {

/// A value of the DSL while emitting: a compile-time constant, an SSA value
/// (scalar or tile), a tuple, or a name bound to a module, function or
/// builtin.
struct DValue {
  enum class Kind {
    Const,    ///< constant
    Runtime,  ///< value (scalar int/float/pointer, or a ranked tensor)
    Tuple,    ///< elements
    Module,   ///< module (a DSL file) or name (language / package / external)
    Function, ///< function in module
    Builtin,  ///< name, a member of the language module or a Python builtin
    Method,   ///< name bound to the runtime value `value` (`x.to`)
    NonDSL,   ///< name of something Python-only (undecorated def, class...)
    Layout,   ///< attr: a layout (kt.BlockedLayout(...), kt.SliceLayout(...))
    Poison,   ///< a variable whose assignment failed: uses fail silently
  };
  enum class ModuleKind { Language, DSL, Package, External };

  Kind kind = Kind::Const;
  Constant constant;
  mlir::Value value;
  std::vector<DValue> elements;
  LoadedModule *module = nullptr;
  ModuleKind moduleKind = ModuleKind::DSL;
  FunctionDef *function = nullptr;
  std::string name;
  /// Package / External modules: `module` is the importer and this the
  /// relative level, so that submodules resolve like the original import.
  unsigned importLevel = 0;
  /// Layout: the layout attribute.
  mlir::Attribute attr;
  /// NonDSL: the module a name was imported from (empty: defined in the
  /// file itself), and whether it is a global rather than a def/class.
  std::string origin;
  bool isGlobal = false;

  static DValue of(Constant c) {
    DValue v;
    v.constant = std::move(c);
    return v;
  }
  static DValue of(mlir::Value value) {
    DValue v;
    v.kind = Kind::Runtime;
    v.value = value;
    return v;
  }
  static DValue tuple(std::vector<DValue> elems) {
    DValue v;
    v.kind = Kind::Tuple;
    v.elements = std::move(elems);
    return v;
  }
  static DValue builtin(std::string name) {
    DValue v;
    v.kind = Kind::Builtin;
    v.name = std::move(name);
    return v;
  }
  bool isConst() const { return kind == Kind::Const; }
  bool isRuntime() const { return kind == Kind::Runtime; }
  bool isConstKind(Constant::Kind k) const {
    return kind == Kind::Const && constant.kind == k;
  }
};

/// An argument at a call site.
struct Arg {
  Arg() = default;
  Arg(DValue value, SourceLoc loc) : value(std::move(value)), loc(loc) {}
  DValue value;
  SourceLoc loc;
  SourceLoc keywordLoc; ///< keyword arguments: where the keyword is
};

/// Arguments bound to a callee's parameters (null slots are absent).
using BoundArgs = std::vector<std::optional<Arg>>;

/// One function being emitted (the kernel or an inlined callee).
struct Frame {
  LoadedModule *module = nullptr;
  FunctionDef *function = nullptr;
  std::map<std::string, DValue> locals;
  /// MLIR location of the call, already wrapped for outer frames.
  std::optional<mlir::Location> callSiteLoc;
  Frame *caller = nullptr;
  SourceLoc callLoc; ///< in caller->module
  std::optional<DValue> returnValue;
  bool returned = false;
  /// Number of enclosing runtime (scf) regions within this function.
  int runtimeDepth = 0;
};

/// Counts a frame as inside one more runtime region until exit() or the end of
/// the scope, so that a region left early on a failure is never counted
/// again: the depth keys the loop analysis's cache and decides which
/// statements a region allows.
class RuntimeRegion {
public:
  explicit RuntimeRegion(Frame &frame) : frame(&frame) { ++frame.runtimeDepth; }
  RuntimeRegion(const RuntimeRegion &) = delete;
  RuntimeRegion &operator=(const RuntimeRegion &) = delete;
  ~RuntimeRegion() { exit(); }
  void exit() {
    if (frame)
      --frame->runtimeDepth;
    frame = nullptr;
  }

private:
  Frame *frame;
};

class Emitter : private mlir::OpBuilder::Listener {
public:
  Emitter(mlir::MLIRContext &ctx, ModuleLoader &loader,
          std::string &diagnostics);

  mlir::OwningOpRef<mlir::ModuleOp> emitKernel(const CompileRequest &request);

  // --- Kernel.cpp: diagnostics and locations.
  std::nullopt_t error(SourceLoc loc, const llvm::Twine &message);
  /// An error after which emission stops (a failed kt.static_assert, a tile
  /// beyond the limits): what follows would build on a broken premise, at a
  /// cost nothing bounds. Inside a loop dry run it is only noted.
  std::nullopt_t fatalError(SourceLoc loc, const llvm::Twine &message);
  /// Why a tile of `type` exceeds the request's TileLimits, or "".
  std::string tileLimitViolation(mlir::RankedTensorType type) const;
  mlir::Location loc(SourceLoc loc);
  mlir::LogicalResult fail(SourceLoc at, const llvm::Twine &message) {
    error(at, message);
    return mlir::failure();
  }

  // --- Emitter.cpp: statements.
  mlir::LogicalResult emitBody(const std::vector<StmtPtr> &body);
  mlir::LogicalResult emitStmt(const Stmt &stmt);
  mlir::LogicalResult assign(const Expr &target, DValue value,
                             SourceLoc valueLoc);
  mlir::LogicalResult emitIf(const Stmt &stmt);
  mlir::LogicalResult emitRuntimeIf(const Stmt &stmt, mlir::Value cond);
  mlir::LogicalResult emitFor(const Stmt &stmt);
  mlir::LogicalResult emitStaticFor(const Stmt &stmt, const Expr &call);
  mlir::LogicalResult emitWhile(const Stmt &stmt);
  /// The variables a runtime loop carries and their initial values. The body
  /// is emitted speculatively ("dry run") into a scratch block until the set
  /// of changed variables and their types is stable; `loopVar` (if any) is
  /// bound to a placeholder of `loopVarType`.
  mlir::LogicalResult loopCarried(const std::vector<StmtPtr> &body,
                                  SourceLoc at, const std::string *loopVar,
                                  mlir::Type loopVarType,
                                  std::vector<std::string> &names,
                                  llvm::SmallVectorImpl<mlir::Value> &inits);

  // --- ExprEmitter.cpp: expressions.
  std::optional<DValue> emitExpr(const Expr &expr);
  std::optional<DValue> lookupName(const std::string &name, SourceLoc at);
  /// A top-level name of a DSL module; sets `*missing` (without an error)
  /// when the module does not define it.
  std::optional<DValue> moduleMember(LoadedModule *module,
                                     const std::string &name, SourceLoc at,
                                     bool *missing);
  std::optional<DValue> emitAttribute(const Expr &expr);
  std::optional<DValue> emitSubscript(const Expr &expr);
  std::optional<DValue> emitCall(const Expr &expr);
  std::optional<DValue> emitBinary(BinOp op, const DValue &lhs,
                                   const DValue &rhs, SourceLoc at);
  std::optional<DValue> emitUnary(UnaryOp op, const DValue &operand,
                                  SourceLoc at);
  std::optional<DValue> emitBoolOp(const Expr &expr);
  std::optional<DValue> emitCompare(const Expr &expr);
  std::optional<DValue> inlineCall(const DValue &callee,
                                   std::vector<Arg> &positional,
                                   std::vector<std::pair<std::string, Arg>> &kw,
                                   SourceLoc at);
  /// Evaluates a module-level expression (a global or a default value); it
  /// must be a compile-time value.
  std::optional<DValue> evalInModule(LoadedModule *module, const Expr &expr,
                                     const std::string &what);
  std::optional<DValue> resolveModule(const std::string &dotted, unsigned level,
                                      LoadedModule *importer, SourceLoc at);
  std::optional<DValue> languageMember(const std::string &name, SourceLoc at,
                                       const std::string &shownModule);
  std::optional<DValue> ifExpr(const Expr &expr);

  // --- Kernel.cpp: kt.static_print's compile-time output, kt.device_print.
  std::optional<DValue>
  staticPrint(const std::vector<Arg> &positional,
              const std::vector<std::pair<std::string, Arg>> &kw, SourceLoc at);
  std::optional<DValue>
  devicePrint(const std::vector<Arg> &positional,
              const std::vector<std::pair<std::string, Arg>> &kw, SourceLoc at);

  // --- Builtins.cpp.
  std::optional<DValue>
  callBuiltin(const std::string &name, DValue *self,
              std::vector<Arg> &positional,
              std::vector<std::pair<std::string, Arg>> &kw, SourceLoc at);
  std::optional<DValue> memoryReduceBuiltin(const std::string &name,
                                            const std::string &fnName,
                                            BoundArgs &args, SourceLoc at);
  std::optional<DValue> scanBuiltin(const std::string &name,
                                    const std::string &fnName, BoundArgs &args,
                                    SourceLoc at);
  std::optional<DValue> atomicBuiltin(const std::string &name,
                                      const std::string &fnName,
                                      BoundArgs &args, SourceLoc at);
  std::optional<DValue> sharedMemoryBuiltin(const std::string &name,
                                            const std::string &fnName,
                                            BoundArgs &args, SourceLoc at);
  std::optional<DValue> launchOrderBuiltin(const std::string &name,
                                           const std::string &fnName,
                                           SourceLoc at);
  std::optional<DValue> clusterSumBuiltin(const std::string &fnName,
                                          BoundArgs &args, SourceLoc at);
  /// Whether `value` is a shared buffer (kt.alloc_shared or a slice).
  static bool isSharedBuffer(const DValue &value);
  // --- TensorDescBuiltins.cpp.
  std::optional<DValue> tensorDescBuiltin(const std::string &name,
                                          const std::string &fnName,
                                          BoundArgs &args, SourceLoc at);
  /// Whether `value` is a tensor descriptor (kt.make_tensor_descriptor).
  static bool isTensorDesc(const DValue &value);
  std::optional<llvm::SmallVector<mlir::Value>>
  requireScalars(const DValue &value, SourceLoc at, size_t rank,
                 mlir::Type type, const std::string &what);
  std::optional<DValue> shapeBuiltin(const std::string &name,
                                     const std::string &fnName, BoundArgs &args,
                                     SourceLoc at);
  std::optional<DValue> hintBuiltin(const std::string &name,
                                    const std::string &fnName, BoundArgs &args,
                                    SourceLoc at);
  std::optional<DValue> mathBuiltin(const std::string &name,
                                    const std::string &fnName, BoundArgs &args,
                                    SourceLoc at);
  bool isBuiltinName(llvm::StringRef name) const;
  /// The kt.* builtins' names (the frontend's table), for suggestions.
  std::vector<std::string> builtinNames() const;
  bool bindArgs(llvm::StringRef fnName,
                llvm::ArrayRef<kda::frontend::BuiltinParam> params,
                unsigned numRequired, std::vector<Arg> &positional,
                std::vector<std::pair<std::string, Arg>> &kw, SourceLoc at,
                BoundArgs &bound);

  // --- TypePromotion.cpp.
  mlir::Type defaultType(const Constant &c);
  std::optional<mlir::Value> constant(const Constant &c, mlir::Type type,
                                      SourceLoc at);
  /// A runtime value of `value` (constants get their default type).
  std::optional<mlir::Value> toRuntime(const DValue &value, SourceLoc at);
  /// Elementwise conversion to `elemType`, keeping the shape.
  std::optional<mlir::Value> convert(mlir::Value value, mlir::Type elemType,
                                     SourceLoc at);
  /// Converts `value` (constant or runtime) to `elemType` and broadcasts it
  /// to `shape` (empty shape: scalar).
  std::optional<mlir::Value> coerce(const DValue &value, mlir::Type elemType,
                                    llvm::ArrayRef<int64_t> shape, SourceLoc at,
                                    mlir::Attribute encoding = {});
  std::optional<mlir::Value>
  broadcastTo(mlir::Value value, llvm::ArrayRef<int64_t> shape, SourceLoc at);
  std::optional<llvm::SmallVector<int64_t>>
  broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                  SourceLoc at);
  /// The element type two operands are computed in (Triton's rules).
  std::optional<mlir::Type> promote(const DValue &a, const DValue &b,
                                    SourceLoc at, const char *what);
  /// The common type of two runtime scalar element types (no pointers).
  mlir::Type promoteTypes(mlir::Type a, mlir::Type b);
  /// Shape of a runtime value (empty for scalars) or of a constant (empty).
  llvm::SmallVector<int64_t> shapeOf(const DValue &value);
  mlir::Type elementTypeOf(const DValue &value);
  std::string typeString(mlir::Type type);
  std::string attrString(mlir::Attribute attr);
  /// Equal types, or tiles that differ only in their layout.
  static bool sameTypeIgnoringLayout(mlir::Type a, mlir::Type b);
  std::string describe(const DValue &value);
  /// A constant int (bool accepted) required at compile time.
  std::optional<int64_t> requireInt(const DValue &value, SourceLoc at,
                                    const llvm::Twine &what);
  /// A constant axis of a tile of `rank` (negative counts from the end),
  /// normalized to [0, rank).
  std::optional<int64_t> requireAxis(const DValue &value, SourceLoc at,
                                     int64_t rank);
  /// A compile-time shape: an int or a tuple/list of ints.
  std::optional<llvm::SmallVector<int64_t>>
  requireShape(const DValue &value, SourceLoc at, const llvm::Twine &what);
  std::optional<DType> requireDType(const DValue &value, SourceLoc at,
                                    const llvm::Twine &what);
  /// A tuple of constants as one Constant, or std::nullopt.
  std::optional<Constant> asConstant(const DValue &value);
  DValue fromConstant(const Constant &c);
  mlir::Value splatConstant(mlir::Type elemType, llvm::ArrayRef<int64_t> shape,
                            double fvalue, int64_t ivalue, SourceLoc at,
                            mlir::Attribute encoding = {});
  /// A constant with the type (shape, element type, layout) of `like`.
  mlir::Value constantLike(mlir::Value like, double fvalue, int64_t ivalue,
                           SourceLoc at);
  /// x / y for `/` and the builtins built on it: marked `afn`, so targets may
  /// divide approximately (sm_90a: div.full, within 2 ulp). Floor division
  /// divides without the flag: its floor must see the IEEE quotient.
  mlir::Value approximateDivide(mlir::Location l, mlir::Value x, mlir::Value y);

  // --- Layouts.cpp: explicit layouts.
  /// The layout of a tile, or null.
  static mlir::Attribute encodingOf(mlir::Value value);
  static mlir::Attribute layoutOfType(mlir::Type type);
  /// The layout the operands of one elementwise op should share: that of
  /// the first runtime tile already of the result shape, or null.
  mlir::Attribute commonEncoding(llvm::ArrayRef<const DValue *> operands,
                                 llvm::ArrayRef<int64_t> shape);
  /// `value` in layout `encoding` (a tile.convert_layout when it differs);
  /// a null encoding leaves the value as it is.
  mlir::Value withEncoding(mlir::Value value, mlir::Attribute encoding,
                           SourceLoc at);
  /// broadcastTo, then withEncoding; scalars are splat straight into the
  /// layout.
  std::optional<mlir::Value> broadcastToLayout(mlir::Value value,
                                               llvm::ArrayRef<int64_t> shape,
                                               mlir::Attribute encoding,
                                               SourceLoc at);
  /// tile.expand_dims with the result layout the verifier expects.
  std::optional<mlir::Value> expandDims(mlir::Value value, int64_t axis,
                                        SourceLoc at);
  /// Builds a layout attribute for kt.BlockedLayout / kt.SliceLayout.
  std::optional<DValue> layoutBuiltin(const std::string &name, BoundArgs &args,
                                      SourceLoc at);
  /// Checks that `layout` suits a tile of `shape`.
  bool checkLayout(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape,
                   mlir::Type elem, SourceLoc at);
  /// The shared-memory layout argument `arg` of `fnName` (a null attribute
  /// when absent), or nullopt after an error that names `example`.
  std::optional<mlir::Attribute>
  requireSharedLayout(const std::optional<Arg> &arg, const std::string &fnName,
                      llvm::StringRef example);
  /// `T::getChecked(params...)`; when its verifier fails, null after an error
  /// at `at` giving the verifier's message after `fnName`.
  template <typename T, typename... Params>
  T getCheckedType(SourceLoc at, const std::string &fnName,
                   Params &&...params) {
    std::string message;
    T type;
    {
      mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
        message = diag.str();
        return mlir::success();
      });
      type = T::getChecked([&] { return mlir::emitError(loc(at)); }, &ctx,
                           std::forward<Params>(params)...);
    }
    if (!type)
      error(at, fnName + ": " + message);
    return type;
  }

  mlir::MLIRContext &ctx;
  ModuleLoader &loader;
  std::string &diagnostics;
  /// Errors reported so far. After an error the statement's targets are
  /// poisoned and emission goes on, so independent errors are all reported
  /// while their consequences are not (up to kMaxErrors).
  unsigned errorCount = 0;
  static constexpr unsigned kMaxErrors = 20;
  /// Calls are inlined recursively in C++: a bound on their nesting keeps a
  /// long chain of helpers from overflowing the compiler's stack.
  static constexpr size_t kMaxCallDepth = 256;
  /// Set by fatalError: every statement still to be emitted fails at once.
  bool stopped = false;
  TileLimits tileLimits;
  /// Inside a loop dry run errors are not reported, only noted: the dry run
  /// sees constants where the real loop has runtime values.
  int dryRunDepth = 0;
  bool dryRunFailed = false;
  /// loopCarried's finding per loop body and entry environment (see
  /// environmentKey): a nested loop is met again in every dry run of the
  /// loops around it, which without the cache costs a factor per level.
  struct LoopCarriedFinding {
    std::vector<std::pair<std::string, mlir::Type>> carried;
    bool dryRunOk = true;
  };
  std::map<std::pair<const void *, std::string>, LoopCarriedFinding>
      loopCarriedCache;
  mlir::OpBuilder builder;
  Frame *frame = nullptr;
  /// Functions being inlined, to reject recursion.
  std::vector<FunctionDef *> callStack;
  /// Evaluated globals per module, and those being evaluated (cycles).
  std::map<std::pair<LoadedModule *, std::string>, DValue> globalCache;
  std::vector<std::pair<LoadedModule *, std::string>> globalsInProgress;
  /// Resolved imports, keyed by (dotted name, level, importer): resolving
  /// touches the file system.
  std::map<std::tuple<std::string, unsigned, LoadedModule *>, DValue>
      moduleCache;
  /// Counts unrolled static_range iterations to bound compile time.
  int64_t unrolledIterations = 0;

  /// Checks every tile result of an op the builder inserts against
  /// tileLimits, reporting at the op's source line.
  void notifyOperationInserted(mlir::Operation *op,
                               mlir::OpBuilder::InsertPoint previous) override;
};

/// "[4, 8]", for messages.
inline std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// `X: kt.constexpr` (any module alias) or `X: constexpr`.
inline bool isConstexprAnnotation(const Expr *annotation) {
  return annotation &&
         (annotation->kind == ExprKind::Name ||
          annotation->kind == ExprKind::Attribute) &&
         annotation->name == "constexpr";
}

/// Names assigned anywhere in `body` (recursively), in first-seen order.
void collectAssignedNames(const std::vector<StmtPtr> &body,
                          std::vector<std::string> &names);

} // namespace kda::frontend::detail

#endif // KDA_LIB_FRONTEND_EMITTER_H
