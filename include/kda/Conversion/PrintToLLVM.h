//===- PrintToLLVM.h - tile.print's line format and printf arguments -*- C++
//-*-===//
//
// The one definition of what a tile.print line looks like, shared by the
// host lowering (printf) and the GPU lowerings (vprintf on NVIDIA, the
// printf buffer on AMD): the format string of an element's line and the
// printf argument each element value becomes.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_PRINTTOLLVM_H
#define KDA_CONVERSION_PRINTTOLLVM_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace kda {

/// The printf conversion of one element of `type`: `%.9g` for floats up to
/// 32 bits and `%.17g` for f64 (enough digits to read the value back), `%d`
/// for integers up to 32 bits and `%lld` for i64; with `hex`, the bit
/// pattern as `0x%x` / `0x%llx`.
inline std::string getPrintConversion(mlir::Type type, bool hex) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (hex)
    return bits > 32 ? "0x%llx" : "0x%x";
  if (mlir::isa<mlir::FloatType>(type))
    return bits > 32 ? "%.17g" : "%.9g";
  return bits > 32 ? "%lld" : "%d";
}

/// The format of one line: "pid (%d, %d, %d) idx (%d, ...) PREFIX: VALUE\n",
/// with "idx (...)" for tiles of `rank` > 0 and " (operand k)" after the
/// prefix when the op prints several operands. A '%' in the prefix prints as
/// itself.
inline std::string getPrintFormat(llvm::StringRef prefix, unsigned rank,
                                  std::optional<unsigned> operand,
                                  mlir::Type elementType, bool hex) {
  std::string format = "pid (%d, %d, %d) ";
  if (rank > 0) {
    format += "idx (";
    for (unsigned d = 0; d < rank; ++d)
      format += d ? ", %d" : "%d";
    format += ") ";
  }
  for (char c : prefix)
    format += c == '%' ? std::string("%%") : std::string(1, c);
  if (operand)
    format += " (operand " + std::to_string(*operand) + ")";
  return format + ": " + getPrintConversion(elementType, hex) + "\n";
}

/// `value` as the variadic argument its conversion reads: floats widened to
/// f64, integers extended to i32 (i1 and unsigned-looking values alike, by
/// sign except i1), i64 unchanged; with `hex`, the bits zero-extended.
inline mlir::Value getPrintArgument(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value value, bool hex) {
  mlir::Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  mlir::Type wide = bits > 32 ? b.getI64Type() : b.getI32Type();
  if (hex) {
    if (mlir::isa<mlir::FloatType>(type))
      value =
          mlir::LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), value);
    return bits == wide.getIntOrFloatBitWidth()
               ? value
               : mlir::Value(mlir::LLVM::ZExtOp::create(b, loc, wide, value));
  }
  if (mlir::isa<mlir::FloatType>(type)) {
    // Narrow floats widen through f32: the one conversion every backend
    // (and the host's narrow-float legalization) turns into integer code.
    if (bits < 32)
      value = mlir::LLVM::FPExtOp::create(b, loc, b.getF32Type(), value);
    return type.isF64() ? value
                        : mlir::Value(mlir::LLVM::FPExtOp::create(
                              b, loc, b.getF64Type(), value));
  }
  if (bits == wide.getIntOrFloatBitWidth())
    return value;
  if (bits == 1)
    return mlir::LLVM::ZExtOp::create(b, loc, wide, value);
  return mlir::LLVM::SExtOp::create(b, loc, wide, value);
}

/// The declaration of the external function `name` of `type` in `module`
/// (printf, vprintf), made on first use.
inline mlir::LLVM::LLVMFuncOp
getOrDeclareFunction(mlir::OpBuilder &b, mlir::ModuleOp module,
                     llvm::StringRef name, mlir::LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(name))
    return fn;
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return mlir::LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// The address of a NUL-terminated constant holding `text` in
/// `addressSpace`, one global per distinct text in `module`.
inline mlir::Value getStringAddress(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::ModuleOp module, llvm::StringRef text,
                                    unsigned addressSpace) {
  std::string contents = text.str();
  contents.push_back('\0');
  // Equal texts share one global.
  unsigned count = 0;
  for (auto global : module.getOps<mlir::LLVM::GlobalOp>()) {
    if (!global.getSymName().starts_with("__kda_str_"))
      continue;
    ++count;
    auto value =
        mlir::dyn_cast_or_null<mlir::StringAttr>(global.getValueAttr());
    if (value && value.getValue() == contents &&
        global.getAddrSpace() == addressSpace)
      return mlir::LLVM::AddressOfOp::create(b, loc, global);
  }
  mlir::LLVM::GlobalOp global;
  {
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    global = mlir::LLVM::GlobalOp::create(
        b, loc, mlir::LLVM::LLVMArrayType::get(b.getI8Type(), contents.size()),
        /*isConstant=*/true, mlir::LLVM::Linkage::Internal,
        "__kda_str_" + std::to_string(count), b.getStringAttr(contents),
        /*alignment=*/0, addressSpace);
  }
  return mlir::LLVM::AddressOfOp::create(b, loc, global);
}

} // namespace kda

#endif // KDA_CONVERSION_PRINTTOLLVM_H
