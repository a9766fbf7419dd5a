//===- EmitKernelTest.cpp - kernel emission and diagnostics ---------------===//
#include "kda/Frontend/Frontend.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

struct Result {
  bool ok = false;
  std::string ir;
  std::string diagnostics;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

Result compile(mlir::MLIRContext &ctx, const std::string &body,
               const std::string &kernel, const std::string &signature,
               std::map<std::string, ConstexprValue> constexprs = {}) {
  CompileRequest request;
  request.source = "import kdatile.language as kt\n\n" + body;
  request.filename = "k.py";
  request.kernelName = kernel;
  std::string error;
  auto sig = parseSignature(signature, error);
  EXPECT_TRUE(sig) << error;
  request.signature = *sig;
  request.constexprs = std::move(constexprs);
  Result r;
  r.module = emitKernel(ctx, request, r.diagnostics);
  r.ok = static_cast<bool>(r.module);
  if (r.ok) {
    llvm::raw_string_ostream os(r.ir);
    r.module->print(os);
    EXPECT_TRUE(mlir::succeeded(mlir::verify(*r.module)));
  }
  return r;
}

const char *kAdd = R"(@kt.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kt.constexpr):
    pid = kt.program_id(0)
    offs = pid * BLOCK + kt.arange(0, BLOCK)
    mask = offs < n
    x = kt.load(x_ptr + offs, mask=mask, other=0.0)
    y = kt.load(y_ptr + offs, mask=mask)
    kt.store(out_ptr + offs, x + y, mask=mask)
)";

TEST(EmitKernel, VectorAdd) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, kAdd, "add",
                     "x_ptr=*f32:16, y_ptr=*f32, "
                     "out_ptr=*f32, n=i32",
                     {{"BLOCK", int64_t(128)}});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("func.func @add(%arg0: !tile.ptr<f32> "
                      "{tile.divisibility = 16 : i32}"),
            std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("tile.kernel"), std::string::npos);
  EXPECT_NE(r.ir.find("tile.range 0, 128 : tensor<128xi32>"),
            std::string::npos);
  EXPECT_NE(r.ir.find("tile.addptr"), std::string::npos);
  EXPECT_NE(r.ir.find("tile.load"), std::string::npos);
  EXPECT_NE(r.ir.find("tile.store"), std::string::npos);
}

TEST(EmitKernel, LocationsPointAtExpressions) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, kAdd, "add",
                     "x_ptr=*f32, y_ptr=*f32, "
                     "out_ptr=*f32, n=i32",
                     {{"BLOCK", int64_t(128)}});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  bool found = false;
  r.module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() != "tile.program_id")
      return;
    auto loc = mlir::dyn_cast<mlir::FileLineColLoc>(op->getLoc());
    ASSERT_TRUE(loc);
    EXPECT_EQ(loc.getFilename(), "k.py");
    EXPECT_EQ(loc.getLine(), 5u);
    EXPECT_EQ(loc.getColumn(), 11u);
    found = true;
  });
  EXPECT_TRUE(found);
}

TEST(EmitKernel, UndefinedNameDiagnostic) {
  mlir::MLIRContext ctx;
  Result r =
      compile(ctx, "@kt.jit\ndef k(x):\n    y = x + foo\n", "k", "x=i32");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics, "k.py:5:13: error: name 'foo' is not defined\n"
                           "    y = x + foo\n"
                           "            ^\n");
}

TEST(EmitKernel, InlinedCalleeErrorHasCallNote) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx,
                     "@kt.jit\ndef helper(a):\n    return kt.exp(a)\n\n"
                     "@kt.jit\ndef k(x):\n    y = helper(x)\n",
                     "k", "x=i32");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics,
            "k.py:5:19: error: kt.exp() requires a floating-point argument, "
            "got i32\n"
            "    return kt.exp(a)\n"
            "                  ^\n"
            "k.py:9:9: note: in call from here\n"
            "    y = helper(x)\n"
            "        ^\n");
}

TEST(EmitKernel, InlinedOpsHaveCallSiteLocations) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx,
                     "@kt.jit\ndef twice(a):\n    return a * 2\n\n"
                     "@kt.jit\ndef k(x, o):\n    kt.store(o, twice(x))\n",
                     "k", "x=f32, o=*f32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  bool found = false;
  r.module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() != "arith.mulf")
      return;
    auto loc = mlir::dyn_cast<mlir::CallSiteLoc>(op->getLoc());
    ASSERT_TRUE(loc);
    auto callee = mlir::cast<mlir::FileLineColLoc>(loc.getCallee());
    auto caller = mlir::cast<mlir::FileLineColLoc>(loc.getCaller());
    EXPECT_EQ(callee.getLine(), 5u);
    EXPECT_EQ(caller.getLine(), 9u);
    found = true;
  });
  EXPECT_TRUE(found);
}

TEST(EmitKernel, IndependentErrorsAreAllReported) {
  mlir::MLIRContext ctx;
  // `a` fails, so its use on the next line is not reported again; the
  // error on the last line is independent and is reported too.
  Result r = compile(ctx,
                     "@kt.jit\ndef k(o, n):\n    a = undefined_one\n"
                     "    b = a + 1\n    c = kt.exp(n)\n",
                     "k", "o=*f32, n=i32");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics,
            "k.py:5:9: error: name 'undefined_one' is not defined\n"
            "    a = undefined_one\n"
            "        ^\n"
            "k.py:7:16: error: kt.exp() requires a floating-point argument, "
            "got i32\n"
            "    c = kt.exp(n)\n"
            "               ^\n");
}

TEST(EmitKernel, KernelLevelErrors) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, "def k(x):\n    pass\n", "nope", "");
  EXPECT_EQ(
      r.diagnostics,
      "error: no @kt.jit function named 'nope' in k.py (it defines none)\n");
  r = compile(ctx,
              "@kt.jit\ndef k(x):\n    pass\n@kt.jit\ndef a(x):\n    pass\n",
              "nope", "");
  EXPECT_EQ(
      r.diagnostics,
      "error: no @kt.jit function named 'nope' in k.py (it defines: a, k)\n");
  r = compile(ctx, "@kt.jit\ndef k(x, BLOCK: kt.constexpr):\n    pass\n", "k",
              "x=i32");
  EXPECT_EQ(r.diagnostics,
            "k.py:4:10: error: constexpr parameter 'BLOCK' needs a value\n"
            "def k(x, BLOCK: kt.constexpr):\n"
            "         ^\n");
  r = compile(ctx, "@kt.jit\ndef k(x, n):\n    pass\n", "k", "x=i32");
  EXPECT_NE(r.diagnostics.find("k.py:4:10: error: runtime parameter 'n' is "
                               "missing from the signature"),
            std::string::npos);
}

TEST(EmitKernel, IntegerSpecializationAsConstexpr) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx,
                     "@kt.jit\ndef k(o, n):\n    if n == 1:\n"
                     "        kt.store(o, 1.0)\n    else:\n"
                     "        kt.store(o, 2.0)\n",
                     "k", "o=*f32", {{"n", int64_t(1)}});
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.ir.find("scf.if"), std::string::npos);
  EXPECT_NE(r.ir.find("1.000000e+00"), std::string::npos);
  EXPECT_EQ(r.ir.find("2.000000e+00"), std::string::npos);
}

TEST(EmitKernel, RuntimeControlFlowVerifies) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, R"(@kt.jit
def k(o, n, BLOCK: kt.constexpr = 16):
    acc = kt.zeros((BLOCK,), kt.float32)
    s = 0.0
    for i in range(0, n, 2):
        acc += i
        if i > 4:
            s = s + 1.0
        else:
            s = s * 2.0
    j = 0
    while j < n:
        j += 1
    for u in kt.static_range(3):
        acc = acc * u
    kt.store(o + kt.arange(0, BLOCK), acc + s + j)
)",
                     "k", "o=*f32, n=i32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("scf.for"), std::string::npos);
  EXPECT_NE(r.ir.find("scf.if"), std::string::npos);
  EXPECT_NE(r.ir.find("scf.while"), std::string::npos);
}

TEST(EmitKernel, DescendingRangeCountsDown) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, R"(@kt.jit
def k(o, n):
    acc = 0
    for i in range(n, -1, -3):
        acc += i
    kt.store(o, acc)
)",
                     "k", "o=*i32, n=i32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("arith.ceildivsi"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("arith.maxsi"), std::string::npos);
  EXPECT_NE(r.ir.find("arith.constant -3 : i32"), std::string::npos);
}

TEST(EmitKernel, GlobalsAndPointerDTypes) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, R"(ROWS, COLS = 2, 4
SHAPE = (ROWS, COLS)

@kt.jit
def k(x, o):
    kt.static_assert(SHAPE[1] == 4)
    v = kt.zeros(SHAPE, x.dtype.element_ty)
    kt.store(o, kt.sum(v).to(o.dtype.element_ty))
)",
                     "k", "x=*bf16, o=*i32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("tensor<2x4xbf16>"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("arith.fptosi"), std::string::npos);
}

TEST(EmitKernel, LoopCarriesOnlyChangedVariables) {
  mlir::MLIRContext ctx;
  // B is reassigned only in a dead branch: it stays a constexpr (a shape).
  // a = b makes `a` carried only from the second dry-run round on.
  Result r = compile(ctx, R"(@kt.jit
def k(o, n, m, BIG: kt.constexpr = False):
    B = 16
    a = 0
    b = 0
    i = 0
    for j in range(n):
        if BIG:
            B = 32
        kt.store(o + kt.arange(0, B), a)
        a = b
        b = b + 1
        i += m
    kt.store(o, a + b + i)
)",
                     "k", "o=*i64, n=i32, m=i64");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("-> (i32, i64, i32)"), std::string::npos) << r.ir;
}

TEST(EmitKernel, LoopDryRunFallsBackOnConstantOnlyErrors) {
  mlir::MLIRContext ctx;
  // In the dry run x is the constant 0 and 10 // x fails; the real loop
  // carries x as a runtime i32.
  Result r = compile(ctx, R"(@kt.jit
def k(o, n):
    x = 0
    for j in range(n):
        kt.store(o, 10 // x)
        x = x + 1
)",
                     "k", "o=*i32, n=i32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("arith.floordivsi"), std::string::npos) << r.ir;
}

TEST(EmitKernel, ChainedComparisonOnTiles) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, R"(@kt.jit
def k(o, n):
    offs = kt.arange(0, 8)
    kt.store(o + offs, 1, mask=2 <= offs < n)
)",
                     "k", "o=*i32, n=i32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("arith.andi"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("tensor<8xi1>"), std::string::npos) << r.ir;
}

TEST(EmitKernel, WideLiteralsWidenToI64) {
  mlir::MLIRContext ctx;
  Result r = compile(ctx, R"(@kt.jit
def k(o, n):
    kt.store(o, n * 3000000000)
)",
                     "k", "o=*i64, n=i32");
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_NE(r.ir.find("arith.extsi %arg1 : i32 to i64"), std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("arith.constant 3000000000 : i64"), std::string::npos);
}

TEST(EmitKernel, ErrorsNeverCrash) {
  const char *bodies[] = {
      "    x = kt.load(o, other=1.0)\n",
      "    x = kt.arange(0, 3)\n",
      "    x = kt.arange(0, n)\n",
      "    x = kt.zeros((4,), kt.float32) + kt.zeros((8,), kt.float32)\n",
      "    x = kt.sum(kt.zeros((4, 4), kt.float32), axis=2)\n",
      "    x = kt.load(o, mask=1, foo=2)\n",
      "    x = kt.load()\n",
      "    x = kt.exp(n)\n",
      "    kt.static_assert(n > 0)\n",
      "    kt.static_assert(1 > 2, 'nope')\n",
      "    x = [i for i in range(3)]\n",
      "    x = lambda: 0\n",
      "    for i in range(n):\n        return\n",
      "    while True:\n        pass\n",
      "    x = 1\n    for i in range(n):\n        x = kt.zeros((4,), "
      "kt.float32)\n",
      "    if n > 0:\n        x = 1\n    else:\n        x = kt.zeros((2,), "
      "kt.float32)\n    y = x\n",
      "    x = kt.dot(kt.zeros((4, 8), kt.float32), kt.zeros((4, 8), "
      "kt.float32))\n",
      "    x = o + 1.5\n",
      "    x = o * 2\n",
      "    z = kt.zeros((4,), kt.float32)\n    if z:\n        pass\n",
      "    z = kt.zeros((4,), kt.float32)\n    y = z and z\n",
      "    y = k(o, n)\n",
      "    y = n[0]\n",
      "    y = kt.nothing\n",
      "    y = kt.reshape(kt.zeros((4,), kt.float32), (3,))\n",
      "    y = kt.trans(kt.zeros((4,), kt.float32))\n",
      "    y = 1 // 0\n",
      "    y = n ** 0.5\n",
      "    a, b = n\n",
      "    y = kt.full((4,), kt.zeros((4,), kt.float32), kt.float32)\n",
      "    y = kt.program_id(3)\n",
      "    y = kt.zeros((n,), kt.float32)\n",
      "    y = kt.load(n)\n",
      "    y = o if n else kt.zeros((2,), kt.float32)\n",
      "    y = ~1.5\n",
      "    y = print(n)\n",
      "    y = kt.where(o, 1, 2)\n",
  };
  for (const char *body : bodies) {
    mlir::MLIRContext ctx;
    Result r = compile(ctx, std::string("@kt.jit\ndef k(o, n):\n") + body, "k",
                       "o=*f32, n=i32");
    EXPECT_NE(r.diagnostics.find("k.py:"), std::string::npos)
        << body << "->" << r.diagnostics << r.ir;
    EXPECT_NE(r.diagnostics.find("^\n"), std::string::npos) << body;
  }
}

} // namespace
