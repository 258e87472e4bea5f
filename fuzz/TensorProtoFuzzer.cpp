//===- TensorProtoFuzzer.cpp - TensorProto bytes into the .pb reader ------===//
//
// Invariant: an accepted tensor serializes into one the reader accepts, and
// serializing that again gives the same bytes.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "crest/runtime/OnnxTensor.h"

using namespace llvm;

extern "C" int LLVMFuzzerInitialize(int *, char ***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<crest::OnnxTensor> tensor =
      crest::parseOnnxTensor(ArrayRef<uint8_t>(data, size), "fuzz.pb");
  if (!tensor) {
    consumeError(tensor.takeError());
    return 0;
  }
  std::vector<uint8_t> once = crest::serializeOnnxTensor(*tensor);
  crest::OnnxTensor again = crest::fuzz::expectOk(
      crest::parseOnnxTensor(once, "reserialized.pb"),
      "re-reading a written TensorProto");
  if (crest::serializeOnnxTensor(again) != once)
    crest::fuzz::reportBug("TensorProto does not round-trip");
  return 0;
}
