//===- TuneCacheTest.cpp - The tuning cache file
//---------------------------===//

#include "crest/Tune/TuneCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace crest;

namespace {

/// A fresh directory, removed with its files at the end of the test.
class TuneCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tune-cache", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string file(llvm::StringRef name) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }
  void write(llvm::StringRef path, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  }
  std::string read(llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : "";
  }

  llvm::SmallString<128> dir;
};

const TuneCacheKey kKey{"gfx942", 64, "matmul (tensor<4x4xf16>) -> ()",
                        "#crest.config<a>"};

std::string messageOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "";
}

TEST_F(TuneCacheTest, MissingFileIsEmpty) {
  TuneCache cache(file("none.json"));
  EXPECT_EQ(cache.load(), std::nullopt);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.lookup(kKey), std::nullopt);
  // Nothing was added: nothing is written.
  EXPECT_EQ(messageOf(cache.save()), "");
  EXPECT_FALSE(llvm::sys::fs::exists(file("none.json")));
}

TEST_F(TuneCacheTest, RoundTrip) {
  std::string path = file("sub/dir/tune.json");
  {
    TuneCache cache(path);
    ASSERT_EQ(cache.load(), std::nullopt);
    cache.insert(kKey, 12.5);
    TuneCacheKey other = kKey;
    other.waveSize = 32;
    cache.insert(other, 3.25);
    EXPECT_EQ(messageOf(cache.save()), "");
  }
  TuneCache again(path);
  EXPECT_EQ(again.load(), std::nullopt);
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(again.lookup(kKey), 12.5);
  TuneCacheKey other = kKey;
  other.waveSize = 32;
  EXPECT_EQ(again.lookup(other), 3.25);
  // Each field is part of the key.
  for (auto edit : {+[](TuneCacheKey &k) { k.chip = "gfx90a"; },
                    +[](TuneCacheKey &k) { k.problem += " "; },
                    +[](TuneCacheKey &k) { k.config = "#crest.config<b>"; }}) {
    TuneCacheKey changed = kKey;
    edit(changed);
    EXPECT_EQ(again.lookup(changed), std::nullopt);
  }
  std::string text = read(path);
  EXPECT_NE(text.find("\"format\": \"crest-tune-cache\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"version\": 1"), std::string::npos) << text;
}

TEST_F(TuneCacheTest, SaveMergesWhatOthersWrote) {
  std::string path = file("tune.json");
  TuneCache first(path), second(path);
  ASSERT_EQ(first.load(), std::nullopt);
  ASSERT_EQ(second.load(), std::nullopt);
  first.insert(kKey, 1.0);
  ASSERT_EQ(messageOf(first.save()), "");
  TuneCacheKey other = kKey;
  other.config = "#crest.config<b>";
  second.insert(other, 2.0);
  ASSERT_EQ(messageOf(second.save()), "");
  TuneCache reader(path);
  ASSERT_EQ(reader.load(), std::nullopt);
  EXPECT_EQ(reader.lookup(kKey), 1.0);
  EXPECT_EQ(reader.lookup(other), 2.0);
}

/// The warning load() gives for a file holding `text`, and that the cache
/// is then empty and rewritten by the next save.
std::string corruptWarning(TuneCacheTest &test, const std::string &path,
                           llvm::StringRef text) {
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(path, ec);
    os << text;
  }
  TuneCache cache(path);
  std::optional<std::string> warning = cache.load();
  EXPECT_EQ(cache.size(), 0u);
  cache.insert(kKey, 4.0);
  EXPECT_EQ(messageOf(cache.save()), "");
  TuneCache reread(path);
  EXPECT_EQ(reread.load(), std::nullopt);
  EXPECT_EQ(reread.lookup(kKey), 4.0);
  return warning.value_or("");
}

TEST_F(TuneCacheTest, CorruptFilesAreIgnoredWithAWarning) {
  std::string path = file("tune.json");
  std::string prefix = "ignoring the tuning cache '" + path + "': ";
  std::string suffix = "; it will be rewritten";
  EXPECT_EQ(corruptWarning(*this, path, "{\"format\": "),
            prefix + "not JSON: [1:11, byte=11]: Unexpected EOF" + suffix);
  EXPECT_EQ(corruptWarning(*this, path, "[1, 2]"),
            prefix + "expected a JSON object" + suffix);
  EXPECT_EQ(corruptWarning(*this, path, "{\"format\": \"other\"}"),
            prefix + "\"format\" is not \"crest-tune-cache\"" + suffix);
  EXPECT_EQ(corruptWarning(*this, path,
                           "{\"format\": \"crest-tune-cache\", \"version\": 2, "
                           "\"entries\": []}"),
            prefix + "version 2; this compiler reads version 1" + suffix);
  EXPECT_EQ(corruptWarning(*this, path,
                           "{\"format\": \"crest-tune-cache\", \"version\": "
                           "1}"),
            prefix + "no \"entries\" array" + suffix);
  EXPECT_EQ(corruptWarning(*this, path,
                           "{\"format\": \"crest-tune-cache\", \"version\": "
                           "1, \"entries\": [{\"chip\": \"gfx942\"}]}"),
            prefix +
                "entries[0]: expected {\"chip\", \"wave_size\", \"problem\", "
                "\"config\", \"us\"}" +
                suffix);
  EXPECT_EQ(corruptWarning(*this, path,
                           "{\"format\": \"crest-tune-cache\", \"version\": "
                           "1, \"entries\": [{\"chip\": \"gfx942\", "
                           "\"wave_size\": 64, \"problem\": \"p\", "
                           "\"config\": \"c\", \"us\": -3}]}"),
            prefix + "entries[0]: \"us\" must be a positive number" + suffix);
  EXPECT_EQ(corruptWarning(*this, path,
                           "{\"format\": \"crest-tune-cache\", \"version\": "
                           "1, \"entries\": [{\"chip\": \"gfx942\", "
                           "\"wave_size\": 48, \"problem\": \"p\", "
                           "\"config\": \"c\", \"us\": 3}]}"),
            prefix + "entries[0]: wave_size must be 32 or 64" + suffix);
  // Nested far deeper than any cache: an error from the bounded parser
  // (llvm::json recurses per level and would overflow the stack).
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  std::string warning = corruptWarning(*this, path, deep);
  EXPECT_NE(warning.find(prefix), std::string::npos) << warning;
  EXPECT_NE(warning.find("nest"), std::string::npos) << warning;
}

TEST_F(TuneCacheTest, UnwritableLocation) {
  // A regular file where the cache's directory should be.
  std::string blocker = file("blocker");
  write(blocker, "x");
  TuneCache cache(blocker + "/tune.json");
  EXPECT_EQ(cache.load(), std::nullopt);
  cache.insert(kKey, 1.0);
  EXPECT_EQ(messageOf(cache.save()), "cannot write the tuning cache: '" +
                                         blocker +
                                         "/tune.json': Not a directory");
}

TEST_F(TuneCacheTest, InMemoryOnly) {
  TuneCache cache;
  EXPECT_EQ(cache.load(), std::nullopt);
  cache.insert(kKey, 7.0);
  EXPECT_EQ(cache.lookup(kKey), 7.0);
  EXPECT_EQ(messageOf(cache.save()), "");
}

TEST(TuneCacheDefaultPath, FollowsXdgCacheHome) {
  const char *old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
  EXPECT_EQ(TuneCache::getDefaultPath(), "/somewhere/cache/crest/tune-v1.json");
  if (old)
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
}

} // namespace
