//===- CodeObjectFuzzer.cpp - Code-object bytes into loader and decoder ---===//
//
// The shared code-object reader (ELF, notes, MessagePack metadata, kernel
// descriptors) and the emulator's decoder of every kernel it finds. Any
// error is fine; a crash is not.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "crest/emu/CodeObject.h"
#include "crest/emu/Program.h"

using namespace llvm;

extern "C" int LLVMFuzzerInitialize(int *, char ***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<crest::emu::CodeObject> object = crest::emu::CodeObject::load(
      ArrayRef<uint8_t>(data, size), "fuzz.hsaco");
  if (!object) {
    consumeError(object.takeError());
    return 0;
  }
  for (const crest::emu::Kernel &kernel : object->getKernels()) {
    auto program = crest::emu::Program::decode(*object, kernel);
    if (!program)
      consumeError(program.takeError());
  }
  return 0;
}
