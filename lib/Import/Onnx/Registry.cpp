//===- Registry.cpp - ONNX op converters by op type and opset -------------===//

#include "Registry.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>

using namespace crest::onnx_import;

void OnnxConverterRegistry::add(llvm::StringRef opType, int64_t minOpset,
                                int64_t maxOpset, OnnxConvertFn convert) {
  assert(minOpset >= 1 && minOpset <= maxOpset && "bad opset range");
  assert(llvm::none_of(converters,
                       [&](const OnnxConverter &c) {
                         return c.opType == opType && c.minOpset <= maxOpset &&
                                minOpset <= c.maxOpset;
                       }) &&
         "overlapping opset ranges");
  converters.push_back({opType, minOpset, maxOpset, convert});
}

const OnnxConverter *OnnxConverterRegistry::lookup(llvm::StringRef opType,
                                                   int64_t opset) const {
  for (const OnnxConverter &c : converters)
    if (c.opType == opType && c.minOpset <= opset && opset <= c.maxOpset)
      return &c;
  return nullptr;
}

llvm::SmallVector<const OnnxConverter *>
OnnxConverterRegistry::lookup(llvm::StringRef opType) const {
  llvm::SmallVector<const OnnxConverter *> found;
  for (const OnnxConverter &c : converters)
    if (c.opType == opType)
      found.push_back(&c);
  llvm::sort(found, [](const OnnxConverter *a, const OnnxConverter *b) {
    return a->minOpset < b->minOpset;
  });
  return found;
}

llvm::SmallVector<llvm::StringRef> OnnxConverterRegistry::getOpTypes() const {
  llvm::SmallVector<llvm::StringRef> names;
  for (const OnnxConverter &c : converters)
    names.push_back(c.opType);
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

const OnnxConverterRegistry &OnnxConverterRegistry::get() {
  static const OnnxConverterRegistry registry = [] {
    OnnxConverterRegistry r;
    registerElementwiseConverters(r);
    registerMatMulConverters(r);
    registerConvPoolConverters(r);
    registerDataMovementConverters(r);
    registerNormalizationConverters(r);
    registerReductionConverters(r);
    registerShapeArithmeticConverters(r);
    registerResizeConverters(r);
    registerRecurrentConverters(r);
    registerLogicConverters(r);
    return r;
  }();
  return registry;
}
