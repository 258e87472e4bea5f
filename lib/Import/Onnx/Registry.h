//===- Registry.h - ONNX op converters by op type and opset -----*- C++ -*-===//
//
// Every ONNX operator the importer supports is one entry here: its op type,
// the opset versions whose semantics its converter implements, and the
// converter. Each op family's file registers its own
// (register<Family>Converters); the supported-operator list in diagnostics
// (and docs/Onnx.md, which test/Import/Onnx/supported-ops.test checks)
// comes from this registry.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_IMPORT_ONNX_REGISTRY_H
#define CREST_LIB_IMPORT_ONNX_REGISTRY_H

#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace crest {
namespace onnx_import {

class Importer;

/// The newest opset whose changes to the supported operators the
/// converters handle (ONNX 1.18; opsets 22 and 23 only added element types
/// to them). A newer model is imported with these converters and a
/// warning.
constexpr int64_t kNewestOpset = 23;
/// Opsets up to this many past kNewestOpset import with a warning (ONNX
/// releases about two a year); later ones are refused as not real.
constexpr int64_t kNewerOpsetMargin = 8;

/// Converts the Importer's current node (Importer::node, its inputs in
/// Importer::inputs); emits a diagnostic and fails when it cannot.
using OnnxConvertFn = mlir::LogicalResult (*)(Importer &);

struct OnnxConverter {
  llvm::StringRef opType;
  /// The opset versions this converter implements, inclusive.
  int64_t minOpset, maxOpset;
  OnnxConvertFn convert;
};

class OnnxConverterRegistry {
public:
  /// Registers `convert` for `opType` in opsets [minOpset, maxOpset]. The
  /// ranges of one op type must not overlap.
  void add(llvm::StringRef opType, int64_t minOpset, int64_t maxOpset,
           OnnxConvertFn convert);
  /// The converter of `opType` in `opset`, or null.
  const OnnxConverter *lookup(llvm::StringRef opType, int64_t opset) const;
  /// Every converter of `opType`, by increasing opset.
  llvm::SmallVector<const OnnxConverter *> lookup(llvm::StringRef opType) const;
  /// The supported op types, sorted, each once.
  llvm::SmallVector<llvm::StringRef> getOpTypes() const;

  /// The registry with every op family's converters.
  static const OnnxConverterRegistry &get();

private:
  std::vector<OnnxConverter> converters;
};

// One per op family file.
void registerElementwiseConverters(OnnxConverterRegistry &registry);
void registerMatMulConverters(OnnxConverterRegistry &registry);
void registerConvPoolConverters(OnnxConverterRegistry &registry);
void registerDataMovementConverters(OnnxConverterRegistry &registry);
void registerNormalizationConverters(OnnxConverterRegistry &registry);
void registerReductionConverters(OnnxConverterRegistry &registry);
void registerShapeArithmeticConverters(OnnxConverterRegistry &registry);
void registerResizeConverters(OnnxConverterRegistry &registry);
void registerRecurrentConverters(OnnxConverterRegistry &registry);
void registerLogicConverters(OnnxConverterRegistry &registry);

} // namespace onnx_import
} // namespace crest

#endif // CREST_LIB_IMPORT_ONNX_REGISTRY_H
