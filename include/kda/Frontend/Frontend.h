//===- Frontend.h - DSL source to tile IR -----------------------*- C++ -*-===//
//
// The entry points of the C++ frontend: parse a DSL source file (a Python
// subset), specialize one `@kt.jit` kernel on its signature and constexpr
// values, inline every DSL callee and emit tile IR with a FileLineColLoc on
// every operation.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_FRONTEND_H
#define KDA_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kda::frontend {

/// A scalar element type of the DSL (kt.float32, kt.bfloat16, ...).
enum class DType { F32, F16, BF16, F64, I1, I8, I16, I32, I64 };

/// Parses "f32", "fp32", "float32", "bf16", "bfloat16", "i32", "int32", ...
std::optional<DType> parseDType(llvm::StringRef name);
/// The canonical short spelling ("f32", "bf16", "i32", ...).
llvm::StringRef dtypeName(DType type);
mlir::Type dtypeToMLIR(mlir::MLIRContext &ctx, DType type);

/// How one runtime (non-constexpr) kernel parameter is passed.
struct ParamSpec {
  std::string name;
  bool isPointer = false; // `*f32`: a pointer to elements of `type`
  DType type = DType::I32;
  /// Known divisibility of an integer scalar or of a pointer's address in
  /// bytes (`:16`); 1 when unknown.
  unsigned divisibility = 1;
  /// Pointers: whether the kernel may store through it (set by the compile,
  /// see kda/Analysis/PointerRoots.h).
  bool written = false;
};

/// The runtime parameters in declaration order. Text form (used by
/// kda-compile --signature and by the Python JIT), comma separated:
///   "x=*f32, y=*bf16:16, n=i32:16, eps=f32"
struct KernelSignature {
  std::vector<ParamSpec> params;
  const ParamSpec *find(llvm::StringRef name) const;
};
/// Parses the text form; on error returns std::nullopt and sets `error`.
std::optional<KernelSignature> parseSignature(llvm::StringRef text,
                                              std::string &error);

/// A compile-time value: int, float, bool or dtype.
using ConstexprValue = std::variant<int64_t, double, bool, DType>;
/// Parses "128", "1e-5", "True"/"False", or a dtype name ("bf16").
std::optional<ConstexprValue> parseConstexpr(llvm::StringRef text);

/// The largest tile a kernel may build. Lowering a tile costs time and
/// memory that grow with its size, and a tile larger than a program's
/// registers could only spill, so a larger one is an error at its source
/// line.
struct TileLimits {
  /// Elements of one tile, on every target (the host target holds tiles in
  /// memory, so only this bounds it).
  int64_t maxElements = int64_t(1) << 20;
  /// GPU targets: the threads of a program and the 32-bit registers each
  /// may address; 0 for no register bound.
  unsigned threadsPerProgram = 0;
  unsigned registersPerThread = 0;
};

struct CompileRequest {
  std::string source;   ///< full text of the file holding the kernel
  std::string filename; ///< used in locations and diagnostics
  /// Added to every line number (when `source` is a fragment of a file).
  unsigned lineOffset = 0;
  std::string kernelName;
  KernelSignature signature;
  std::map<std::string, ConstexprValue> constexprs;
  /// Directories searched for `import mod` / `from mod import f` (the
  /// directory of `filename` is searched first).
  std::vector<std::string> searchPaths;
  /// Directory holding the DSL standard library `stdlib.py`, whose
  /// functions are reachable as `kt.<name>`.
  std::string stdlibDir;
  /// GPU targets: the warps per program. A constexpr parameter named
  /// `num_warps` takes this value (as in the JIT, where it is the launch's
  /// warps); giving it another value is an error.
  std::optional<unsigned> numWarps;
  TileLimits tileLimits;
};

/// Emits a module holding one `func.func @<kernelName>` with the unit
/// attribute `tile.kernel`. On failure returns null and `diagnostics` holds
/// every error as "file:line:col: error: message", the source line and a
/// caret under the column.
mlir::OwningOpRef<mlir::ModuleOp> emitKernel(mlir::MLIRContext &ctx,
                                             const CompileRequest &request,
                                             std::string &diagnostics);

/// The DSL source files the kernel may read (its own file, imported DSL
/// modules, the standard library), for cache keys. Cheap: parses, emits
/// nothing.
bool listDependencies(const CompileRequest &request,
                      std::vector<std::string> &files,
                      std::string &diagnostics);

} // namespace kda::frontend

#endif // KDA_FRONTEND_FRONTEND_H
