//===- PackageTest.cpp - The .crest package reader and writer -------------===//
//
// A round trip, then corruption: every truncation of a small valid package,
// seeded random byte flips, container-level damage and one manifest rule
// per test, each asserting the message.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Package.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

using namespace crest::pkg;

namespace {

Value makeValue(const char *name, ElementType element,
                std::vector<int64_t> shape, ValueKind kind,
                std::optional<uint32_t> buffer) {
  Value value;
  value.name = name;
  value.type.element = element;
  value.type.shape = std::move(shape);
  value.kind = kind;
  value.buffer = buffer;
  return value;
}

std::string fakeCodeObject(char fill) {
  return std::string("\x7f"
                     "ELF") +
         std::string(300, fill);
}

/// x[2,3] @ w[3,4] -> t; t -> v; v -> u; u -> y. t and u share buffer 2
/// (t's last launch is 1, u's first is 2).
Package makePackage() {
  Package package;
  Manifest &m = package.manifest;
  m.chip = "gfx942";
  m.codeObjectVersion = 5;
  m.waveSize = 64;
  m.graphName = "graph";
  m.values = {
      makeValue("x", ElementType::F32, {2, 3}, ValueKind::Input, 0),  // 0
      makeValue("w", ElementType::F32, {3, 4}, ValueKind::Weight, 1), // 1
      makeValue("t", ElementType::F32, {2, 4}, ValueKind::Intermediate,
                2), // 2
      makeValue("v", ElementType::F16, {2, 4}, ValueKind::Intermediate,
                3), // 3
      makeValue("u", ElementType::F32, {2, 4}, ValueKind::Intermediate,
                2),                                                   // 4
      makeValue("y", ElementType::F32, {2, 4}, ValueKind::Output, 4), // 5
      makeValue("r", ElementType::F32, {2, 4}, ValueKind::Reference,
                std::nullopt), // 6
  };
  m.values[1].weightOffset = 0;
  m.values[1].weightSize = 48;
  m.inputs = {0};
  m.outputs = {5};
  m.buffers = {{24}, {48}, {32}, {16}, {32}};
  Kernel k0{"matmul_relu", 0, "matmul+relu", {}};
  k0.info.vgprs = 40;
  k0.info.mfmaCount = 2;
  k0.info.modelledUs = 12.5;
  Kernel k1{"relu", 1, "relu", {}};
  m.kernels = {k0, k1};
  m.launches = {
      {0, {1, 1, 1}, {64, 1, 1}, {0, 1, 2}},
      {1, {1, 1, 1}, {64, 1, 1}, {2, 3}},
      {1, {1, 1, 1}, {64, 1, 1}, {3, 4}},
      {1, {2, 1, 1}, {64, 1, 1}, {4, 5}},
  };
  Node matmul{"matmul", {0, 1}, {6}, {}, "g.mlir:3:8"};
  matmul.attributes["precision"] = llvm::json::Object{
      {"lhs", "f32"}, {"rhs", "f32"}, {"acc", "f32"}, {"out", "f32"}};
  matmul.attributes["transpose_rhs"] = false;
  m.graph = {matmul,
             {"relu", {6}, {2}, {}, "g.mlir:4:8"},
             {"relu", {2}, {3}, {}, "g.mlir:5:8"},
             {"relu", {3}, {4}, {}, "g.mlir:6:8"},
             {"relu", {4}, {5}, {}, "g.mlir:7:8"}};
  package.weights.resize(48);
  for (size_t i = 0; i < 48; ++i)
    package.weights[i] = uint8_t(i * 7 + 1);
  package.codeObjects = {fakeCodeObject('a'), fakeCodeObject('b')};
  return package;
}

std::vector<uint8_t> writeOrDie(const Package &package) {
  llvm::Expected<std::vector<uint8_t>> bytes = writePackage(package);
  if (!bytes) {
    ADD_FAILURE() << llvm::toString(bytes.takeError());
    return {};
  }
  return std::move(*bytes);
}

/// The error message of `error`, or "" on success.
std::string messageOf(llvm::Error error) {
  if (!error)
    return "";
  return llvm::toString(std::move(error));
}

template <typename T> std::string messageOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

uint64_t readU64(const std::vector<uint8_t> &bytes, size_t at) {
  uint64_t value = 0;
  for (unsigned i = 0; i < 8; ++i)
    value |= uint64_t(bytes[at + i]) << (8 * i);
  return value;
}

uint32_t readU32(const std::vector<uint8_t> &bytes, size_t at) {
  return uint32_t(readU64(bytes, at) & 0xffffffffu);
}

void writeU32(std::vector<uint8_t> &bytes, size_t at, uint32_t value) {
  for (unsigned i = 0; i < 4; ++i)
    bytes[at + i] = uint8_t(value >> (8 * i));
}

void writeU64(std::vector<uint8_t> &bytes, size_t at, uint64_t value) {
  for (unsigned i = 0; i < 8; ++i)
    bytes[at + i] = uint8_t(value >> (8 * i));
}

/// A container built independently of writePackage, so that tests can put
/// anything in it: {kind, index, bytes} per section, 256-byte aligned.
struct RawSection {
  uint32_t kind, index;
  std::string bytes;
};
std::vector<uint8_t> buildContainer(const std::vector<RawSection> &sections) {
  uint64_t offset = 32 + 24 * sections.size();
  offset = (offset + 255) / 256 * 256;
  std::vector<uint64_t> offsets;
  for (const RawSection &section : sections) {
    offsets.push_back(offset);
    offset = (offset + section.bytes.size() + 255) / 256 * 256;
  }
  uint64_t size = offsets.back() + sections.back().bytes.size();
  std::vector<uint8_t> out(size, 0);
  std::memcpy(out.data(), "CRESTPKG", 8);
  writeU32(out, 8, 1);
  writeU32(out, 12, uint32_t(sections.size()));
  writeU64(out, 16, size);
  for (size_t i = 0; i < sections.size(); ++i) {
    writeU32(out, 32 + 24 * i, sections[i].kind);
    writeU32(out, 36 + 24 * i, sections[i].index);
    writeU64(out, 40 + 24 * i, offsets[i]);
    writeU64(out, 48 + 24 * i, sections[i].bytes.size());
    std::memcpy(out.data() + offsets[i], sections[i].bytes.data(),
                sections[i].bytes.size());
  }
  return out;
}

std::string manifestText(const Manifest &manifest) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << manifestToJson(manifest);
  return text;
}

/// A container holding `json` as its manifest, with the valid package's
/// weights and code objects.
std::vector<uint8_t> containerWithManifest(const std::string &json) {
  Package package = makePackage();
  std::string weights(package.weights.begin(), package.weights.end());
  return buildContainer({{1, 0, json},
                         {2, 0, weights},
                         {3, 0, package.codeObjects[0]},
                         {3, 1, package.codeObjects[1]}});
}

std::string readError(const std::vector<uint8_t> &bytes) {
  return messageOf(readPackage(bytes, "m.crest"));
}

//===----------------------------------------------------------------------===//
// Basics and the round trip
//===----------------------------------------------------------------------===//

TEST(PackageTest, ElementTypes) {
  struct {
    const char *name;
    unsigned size;
    bool isFloat;
  } expected[] = {
      {"f64", 8, true},      {"f32", 4, true},        {"f16", 2, true},
      {"bf16", 2, true},     {"f8E4M3FNUZ", 1, true}, {"f8E5M2FNUZ", 1, true},
      {"f8E4M3FN", 1, true}, {"f8E5M2", 1, true},     {"i64", 8, false},
      {"i32", 4, false},     {"i16", 2, false},       {"i8", 1, false},
      {"ui8", 1, false},     {"i1", 1, false}};
  for (const auto &entry : expected) {
    std::optional<ElementType> type = parseElementType(entry.name);
    ASSERT_TRUE(type) << entry.name;
    EXPECT_EQ(getElementTypeName(*type), entry.name);
    EXPECT_EQ(getElementTypeSize(*type), entry.size) << entry.name;
    EXPECT_EQ(isFloatType(*type), entry.isFloat) << entry.name;
  }
  EXPECT_FALSE(parseElementType("f4"));
  EXPECT_FALSE(parseElementType("F32"));
  EXPECT_FALSE(parseElementType(""));
}

TEST(PackageTest, TensorType) {
  TensorType type{ElementType::BF16, {8, 256}};
  EXPECT_EQ(type.getNumElements(), 2048);
  EXPECT_EQ(type.getByteSize(), 4096u);
  EXPECT_EQ(type.describe(), "bf16[8, 256]");
  TensorType scalar{ElementType::F32, {}};
  EXPECT_EQ(scalar.getNumElements(), 1);
  EXPECT_EQ(scalar.describe(), "f32[]");
}

TEST(PackageTest, ValidPackageValidates) {
  EXPECT_EQ(messageOf(validatePackage(makePackage())), "");
}

TEST(PackageTest, RoundTrip) {
  Package package = makePackage();
  std::vector<uint8_t> bytes = writeOrDie(package);
  ASSERT_FALSE(bytes.empty());

  // The container, read by hand.
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "CRESTPKG");
  EXPECT_EQ(readU32(bytes, 8), kPackageFormatVersion);
  uint32_t sections = readU32(bytes, 12);
  EXPECT_EQ(sections, 4u); // manifest, weights, 2 code objects
  EXPECT_EQ(readU64(bytes, 16), bytes.size());
  EXPECT_EQ(readU64(bytes, 24), 0u);
  for (uint32_t i = 0; i < sections; ++i) {
    uint64_t offset = readU64(bytes, 40 + 24 * i);
    uint64_t size = readU64(bytes, 48 + 24 * i);
    EXPECT_EQ(offset % 256, 0u);
    EXPECT_LE(offset + size, bytes.size());
    if (readU32(bytes, 32 + 24 * i) == 2) {
      ASSERT_EQ(size, 48u);
      EXPECT_EQ(0,
                std::memcmp(bytes.data() + offset, package.weights.data(), 48));
    }
  }

  llvm::Expected<Package> read = readPackage(bytes, "m.crest");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->weights, package.weights);
  EXPECT_EQ(read->codeObjects, package.codeObjects);
  const Manifest &a = package.manifest, &b = read->manifest;
  EXPECT_EQ(b.chip, "gfx942");
  EXPECT_EQ(b.codeObjectVersion, 5u);
  EXPECT_EQ(b.waveSize, 64u);
  EXPECT_EQ(b.graphName, "graph");
  ASSERT_EQ(b.values.size(), a.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    EXPECT_EQ(b.values[i].name, a.values[i].name);
    EXPECT_EQ(b.values[i].type, a.values[i].type);
    EXPECT_EQ(b.values[i].kind, a.values[i].kind);
    EXPECT_EQ(b.values[i].buffer, a.values[i].buffer);
    EXPECT_EQ(b.values[i].bufferOffset, a.values[i].bufferOffset);
    EXPECT_EQ(b.values[i].weightOffset, a.values[i].weightOffset);
    EXPECT_EQ(b.values[i].weightSize, a.values[i].weightSize);
  }
  EXPECT_EQ(b.inputs, a.inputs);
  EXPECT_EQ(b.outputs, a.outputs);
  ASSERT_EQ(b.buffers.size(), a.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i)
    EXPECT_EQ(b.buffers[i].size, a.buffers[i].size);
  ASSERT_EQ(b.kernels.size(), 2u);
  EXPECT_EQ(b.kernels[0].name, "matmul_relu");
  EXPECT_EQ(b.kernels[0].op, "matmul+relu");
  EXPECT_EQ(b.kernels[0].info.vgprs, 40u);
  EXPECT_EQ(b.kernels[0].info.mfmaCount, 2u);
  EXPECT_EQ(b.kernels[0].info.modelledUs, 12.5);
  EXPECT_EQ(b.kernels[1].info.modelledUs, std::nullopt);
  EXPECT_EQ(b.kernels[1].codeObject, 1u);
  ASSERT_EQ(b.launches.size(), a.launches.size());
  for (size_t i = 0; i < a.launches.size(); ++i) {
    EXPECT_EQ(b.launches[i].kernel, a.launches[i].kernel);
    EXPECT_EQ(b.launches[i].grid, a.launches[i].grid);
    EXPECT_EQ(b.launches[i].block, a.launches[i].block);
    EXPECT_EQ(b.launches[i].args, a.launches[i].args);
  }
  ASSERT_EQ(b.graph.size(), a.graph.size());
  for (size_t i = 0; i < a.graph.size(); ++i) {
    EXPECT_EQ(b.graph[i].op, a.graph[i].op);
    EXPECT_EQ(b.graph[i].inputs, a.graph[i].inputs);
    EXPECT_EQ(b.graph[i].outputs, a.graph[i].outputs);
    EXPECT_EQ(b.graph[i].location, a.graph[i].location);
    EXPECT_EQ(llvm::json::Value(llvm::json::Object(b.graph[i].attributes)),
              llvm::json::Value(llvm::json::Object(a.graph[i].attributes)));
  }
  EXPECT_EQ(read->findValue("u"), 4u);
  EXPECT_EQ(read->findValue("nope"), std::nullopt);

  // Writing what was read gives the same bytes.
  EXPECT_EQ(writeOrDie(*read), bytes);
}

TEST(PackageTest, FileRoundTrip) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("package-test", "crest", path));
  ASSERT_EQ(messageOf(writePackageFile(path, makePackage())), "");
  llvm::Expected<Package> read = readPackageFile(path);
  EXPECT_TRUE(bool(read)) << llvm::toString(read.takeError());
  llvm::sys::fs::remove(path);
  std::string missing = messageOf(readPackageFile(path));
  EXPECT_EQ(missing, "cannot read '" + std::string(path) +
                         "': No such file or directory");
}

TEST(PackageTest, WriterRejectsInvalidPackages) {
  Package package = makePackage();
  package.manifest.launches[0].args[1] = 99;
  EXPECT_EQ(messageOf(writePackage(package)),
            "manifest: launches[0].args[1]: value 99 out of range (7 "
            "values)");
}

//===----------------------------------------------------------------------===//
// Corruption
//===----------------------------------------------------------------------===//

TEST(PackageTest, EveryTruncationFails) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + length);
    std::string message = readError(cut);
    ASSERT_EQ(message.rfind("m.crest: ", 0), 0u)
        << "length " << length << ": '" << message << "'";
    // With the header's file size patched to match, the damage must still
    // be found by the section checks.
    if (length >= 32) {
      writeU64(cut, 16, length);
      message = readError(cut);
      ASSERT_EQ(message.rfind("m.crest: ", 0), 0u)
          << "patched length " << length << ": '" << message << "'";
    }
  }
}

TEST(PackageTest, RandomByteFlips) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  // Section 0 is the manifest; most flips land there on purpose.
  uint64_t manifestOffset = readU64(bytes, 40);
  uint64_t manifestSize = readU64(bytes, 48);
  std::mt19937 random(20240611);
  unsigned failures = 0;
  for (unsigned iteration = 0; iteration < 20000; ++iteration) {
    std::vector<uint8_t> damaged = bytes;
    unsigned flips = 1 + random() % 4;
    for (unsigned f = 0; f < flips; ++f) {
      size_t at;
      switch (random() % 3) {
      case 0: // anywhere
        at = random() % damaged.size();
        break;
      case 1: // header and section table
        at = random() % (32 + 24 * 4);
        break;
      default: // the manifest
        at = manifestOffset + random() % manifestSize;
        break;
      }
      damaged[at] ^= uint8_t(1 + random() % 255);
    }
    llvm::Expected<Package> read = readPackage(damaged, "m.crest");
    if (read) {
      // Whatever is accepted must be consistent: it validates and writes.
      ASSERT_EQ(messageOf(validatePackage(*read)), "")
          << "iteration " << iteration;
      ASSERT_EQ(messageOf(writePackage(*read)), "")
          << "iteration " << iteration;
      continue;
    }
    ++failures;
    std::string message = llvm::toString(read.takeError());
    ASSERT_EQ(message.rfind("m.crest: ", 0), 0u)
        << "iteration " << iteration << ": " << message;
  }
  // Most damage must be detected (padding, weights and code bytes are not
  // checked, so not all of it).
  EXPECT_GT(failures, 15000u);
}

//===----------------------------------------------------------------------===//
// The container, one rule per test
//===----------------------------------------------------------------------===//

TEST(PackageContainerTest, BadMagic) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  bytes[3] = 'X';
  EXPECT_EQ(readError(bytes), "m.crest: not a Crest package (bad magic)");
}

TEST(PackageContainerTest, UnknownVersion) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  writeU32(bytes, 8, 2);
  EXPECT_EQ(readError(bytes), "m.crest: format version 2 is not supported "
                              "(this reader reads version 1)");
}

TEST(PackageContainerTest, ShortHeader) {
  EXPECT_EQ(readError(std::vector<uint8_t>(31, 0)),
            "m.crest: truncated: 31 bytes, shorter than the 32-byte header");
}

TEST(PackageContainerTest, FileSizeMismatch) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  bytes.push_back(0);
  EXPECT_EQ(readError(bytes), "m.crest: header: file size " +
                                  std::to_string(bytes.size() - 1) +
                                  " does not match the real size " +
                                  std::to_string(bytes.size()));
}

TEST(PackageContainerTest, ReservedField) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  bytes[30] = 1;
  EXPECT_EQ(readError(bytes), "m.crest: header: reserved field is not 0");
}

TEST(PackageContainerTest, SectionCount) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  writeU32(bytes, 12, 0);
  EXPECT_EQ(readError(bytes),
            "m.crest: header: section count 0 out of range [1, 4096]");
  writeU32(bytes, 12, 4097);
  EXPECT_EQ(readError(bytes),
            "m.crest: header: section count 4097 out of range [1, 4096]");
  writeU32(bytes, 12, 4000); // a table longer than the file
  EXPECT_EQ(readError(bytes).rfind("m.crest: header: section table of 4000 "
                                   "entries ends at 96032, past the end",
                                   0),
            0u)
      << readError(bytes);
}

TEST(PackageContainerTest, UnknownSectionKind) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  writeU32(bytes, 32 + 24, 9);
  EXPECT_EQ(readError(bytes), "m.crest: section 1: unknown kind 9");
}

TEST(PackageContainerTest, MisalignedSection) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  uint64_t offset = readU64(bytes, 40 + 24);
  writeU64(bytes, 40 + 24, offset + 8);
  EXPECT_EQ(readError(bytes), "m.crest: section 1 (weights): offset " +
                                  std::to_string(offset + 8) +
                                  " is not a multiple of 256");
}

TEST(PackageContainerTest, SectionInsideHeader) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  writeU64(bytes, 40, 0);
  EXPECT_EQ(readError(bytes), "m.crest: section 0 (manifest): offset 0 lies "
                              "inside the header or section table");
}

TEST(PackageContainerTest, SectionPastTheEnd) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  // Offset + size wraps around 2^64: must not pass as "small".
  writeU64(bytes, 48 + 24 * 3, ~uint64_t(0) - 255);
  uint64_t offset = readU64(bytes, 40 + 24 * 3);
  EXPECT_EQ(readError(bytes), "m.crest: section 3 (code object): " +
                                  std::to_string(~uint64_t(0) - 255) +
                                  " bytes at offset " + std::to_string(offset) +
                                  " extend past the end of the file (" +
                                  std::to_string(bytes.size()) + " bytes)");
}

TEST(PackageContainerTest, OverlappingSections) {
  std::vector<uint8_t> bytes = writeOrDie(makePackage());
  // Code object 1 moved onto code object 0.
  writeU64(bytes, 40 + 24 * 3, readU64(bytes, 40 + 24 * 2));
  EXPECT_EQ(readError(bytes), "m.crest: section 3 (code object) overlaps "
                              "section 2 (code object)");
}

TEST(PackageContainerTest, MissingManifest) {
  std::vector<uint8_t> bytes = buildContainer({{2, 0, "abc"}});
  EXPECT_EQ(readError(bytes), "m.crest: no manifest section");
}

TEST(PackageContainerTest, MissingWeights) {
  std::vector<uint8_t> bytes = buildContainer({{1, 0, "{}"}});
  EXPECT_EQ(readError(bytes), "m.crest: no weights section");
}

TEST(PackageContainerTest, TwoManifests) {
  std::vector<uint8_t> bytes =
      buildContainer({{1, 0, "{}"}, {2, 0, ""}, {1, 0, "{}"}});
  EXPECT_EQ(readError(bytes),
            "m.crest: section 2 (manifest): a second manifest section");
}

TEST(PackageContainerTest, NonZeroWeightsIndex) {
  std::vector<uint8_t> bytes = buildContainer({{1, 0, "{}"}, {2, 1, ""}});
  EXPECT_EQ(readError(bytes), "m.crest: section 1 (weights): index 1 is not 0");
}

TEST(PackageContainerTest, CodeObjectGap) {
  std::vector<uint8_t> bytes = buildContainer({{1, 0, "{}"},
                                               {2, 0, ""},
                                               {3, 0,
                                                "\x7f"
                                                "ELF"},
                                               {3, 2,
                                                "\x7f"
                                                "ELF"}});
  EXPECT_EQ(readError(bytes), "m.crest: code object 1 is missing (code "
                              "objects must be numbered from 0 without gaps)");
}

TEST(PackageContainerTest, DuplicateCodeObject) {
  std::vector<uint8_t> bytes = buildContainer({{1, 0, "{}"},
                                               {2, 0, ""},
                                               {3, 0,
                                                "\x7f"
                                                "ELF"},
                                               {3, 0,
                                                "\x7f"
                                                "ELF"}});
  EXPECT_EQ(readError(bytes), "m.crest: section 3 (code object): code object "
                              "0 appears twice");
}

TEST(PackageContainerTest, CodeObjectIndexOutOfRange) {
  std::vector<uint8_t> bytes = buildContainer({{1, 0, "{}"},
                                               {2, 0, ""},
                                               {3, 4000000000u,
                                                "\x7f"
                                                "ELF"}});
  EXPECT_EQ(readError(bytes), "m.crest: section 2 (code object): index "
                              "4000000000 out of range (3 sections)");
}

TEST(PackageContainerTest, CodeObjectNotElf) {
  Package package = makePackage();
  package.codeObjects[1] = "MZ";
  EXPECT_EQ(messageOf(validatePackage(package)),
            "code object 1: not an ELF file");
}

TEST(PackageContainerTest, InvalidJson) {
  std::string message = readError(containerWithManifest("{\"chip\": "));
  EXPECT_EQ(message.rfind("m.crest: manifest: invalid JSON: ", 0), 0u)
      << message;
}

TEST(PackageContainerTest, ManifestErrorThroughReader) {
  Manifest manifest = makePackage().manifest;
  manifest.launches[3].args[1] = 17;
  EXPECT_EQ(readError(containerWithManifest(manifestText(manifest))),
            "m.crest: manifest: launches[3].args[1]: value 17 out of range "
            "(7 values)");
}

//===----------------------------------------------------------------------===//
// The manifest JSON: keys and types
//===----------------------------------------------------------------------===//

/// The error of parsing the valid manifest after `edit` changed its JSON.
std::string jsonError(const std::function<void(llvm::json::Object &)> &edit) {
  llvm::json::Value json = manifestToJson(makePackage().manifest);
  edit(*json.getAsObject());
  return messageOf(manifestFromJson(json));
}

llvm::json::Object &at(llvm::json::Object &root, llvm::StringRef table,
                       size_t index) {
  return *(*root.getArray(table))[index].getAsObject();
}

TEST(PackageJsonTest, ValidManifestParses) {
  EXPECT_EQ(jsonError([](llvm::json::Object &) {}), "");
}

TEST(PackageJsonTest, NotAnObject) {
  EXPECT_EQ(messageOf(manifestFromJson(llvm::json::Array{})),
            "expected an object");
}

TEST(PackageJsonTest, MissingKey) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) { m.erase("launches"); }),
            "missing key \"launches\"");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 2).erase("kind");
            }),
            "values[2]: missing key \"kind\"");
}

TEST(PackageJsonTest, UnknownKey) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) { m["extra"] = 1; }),
            "unknown key \"extra\"");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              (*at(m, "kernels", 1).getObject("info"))["vgpr"] = 3;
            }),
            "kernels[1].info: unknown key \"vgpr\"");
}

TEST(PackageJsonTest, WrongTypes) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) { m["chip"] = 942; }),
            "chip: expected a string");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) { m["values"] = "x"; }),
            "values: expected an array");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "launches", 2)["args"] = llvm::json::Array{3, "4"};
            }),
            "launches[2].args[1]: expected an integer");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "graph", 0)["attributes"] = llvm::json::Array{};
            }),
            "graph[0].attributes: expected an object");
}

TEST(PackageJsonTest, NegativeAndHugeIntegers) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "launches", 0)["kernel"] = -1;
            }),
            "launches[0].kernel: value -1 out of range [0, 4294967295]");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "buffers", 0)["size"] = -24;
            }),
            "buffers[0].size: value -24 is negative");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 0)["buffer"] = uint64_t(1) << 63;
            }),
            "values[0].buffer: value 9223372036854775808 out of range [0, "
            "4294967295]");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "launches", 0)["grid"] = llvm::json::Array{1, 0, 1};
            }),
            "launches[0].grid[1]: value 0 out of range [1, 4294967295]");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "launches", 0)["block"] = llvm::json::Array{1, 1};
            }),
            "launches[0].block: expected 3 integers, got 2");
}

TEST(PackageJsonTest, ModelledTime) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              (*at(m, "kernels", 1).getObject("info"))["modelled_us"] = 0.25;
            }),
            "");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              (*at(m, "kernels", 0).getObject("info"))["modelled_us"] = "12";
            }),
            "kernels[0].info.modelled_us: expected a number");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              (*at(m, "kernels", 0).getObject("info"))["modelled_us"] = -1.5;
            }),
            "kernels[0].info.modelled_us: value -1.5 is not a positive "
            "number");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              (*at(m, "kernels", 0).getObject("info"))["modelled_us"] = 0;
            }),
            "kernels[0].info.modelled_us: value 0 is not a positive number");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              (*at(m, "kernels", 0).getObject("info"))["modelled_us"] = nullptr;
            }),
            "kernels[0].info.modelled_us: expected a number");
}

TEST(PackageJsonTest, UnknownElementType) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 3)["type"] = "f4E2M1";
            }),
            "values[3].type: unknown element type \"f4E2M1\"");
}

TEST(PackageJsonTest, UnknownValueKind) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 3)["kind"] = "scratch";
            }),
            "values[3].kind: unknown value kind \"scratch\" (expected input, "
            "weight, intermediate, output or reference)");
}

TEST(PackageJsonTest, RankLimit) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 0)["shape"] =
                  llvm::json::Array{1, 1, 1, 1, 1, 1, 1, 1, 1};
            }),
            "values[0].shape: rank 9 exceeds the maximum 8");
}

TEST(PackageJsonTest, NegativeDimension) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 0)["shape"] = llvm::json::Array{2, -3};
            }),
            "values[0].shape[1]: value -3 out of range [0, "
            "9223372036854775807]");
}

TEST(PackageJsonTest, WeightFieldsOnNonWeight) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 0)["weight_size"] = 0;
            }),
            "values[0]: only weights have \"weight_offset\" and "
            "\"weight_size\"");
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 1).erase("weight_offset");
            }),
            "values[1]: a weight needs \"weight_offset\" and "
            "\"weight_size\"");
}

TEST(PackageJsonTest, BufferOffsetWithoutBuffer) {
  EXPECT_EQ(jsonError([](llvm::json::Object &m) {
              at(m, "values", 6)["buffer_offset"] = 0;
            }),
            "values[6].buffer_offset: given without a buffer");
}

//===----------------------------------------------------------------------===//
// The consistency rules, one per test
//===----------------------------------------------------------------------===//

/// The validation error after `edit` changed the valid package.
std::string ruleError(const std::function<void(Package &)> &edit) {
  Package package = makePackage();
  edit(package);
  std::string message = messageOf(validatePackage(package));
  // The same rule holds on the JSON path (without the package's sections,
  // whose rules are skipped there).
  return message;
}

TEST(PackageRuleTest, Chip) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.chip = ""; }),
            "manifest: chip: empty");
}

TEST(PackageRuleTest, CodeObjectVersion) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.codeObjectVersion = 3; }),
            "manifest: code_object_version: 3 is not 4, 5 or 6");
}

TEST(PackageRuleTest, WaveSize) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.waveSize = 16; }),
            "manifest: wave_size: 16 is not 32 or 64");
}

TEST(PackageRuleTest, EmptyBuffer) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.buffers[3].size = 0; }),
            "manifest: buffers[3].size: must be positive");
}

TEST(PackageRuleTest, EmptyName) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.values[2].name = ""; }),
            "manifest: values[2].name: empty");
}

TEST(PackageRuleTest, DuplicateName) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.values[4].name = "t"; }),
            "manifest: values[4].name: 't' is also the name of values[2]");
}

TEST(PackageRuleTest, RankInMemory) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[6].type.shape.assign(9, 1);
            }),
            "manifest: values[6].shape: rank 9 exceeds the maximum 8");
}

TEST(PackageRuleTest, NegativeDimInMemory) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[6].type.shape = {4, -1};
            }),
            "manifest: values[6].shape[1]: negative (-1)");
}

TEST(PackageRuleTest, ByteSizeOverflow) {
  // 2^31 * 2^31 elements overflow int64 bytes; 2^62 f32 elements overflow
  // the byte size although the element count fits.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[6].type.shape = {int64_t(1) << 31,
                                                 int64_t(1) << 31, 4};
            }),
            "manifest: values[6].shape: f32[2147483648, 2147483648, 4] has "
            "more than 2147483648 elements (Crest's tensor-size limit)");
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[6].type.shape = {int64_t(1) << 62};
            }),
            "manifest: values[6].shape: f32[4611686018427387904] has more "
            "than 2147483648 elements (Crest's tensor-size limit)");
  // The limit itself: 2^31 elements pass, one more does not.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[6].type.shape = {2, (int64_t(1) << 30) + 1};
            }),
            "manifest: values[6].shape: f32[2, 1073741825] has more than "
            "2147483648 elements (Crest's tensor-size limit)");
}

TEST(PackageRuleTest, GridPastHsaLimits) {
  // 2^31-1 workgroups of 64 work-items in y: more than 2^32-1 work-items.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.launches[0].grid = {2, (1u << 31) - 1, 1};
              p.manifest.launches[0].block = {1, 64, 1};
            }),
            "manifest: launches[0]: grid 2147483647 x block 64 = "
            "137438953408 work-items in y exceeds HSA's limit of 2^32-1 per "
            "dimension");
}

TEST(PackageRuleTest, ReferenceWithBuffer) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.values[6].buffer = 0; }),
            "manifest: values[6].buffer: a reference value has no buffer");
}

TEST(PackageRuleTest, DeviceValueWithoutBuffer) {
  EXPECT_EQ(
      ruleError([](Package &p) { p.manifest.values[0].buffer = std::nullopt; }),
      "manifest: values[0]: an input value needs a buffer");
  EXPECT_EQ(
      ruleError([](Package &p) { p.manifest.values[3].buffer = std::nullopt; }),
      "manifest: values[3]: a intermediate value needs a buffer");
}

TEST(PackageRuleTest, BufferOutOfRange) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.values[5].buffer = 5; }),
            "manifest: values[5].buffer: buffer 5 out of range (5 buffers)");
}

TEST(PackageRuleTest, ValueLargerThanBuffer) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.buffers[4].size = 31; }),
            "manifest: values[5]: 32 bytes at offset 0 do not fit buffer 4 "
            "(31 bytes)");
  EXPECT_EQ(
      ruleError([](Package &p) { p.manifest.values[3].bufferOffset = 1; }),
      "manifest: values[3]: 16 bytes at offset 1 do not fit buffer 3 "
      "(16 bytes)");
  // Offset + size wraps around.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[3].bufferOffset = ~uint64_t(0) - 7;
            }),
            "manifest: values[3]: 16 bytes at offset 18446744073709551608 do "
            "not fit buffer 3 (16 bytes)");
}

TEST(PackageRuleTest, WeightSizeMismatch) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.values[1].weightSize = 44; }),
            "manifest: values[1].weight_size: 44 bytes, but f32[3, 4] has "
            "48");
}

TEST(PackageRuleTest, WeightOutsideSection) {
  EXPECT_EQ(ruleError([](Package &p) { p.weights.resize(47); }),
            "manifest: values[1]: weight bytes [0, +48) lie outside the "
            "weights section (47 bytes)");
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[1].weightOffset = ~uint64_t(0) - 8;
            }),
            "manifest: values[1]: weight bytes [18446744073709551607, +48) "
            "lie outside the weights section (48 bytes)");
}

TEST(PackageRuleTest, WeightBytesOnNonWeight) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.values[2].weightSize = 32; }),
            "manifest: values[2]: only weights have weight bytes");
}

TEST(PackageRuleTest, InputOutOfRange) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.inputs = {7}; }),
            "manifest: inputs[0]: value 7 out of range (7 values)");
}

TEST(PackageRuleTest, InputOfWrongKind) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.inputs = {0, 1};
            }),
            "manifest: inputs[1]: value 1 ('w') is weight, not input");
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.outputs = {2}; }),
            "manifest: outputs[0]: value 2 ('t') is intermediate, not output");
}

TEST(PackageRuleTest, InputListedTwice) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.inputs = {0, 0};
            }),
            "manifest: inputs[1]: value 0 ('x') is listed twice");
}

TEST(PackageRuleTest, UnlistedInputAndOutput) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.inputs = {}; }),
            "manifest: values[0]: input 'x' is missing from \"inputs\"");
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.outputs = {}; }),
            "manifest: values[5]: output 'y' is missing from \"outputs\"");
}

TEST(PackageRuleTest, KernelName) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.kernels[1].name = ""; }),
            "manifest: kernels[1].name: empty");
}

TEST(PackageRuleTest, KernelCodeObjectOutOfRange) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.kernels[1].codeObject = 2; }),
            "manifest: kernels[1].code_object: code object 2 out of range (2 "
            "code objects)");
}

TEST(PackageRuleTest, DuplicateKernel) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.kernels[1] = p.manifest.kernels[0];
            }),
            "manifest: kernels[1].name: kernel 'matmul_relu' of code object 0 "
            "is listed twice");
}

TEST(PackageRuleTest, ModelledTime) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.kernels[0].info.modelledUs = std::nan("");
            }),
            "manifest: kernels[0].info.modelled_us: nan is not a positive "
            "number of microseconds");
  EXPECT_EQ(
      ruleError([](Package &p) { p.manifest.kernels[1].info.modelledUs = -2; }),
      "manifest: kernels[1].info.modelled_us: -2 is not a positive "
      "number of microseconds");
}

TEST(PackageRuleTest, LaunchKernelOutOfRange) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.launches[2].kernel = 2; }),
            "manifest: launches[2].kernel: kernel 2 out of range (2 kernels)");
}

TEST(PackageRuleTest, LaunchBlockTooLarge) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.launches[1].block = {64, 32, 1};
            }),
            "manifest: launches[1].block: 64x32x1 is not 1 to 1024 "
            "work-items");
  // The product overflows 32 bits.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.launches[1].block = {65536, 65536, 2};
            }),
            "manifest: launches[1].block: 65536x65536x2 is not 1 to 1024 "
            "work-items");
}

TEST(PackageRuleTest, LaunchEmptyGrid) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.launches[1].grid[2] = 0; }),
            "manifest: launches[1].grid[2]: must be positive");
}

TEST(PackageRuleTest, LaunchArgOutOfRange) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.launches[3].args[1] = 17; }),
            "manifest: launches[3].args[1]: value 17 out of range (7 values)");
}

TEST(PackageRuleTest, LaunchArgWithoutBuffer) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.launches[0].args[2] = 6; }),
            "manifest: launches[0].args[2]: value 6 ('r') has no buffer");
}

TEST(PackageRuleTest, OnlyIntermediatesShareBuffers) {
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[5].buffer = 2; // y into t's buffer
            }),
            "manifest: values[5].buffer: 'y' (output) shares buffer 2 with "
            "'t' (intermediate); only intermediates share buffers");
}

TEST(PackageRuleTest, LiveIntermediatesDoNotShare) {
  // v (launches 1-2) moved into t's and u's buffer: overlaps both.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.values[3].buffer = 2;
              p.manifest.values[3].type.element = ElementType::F32;
            }),
            "manifest: values[3].buffer: 'v' and 't' share bytes of buffer 2 "
            "but are both live at launch 1");
  // Disjoint bytes of one buffer may be live together.
  EXPECT_EQ(ruleError([](Package &p) {
              p.manifest.buffers[2].size = 64;
              p.manifest.values[3].buffer = 2;
              p.manifest.values[3].type.element = ElementType::F32;
              p.manifest.values[3].bufferOffset = 32;
            }),
            "");
  // t used again by the last launch: its life now overlaps u's.
  EXPECT_EQ(
      ruleError([](Package &p) { p.manifest.launches[3].args.push_back(2); }),
      "manifest: values[4].buffer: 'u' and 't' share bytes of buffer 2 "
      "but are both live at launch 2");
}

/// Adds tw = t[1:2, :] (a slice node after t's producer) in t's buffer at
/// `offset` bytes, read by launch 1 beside t.
void addWindowOfT(Package &p, uint64_t offset,
                  std::vector<int64_t> offsets = {1, 0},
                  std::vector<int64_t> shape = {1, 4}) {
  Manifest &m = p.manifest;
  m.values.push_back(makeValue("tw", ElementType::F32, std::move(shape),
                               ValueKind::Intermediate, 2));
  m.values.back().bufferOffset = offset;
  Node slice{"slice", {2}, {7}, {}, "g.mlir:9:8"};
  slice.attributes["offsets"] = llvm::json::Array(offsets);
  m.graph.insert(m.graph.begin() + 2, slice);
  m.launches[1].args = {2, 7, 3};
}

TEST(PackageRuleTest, WindowAliases) {
  // Row 1 of t[2,4] f32 is bytes 16-31 of t's: a window, one storage class
  // with t, so the two may be live together.
  EXPECT_EQ(ruleError([](Package &p) { addWindowOfT(p, 16); }), "");
  // At another offset tw is not those bytes: a value of its own, live
  // with t at launch 1 in bytes t holds.
  EXPECT_EQ(ruleError([](Package &p) { addWindowOfT(p, 8); }),
            "manifest: values[7].buffer: 'tw' and 't' share bytes of buffer 2 "
            "but are both live at launch 1");
  // Columns 1-2 of both rows are not one run of t's elements.
  EXPECT_EQ(ruleError([](Package &p) { addWindowOfT(p, 4, {0, 1}, {2, 2}); }),
            "manifest: values[7].buffer: 'tw' and 't' share bytes of buffer 2 "
            "but are both live at launch 1");
  // A window's class is t's: reading it at launch 3 keeps t alive past
  // u's first launch, in the bytes u takes.
  EXPECT_EQ(ruleError([](Package &p) {
              addWindowOfT(p, 16);
              p.manifest.launches[3].args.push_back(7);
            }),
            "manifest: values[4].buffer: 'u' and 't' share bytes of buffer 2 "
            "but are both live at launch 2");
}

TEST(PackageRuleTest, NodeOp) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.graph[1].op = ""; }),
            "manifest: graph[1].op: empty");
}

TEST(PackageRuleTest, NodeValueOutOfRange) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.graph[2].inputs = {70}; }),
            "manifest: graph[2].inputs[0]: value 70 out of range (7 values)");
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.graph[2].outputs = {7}; }),
            "manifest: graph[2].outputs[0]: value 7 out of range (7 values)");
}

TEST(PackageRuleTest, NodeReadsBeforeProducer) {
  EXPECT_EQ(ruleError([](Package &p) {
              std::swap(p.manifest.graph[1], p.manifest.graph[2]);
            }),
            "manifest: graph[1].inputs[0]: value 2 ('t') is not produced by "
            "an earlier node");
}

TEST(PackageRuleTest, NodeProducesInput) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.graph[4].outputs = {1}; }),
            "manifest: graph[4].outputs[0]: value 1 ('w') is weight and "
            "cannot be produced");
}

TEST(PackageRuleTest, ValueProducedTwice) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.graph[4].outputs = {4}; }),
            "manifest: graph[4].outputs[0]: value 4 ('u') is already produced "
            "by graph[3]");
}

TEST(PackageRuleTest, ValueProducedByNoNode) {
  EXPECT_EQ(ruleError([](Package &p) { p.manifest.graph.pop_back(); }),
            "manifest: values[5]: output 'y' is produced by no node of the "
            "graph");
}

TEST(PackageRuleTest, JsonPathChecksReferencesToo) {
  // manifestFromJson applies the same rules (without the section checks).
  Manifest manifest = makePackage().manifest;
  manifest.values[2].name = "x";
  EXPECT_EQ(messageOf(manifestFromJson(manifestToJson(manifest))),
            "values[2].name: 'x' is also the name of values[0]");
  manifest = makePackage().manifest;
  manifest.kernels[0].codeObject = 9; // no package: not checked here
  EXPECT_EQ(messageOf(manifestFromJson(manifestToJson(manifest))), "");
}

} // namespace
