//===- AttachLineInfo.cpp - source lines for the code object -------------===//
//
// Profilers map instructions to source lines through the code object's line
// information (PTX .loc directives, DWARF line tables), which LLVM emits for
// instructions with a DILocation. The frontend gives every op the DSL
// position that wrote it, inlined calls as call-site chains; this pass gives
// each function the scope that turns those positions into DILocations.
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/Passes.h"
#include "kda/Conversion/SourceLocations.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Support/Path.h"

namespace kda {
#define GEN_PASS_DEF_ATTACHLINEINFO
#include "kda/Conversion/Passes.h.inc"
} // namespace kda

using namespace mlir;
using kda::getSourceLine;

namespace {

struct AttachLineInfo : kda::impl::AttachLineInfoBase<AttachLineInfo> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    LLVM::DIEmissionKind kind;
    if (emissionKind == "line-tables") {
      kind = LLVM::DIEmissionKind::LineTablesOnly;
    } else if (emissionKind == "directives") {
      kind = LLVM::DIEmissionKind::DebugDirectivesOnly;
    } else {
      module.emitError("attach-line-info: emission-kind must be line-tables "
                       "or directives, not '")
          << emissionKind << "'";
      return signalPassFailure();
    }
    llvm::DenseMap<StringAttr, LLVM::DIFileAttr> files;
    auto getFile = [&](StringAttr path) {
      LLVM::DIFileAttr &file = files[path];
      if (!file)
        file = LLVM::DIFileAttr::get(
            ctx, llvm::sys::path::filename(path.getValue()),
            llvm::sys::path::parent_path(path.getValue()));
      return file;
    };
    LLVM::DICompileUnitAttr unit;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal())
        continue;
      FileLineColLoc funcLine = getSourceLine(func.getLoc());
      if (!funcLine)
        continue;
      LLVM::DIFileAttr file = getFile(funcLine.getFilename());
      if (!unit)
        unit = LLVM::DICompileUnitAttr::get(
            DistinctAttr::create(UnitAttr::get(ctx)), llvm::dwarf::DW_LANG_C,
            file, StringAttr::get(ctx, "kdatile"), /*isOptimized=*/true, kind);
      auto subprogram = LLVM::DISubprogramAttr::get(
          ctx, DistinctAttr::create(UnitAttr::get(ctx)), unit, file,
          func.getNameAttr(), func.getNameAttr(), file, funcLine.getLine(),
          funcLine.getLine(),
          LLVM::DISubprogramFlags::Definition |
              LLVM::DISubprogramFlags::Optimized,
          LLVM::DISubroutineTypeAttr::get(ctx, llvm::dwarf::DW_CC_normal, {}),
          /*retainedNodes=*/{}, /*annotations=*/{});
      func->setLoc(FusedLoc::get(ctx, {funcLine}, subprogram));
      // Lines in another file (an imported DSL module) get a scope in it.
      llvm::DenseMap<LLVM::DIFileAttr, Attribute> scopes;
      func.walk([&](Operation *op) {
        if (op == func)
          return;
        FileLineColLoc line = getSourceLine(op->getLoc());
        if (!line) {
          op->setLoc(UnknownLoc::get(ctx));
          return;
        }
        LLVM::DIFileAttr lineFile = getFile(line.getFilename());
        if (lineFile == file) {
          op->setLoc(line);
          return;
        }
        Attribute &scope = scopes[lineFile];
        if (!scope)
          scope = LLVM::DILexicalBlockFileAttr::get(ctx, subprogram, lineFile,
                                                    /*discriminator=*/0);
        op->setLoc(FusedLoc::get(ctx, {line}, scope));
      });
    }
  }
};

} // namespace
