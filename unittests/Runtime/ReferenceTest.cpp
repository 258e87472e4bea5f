//===- ReferenceTest.cpp - The host reference evaluator
//--------------------===//
//
// Hand-computed expected values for each op family, the rounding of casts,
// the tolerance formulas and the comparison.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace crest;
using namespace crest::rt;
using crest::pkg::ElementType;

namespace {

std::vector<uint8_t> f32Bytes(const std::vector<float> &v) {
  std::vector<uint8_t> out(v.size() * 4);
  if (!v.empty()) // memcpy's pointers may not be null, even for 0 bytes
    std::memcpy(out.data(), v.data(), out.size());
  return out;
}

HostTensor f32Tensor(std::vector<int64_t> shape, const std::vector<float> &v) {
  HostTensor t;
  t.type.element = ElementType::F32;
  t.type.shape = std::move(shape);
  t.data = f32Bytes(v);
  return t;
}

/// Builds packages of one or more nodes over f32 values.
struct GraphBuilder {
  pkg::Package package;

  uint32_t value(const std::string &name, std::vector<int64_t> shape,
                 pkg::ValueKind kind = pkg::ValueKind::Reference,
                 ElementType type = ElementType::F32) {
    pkg::Value v;
    v.name = name;
    v.type.element = type;
    v.type.shape = std::move(shape);
    v.kind = kind;
    uint32_t id = package.manifest.values.size();
    if (kind == pkg::ValueKind::Input)
      package.manifest.inputs.push_back(id);
    if (kind == pkg::ValueKind::Output)
      package.manifest.outputs.push_back(id);
    package.manifest.values.push_back(std::move(v));
    return id;
  }
  uint32_t weight(const std::string &name, std::vector<int64_t> shape,
                  const std::vector<float> &data) {
    uint32_t id = value(name, std::move(shape), pkg::ValueKind::Weight);
    pkg::Value &v = package.manifest.values[id];
    v.weightOffset = package.weights.size();
    std::vector<uint8_t> bytes = f32Bytes(data);
    v.weightSize = bytes.size();
    package.weights.insert(package.weights.end(), bytes.begin(), bytes.end());
    return id;
  }
  void node(const std::string &op, std::vector<uint32_t> in, uint32_t out,
            llvm::json::Object attrs = {}) {
    pkg::Node n;
    n.op = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    n.attributes = std::move(attrs);
    package.manifest.graph.push_back(std::move(n));
  }
  std::vector<RefTensor> run(llvm::ArrayRef<HostTensor> inputs) {
    llvm::Expected<std::vector<RefTensor>> r =
        evaluateReference(package, inputs);
    if (!r) {
      ADD_FAILURE() << llvm::toString(r.takeError());
      return {};
    }
    return std::move(*r);
  }
};

llvm::json::Object f32Precision() {
  return llvm::json::Object{{"precision", llvm::json::Object{{"lhs", "f32"},
                                                             {"rhs", "f32"},
                                                             {"acc", "f32"},
                                                             {"out", "f32"}}}};
}

TEST(ReferenceTest, MatmulTransposeRhs) {
  GraphBuilder g;
  uint32_t a = g.value("a", {2, 3}, pkg::ValueKind::Input);
  // rhs is N x K = 2 x 3 with transpose_rhs.
  uint32_t b = g.weight("b", {2, 3}, {1, 0, -1, 2, 1, 0});
  uint32_t c = g.value("c", {2, 2}, pkg::ValueKind::Output);
  llvm::json::Object attrs = f32Precision();
  attrs["transpose_rhs"] = true;
  g.node("matmul", {a, b}, c, std::move(attrs));
  std::vector<RefTensor> r = g.run({f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 3u);
  // [1 2 3] . [1 0 -1] = -2, [1 2 3] . [2 1 0] = 4,
  // [4 5 6] . [1 0 -1] = -2, [4 5 6] . [2 1 0] = 13.
  EXPECT_EQ(r[c].values, (std::vector<double>{-2, 4, -2, 13}));
  // K u(f32) sum|ab|: element 0: 3 * 2^-24 * (1 + 0 + 3), then one f32
  // rounding ulp of the result (2 * 2^-24 * 2).
  double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(r[c].tolerance[0], 3 * u * 4 + 2 * u * 2);
}

TEST(ReferenceTest, BatchMatmulBroadcastsBatchAndTransposesLhs) {
  GraphBuilder g;
  uint32_t a = g.value("a", {1, 2, 2}, pkg::ValueKind::Input); // K x M
  uint32_t b = g.weight("b", {2, 2, 1}, {1, 1, 2, -1});        // B x K x N
  uint32_t c = g.value("c", {2, 2, 1}, pkg::ValueKind::Output);
  llvm::json::Object attrs = f32Precision();
  attrs["transpose_lhs"] = true;
  g.node("batch_matmul", {a, b}, c, std::move(attrs));
  // A^T = [[1, 3], [2, 4]].
  std::vector<RefTensor> r = g.run({f32Tensor({1, 2, 2}, {1, 2, 3, 4})});
  ASSERT_FALSE(r.empty());
  // batch 0: [1 3].[1 1] = 4, [2 4].[1 1] = 6; batch 1: [1 3].[2 -1] = -1,
  // [2 4].[2 -1] = 0.
  EXPECT_EQ(r[c].values, (std::vector<double>{4, 6, -1, 0}));
}

TEST(ReferenceTest, BroadcastAddThenRelu) {
  GraphBuilder g;
  uint32_t x = g.value("x", {2, 3}, pkg::ValueKind::Input);
  uint32_t b = g.weight("b", {3}, {10, -20, 0.5});
  uint32_t s = g.value("s", {2, 3});
  uint32_t y = g.value("y", {2, 3}, pkg::ValueKind::Output);
  g.node("add", {x, b}, s);
  g.node("relu", {s}, y);
  std::vector<RefTensor> r = g.run({f32Tensor({2, 3}, {1, 2, -3, 4, 25, -6})});
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[s].values, (std::vector<double>{11, -18, -2.5, 14, 5, -5.5}));
  EXPECT_EQ(r[y].values, (std::vector<double>{11, 0, 0, 14, 5, 0}));
  // Exact inputs, exact ops: zero tolerance.
  for (double t : r[y].tolerance)
    EXPECT_EQ(t, 0.0);
}

TEST(ReferenceTest, SoftmaxAlongLastAxis) {
  GraphBuilder g;
  uint32_t x = g.value("x", {1, 3}, pkg::ValueKind::Input, ElementType::F32);
  uint32_t y = g.value("y", {1, 3}, pkg::ValueKind::Output);
  g.node("softmax", {x}, y);
  // exp(x - max) = 1/3, 2/3, 1 -> 1/6, 1/3, 1/2.
  std::vector<RefTensor> r = g.run(
      {f32Tensor({1, 3}, {0.0f, float(std::log(2.0)), float(std::log(3.0))})});
  ASSERT_FALSE(r.empty());
  EXPECT_NEAR(r[y].values[0], 1.0 / 6, 1e-7);
  EXPECT_NEAR(r[y].values[1], 1.0 / 3, 1e-7);
  EXPECT_NEAR(r[y].values[2], 1.0 / 2, 1e-7);
  // y (n + 10) u plus the output rounding.
  double u = std::ldexp(1.0, -24);
  // (y[2] is 1/2 only up to the f32 rounding of log 3 and log 2.)
  EXPECT_NEAR(r[y].tolerance[2], 0.5 * 13 * u + 2 * u * 0.5, 1e-13);
}

TEST(ReferenceTest, LayerNorm) {
  GraphBuilder g;
  uint32_t x = g.value("x", {1, 4}, pkg::ValueKind::Input);
  uint32_t gamma = g.weight("gamma", {4}, {1, 1, 2, 1});
  uint32_t beta = g.weight("beta", {4}, {0, 0, 0, 1});
  uint32_t y = g.value("y", {1, 4}, pkg::ValueKind::Output);
  g.node("layer_norm", {x, gamma, beta}, y,
         llvm::json::Object{{"epsilon", 0.0}});
  std::vector<RefTensor> r = g.run({f32Tensor({1, 4}, {1, 2, 3, 4})});
  ASSERT_FALSE(r.empty());
  // mean 2.5, variance 1.25.
  double s = std::sqrt(1.25);
  EXPECT_NEAR(r[y].values[0], -1.5 / s, 1e-6);
  EXPECT_NEAR(r[y].values[2], 2 * 0.5 / s, 1e-6);
  EXPECT_NEAR(r[y].values[3], 1.5 / s + 1, 1e-6);
}

TEST(ReferenceTest, Conv2dWithPadAndStride) {
  GraphBuilder g;
  uint32_t x = g.value("x", {1, 1, 3, 3}, pkg::ValueKind::Input);
  uint32_t w = g.weight("w", {1, 1, 2, 2}, {1, 2, 3, 4});
  uint32_t y = g.value("y", {1, 1, 2, 2}, pkg::ValueKind::Output);
  llvm::json::Object attrs = f32Precision();
  attrs["strides"] = llvm::json::Array{2, 2};
  attrs["pads"] = llvm::json::Array{1, 1, 0, 0};
  g.node("conv2d", {x, w}, y, std::move(attrs));
  // x = 1..9 row-major; with a top/left pad of 1 and stride 2 the windows
  // start at (-1,-1), (-1,1), (1,-1), (1,1):
  //   (0,0): 4*x[0][0] = 4
  //   (0,1): 3*x[0][1] + 4*x[0][2] = 6 + 12 = 18
  //   (1,0): 2*x[1][0] + 4*x[2][0] = 8 + 28 = 36
  //   (1,1): 1*5 + 2*6 + 3*8 + 4*9 = 77
  std::vector<RefTensor> r =
      g.run({f32Tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[y].values, (std::vector<double>{4, 18, 36, 77}));
}

TEST(ReferenceTest, PoolsAndMeans) {
  GraphBuilder g;
  uint32_t x = g.value("x", {1, 1, 2, 4}, pkg::ValueKind::Input);
  uint32_t mx = g.value("mx", {1, 1, 1, 2}, pkg::ValueKind::Output);
  uint32_t av = g.value("av", {1, 1, 1, 2}, pkg::ValueKind::Output);
  uint32_t ga = g.value("ga", {1, 1, 1, 1}, pkg::ValueKind::Output);
  uint32_t rm = g.value("rm", {1, 1, 2}, pkg::ValueKind::Output);
  llvm::json::Object pool{{"kernel", llvm::json::Array{2, 2}},
                          {"strides", llvm::json::Array{2, 2}}};
  g.node("max_pool2d", {x}, mx, pool);
  g.node("avg_pool2d", {x}, av, pool);
  g.node("global_avg_pool2d", {x}, ga);
  g.node("reduce_mean", {x}, rm,
         llvm::json::Object{{"dims", llvm::json::Array{-1}}});
  std::vector<RefTensor> r =
      g.run({f32Tensor({1, 1, 2, 4}, {1, 5, -2, 0, 3, 2, 8, 6})});
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[mx].values, (std::vector<double>{5, 8}));
  EXPECT_EQ(r[av].values, (std::vector<double>{11.0 / 4, 12.0 / 4}));
  EXPECT_EQ(r[ga].values, (std::vector<double>{23.0 / 8}));
  EXPECT_EQ(r[rm].values, (std::vector<double>{1.0, 19.0 / 4}));
}

TEST(ReferenceTest, CastRoundsToTheTargetType) {
  // f16: ties to even.
  EXPECT_EQ(roundToType(1 + std::ldexp(1.0, -11), ElementType::F16), 1.0);
  EXPECT_EQ(roundToType(1 + 3 * std::ldexp(1.0, -11), ElementType::F16),
            1 + std::ldexp(1.0, -9));
  EXPECT_EQ(roundToType(70000, ElementType::F16), INFINITY);
  // bf16 keeps 8 significant bits.
  EXPECT_EQ(roundToType(1 + std::ldexp(1.0, -8), ElementType::BF16), 1.0);
  EXPECT_EQ(roundToType(257, ElementType::BF16), 256.0);
  // fp8 saturates to its largest finite value.
  EXPECT_EQ(roundToType(1000, ElementType::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(roundToType(-1000, ElementType::F8E4M3FN), -448.0);
  EXPECT_EQ(roundToType(1e6, ElementType::F8E5M2), 57344.0);
  // To integers: toward zero, saturating.
  EXPECT_EQ(roundToType(-2.7, ElementType::I32), -2.0);
  EXPECT_EQ(roundToType(300, ElementType::I8), 127.0);
  EXPECT_EQ(roundToType(-1, ElementType::U8), 0.0);

  GraphBuilder g;
  uint32_t x = g.value("x", {3}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {3}, pkg::ValueKind::Output, ElementType::F16);
  g.node("cast", {x}, y);
  std::vector<RefTensor> r =
      g.run({f32Tensor({3}, {1.0f + 0x1p-11f, 0.1f, -65504.0f})});
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[y].values[0], 1.0);
  EXPECT_EQ(r[y].values[1], 0.0999755859375); // the f16 nearest 0.1
  EXPECT_EQ(r[y].values[2], -65504.0);
}

TEST(ReferenceTest, DecodeElements) {
  // f16 0x3C00 = 1, 0xC000 = -2; bf16 0x3F80 = 1; E4M3FNUZ 0x40 = 1.
  std::vector<double> h =
      decodeElements(ElementType::F16, {0x00, 0x3C, 0x00, 0xC0});
  EXPECT_EQ(h, (std::vector<double>{1, -2}));
  EXPECT_EQ(decodeElements(ElementType::BF16, {0x80, 0x3F})[0], 1.0);
  EXPECT_EQ(decodeElements(ElementType::F8E4M3FNUZ, {0x40})[0], 1.0);
  EXPECT_EQ(decodeElements(ElementType::I8, {0xFF})[0], -1.0);
}

TEST(ReferenceTest, ComparisonUsesTheTolerance) {
  RefTensor want;
  want.type.element = ElementType::F32;
  want.type.shape = {3};
  want.values = {1, 2, 4};
  want.tolerance = {0, 0.5, 0.25};
  HostTensor got = f32Tensor({3}, {1, 2.5f, 4.25f});
  Comparison c = compareTensor("y", want, got);
  EXPECT_TRUE(c.passed());
  EXPECT_DOUBLE_EQ(c.maxAbsError, 0.5);
  EXPECT_DOUBLE_EQ(c.maxRelError, 0.25);

  got = f32Tensor({3}, {1, 2, 4.5f});
  c = compareTensor("y", want, got);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.failures, 1u);
  EXPECT_EQ(c.worst, 2);

  // Zero tolerance: bit-exact only; the poison (NaN) never passes.
  got = f32Tensor({3}, {1.0000001f, 2, 4});
  EXPECT_FALSE(compareTensor("y", want, got).passed());
  got = f32Tensor({3}, {NAN, 2, 4});
  c = compareTensor("y", want, got);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.worst, 0);
}

TEST(ReferenceTest, ToleranceGrowsWithInputPrecision) {
  // An f16 input cast to f32: exact; then a sum through matmul with f16
  // precision: the tolerance is K u(f32) sum |ab| (operands already f16).
  GraphBuilder g;
  uint32_t a = g.value("a", {1, 4}, pkg::ValueKind::Input, ElementType::F16);
  uint32_t b = g.value("b", {4, 1}, pkg::ValueKind::Input, ElementType::F16);
  uint32_t c = g.value("c", {1, 1}, pkg::ValueKind::Output);
  g.node("matmul", {a, b}, c,
         llvm::json::Object{{"precision", llvm::json::Object{{"lhs", "f16"},
                                                             {"rhs", "f16"},
                                                             {"acc", "f32"},
                                                             {"out", "f32"}}}});
  HostTensor ta, tb;
  ta.type = {ElementType::F16, {1, 4}};
  tb.type = {ElementType::F16, {4, 1}};
  // 1, 2, 3, 4 and 1, 1, 1, -1 as f16.
  ta.data = {0x00, 0x3C, 0x00, 0x40, 0x00, 0x42, 0x00, 0x44};
  tb.data = {0x00, 0x3C, 0x00, 0x3C, 0x00, 0x3C, 0x00, 0xBC};
  std::vector<RefTensor> r = g.run({ta, tb});
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[c].values[0], 2.0);
  double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(r[c].tolerance[0], 4 * u * 10 + 2 * u * 2);
}

TEST(ReferenceTest, Errors) {
  GraphBuilder g;
  uint32_t x = g.value("x", {2}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {2}, pkg::ValueKind::Output);
  g.node("frobnicate", {x}, y);
  llvm::Expected<std::vector<RefTensor>> r =
      evaluateReference(g.package, {f32Tensor({2}, {1, 2})});
  ASSERT_FALSE(r);
  EXPECT_NE(llvm::toString(r.takeError()).find("does not know op 'frobnicate'"),
            std::string::npos);

  GraphBuilder h;
  uint32_t a = h.value("a", {2}, pkg::ValueKind::Input);
  uint32_t b = h.value("b", {2}, pkg::ValueKind::Output);
  h.node("relu", {a}, b);
  r = evaluateReference(h.package, {f32Tensor({3}, {1, 2, 3})});
  ASSERT_FALSE(r);
  EXPECT_NE(llvm::toString(r.takeError())
                .find("input 'a': expected f32[2], given f32[3]"),
            std::string::npos);
}

} // namespace

//===----------------------------------------------------------------------===//
// Data movement: exact copies of elements and their tolerances.
//===----------------------------------------------------------------------===//

namespace {
HostTensor i64Tensor(std::vector<int64_t> shape,
                     const std::vector<int64_t> &v) {
  HostTensor t;
  t.type.element = ElementType::I64;
  t.type.shape = std::move(shape);
  t.data.resize(v.size() * 8);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}
} // namespace

TEST(ReferenceTest, ReshapeKeepsRowMajorOrder) {
  GraphBuilder g;
  uint32_t x = g.value("x", {2, 3}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {3, 2}, pkg::ValueKind::Output);
  g.node("reshape", {x}, y);
  std::vector<RefTensor> r = g.run({f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[y].values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r[y].tolerance, (std::vector<double>(6, 0.0)));
}

TEST(ReferenceTest, TransposeOfRankThree) {
  GraphBuilder g;
  // x[a][b][c] = 100a + 10b + c, shape 2x3x2; y = transpose [2, 0, 1]:
  // y[c][a][b] = x[a][b][c], shape 2x2x3.
  uint32_t x = g.value("x", {2, 3, 2}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {2, 2, 3}, pkg::ValueKind::Output);
  g.node("transpose", {x}, y,
         llvm::json::Object{{"permutation", llvm::json::Array{2, 0, 1}}});
  std::vector<RefTensor> r = g.run({f32Tensor(
      {2, 3, 2}, {0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[y].values, (std::vector<double>{0, 10, 20, 100, 110, 120, 1, 11,
                                              21, 101, 111, 121}));
}

TEST(ReferenceTest, ConcatOfThreeAlongTheMiddleAxis) {
  GraphBuilder g;
  uint32_t a = g.value("a", {2, 1, 2}, pkg::ValueKind::Input);
  uint32_t b = g.weight("b", {2, 2, 2}, {10, 11, 12, 13, 14, 15, 16, 17});
  uint32_t c = g.value("c", {2, 0, 2}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {2, 3, 2}, pkg::ValueKind::Output);
  g.node("concat", {a, b, c}, y, llvm::json::Object{{"axis", -2}});
  std::vector<RefTensor> r =
      g.run({f32Tensor({2, 1, 2}, {1, 2, 3, 4}), f32Tensor({2, 0, 2}, {})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[y].values, (std::vector<double>{1, 2, 10, 11, 12, 13, 3, 4, 14,
                                              15, 16, 17}));
}

TEST(ReferenceTest, StridedSlice) {
  GraphBuilder g;
  // x = 0..19 as 4x5; rows 1, 3 and columns 0, 2, 4.
  uint32_t x = g.value("x", {4, 5}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {2, 3}, pkg::ValueKind::Output);
  g.node("slice", {x}, y,
         llvm::json::Object{{"offsets", llvm::json::Array{1, 0}},
                            {"strides", llvm::json::Array{2, 2}}});
  std::vector<float> v(20);
  for (int i = 0; i < 20; ++i)
    v[i] = float(i);
  std::vector<RefTensor> r = g.run({f32Tensor({4, 5}, v)});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[y].values, (std::vector<double>{5, 7, 9, 15, 17, 19}));
}

TEST(ReferenceTest, SliceOutsideItsInputIsAnError) {
  GraphBuilder g;
  uint32_t x = g.value("x", {4}, pkg::ValueKind::Input);
  uint32_t y = g.value("y", {2}, pkg::ValueKind::Output);
  g.node("slice", {x}, y,
         llvm::json::Object{{"offsets", llvm::json::Array{1}},
                            {"strides", llvm::json::Array{3}}});
  llvm::Expected<std::vector<RefTensor>> r =
      evaluateReference(g.package, {f32Tensor({4}, {1, 2, 3, 4})});
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("does not fit"),
            std::string::npos);
}

TEST(ReferenceTest, GatherWrapsNegativeIndicesAndZeroesOutOfRange) {
  GraphBuilder g;
  // A 3x2 table; rows 2, -1 (= 2), -3 (= 0), 3 (out), -4 (out), 1.
  uint32_t table = g.weight("t", {3, 2}, {1, 2, 3, 4, 5, 6});
  uint32_t ids = g.value("ids", {2, 3}, pkg::ValueKind::Input,
                         ElementType::I64);
  uint32_t y = g.value("y", {2, 3, 2}, pkg::ValueKind::Output);
  g.node("gather", {table, ids}, y, llvm::json::Object{{"axis", 0}});
  std::vector<RefTensor> r = g.run({i64Tensor({2, 3}, {2, -1, -3, 3, -4, 1})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[y].values, (std::vector<double>{5, 6, 5, 6, 1, 2, 0, 0, 0, 0, 3,
                                              4}));
  EXPECT_EQ(r[y].tolerance, (std::vector<double>(12, 0.0)));
}

TEST(ReferenceTest, GatherAlongAnInnerAxisWithAScalarIndex) {
  GraphBuilder g;
  // x = 0..11 as 2x3x2; x[:, 1, :] (tiny_encoder's class-token pick).
  uint32_t x = g.value("x", {2, 3, 2}, pkg::ValueKind::Input);
  uint32_t ids = g.value("i", {}, pkg::ValueKind::Input, ElementType::I64);
  uint32_t y = g.value("y", {2, 2}, pkg::ValueKind::Output);
  g.node("gather", {x, ids}, y, llvm::json::Object{{"axis", 1}});
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i)
    v[i] = float(i);
  std::vector<RefTensor> r =
      g.run({f32Tensor({2, 3, 2}, v), i64Tensor({}, {1})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[y].values, (std::vector<double>{2, 3, 8, 9}));
}

TEST(ReferenceTest, DataMovementCarriesTolerances) {
  GraphBuilder g;
  // exp gives each element a tolerance; the transpose moves it with the
  // element, unchanged (no rounding ulp added).
  uint32_t x = g.value("x", {1, 2}, pkg::ValueKind::Input);
  uint32_t e = g.value("e", {1, 2});
  uint32_t y = g.value("y", {2, 1}, pkg::ValueKind::Output);
  g.node("exp", {x}, e);
  g.node("transpose", {e}, y,
         llvm::json::Object{{"permutation", llvm::json::Array{1, 0}}});
  std::vector<RefTensor> r = g.run({f32Tensor({1, 2}, {0, 1})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[y].values, r[e].values);
  EXPECT_EQ(r[y].tolerance, r[e].tolerance);
  EXPECT_GT(r[y].tolerance[1], 0.0);
}

// The cap on output tolerances: r by the least precise float type of the
// graph, times the output's largest magnitude (here 4).
TEST(ReferenceTest, ToleranceCapByPrecision) {
  pkg::Manifest manifest;
  pkg::Value value;
  value.type.element = ElementType::F32;
  value.type.shape = {3};
  manifest.values.push_back(value);
  EXPECT_EQ(getToleranceCap(manifest), 1e-3);

  RefTensor tensor;
  tensor.type = value.type;
  tensor.values = {1.0, -4.0, 2.0};
  tensor.tolerance = {1e9, 1e-9, 0.0};
  capTolerance(tensor, getToleranceCap(manifest));
  EXPECT_DOUBLE_EQ(tensor.tolerance[0], 4e-3); // capped: 1e-3 * 4
  EXPECT_EQ(tensor.tolerance[1], 1e-9);        // tighter already
  EXPECT_EQ(tensor.tolerance[2], 0.0);         // exact stays exact

  // An f16 value anywhere in the graph loosens the cap to 3e-2; a bf16
  // contraction operand to 6e-2.
  value.type.element = ElementType::F16;
  manifest.values.push_back(value);
  EXPECT_EQ(getToleranceCap(manifest), 3e-2);
  pkg::Node node;
  node.op = "matmul";
  node.attributes["precision"] = llvm::json::Object{
      {"lhs", "bf16"}, {"rhs", "bf16"}, {"acc", "f32"}, {"out", "f32"}};
  manifest.graph.push_back(std::move(node));
  EXPECT_EQ(getToleranceCap(manifest), 6e-2);

  // Integer-only graphs have no cap; integer tensors are never capped.
  pkg::Manifest integers;
  value.type.element = ElementType::I32;
  integers.values.push_back(value);
  EXPECT_EQ(getToleranceCap(integers), 0.0);
  RefTensor ints;
  ints.type = value.type;
  ints.values = {1.0, 2.0, 3.0};
  ints.tolerance = {5.0, 5.0, 5.0};
  capTolerance(ints, 1e-3);
  EXPECT_EQ(ints.tolerance[0], 5.0);
}
