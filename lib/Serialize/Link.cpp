//===- Link.cpp - Link an AMDGPU object into a code object with lld -------===//
//
// The in-process equivalent of `ld.lld -shared kernel.o -o kernel.hsaco`,
// which is what a ROCm toolchain does to turn the relocatable object into a
// loadable HSA code object. lld reads and writes files, so the object and
// the result pass through two temporary files that are removed afterwards.
//
//===----------------------------------------------------------------------===//

#include "crest/Serialize/Serialize.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace crest;
using llvm::Expected;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Expected<std::string> crest::linkCodeObject(llvm::StringRef relocatable) {
  llvm::SmallString<128> objectPath, outputPath;
  int objectFd = -1;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "crest-kernel", "o", objectFd, objectPath))
    return makeError("cannot create a temporary file for the object: " +
                     ec.message());
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream os(objectFd, /*shouldClose=*/true);
    os << relocatable;
    os.close();
    if (os.has_error())
      return makeError("cannot write " + objectPath + ": " +
                       os.error().message());
  }
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "crest-kernel", "hsaco", outputPath))
    return makeError("cannot create a temporary file for the code object: " +
                     ec.message());
  llvm::FileRemover removeOutput(outputPath);

  // lld keeps global state: one link at a time, and none after a link that
  // says it cannot run again.
  static std::mutex mutex;
  static bool canRunAgain = true;
  std::lock_guard<std::mutex> lock(mutex);
  if (!canRunAgain)
    return makeError("lld failed earlier in this process and cannot link "
                     "again");
  // --no-undefined: a code object with an undefined symbol would only fail
  // when the runtime loads it.
  const char *args[] = {"ld.lld",           "-shared", "--no-undefined",
                        objectPath.c_str(), "-o",      outputPath.c_str()};
  std::string out, err;
  llvm::raw_string_ostream outStream(out), errStream(err);
  lld::Result result =
      lld::lldMain(args, outStream, errStream, {{lld::Gnu, &lld::elf::link}});
  canRunAgain = result.canRunAgain;
  if (result.retCode != 0)
    return makeError("lld failed to link the code object:\n" +
                     llvm::StringRef(err).rtrim());

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(outputPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read the linked code object " + outputPath + ": " +
                     buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
