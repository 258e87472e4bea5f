//===- VALUCompareTest.cpp - VALU compares (VOPC) -------------------------===//
//
// Every condition of every type in the e32 (VCC) and e64 (SGPR pair)
// encodings; the mask bits of inactive lanes are cleared; v_cmpx writes
// EXEC as well; v_cmp_class reports each IEEE class.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>

using namespace crest::emu;
using namespace crest::emu::test;
using llvm::formatv;

namespace {

using In = const uint32_t *;

struct FloatCond {
  const char *name;
  std::function<bool(double, double)> test;
};

std::vector<FloatCond> floatConditions() {
  return {
      {"f", [](double, double) { return false; }},
      {"lt", [](double x, double y) { return x < y; }},
      {"eq", [](double x, double y) { return x == y; }},
      {"le", [](double x, double y) { return x <= y; }},
      {"gt", [](double x, double y) { return x > y; }},
      {"lg", [](double x, double y) { return x < y || x > y; }},
      {"ge", [](double x, double y) { return x >= y; }},
      {"o",
       [](double x, double y) { return !std::isnan(x) && !std::isnan(y); }},
      {"u", [](double x, double y) { return std::isnan(x) || std::isnan(y); }},
      {"nge", [](double x, double y) { return !(x >= y); }},
      {"nlg", [](double x, double y) { return !(x < y || x > y); }},
      {"ngt", [](double x, double y) { return !(x > y); }},
      {"nle", [](double x, double y) { return !(x <= y); }},
      {"neq", [](double x, double y) { return !(x == y); }},
      {"nlt", [](double x, double y) { return !(x < y); }},
      {"tru", [](double, double) { return true; }},
  };
}

/// Float pairs: every combination of a few special values, then random.
std::vector<std::pair<double, double>> floatPairs() {
  const double kValues[] = {0.0,      -0.0,      1.0, -1.0,
                            INFINITY, -INFINITY, NAN, 2.5};
  std::vector<std::pair<double, double>> pairs;
  for (double x : kValues)
    for (double y : kValues)
      pairs.push_back({x, y});
  return pairs; // 64
}

/// A compare in the e32 and e64 forms, turned into 0/1 per lane.
std::vector<OpCheck> compareChecks(const std::string &type,
                                   const std::string &a, const std::string &b,
                                   std::function<double(In, int)> value) {
  std::vector<OpCheck> checks;
  for (const FloatCond &c : floatConditions()) {
    auto expect = [c, value](unsigned, In x) -> uint64_t {
      return c.test(value(x, 0), value(x, 1)) ? 1 : 0;
    };
    checks.push_back({formatv("v_cmp_{0}_{1}_e32 vcc, {2}, {3}\n"
                              "  v_cndmask_b32_e64 {{d}, 0, 1, vcc",
                              c.name, type, a, b)
                          .str(),
                      expect});
    checks.push_back({formatv("v_cmp_{0}_{1}_e64 s[20:21], {2}, {3}\n"
                              "  v_cndmask_b32_e64 {{d}, 0, 1, s[20:21]",
                              c.name, type, a, b)
                          .str(),
                      expect});
  }
  return checks;
}

uint16_t h16(double d) {
  _Float16 h = (_Float16)d;
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

TEST(VALUCompare, FloatConditions) {
  auto pairs = floatPairs();
  LaneValues x32 =
      lanes([&](unsigned i) { return bitsOf(float(pairs[i].first)); });
  LaneValues y32 =
      lanes([&](unsigned i) { return bitsOf(float(pairs[i].second)); });
  auto f32 = [](In x, int i) { return double(floatOf(x[i])); };
  checkOps(compareChecks("f32", "{a}", "{b}", f32), {x32, y32});
  checkOps(compareChecks("f32", "{a}", "{b}", f32), {x32, y32}, "gfx90a");

  LaneValues x16 =
      lanes([&](unsigned i) { return 0xabcd0000u | h16(pairs[i].first); });
  LaneValues y16 =
      lanes([&](unsigned i) { return 0x12340000u | h16(pairs[i].second); });
  checkOps(compareChecks("f16", "{a}", "{b}",
                         [](In x, int i) {
                           _Float16 h;
                           uint16_t b = uint16_t(x[i]);
                           std::memcpy(&h, &b, 2);
                           return double(h);
                         }),
           {x16, y16});

  std::vector<uint64_t> x64, y64;
  for (auto [x, y] : pairs) {
    x64.push_back(bitsOf(x));
    y64.push_back(bitsOf(y));
  }
  auto xs = split64(x64), ys = split64(y64);
  checkOps(compareChecks("f64", "{A}", "{B}",
                         [](In x, int i) {
                           return doubleOf(x[2 * i] |
                                           (uint64_t(x[2 * i + 1]) << 32));
                         }),
           {xs[0], xs[1], ys[0], ys[1]});
}

TEST(VALUCompare, IntegerConditions) {
  struct Cond {
    const char *name;
    std::function<bool(int64_t, int64_t)> test;
  };
  std::vector<Cond> conds = {
      {"f", [](int64_t, int64_t) { return false; }},
      {"lt", [](int64_t x, int64_t y) { return x < y; }},
      {"eq", [](int64_t x, int64_t y) { return x == y; }},
      {"le", [](int64_t x, int64_t y) { return x <= y; }},
      {"gt", [](int64_t x, int64_t y) { return x > y; }},
      {"ne", [](int64_t x, int64_t y) { return x != y; }},
      {"ge", [](int64_t x, int64_t y) { return x >= y; }},
      {"t", [](int64_t, int64_t) { return true; }},
  };
  Random rng(4);
  const uint64_t kValues[] = {0,      1,          0x7fff,     0x8000,
                              0xffff, 0x7fffffff, 0x80000000, 0xffffffff};
  std::vector<uint64_t> xs(kLanes), ys(kLanes);
  for (unsigned i = 0; i < kLanes; ++i) {
    xs[i] = kValues[i % 8] | (uint64_t(i % 3 ? rng.next() : 0) << 32);
    ys[i] = kValues[i / 8] | (uint64_t(i % 5 ? xs[i] >> 32 : rng.next()) << 32);
  }
  auto xl = split64(xs), yl = split64(ys);
  std::vector<LaneValues> in = {xl[0], xl[1], yl[0], yl[1]};
  struct Type {
    const char *name;
    const char *a, *b;
    std::function<int64_t(In, int)> value;
  };
  std::vector<Type> types = {
      {"i16", "{a}", "{c}",
       [](In x, int i) { return int64_t(int16_t(x[2 * i])); }},
      {"u16", "{a}", "{c}",
       [](In x, int i) { return int64_t(uint16_t(x[2 * i])); }},
      {"i32", "{a}", "{c}",
       [](In x, int i) { return int64_t(int32_t(x[2 * i])); }},
      {"u32", "{a}", "{c}", [](In x, int i) { return int64_t(x[2 * i]); }},
      {"i64", "{A}", "{B}",
       [](In x, int i) {
         return int64_t(x[2 * i] | (uint64_t(x[2 * i + 1]) << 32));
       }},
  };
  for (const Type &t : types) {
    std::vector<OpCheck> checks;
    for (const Cond &c : conds)
      for (const char *form : {"e32 vcc", "e64 s[20:21]"}) {
        std::string mask = std::string(form).substr(4);
        checks.push_back({formatv("v_cmp_{0}_{1}_{2}, {3}, {4}\n"
                                  "  v_cndmask_b32_e64 {{d}, 0, 1, {5}",
                                  c.name, t.name, form, t.a, t.b, mask)
                              .str(),
                          [c, t](unsigned, In x) -> uint64_t {
                            return c.test(t.value(x, 0), t.value(x, 1)) ? 1 : 0;
                          }});
      }
    // {c} is v12 = the low dword of the second 64-bit operand.
    checkOps(checks, in);
  }
  // u64 compares unsigned 64-bit values.
  std::vector<OpCheck> u64;
  for (const Cond &c : conds) {
    u64.push_back({formatv("v_cmp_{0}_u64_e64 s[20:21], {{A}, {{B}\n"
                           "  v_cndmask_b32_e64 {{d}, 0, 1, s[20:21]",
                           c.name)
                       .str(),
                   [c](unsigned, In x) -> uint64_t {
                     uint64_t a = x[0] | (uint64_t(x[1]) << 32);
                     uint64_t b = x[2] | (uint64_t(x[3]) << 32);
                     bool r = c.name == std::string("lt")   ? a < b
                              : c.name == std::string("eq") ? a == b
                              : c.name == std::string("le") ? a <= b
                              : c.name == std::string("gt") ? a > b
                              : c.name == std::string("ne") ? a != b
                              : c.name == std::string("ge")
                                  ? a >= b
                                  : c.name == std::string("t");
                     return r;
                   }});
  }
  checkOps(u64, in, "gfx90a");
}

/// The SGPR-pair result clears inactive lanes; v_cmpx writes EXEC and the
/// mask; VCC-writing e32 forms leave other SGPRs alone.
TEST(VALUCompare, MasksAndCmpx) {
  LaneValues a = lanes([](unsigned i) { return i; });
  LaneValues b = lanes([](unsigned i) { return 63 - i; });
  uint64_t exec = 0x0ff0f00f5555aaaaull;
  ValuCase c;
  c.inputs = {a, b};
  c.exec = exec;
  c.body = R"(
  s_mov_b64 s[20:21], -1
  s_mov_b64 vcc, -1
  v_cmp_lt_u32_e64 s[20:21], v10, v11
  v_cmp_gt_u32_e32 vcc, v10, v11
  s_mov_b64 s[22:23], vcc
  v_cmpx_le_u32_e64 s[24:25], v10, 40
  s_mov_b64 s[26:27], exec
  v_mov_b32 v40, 7
  v_cmpx_lt_f32_e32 vcc, 0, v10
  s_mov_b64 s[28:29], exec
  s_mov_b64 s[30:31], vcc
)";
  c.epilogue = "v_mov_b32 v41, s20\nv_mov_b32 v42, s21\n"
               "v_mov_b32 v43, s22\nv_mov_b32 v44, s23\n"
               "v_mov_b32 v45, s24\nv_mov_b32 v46, s25\n"
               "v_mov_b32 v47, s26\nv_mov_b32 v48, s27\n"
               "v_mov_b32 v49, s28\nv_mov_b32 v50, s29\n"
               "v_mov_b32 v51, s30\nv_mov_b32 v52, s31";
  c.numOutputs = 13;
  c.directives = ".amdhsa_float_denorm_mode_32 3";
  for (std::string chip : {"gfx942", "gfx90a"}) {
    c.chip = chip;
    auto out = runValu(c);
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    uint64_t lt = 0, gt = 0, le40 = 0;
    for (unsigned i = 0; i < kLanes; ++i) {
      bool active = (exec >> i) & 1;
      lt |= uint64_t(active && i < 63 - i) << i;
      gt |= uint64_t(active && i > 63 - i) << i;
      le40 |= uint64_t(active && i <= 40) << i;
    }
    auto mask = [&](unsigned k) {
      return (*out)[k][0] | (uint64_t((*out)[k + 1][0]) << 32);
    };
    EXPECT_EQ(mask(1), lt) << chip;
    EXPECT_EQ(mask(3), gt) << chip;
    EXPECT_EQ(mask(5), le40) << chip;
    EXPECT_EQ(mask(7), le40) << chip; // EXEC after v_cmpx
    // v40 was written only in the lanes v_cmpx left active.
    for (unsigned i = 0; i < kLanes; ++i)
      EXPECT_EQ((*out)[0][i], (le40 >> i) & 1 ? 7u : 0xdeadbeefu) << i;
    // 0 < the denormal with bits i (kept by this MODE): every active lane
    // but lane 0.
    EXPECT_EQ(mask(9), le40 & ~uint64_t(1)) << chip;
    EXPECT_EQ(mask(11), le40 & ~uint64_t(1)) << chip;
  }
}

/// v_cmp_class: each class bit, for f32, f64 and f16.
TEST(VALUCompare, Class) {
  // Classes: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
  // 7 +denormal, 8 +normal, 9 +inf.
  const uint32_t kF32[10] = {0x7f800001, 0x7fc00000, 0xff800000, 0xbf800000,
                             0x80000001, 0x80000000, 0x00000000, 0x00400000,
                             0x3f800000, 0x7f800000};
  const uint64_t kF64[10] = {0x7ff0000000000001ull,
                             0x7ff8000000000000ull,
                             0xfff0000000000000ull,
                             0xbff0000000000000ull,
                             0x8000000000000001ull,
                             0x8000000000000000ull,
                             0,
                             0x0008000000000000ull,
                             0x3ff0000000000000ull,
                             0x7ff0000000000000ull};
  const uint16_t kF16[10] = {0x7c01, 0x7e00, 0xfc00, 0xbc00, 0x8001,
                             0x8000, 0x0000, 0x0200, 0x3c00, 0x7c00};
  // Lane i: value of class i % 10, mask with bit (i / 10 + i) % 10 set, and
  // some lanes with several bits.
  auto klass = [](unsigned i) { return i % 10; };
  auto maskOf = [](unsigned i) -> uint32_t {
    return (1u << ((i / 10 + i) % 10)) | (i % 7 == 0 ? 0x3ffu : 0u);
  };
  LaneValues v32 = lanes([&](unsigned i) { return kF32[klass(i)]; });
  LaneValues v16 =
      lanes([&](unsigned i) { return 0xffff0000u | kF16[klass(i)]; });
  std::vector<uint64_t> v64(kLanes);
  for (unsigned i = 0; i < kLanes; ++i)
    v64[i] = kF64[klass(i)];
  auto v64s = split64(v64);
  LaneValues masks = lanes(maskOf);
  auto expect = [&](unsigned lane, In) -> uint64_t {
    return (maskOf(lane) >> klass(lane)) & 1;
  };
  // Denormals flushed by MODE are still reported as denormals.
  for (const char *mode : {".amdhsa_float_denorm_mode_32 0\n"
                           ".amdhsa_float_denorm_mode_16_64 0",
                           ".amdhsa_float_denorm_mode_32 3\n"
                           ".amdhsa_float_denorm_mode_16_64 3"})
    checkOps({{"v_cmp_class_f32_e32 vcc, {a}, {c}\n"
               "  v_cndmask_b32_e64 {d}, 0, 1, vcc",
               expect},
              {"v_cmp_class_f32_e64 s[20:21], {a}, {c}\n"
               "  v_cndmask_b32_e64 {d}, 0, 1, s[20:21]",
               expect},
              {"v_cmp_class_f16_e32 vcc, {b}, {c}\n"
               "  v_cndmask_b32_e64 {d}, 0, 1, vcc",
               expect},
              {"v_cmp_class_f64_e64 s[20:21], v[14:15], {c}\n"
               "  v_cndmask_b32_e64 {d}, 0, 1, s[20:21]",
               expect}},
             {v32, v16, masks, masks, v64s[0], v64s[1]}, "gfx942", mode);
}

} // namespace
