//===- Fuzz.h - Shared helpers of Crest's fuzz targets ------------*- C++ -*-===//
//
// Each target (docs/Reliability.md) feeds its bytes to one parser or loader.
// A clean error is the expected outcome for most inputs; a crash, a sanitizer
// report, a hang, or a broken invariant (reportBug) is a bug.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_FUZZ_FUZZ_H
#define CREST_FUZZ_FUZZ_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace crest::fuzz {

/// An invariant the input broke (an accepted input that does not
/// round-trip, an imported module that does not verify): abort, so that
/// libFuzzer keeps the input as a crash.
[[noreturn]] inline void reportBug(const llvm::Twine &message) {
  llvm::errs() << "crest fuzz target: invariant broken: " << message << "\n";
  llvm::errs().flush();
  std::abort();
}

/// The value of an Expected that must succeed, or reportBug with its error.
template <typename T>
T expectOk(llvm::Expected<T> value, const llvm::Twine &what) {
  if (!value)
    reportBug(what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

} // namespace crest::fuzz

#endif // CREST_FUZZ_FUZZ_H
