//===- LimitsTest.cpp - Checked sizes, bounded reads, nesting limits ------===//

#include "crest/Support/Limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace crest;
using namespace llvm;

TEST(Limits, CheckedArithmetic) {
  EXPECT_EQ(checkedMul(3, -7), -21);
  EXPECT_EQ(checkedMul(int64_t(1) << 32, int64_t(1) << 31), std::nullopt);
  EXPECT_EQ(checkedAdd(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checkedProduct({2, 3, 5}), 30);
  EXPECT_EQ(checkedProduct({}), 1);
  EXPECT_EQ(checkedProduct({4, -1}), std::nullopt);
  EXPECT_EQ(checkedProduct({int64_t(1) << 40, int64_t(1) << 40}),
            std::nullopt);
  EXPECT_EQ(checkedProduct({1, int64_t(1) << 36}, kMaxTensorElements),
            std::nullopt);
  EXPECT_EQ(checkedProduct({0, int64_t(1) << 62, 4}), 0);
  EXPECT_EQ(checkedCeilDiv(7, 2), 4);
  EXPECT_EQ(checkedCeilDiv(8, 2), 4);
  EXPECT_EQ(checkedCeilDiv(0, 3), 0);
  EXPECT_EQ(checkedCeilDiv(5, 0), std::nullopt);
  EXPECT_EQ(checkedCeilDiv(5, -1), std::nullopt);
}

TEST(Limits, BoundedFile) {
  SmallString<128> path;
  int fd;
  ASSERT_FALSE(sys::fs::createTemporaryFile("limits", "bin", fd, path));
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << "0123456789";
  }
  Expected<std::unique_ptr<MemoryBuffer>> ok = readBoundedFile(path, 10);
  ASSERT_TRUE(bool(ok)) << toString(ok.takeError());
  EXPECT_EQ((*ok)->getBuffer(), "0123456789");
  Expected<std::unique_ptr<MemoryBuffer>> big = readBoundedFile(path, 9);
  ASSERT_FALSE(bool(big));
  EXPECT_EQ(toString(big.takeError()),
            "cannot read '" + path.str().str() +
                "': larger than the 9-byte limit on input files");
  sys::fs::remove(path);

  Expected<std::unique_ptr<MemoryBuffer>> zero = readBoundedFile("/dev/zero");
  ASSERT_FALSE(bool(zero));
  EXPECT_EQ(toString(zero.takeError()),
            "cannot read '/dev/zero': is a device, not a file or pipe");
  Expected<std::unique_ptr<MemoryBuffer>> none =
      readBoundedFile("/nonexistent/x");
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(toString(none.takeError()),
            "cannot read '/nonexistent/x': No such file or directory");
}

TEST(Limits, MlirNesting) {
  EXPECT_FALSE(bool(checkMlirNesting("func.func @f() -> () { return }", "a",
                                     2)));
  // `->` does not close the `<`; a `)` closes the `<` left open inside it.
  EXPECT_FALSE(bool(checkMlirNesting("(a < b) (c -> d)", "a", 2)));
  Error deep = checkMlirNesting("x\n [[[", "in.mlir", 2);
  ASSERT_TRUE(bool(deep));
  EXPECT_EQ(toString(std::move(deep)),
            "in.mlir:2:4: error: brackets, braces, parentheses and angle "
            "brackets are nested deeper than 2 levels (Crest's limit on "
            "nesting)");
  // Strings (with escaped quotes) and comments are skipped.
  EXPECT_FALSE(bool(checkMlirNesting("\"[[[\\\"[[[\" // [[[[\n[", "a", 2)));
}

TEST(Limits, JsonDepth) {
  Expected<json::Value> ok = parseJsonBounded("[[1], {\"a\": [2]}]", 3);
  ASSERT_TRUE(bool(ok)) << toString(ok.takeError());
  Expected<json::Value> deep = parseJsonBounded("[[[[]]]]", 3);
  ASSERT_FALSE(bool(deep));
  EXPECT_EQ(toString(deep.takeError()),
            "[1:4, byte 3]: arrays and objects nested deeper than 3 levels "
            "(Crest's limit on nesting)");
  // Brackets inside strings do not count.
  EXPECT_TRUE(bool(parseJsonBounded("[\"[[[[\"]", 2)));
}
