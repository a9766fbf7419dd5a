// kda-opt --help lists kdatile's passes and pipelines before every other
// option; LLVM's code-generation flags move to --help-hidden and still parse.
// RUN: kda-opt --help | FileCheck %s --check-prefix=HELP \
// RUN:   --implicit-check-not=amdgpu-bypass-slow-div
// RUN: kda-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: kda-opt %s --amdgpu-bypass-slow-div=false | FileCheck %s --check-prefix=PARSE

// HELP: kdatile passes and pipelines
// HELP-NEXT: {{^$}}
// HELP-NEXT: Passes:
// HELP: --convert-tile-to-gpu
// HELP: --tile-assign-layouts
// HELP: Pass Pipelines:
// HELP-NEXT: --kda-gpu-lower
// HELP: --kda-cpu-pipeline
// HELP: OVERVIEW: kdatile optimizer driver
// HELP: --canonicalize

// HIDDEN: --amdgpu-bypass-slow-div

// PARSE: module
module {
}
