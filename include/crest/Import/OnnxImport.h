//===- OnnxImport.h - ONNX models to crest graphs ---------------*- C++ -*-===//
//
// Imports an ONNX ModelProto (the supported ops in opsets 1-21; any IR
// version) as a func.func of crest ops on static tensors. Initializers and
// Constant nodes become arith.constant weights; every tensor's shape is
// inferred and checked while importing. The converters are registered by op
// type and opset range (lib/Import/Onnx/Registry.h). See docs/Onnx.md.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_IMPORT_ONNXIMPORT_H
#define CREST_IMPORT_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace crest {

/// The element type matrix operations (Conv, Gemm, MatMul) read.
enum class MatrixPrecision { F32, F16, BF16 };

struct OnnxImportOptions {
  /// Inputs of Conv/Gemm/MatMul are converted to this type (weights at
  /// import time, activations with crest.cast); they accumulate in f32 and
  /// produce f32.
  MatrixPrecision precision = MatrixPrecision::F32;
  /// Values for symbolic input dimensions (ONNX dim_param), by name. A
  /// dimension without a binding is an error saying how to bind it.
  llvm::StringMap<int64_t> dimBindings;
  /// Graph inputs to compile as constants, by name: each value is a
  /// serialized TensorProto (an ONNX test's input_N.pb). Shape operands
  /// (Reshape's shape, Slice's starts, ...) must be constants; this binds
  /// those a model takes as inputs.
  llvm::StringMap<std::string> constantInputs;
  /// The input is a ModelProto in protobuf text format (readable test
  /// inputs) rather than the binary wire format of .onnx files.
  bool textFormat = false;
};

/// Parses "f32", "f16" or "bf16".
std::optional<MatrixPrecision> parseMatrixPrecision(llvm::StringRef text);

/// Parses "name=value[,name=value...]" into `bindings`; false on bad syntax.
bool parseDimBindings(llvm::StringRef text, llvm::StringMap<int64_t> &bindings);

/// Imports the serialized ModelProto in `bytes`; `filename` is used for
/// locations (each op's location is the file, named after its ONNX node).
/// Errors are emitted as diagnostics on `context`, starting with the node's
/// position and name ("node #3 'conv1' (Conv): ..."); the result is then
/// null.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(llvm::StringRef bytes, llvm::StringRef filename,
                mlir::MLIRContext *context, const OnnxImportOptions &options);

/// Registers the `--import-onnx` and `--import-onnx-text` translations (for
/// crest-translate).
void registerOnnxImportTranslation();

} // namespace crest

#endif // CREST_IMPORT_ONNXIMPORT_H
