//===- LaunchOrderBuiltins.cpp - kt.wait_prior_launches and friends -------===//
//
// `kt.wait_prior_launches()` lets the runtime launch the kernel before the
// previous kernel on its stream has finished; `kt.launch_dependents()` lets
// the next one start before this one has. The wait must come before the
// kernel's first memory access, at its top level (the op's verifier checks
// the order; the frontend names the rule at the call).
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"
#include "kda/Conversion/SourceLocations.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

/// " (line N)" for the kernel's line an op comes from: for an op of an inlined
/// call, the line of the outermost call and the line in the called function.
static std::string kernelLine(Location loc) {
  std::string inner;
  while (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    if (inner.empty())
      if (FileLineColLoc callee = kda::getSourceLine(callSite.getCallee()))
        inner = ", in the function called there, at line " +
                std::to_string(callee.getLine());
    loc = callSite.getCaller();
  }
  FileLineColLoc file = kda::getSourceLine(loc);
  if (!file)
    return "";
  return " (line " + std::to_string(file.getLine()) + inner + ")";
}

std::optional<DValue> Emitter::launchOrderBuiltin(const std::string &name,
                                                  const std::string &fnName,
                                                  SourceLoc at) {
  Location l = loc(at);
  if (name == "launch_dependents") {
    kda::tile::LaunchDependentsOp::create(builder, l);
    return DValue::of(Constant::none());
  }
  if (frame->runtimeDepth > 0 || frame->caller)
    return error(at, fnName + " must be called at the top level of the "
                              "kernel, not in a loop, a branch or a called "
                              "function: it must run before the kernel's "
                              "first memory access");
  auto wait = kda::tile::WaitPriorLaunchesOp::create(builder, l);
  if (auto earlier = kda::tile::findEarlierWait(wait)) {
    std::string where = kernelLine(earlier.getLoc());
    wait->erase();
    return error(at, fnName + " is called twice" + where +
                         ": the first wait covers every kernel launched "
                         "before it");
  }
  if (Operation *access = kda::tile::findAccessBeforeWait(wait)) {
    std::string where = kernelLine(access->getLoc());
    wait->erase();
    return error(at, fnName +
                         " must come before the kernel's first memory "
                         "access" +
                         where +
                         ": a kernel launched before the previous one "
                         "finishes may touch memory only after the wait");
  }
  return DValue::of(Constant::none());
}
