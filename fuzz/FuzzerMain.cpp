//===- FuzzerMain.cpp - Run a fuzz target on files ------------------------===//
//
// The main of a fuzz target in a build without CREST_FUZZ: it runs the
// target's LLVMFuzzerTestOneInput on each file named on the command line, as
// libFuzzer does with files given to it (LLVM's FuzzerCLI). The lit suite
// replays the seed corpora and every crash ever found this way
// (test/Fuzz), so they stay fixed in every build.
//
//===----------------------------------------------------------------------===//

#include "llvm/FuzzMutate/FuzzerCLI.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);

int main(int argc, char *argv[]) {
  LLVMFuzzerInitialize(&argc, &argv);
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput);
}
