//===- SanitizerOptions.cpp - defaults of the sanitized executables -------===//
//
// Linked into every executable of a KDA_SANITIZE build, so that a sanitized
// tool run by hand behaves as CI runs it ($ASAN_OPTIONS / $UBSAN_OPTIONS
// still override):
//  - no leak check: LLVM's and MLIR's registries live until exit by design;
//  - no user poisoning: the project's code is instrumented and the prebuilt
//    LLVM and MLIR libraries are not, so an llvm::BumpPtrAllocator slab
//    poisoned by inline header code in one is used unpoisoned by the other
//    (reported as use-after-poison in MLIR's attribute storage).
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "detect_leaks=0:allow_user_poisoning=0";
}

extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}
