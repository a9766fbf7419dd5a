//===- Signature.cpp - dtypes, kernel signatures, constexpr values --------===//
//
// The text forms shared by kda-compile and the Python JIT.
//
//===----------------------------------------------------------------------===//
#include "kda/Frontend/Frontend.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdlib>
#include <set>

using namespace kda::frontend;
using llvm::StringRef;

std::optional<DType> kda::frontend::parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Cases({"f32", "fp32", "float32"}, DType::F32)
      .Cases({"f16", "fp16", "float16"}, DType::F16)
      .Cases({"bf16", "bfloat16"}, DType::BF16)
      .Cases({"f64", "fp64", "float64"}, DType::F64)
      .Cases({"i1", "int1"}, DType::I1)
      .Cases({"i8", "int8"}, DType::I8)
      .Cases({"i16", "int16"}, DType::I16)
      .Cases({"i32", "int32"}, DType::I32)
      .Cases({"i64", "int64"}, DType::I64)
      .Default(std::nullopt);
}

StringRef kda::frontend::dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

mlir::Type kda::frontend::dtypeToMLIR(mlir::MLIRContext &ctx, DType type) {
  switch (type) {
  case DType::F32:
    return mlir::Float32Type::get(&ctx);
  case DType::F16:
    return mlir::Float16Type::get(&ctx);
  case DType::BF16:
    return mlir::BFloat16Type::get(&ctx);
  case DType::F64:
    return mlir::Float64Type::get(&ctx);
  case DType::I1:
    return mlir::IntegerType::get(&ctx, 1);
  case DType::I8:
    return mlir::IntegerType::get(&ctx, 8);
  case DType::I16:
    return mlir::IntegerType::get(&ctx, 16);
  case DType::I32:
    return mlir::IntegerType::get(&ctx, 32);
  case DType::I64:
    return mlir::IntegerType::get(&ctx, 64);
  }
  return {};
}

const ParamSpec *KernelSignature::find(StringRef name) const {
  for (const ParamSpec &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

static bool isIdentifier(StringRef s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

std::optional<KernelSignature>
kda::frontend::parseSignature(StringRef text, std::string &error) {
  KernelSignature sig;
  std::set<std::string> seen;
  llvm::SmallVector<StringRef> entries;
  text.split(entries, ',');
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (entry.empty()) {
      if (entries.size() == 1)
        break; // an empty signature
      error = "empty entry in signature '" + text.str() + "'";
      return std::nullopt;
    }
    auto [name, type] = entry.split('=');
    name = name.trim();
    type = type.trim();
    if (!entry.contains('=') || !isIdentifier(name)) {
      error = "expected 'name=type' in signature entry '" + entry.str() + "'";
      return std::nullopt;
    }
    if (!seen.insert(name.str()).second) {
      error = "parameter '" + name.str() + "' appears twice in the signature";
      return std::nullopt;
    }
    ParamSpec spec;
    spec.name = name.str();
    if (type.consume_front("*")) {
      spec.isPointer = true;
      type = type.ltrim();
    }
    auto [dtypeText, divText] = type.split(':');
    std::optional<DType> dtype = parseDType(dtypeText.trim());
    if (!dtype) {
      error = "unknown type '" + dtypeText.trim().str() + "' for parameter '" +
              spec.name + "'";
      return std::nullopt;
    }
    spec.type = *dtype;
    if (type.contains(':')) {
      unsigned div = 0;
      if (divText.trim().getAsInteger(10, div) || div == 0) {
        error = "bad divisibility '" + divText.trim().str() +
                "' for parameter '" + spec.name + "'";
        return std::nullopt;
      }
      spec.divisibility = div;
    }
    sig.params.push_back(spec);
  }
  return sig;
}

std::optional<ConstexprValue> kda::frontend::parseConstexpr(StringRef text) {
  text = text.trim();
  if (text == "True" || text == "true")
    return ConstexprValue(true);
  if (text == "False" || text == "false")
    return ConstexprValue(false);
  if (std::optional<DType> dtype = parseDType(text))
    return ConstexprValue(*dtype);
  std::string digits;
  for (char c : text)
    if (c != '_')
      digits += c;
  StringRef clean(digits);
  if (clean.empty())
    return std::nullopt;
  // An integer as Python spells it: an optional sign, then decimal digits (a
  // leading zero only in zero itself: 010 is neither 8 nor 10) or 0x / 0o / 0b
  // digits. One past 64 bits is an error, not a float.
  StringRef magnitude = clean;
  bool negative = magnitude.consume_front("-");
  if (!negative)
    magnitude.consume_front("+");
  unsigned radix = 0;
  if (!magnitude.empty() && llvm::all_of(magnitude, llvm::isDigit))
    radix = 10;
  else if (magnitude.size() > 1 && magnitude[0] == '0')
    radix = llvm::StringSwitch<unsigned>(magnitude.substr(1, 1).lower())
                .Case("x", 16)
                .Case("o", 8)
                .Case("b", 2)
                .Default(0);
  if (radix) {
    StringRef body = radix == 10 ? magnitude : magnitude.drop_front(2);
    uint64_t value = 0;
    if ((radix == 10 && body.size() > 1 && body.front() == '0' &&
         body.find_first_not_of('0') != StringRef::npos) ||
        body.getAsInteger(radix, value) ||
        value > static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0))
      return std::nullopt;
    return ConstexprValue(static_cast<int64_t>(negative ? 0 - value : value));
  }
  char *end = nullptr;
  double d = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size())
    return std::nullopt;
  StringRef lower = clean.lower() == "nan" ? "nan" : "";
  if (!std::isfinite(d) && lower.empty() && !clean.contains_insensitive("inf"))
    return std::nullopt;
  return ConstexprValue(d);
}
