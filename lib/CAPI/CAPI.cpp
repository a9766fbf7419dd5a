//===- CAPI.cpp - the C API of libkda -------------------------------------===//
#include "kda/CAPI/kda.h"
#include "kda/Driver/Compiler.h"
#include "kda/Frontend/BuiltinTable.h"
#include "kda/Runtime/CPULauncher.h"
#include "kda/Target/HostCodegen.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace kda;
namespace json = llvm::json;

namespace {
char *copyString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

int respondError(char **response, const std::string &message) {
  json::Object obj{{"ok", false}, {"error", message}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(obj));
  *response = copyString(text);
  return 1;
}

int respond(char **response, json::Object obj) {
  obj["ok"] = true;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(obj));
  *response = copyString(text);
  return 0;
}

/// Reads the request fields shared by kda_compile and kda_dependencies.
bool parseRequest(const char *text, CompileOptions &options,
                  std::string &error) {
  llvm::Expected<json::Value> parsed = json::parse(text ? text : "");
  if (!parsed) {
    error = "error: malformed request: " + llvm::toString(parsed.takeError());
    return false;
  }
  const json::Object *obj = parsed->getAsObject();
  if (!obj) {
    error = "error: the request must be a JSON object";
    return false;
  }
  frontend::CompileRequest &req = options.request;
  auto source = obj->getString("source");
  auto filename = obj->getString("filename");
  auto kernel = obj->getString("kernel");
  if (!source || !filename || !kernel) {
    error = "error: the request needs 'source', 'filename' and 'kernel'";
    return false;
  }
  req.source = source->str();
  req.filename = filename->str();
  req.kernelName = kernel->str();
  if (auto offset = obj->getInteger("line_offset"))
    req.lineOffset = static_cast<unsigned>(*offset);
  if (auto target = obj->getString("target"))
    options.target = target->str();
  if (auto cpu = obj->getString("cpu"))
    options.cpu = cpu->str();
  if (auto features = obj->getString("cpu_features"))
    options.cpuFeatures = features->str();
  if (auto signature = obj->getString("signature")) {
    auto sig = frontend::parseSignature(*signature, error);
    if (!sig)
      return false;
    req.signature = std::move(*sig);
  }
  if (const json::Object *constexprs = obj->getObject("constexprs")) {
    for (const auto &[key, value] : *constexprs) {
      frontend::ConstexprValue v;
      if (auto b = value.getAsBoolean())
        v = *b;
      else if (auto i = value.getAsInteger())
        v = *i;
      else if (auto d = value.getAsNumber())
        v = *d;
      else if (const json::Object *f = value.getAsObject();
               f && f->size() == 1 && f->getNumber("float"))
        // {"float": 16.0}: JSON numbers do not say int or float, and
        // getAsInteger accepts an integral double.
        v = *f->getNumber("float");
      else if (auto s = value.getAsString()) {
        auto dtype = frontend::parseDType(*s);
        if (!dtype) {
          error = "error: constexpr '" + key.str() + "': unknown dtype '" +
                  s->str() + "'";
          return false;
        }
        v = *dtype;
      } else {
        error =
            "error: constexpr '" + key.str() +
            "' must be a number, {\"float\": number}, a bool or a dtype name";
        return false;
      }
      req.constexprs[key.str()] = v;
    }
  }
  if (const json::Array *paths = obj->getArray("search_paths"))
    for (const json::Value &p : *paths)
      if (auto s = p.getAsString())
        req.searchPaths.push_back(s->str());
  if (auto stdlib = obj->getString("stdlib_dir"))
    req.stdlibDir = stdlib->str();
  if (auto emit = obj->getString("emit")) {
    auto kind = parseEmitKind(*emit);
    if (!kind) {
      error = "error: unknown emit kind '" + emit->str() + "'";
      return false;
    }
    options.emit = *kind;
  }
  if (auto output = obj->getString("output"))
    options.outputPath = output->str();
  if (auto copies = obj->getString("block_copies")) {
    if (*copies != "engine" && *copies != "elements") {
      error = "error: block_copies must be \"engine\" or \"elements\", got '" +
              copies->str() + "'";
      return false;
    }
    options.blockCopyEngine = *copies == "engine";
  }
  if (auto lineInfo = obj->getBoolean("line_info"))
    options.lineInfo = *lineInfo;
  if (auto checkBounds = obj->getBoolean("check_bounds"))
    options.checkBounds = *checkBounds;
  if (auto warps = obj->getInteger("num_warps")) {
    if (*warps < 1 || *warps > 32) {
      error =
          "error: num_warps must be in [1, 32], got " + std::to_string(*warps);
      return false;
    }
    options.numWarps = static_cast<unsigned>(*warps);
  }
  return true;
}
} // namespace

extern "C" {

const char *kda_version(void) { return getCompilerVersion().c_str(); }

const char *kda_builtins(void) {
  static const std::string table = kda::frontend::builtinTableJSON();
  return table.c_str();
}

int kda_compile(const char *request, char **response) {
  CompileOptions options;
  std::string error;
  if (!parseRequest(request, options, error))
    return respondError(response, error);
  if (!isTextEmit(options.emit) && options.outputPath.empty())
    return respondError(response, "error: binary emits need an 'output' path");
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  prepareContext(ctx);
  CompileResult result = compileKernel(ctx, options);
  if (!result.ok)
    return respondError(response, result.error);
  json::Array params;
  for (const frontend::ParamSpec &p : result.params)
    params.push_back(json::Object{{"name", p.name},
                                  {"kind", p.isPointer ? "pointer" : "scalar"},
                                  {"dtype", frontend::dtypeName(p.type).str()},
                                  {"written", p.written}});
  // Hidden parameters after them: the tensor maps the runtime builds.
  for (size_t i = 0; i < result.tensorMaps.size(); ++i) {
    json::Array recipe;
    for (int64_t token : result.tensorMaps[i])
      recipe.push_back(token);
    params.push_back(json::Object{{"name", "tensor_map_" + std::to_string(i)},
                                  {"kind", "tensor_map"},
                                  {"recipe", std::move(recipe)}});
  }
  double seconds = 0;
  json::Object timings;
  for (auto &[stage, s] : result.timings) {
    timings[stage] = s;
    seconds += s;
  }
  return respond(response, json::Object{{"entry", result.entrySymbol},
                                        {"params", std::move(params)},
                                        {"text", result.text},
                                        {"timings", std::move(timings)},
                                        {"shared_bytes", result.sharedBytes},
                                        {"cluster_shape",
                                         json::Array{result.clusterShape[0],
                                                     result.clusterShape[1],
                                                     result.clusterShape[2]}},
                                        {"early_launch", result.earlyLaunch},
                                        {"cpu", result.cpu},
                                        {"cpu_features", result.cpuFeatures},
                                        {"seconds", seconds}});
}

int kda_dependencies(const char *request, char **response) {
  CompileOptions options;
  std::string error;
  if (!parseRequest(request, options, error))
    return respondError(response, error);
  std::vector<std::string> files;
  if (!frontend::listDependencies(options.request, files, error))
    return respondError(response, error);
  json::Array list;
  for (const std::string &f : files)
    list.push_back(f);
  return respond(response, json::Object{{"files", std::move(list)}});
}

int kda_cpu_target(const char *cpu, const char *cpuFeatures, char **response) {
  std::string error;
  std::optional<HostCPUTarget> target = resolveHostCPUTarget(
      cpu ? cpu : "", cpuFeatures ? cpuFeatures : "", error);
  if (!target)
    return respondError(response, error);
  return respond(response, json::Object{{"cpu", target->cpu},
                                        {"cpu_features",
                                         getRequiredCPUFeatures(*target)}});
}

void kda_cpu_report_out_of_bounds(int64_t *table, const char *site,
                                  int64_t address, int32_t argument) {
  reportOutOfBounds(table, site, address, argument);
}

char *kda_missing_cpu_features(const char *cpuFeatures) {
  return copyString(getMissingHostCPUFeatures(cpuFeatures ? cpuFeatures : ""));
}

int kda_cpu_launch(void *entry, int32_t gx, int32_t gy, int32_t gz, void **args,
                   int32_t num_threads, char **error) {
  std::string message;
  if (launchCPUKernel(reinterpret_cast<CPUKernelEntry>(entry), gx, gy, gz, args,
                      num_threads, message))
    return 0;
  if (error)
    *error = copyString(message);
  return 1;
}

int kda_cpu_launch_in_clusters(void *entry, int32_t gx, int32_t gy, int32_t gz,
                               int32_t cx, int32_t cy, int32_t cz, void **args,
                               int32_t num_args, int32_t num_threads,
                               char **error) {
  std::string message;
  const int32_t grid[3] = {gx, gy, gz}, cluster[3] = {cx, cy, cz};
  if (launchCPUKernelInClusters(reinterpret_cast<CPUKernelEntry>(entry), grid,
                                cluster, args, num_args, num_threads, message))
    return 0;
  if (error)
    *error = copyString(message);
  return 1;
}

void kda_free(void *ptr) { std::free(ptr); }

} // extern "C"
