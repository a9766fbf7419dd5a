//===- Calls.cpp - calls to builtins and inlined DSL functions ------------===//
//
// DSL functions are inlined at each call: their parameters are bound like
// Python's (positional, keyword, defaults), constexpr parameters demand
// compile-time arguments, and their body is emitted in a new Frame whose
// locations are wrapped in a CallSiteLoc of the call.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

std::optional<DValue> Emitter::emitCall(const Expr &expr) {
  std::optional<DValue> callee = emitExpr(*expr.operands[0]);
  if (!callee)
    return std::nullopt;
  std::vector<Arg> positional;
  std::vector<std::pair<std::string, Arg>> keywords;
  size_t numPositional = expr.numPositional();
  for (size_t i = 1; i < expr.operands.size(); ++i) {
    const Expr &argExpr = *expr.operands[i];
    std::optional<DValue> v = emitExpr(argExpr);
    if (!v)
      return std::nullopt;
    Arg arg{*v, argExpr.loc};
    if (i <= numPositional) {
      positional.push_back(arg);
    } else {
      // Keyword errors (unknown, repeated) point at the keyword itself.
      size_t k = i - 1 - numPositional;
      arg.keywordLoc = expr.keywordLocs[k];
      keywords.push_back({expr.keywords[k], arg});
    }
  }
  switch (callee->kind) {
  case DValue::Kind::Builtin:
    return callBuiltin(callee->name, nullptr, positional, keywords, expr.loc);
  case DValue::Kind::Method: {
    DValue self = DValue::of(callee->value);
    return callBuiltin(callee->name, &self, positional, keywords, expr.loc);
  }
  case DValue::Kind::Function:
    return inlineCall(*callee, positional, keywords, expr.loc);
  case DValue::Kind::NonDSL:
    if (!callee->origin.empty())
      return error(expr.loc, "'" + callee->name + "' comes from module '" +
                                 callee->origin +
                                 "', which is not a DSL module; only @kt.jit "
                                 "functions can be called from kernels");
    if (callee->isGlobal)
      return error(expr.loc, "'" + callee->name +
                                 "' is not a DSL function; only @kt.jit "
                                 "functions can be called from kernels");
    return error(expr.loc, "'" + callee->name +
                               "' is not a @kt.jit function; only @kt.jit "
                               "functions can be called from kernels");
  default:
    return error(expr.loc, describe(*callee) + " is not callable");
  }
}

std::optional<DValue>
Emitter::inlineCall(const DValue &callee, std::vector<Arg> &positional,
                    std::vector<std::pair<std::string, Arg>> &keywords,
                    SourceLoc at) {
  FunctionDef *fn = callee.function;
  std::string fnName = fn->name + "()";
  if (std::find(callStack.begin(), callStack.end(), fn) != callStack.end())
    return error(at, "recursive call to '" + fn->name +
                         "' is not supported (calls are inlined)");
  if (callStack.size() >= kMaxCallDepth)
    return error(at, "calls are nested more than " +
                         std::to_string(kMaxCallDepth) + " deep at '" +
                         fn->name +
                         "' (calls are inlined); flatten the chain of helpers");
  size_t numParams = fn->params.size();
  if (positional.size() > numParams)
    return error(at, fnName + " takes " + std::to_string(numParams) +
                         " positional arguments but " +
                         std::to_string(positional.size()) + " were given");
  std::vector<std::optional<Arg>> bound(numParams);
  for (size_t i = 0; i < positional.size(); ++i)
    bound[i] = positional[i];
  for (auto &[kwName, arg] : keywords) {
    const std::string &name = kwName;
    auto it = std::find_if(fn->params.begin(), fn->params.end(),
                           [&](const Param &p) { return p.name == name; });
    if (it == fn->params.end())
      return error(arg.keywordLoc, fnName +
                                       " got an unexpected keyword argument '" +
                                       name + "'");
    size_t index = it - fn->params.begin();
    if (bound[index])
      return error(arg.keywordLoc,
                   fnName + " got multiple values for argument '" + name + "'");
    bound[index] = arg;
  }
  for (size_t i = 0; i < numParams; ++i) {
    const Param &p = fn->params[i];
    if (!bound[i] && !p.defaultValue)
      return error(at, fnName + " missing required argument '" + p.name + "'");
    if (bound[i] && isConstexprAnnotation(p.annotation.get()) &&
        !asConstant(bound[i]->value) &&
        bound[i]->value.kind == DValue::Kind::Runtime)
      return error(bound[i]->loc,
                   "argument '" + p.name + "' of " + fnName +
                       " must be a constexpr, got a runtime " +
                       typeString(bound[i]->value.value.getType()));
  }

  Frame calleeFrame;
  calleeFrame.module = callee.module;
  calleeFrame.function = fn;
  calleeFrame.caller = frame;
  calleeFrame.callLoc = at;
  calleeFrame.callSiteLoc = loc(at);
  for (size_t i = 0; i < numParams; ++i) {
    const Param &p = fn->params[i];
    if (bound[i]) {
      calleeFrame.locals[p.name] = bound[i]->value;
      continue;
    }
    Frame *saved = frame;
    frame = &calleeFrame; // defaults report errors inside the callee
    std::optional<DValue> value = evalInModule(
        callee.module, *p.defaultValue, "the default of '" + p.name + "'");
    frame = saved;
    if (!value)
      return std::nullopt;
    calleeFrame.locals[p.name] = *value;
  }
  Frame *saved = frame;
  frame = &calleeFrame;
  callStack.push_back(fn);
  LogicalResult result = emitBody(fn->body);
  callStack.pop_back();
  frame = saved;
  if (failed(result))
    return std::nullopt;
  return calleeFrame.returnValue ? *calleeFrame.returnValue
                                 : DValue::of(Constant::none());
}
