//===- CodeObjectReaderTest.cpp - The one code-object reader --------------===//
//
// Reads code objects crest-compile writes, Triton's peers from
// <shared>/peers (skipped when absent), and corrupted copies of them: a
// missing required metadata field is an error naming it, a missing optional
// one its default, and truncated or bit-flipped input an error (or a valid
// object), never a crash. The emulator's own loader tests
// (unittests/Emulator/CodeObjectTest.cpp) cover hand-assembled kernels.
//
//===----------------------------------------------------------------------===//

#include "crest/Format/CodeObject.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <map>
#include <random>

using namespace crest;
using namespace crest::hsa;

namespace {

/// Compiles examples/gemm-f16.gpu.mlir for `chip` (cached per chip).
const std::vector<uint8_t> &compileExample(llvm::StringRef chip) {
  static std::map<std::string, std::vector<uint8_t>> cache;
  auto [it, inserted] = cache.try_emplace(chip.str());
  if (!inserted)
    return it->second;
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("crest-reader", "hsaco", out))
    return it->second;
  std::string input = std::string(CREST_EXAMPLES_DIR) + "/gemm-f16.gpu.mlir";
  std::string target = "--target=" + chip.str();
  llvm::StringRef args[] = {CREST_COMPILE_PATH, input, target,
                            "--emit=hsaco",     "-o",  out};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(CREST_COMPILE_PATH, args, std::nullopt, {},
                                     0, 0, &message);
  EXPECT_EQ(rc, 0) << "crest-compile failed: " << message;
  if (auto buffer = llvm::MemoryBuffer::getFile(out, /*IsText=*/false)) {
    llvm::StringRef bytes = (*buffer)->getBuffer();
    it->second.assign(bytes.begin(), bytes.end());
  }
  llvm::sys::fs::remove(out);
  return it->second;
}

std::string loadError(llvm::ArrayRef<uint8_t> bytes) {
  llvm::Expected<CodeObject> object = CodeObject::load(bytes, "x.hsaco");
  if (object)
    return "";
  return llvm::toString(object.takeError());
}

/// Renames every occurrence of `from` (a metadata key) to `to`, which has
/// the same length, so the MessagePack stays well-formed.
std::vector<uint8_t> renameKey(std::vector<uint8_t> bytes, llvm::StringRef from,
                               llvm::StringRef to) {
  EXPECT_EQ(from.size(), to.size());
  std::string text(bytes.begin(), bytes.end());
  unsigned renamed = 0;
  for (size_t pos = text.find(from.str()); pos != std::string::npos;
       pos = text.find(from.str(), pos + 1), ++renamed)
    std::copy(to.begin(), to.end(), bytes.begin() + pos);
  EXPECT_GT(renamed, 0u) << from.str() << " is not in the code object";
  return bytes;
}

TEST(CodeObjectReader, ReadsCrestCompileOutput) {
  for (llvm::StringRef chip : {"gfx908", "gfx942"}) {
    SCOPED_TRACE(chip.str());
    const std::vector<uint8_t> &bytes = compileExample(chip);
    ASSERT_FALSE(bytes.empty());
    llvm::Expected<CodeObject> object = CodeObject::load(bytes, "gemm.hsaco");
    ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
    EXPECT_EQ(object->getChip().name, chip);
    EXPECT_EQ(object->getCodeObjectVersion(), 5u);
    ASSERT_EQ(object->getKernels().size(), 1u);
    const Kernel &kernel = object->getKernels()[0];
    EXPECT_EQ(kernel.name, "gemm_f16");
    // The example stages two 64x32 f16 tiles: 8192 bytes, in the metadata
    // and the descriptor alike.
    EXPECT_EQ(kernel.groupSegmentFixedSize, 8192u);
    EXPECT_EQ(kernel.descriptor.groupSegmentFixedSize, 8192u);
    EXPECT_EQ(kernel.wavefrontSize, 64u);
    EXPECT_GT(kernel.vgprCount, 0u);
    EXPECT_GT(kernel.sgprCount, 0u);
    if (chip == "gfx908")
      EXPECT_GT(kernel.agprCount, 0u); // MFMA accumulators live in AGPRs
    EXPECT_EQ(kernel.vgprSpillCount, 0u);
    EXPECT_GT(kernel.code.size(), 100u);
    EXPECT_NE(kernel.findArgByKind("global_buffer"), nullptr);
    EXPECT_LE(kernel.getWorkgroupSize(), kernel.maxFlatWorkgroupSize);
  }
}

TEST(CodeObjectReader, ReadsTritonPeers) {
  // CREST_SHARED_DIR in the environment overrides the configured folder
  // (e.g. a missing one, to see what a checkout without it runs).
  const char *env = std::getenv("CREST_SHARED_DIR");
  std::string dir = std::string(env ? env : CREST_SHARED_DIR) + "/peers";
  if (!llvm::sys::fs::is_directory(dir))
    GTEST_SKIP() << "peer code objects not found: '" << dir
                 << "' (CREST_SHARED_DIR)";
  std::error_code ec;
  unsigned read = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".hsaco")
      continue;
    SCOPED_TRACE(it->path());
    llvm::Expected<CodeObject> object = CodeObject::loadFile(it->path());
    ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
    llvm::StringRef file = llvm::sys::path::filename(it->path());
    EXPECT_TRUE(file.contains(object->getChip().name)) << file.str();
    ASSERT_EQ(object->getKernels().size(), 1u);
    const Kernel &kernel = object->getKernels()[0];
    EXPECT_EQ(kernel.name, "matmul_evenk");
    // peers/README.md: 14 arguments in an 80-byte segment, four waves; the
    // kernarg dwords preloaded into user SGPRs (14 on gfx942, 10 on gfx90a,
    // as llvm-readobj shows) fit the 16 user SGPRs after the enabled ones.
    EXPECT_EQ(kernel.kernargSegmentSize, 80u);
    EXPECT_EQ(kernel.args.size(), 14u);
    unsigned preload = kernel.descriptor.kernargPreloadLength();
    EXPECT_EQ(preload, object->getChip().name == "gfx90a" ? 10u : 14u);
    EXPECT_LE(kernel.descriptor.getNumEnabledUserSgprs() + preload,
              kMaxUserSgprs);
    EXPECT_EQ(kernel.maxFlatWorkgroupSize, 256u);
    EXPECT_GT(kernel.code.size(), kKernargPreloadPrologueBytes);
    ++read;
  }
  EXPECT_GT(read, 0u) << "no .hsaco in " << dir;
}

TEST(CodeObjectReader, RequiredMetadataFieldsAreErrors) {
  const std::vector<uint8_t> &good = compileExample("gfx942");
  ASSERT_FALSE(good.empty());
  for (llvm::StringRef key :
       {".vgpr_count", ".sgpr_count", ".wavefront_size",
        ".max_flat_workgroup_size", ".kernarg_segment_size",
        ".kernarg_segment_align", ".group_segment_fixed_size",
        ".private_segment_fixed_size"}) {
    SCOPED_TRACE(key.str());
    std::string renamed = key.str();
    renamed[1] = 'X';
    std::string message = loadError(renameKey(good, key, renamed));
    EXPECT_EQ(message, "x.hsaco: metadata of kernel 'gemm_f16' has no '" +
                           key.str() + "'");
  }
  std::string noSymbol = loadError(renameKey(good, ".symbol", ".Xymbol"));
  EXPECT_EQ(noSymbol, "x.hsaco: a kernel's metadata lacks '.name' or "
                      "'.symbol'");
}

TEST(CodeObjectReader, OptionalMetadataFieldsDefault) {
  const std::vector<uint8_t> &good = compileExample("gfx908");
  ASSERT_FALSE(good.empty());
  llvm::Expected<CodeObject> base = CodeObject::load(good, "x.hsaco");
  ASSERT_TRUE(bool(base)) << llvm::toString(base.takeError());
  ASSERT_GT(base->getKernels()[0].agprCount, 0u);
  std::vector<uint8_t> bytes = renameKey(good, ".agpr_count", ".Xgpr_count");
  bytes = renameKey(bytes, ".vgpr_spill_count", ".Xgpr_spill_count");
  llvm::Expected<CodeObject> object = CodeObject::load(bytes, "x.hsaco");
  ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
  EXPECT_EQ(object->getKernels()[0].agprCount, 0u);
  EXPECT_EQ(object->getKernels()[0].vgprSpillCount, 0u);
  EXPECT_EQ(object->getKernels()[0].vgprCount, base->getKernels()[0].vgprCount);
}

TEST(CodeObjectReader, CorruptInputIsAnErrorNotACrash) {
  const std::vector<uint8_t> &good = compileExample("gfx942");
  ASSERT_FALSE(good.empty());
  EXPECT_EQ(loadError({}), "x.hsaco: not an ELF file");
  std::vector<uint8_t> text = {'\x7f', 'E', 'L', 'F', 'g', 'a', 'r', 'b'};
  EXPECT_EQ(loadError(text), "x.hsaco: not an ELF file");

  // No metadata note: rename the note's owner ("AMDGPU").
  std::string noNote = loadError(renameKey(good, llvm::StringRef("AMDGPU\0", 7),
                                           llvm::StringRef("AMDGPX\0", 7)));
  EXPECT_NE(noNote.find("no AMDGPU metadata note"), std::string::npos)
      << noNote;

  // Every truncation loses the section headers at the end of the file.
  unsigned errors = 0, cuts = 0;
  for (size_t n = 0; n < good.size(); n += 13, ++cuts) {
    std::string message =
        loadError(llvm::ArrayRef<uint8_t>(good).take_front(n));
    errors += llvm::StringRef(message).starts_with("x.hsaco: ");
  }
  EXPECT_EQ(errors, cuts);

  // Random corruption: an error that names the file, or a valid object.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = good;
    for (int flips = 0; flips < 3; ++flips)
      bytes[rng() % bytes.size()] ^= uint8_t(1 + rng() % 255);
    std::string message = loadError(bytes);
    if (!message.empty())
      EXPECT_TRUE(llvm::StringRef(message).starts_with("x.hsaco: ")) << message;
  }
}

} // namespace
