//===- PackageFuzzer.cpp - .crest package bytes into the package reader ---===//
//
// Invariant: a package the reader accepts (it validates) is one the writer
// accepts, the written bytes read back, and writing them again gives the
// same bytes.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "crest/runtime/Package.h"

using namespace llvm;
using crest::fuzz::expectOk;

extern "C" int LLVMFuzzerInitialize(int *, char ***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<crest::pkg::Package> package =
      crest::pkg::readPackage(ArrayRef<uint8_t>(data, size), "fuzz.crest");
  if (!package) {
    consumeError(package.takeError());
    return 0;
  }
  std::vector<uint8_t> once =
      expectOk(crest::pkg::writePackage(*package), "writing a read package");
  crest::pkg::Package again = expectOk(
      crest::pkg::readPackage(once, "rewritten.crest"),
      "re-reading a written package");
  std::vector<uint8_t> twice =
      expectOk(crest::pkg::writePackage(again), "writing a re-read package");
  if (twice != once)
    crest::fuzz::reportBug("package does not round-trip");
  return 0;
}
