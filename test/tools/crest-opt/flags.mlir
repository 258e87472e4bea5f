// crest-opt carries the standard MlirOptMain flags and upstream passes.
// RUN: crest-opt %s --split-input-file --pass-pipeline='builtin.module(crest-attach-target{chip=gfx950},canonicalize)' --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: crest-opt %s --split-input-file --crest-attach-target --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: crest-opt --help | FileCheck %s --check-prefix=HELP
// RUN: crest-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// PRINT: IR Dump After CrestAttachTargetPass (crest-attach-target)
// PRINT: crest.target = #crest.target<chip = "gfx950">
// PRINT: IR Dump After Canonicalizer (canonicalize)
// PRINT: // -----
// PRINT: IR Dump After CrestAttachTargetPass (crest-attach-target)
// TIMING: Execution time report
// TIMING: CrestAttachTargetPass
// HELP: --convert-gpu-to-rocdl
// HELP: --crest-attach-target
// HELP: --rocdl-attach-target
// GENERIC: "crest.relu"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "crest.softmax"(%{{.*}}) <{axis = -1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>

func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = crest.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = crest.softmax %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
