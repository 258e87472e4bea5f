//===- ToolVersion.h - `--version` of Crest's tools -------------*- C++ -*-===//
//
// Every Crest tool calls crest::setToolVersionPrinter() before parsing its
// command line, so that `--version` prints
//
//   Crest version 0.1.0
//   Debian LLVM version 22.1.8
//     Optimized build.
//
// (Crest's version, then the version block of the LLVM it links).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TOOLVERSION_H
#define CREST_TOOLVERSION_H

#include "crest/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace crest {

/// Prints "Crest version X.Y.Z" and then LLVM's version message to `os`
/// (LLVM's message always goes to stdout, as `os` does under `--version`).
inline void printToolVersion(llvm::raw_ostream &os) {
  os << "Crest version " CREST_VERSION_STRING "\n";
  os.flush();
  llvm::cl::PrintVersionMessage();
}

/// Makes `--version` print printToolVersion's text.
inline void setToolVersionPrinter() {
  llvm::cl::SetVersionPrinter(printToolVersion);
}

} // namespace crest

#endif // CREST_TOOLVERSION_H
