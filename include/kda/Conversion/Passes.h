//===- Passes.h - kdatile conversion passes ---------------------*- C++ -*-===//
#ifndef KDA_CONVERSION_PASSES_H
#define KDA_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace arith {
class ArithDialect;
}
namespace func {
class FuncDialect;
}
namespace linalg {
class LinalgDialect;
}
namespace LLVM {
class LLVMDialect;
}
namespace NVVM {
class NVVMDialect;
}
namespace ROCDL {
class ROCDLDialect;
}
namespace scf {
class SCFDialect;
}
namespace tensor {
class TensorDialect;
}
} // namespace mlir

namespace kda {
#define GEN_PASS_DECL
#include "kda/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kda/Conversion/Passes.h.inc"
} // namespace kda

#endif // KDA_CONVERSION_PASSES_H
