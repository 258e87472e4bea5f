//===- NpyFuzzer.cpp - .npy bytes into the tensor-file reader -------------===//
//
// Invariant: an accepted file serializes into one the reader accepts, and
// serializing that again gives the same bytes.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "crest/runtime/Npy.h"

using namespace llvm;

extern "C" int LLVMFuzzerInitialize(int *, char ***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<crest::NpyArray> array =
      crest::parseNpy(ArrayRef<uint8_t>(data, size), "fuzz.npy");
  if (!array) {
    consumeError(array.takeError());
    return 0;
  }
  std::vector<uint8_t> once = crest::serializeNpy(*array);
  crest::NpyArray again = crest::fuzz::expectOk(
      crest::parseNpy(once, "reserialized.npy"), "re-reading a written .npy");
  if (crest::serializeNpy(again) != once)
    crest::fuzz::reportBug(".npy does not round-trip: " + array->describe() +
                           " became " + again.describe());
  return 0;
}
