//===- NpyTest.cpp - .npy reading and writing
//--------------------------------===//

#include "crest/runtime/Npy.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace crest;

namespace {

/// An .npy file as NumPy 1.24 writes it (version 1.0, header padded to 64).
std::vector<uint8_t> npyFile(const std::string &dict,
                             const std::vector<uint8_t> &data,
                             uint8_t major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  out.push_back(uint8_t(header.size()));
  out.push_back(uint8_t(header.size() >> 8));
  if (major != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> floats(std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

std::string errorOf(const std::vector<uint8_t> &bytes) {
  auto array = parseNpy(bytes, "t.npy");
  return array ? "" : llvm::toString(array.takeError());
}

TEST(Npy, ParsesNumPyFiles) {
  auto bytes =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              floats({1, 2, 3, 4, 5, 6}));
  auto array = parseNpy(bytes, "t.npy");
  ASSERT_TRUE(bool(array)) << llvm::toString(array.takeError());
  EXPECT_EQ(array->type, NpyType::F32);
  EXPECT_EQ(array->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(array->getNumElements(), 6);
  float last;
  std::memcpy(&last, array->data.data() + 20, 4);
  EXPECT_EQ(last, 6.0f);
  EXPECT_EQ(array->describe(), "f32[2, 3]");

  // A 1-D shape "(5,)", a scalar "()", version 2.0 and single-byte types.
  auto vec = parseNpy(npyFile("{'descr': '|u1', 'fortran_order': False, "
                              "'shape': (5,), }",
                              {1, 2, 3, 4, 5}),
                      "t.npy");
  ASSERT_TRUE(bool(vec)) << llvm::toString(vec.takeError());
  EXPECT_EQ(vec->shape, (std::vector<int64_t>{5}));
  auto scalar = parseNpy(npyFile("{'descr': '<i4', 'fortran_order': False, "
                                 "'shape': (), }",
                                 {7, 0, 0, 0}, 2),
                         "t.npy");
  ASSERT_TRUE(bool(scalar)) << llvm::toString(scalar.takeError());
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->getNumElements(), 1);
}

TEST(Npy, RoundTrips) {
  NpyArray array;
  array.type = NpyType::F16;
  array.shape = {3, 1, 2};
  for (int i = 0; i < 12; ++i)
    array.data.push_back(uint8_t(i * 17 + 3));
  std::vector<uint8_t> bytes = serializeNpy(array);
  // NumPy's layout: the data starts 64-byte aligned.
  EXPECT_EQ((bytes.size() - array.data.size()) % 64, 0u);
  auto back = parseNpy(bytes, "t.npy");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->type, NpyType::F16);
  EXPECT_EQ(back->shape, array.shape);
  EXPECT_EQ(back->data, array.data);
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{}, std::vector<int64_t>{4}}) {
    NpyArray a;
    a.type = NpyType::I32;
    a.shape = shape;
    a.data.assign(4 * a.getNumElements(), 1);
    auto b = parseNpy(serializeNpy(a), "t.npy");
    ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
    EXPECT_EQ(b->shape, shape);
  }
}

TEST(Npy, RejectsMalformedFiles) {
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::vector<uint8_t> good = npyFile(dict, floats({1, 2, 3, 4, 5, 6}));

  EXPECT_NE(errorOf({'x', 'y'}).find("bad magic"), std::string::npos);
  std::vector<uint8_t> truncated(good.begin(), good.end() - 4);
  EXPECT_NE(errorOf(truncated).find("truncated data: f32[2, 3] needs 24 "
                                    "bytes, the file has 20"),
            std::string::npos)
      << errorOf(truncated);
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_NE(errorOf(trailing).find("1 trailing bytes"), std::string::npos);
  std::vector<uint8_t> cutHeader(good.begin(), good.begin() + 40);
  EXPECT_NE(errorOf(cutHeader).find("the header claims"), std::string::npos);
  EXPECT_NE(errorOf(npyFile("{'descr': '<f4', 'fortran_order': True, "
                            "'shape': (2, 3), }",
                            floats({1, 2, 3, 4, 5, 6})))
                .find("Fortran-order"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile("{'descr': '>f4', 'fortran_order': False, "
                            "'shape': (1,), }",
                            floats({1})))
                .find("unsupported dtype '>f4'"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (2, -3), }",
                            {}))
                .find("bad dimension '-3'"),
            std::string::npos);
  std::vector<uint8_t> version = good;
  version[6] = 9;
  EXPECT_NE(errorOf(version).find("unsupported .npy format version 9"),
            std::string::npos);
}

TEST(Npy, ParsesTypeNames) {
  EXPECT_EQ(parseNpyType("f32"), NpyType::F32);
  EXPECT_EQ(parseNpyType("<f2"), NpyType::F16);
  EXPECT_EQ(parseNpyType("=i4"), NpyType::I32);
  EXPECT_EQ(parseNpyType("|i1"), NpyType::I8);
  EXPECT_EQ(parseNpyType("uint16"), NpyType::U16);
  EXPECT_FALSE(parseNpyType("f7").has_value());
}

} // namespace
