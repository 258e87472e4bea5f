//===- VALUCompiledTest.cpp - Compiler-generated VALU sequences -----------===//
//
// clang-22 compiles IEEE division, square root and integer division for
// gfx942 and gfx90a into long VALU sequences (v_div_scale/fmas/fixup,
// v_rcp_iflag with Newton steps, v_sqrt with a +-1 ulp fix-up, 64-bit
// division through v_mad_u64_u32 and carry chains, f16 division through
// f32 reciprocals and v_div_fixup_f16). Their results are exactly defined,
// so the emulator must reproduce the host's results bit for bit, whatever
// approximation the hardware's v_rcp/v_sqrt use.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::test;

namespace {

constexpr unsigned kN = 256; // elements per array

const char *kSource = R"(
#define __global__ __attribute__((global))
extern "C" __global__ void exact(float *f, double *d, int *i, unsigned *u,
                                 long long *l, _Float16 *h) {
  for (unsigned k = __builtin_amdgcn_workitem_id_x(); k < 256; k += 64) {
    f[k] = f[k] / f[k + 256];
    f[k + 512] = __builtin_sqrtf(f[k + 512]);
    d[k] = d[k] / d[k + 256];
    d[k + 512] = __builtin_sqrt(d[k + 512]);
    i[k + 512] = i[k] % i[k + 256];
    i[k] = i[k] / i[k + 256];
    u[k + 512] = u[k] % u[k + 256];
    u[k] = u[k] / u[k + 256];
    l[k + 512] = l[k] % l[k + 256];
    l[k] = l[k] / l[k + 256];
    h[k] = h[k] / h[k + 256];
    f[k + 768] = (float)l[k + 768] + (float)(unsigned long long)l[k + 768];
  }
}
)";

/// Compiles kSource for `chip` into a code object with clang. With `ftz`,
/// f32 denormals are flushed (the kernel runs with MODE.FP_DENORM f32 = 0
/// and the division toggles it with s_setreg around its FMA steps).
Expected<std::vector<uint8_t>> compile(const std::string &chip, bool ftz) {
  SmallString<128> dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("crest-valu", dir))
    return createStringError(ec, "cannot create a temporary directory");
  std::string src = (dir + "/k.hip").str(), out = (dir + "/k.co").str(),
              log = (dir + "/log").str();
  {
    std::error_code ec;
    raw_fd_ostream os(src, ec);
    os << kSource;
  }
  std::string clang = std::string(CREST_LLVM_TOOLS_DIR) + "/clang++";
  std::string arch = "--offload-arch=" + chip;
  SmallVector<StringRef> args = {
      clang,       "-x",        "hip", "--cuda-device-only",     arch,
      "-nogpulib", "-nogpuinc", "-O3", "--no-gpu-bundle-output", "-c",
      src,         "-o",        out};
  if (ftz)
    args.push_back("-fgpu-flush-denormals-to-zero");
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  if (sys::ExecuteAndWait(clang, args, std::nullopt, redirects) != 0) {
    auto text = MemoryBuffer::getFile(log);
    return createStringError(inconvertibleErrorCode(),
                             "clang failed: " +
                                 (text ? (*text)->getBuffer().str() : ""));
  }
  auto buf = MemoryBuffer::getFile(out, false, false);
  if (!buf)
    return createStringError(buf.getError(), "cannot read " + out);
  std::vector<uint8_t> bytes((*buf)->getBufferStart(), (*buf)->getBufferEnd());
  sys::fs::remove_directories(dir);
  return bytes;
}

template <class T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T> std::vector<T> valuesOf(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

uint16_t toHalf(double d) {
  _Float16 h = (_Float16)d;
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
double fromHalf(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return double(h);
}

/// A denormal flushed to a zero of the same sign.
float flush(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

TEST(VALUCompiled, ExactDivisionAndSqrt) {
  Random rng(2024);
  auto randomFloat = [&](int minExp, int maxExp) {
    float m = 1.0f + float(rng.next() % (1u << 23)) / float(1u << 23);
    int e = minExp + int(rng.next() % unsigned(maxExp - minExp + 1));
    return (rng.next() & 1 ? -1.0f : 1.0f) * std::ldexp(m, e);
  };
  auto randomDouble = [&](int minExp, int maxExp) {
    double m = 1.0 + double((uint64_t(rng.next()) << 20) ^ rng.next()) /
                         double(uint64_t(1) << 52);
    int e = minExp + int(rng.next() % unsigned(maxExp - minExp + 1));
    return (rng.next() & 1 ? -1.0 : 1.0) * std::ldexp(m, e);
  };
  std::vector<float> f(4 * kN);
  std::vector<double> d(3 * kN);
  std::vector<int32_t> i32(3 * kN);
  std::vector<uint32_t> u32(3 * kN);
  std::vector<int64_t> i64(4 * kN);
  std::vector<uint16_t> h(2 * kN);
  for (unsigned k = 0; k < kN; ++k) {
    // Mostly moderate exponents, some extreme ones (denormal and huge
    // quotients).
    bool extreme = k % 8 == 0;
    f[k] = randomFloat(extreme ? -149 : -20, extreme ? 127 : 20);
    f[k + kN] = randomFloat(extreme ? -149 : -20, extreme ? 127 : 20);
    f[k + 2 * kN] =
        std::fabs(randomFloat(extreme ? -149 : -30, extreme ? 127 : 30));
    d[k] = randomDouble(extreme ? -1074 : -40, extreme ? 1023 : 40);
    d[k + kN] = randomDouble(extreme ? -1074 : -40, extreme ? 1023 : 40);
    d[k + 2 * kN] =
        std::fabs(randomDouble(extreme ? -1074 : -60, extreme ? 1023 : 60));
    i32[k] = int32_t(rng.next());
    i32[k + kN] = int32_t(rng.next()) >> (rng.next() % 31);
    if (!i32[k + kN])
      i32[k + kN] = 3;
    u32[k] = rng.next();
    u32[k + kN] = rng.next() >> (rng.next() % 32);
    if (!u32[k + kN])
      u32[k + kN] = 7;
    i64[k] = int64_t((uint64_t(rng.next()) << 32) | rng.next());
    i64[k + kN] =
        int64_t((uint64_t(rng.next()) << 32) | rng.next()) >> (rng.next() % 63);
    if (!i64[k + kN])
      i64[k + kN] = 5;
    i64[k + 3 * kN] = int64_t((uint64_t(rng.next()) << 32) | rng.next());
    h[k] = toHalf(double(randomFloat(-14, 15)));
    h[k + kN] = toHalf(double(randomFloat(-14, 15)));
  }
  // Special values.
  f[1] = 0.0f, f[1 + kN] = 0.0f;
  f[2] = INFINITY, f[2 + kN] = -3.0f;
  f[3] = 1.0f, f[3 + kN] = 3.0f;
  f[2 * kN + 1] = 1e-45f;
  f[2 * kN + 2] = 0x1.fffffep-1f;
  i32[4] = INT32_MIN, i32[4 + kN] = -1;
  i64[5] = INT64_MIN, i64[5 + kN] = 3;

  for (const auto &[chipName, flushF32] :
       {std::pair<std::string, bool>{"gfx942", false},
        {"gfx90a", false},
        {"gfx942", true},
        {"gfx90a", true}}) {
    const std::string chip = chipName;
    const bool ftz = flushF32;
    SCOPED_TRACE(chip + (ftz ? " ftz" : ""));
    auto bytes = compile(chip, ftz);
    ASSERT_TRUE(bool(bytes)) << toString(bytes.takeError());
    auto object = CodeObject::load(*bytes, "exact.co");
    ASSERT_TRUE(bool(object)) << toString(object.takeError());
    const Kernel *kernel = object->findKernel("exact");
    ASSERT_NE(kernel, nullptr);
    auto program = Program::decode(*object, *kernel);
    ASSERT_TRUE(bool(program)) << toString(program.takeError());

    Emulator emu;
    Memory &memory = emu.getMemory();
    std::vector<std::vector<uint8_t>> buffers = {bytesOf(f),   bytesOf(d),
                                                 bytesOf(i32), bytesOf(u32),
                                                 bytesOf(i64), bytesOf(h)};
    std::vector<uint64_t> addresses;
    std::vector<uint8_t> kernargs;
    for (auto &b : buffers) {
      uint64_t a = memory.allocate(b.size(), "buffer");
      cantFail(memory.write(a, b));
      addresses.push_back(a);
      for (unsigned k = 0; k < 8; ++k)
        kernargs.push_back(uint8_t(a >> (8 * k)));
    }
    LaunchConfig config;
    config.block = {64, 1, 1};
    auto result = emu.launch(**program, kernargs, config);
    ASSERT_TRUE(bool(result)) << toString(result.takeError());
    for (size_t k = 0; k < buffers.size(); ++k)
      cantFail(memory.read(addresses[k], buffers[k]));

    auto fo = valuesOf<float>(buffers[0]);
    auto dout = valuesOf<double>(buffers[1]);
    auto io = valuesOf<int32_t>(buffers[2]);
    auto uo = valuesOf<uint32_t>(buffers[3]);
    auto lo = valuesOf<int64_t>(buffers[4]);
    auto ho = valuesOf<uint16_t>(buffers[5]);
    unsigned failures = 0;
    auto check = [&](bool ok, const std::string &what) {
      if (!ok && ++failures <= 20)
        ADD_FAILURE() << what;
    };
    for (unsigned k = 0; k < kN; ++k) {
      // With ftz, denormal inputs and results read and write as zeros.
      auto in = [&](float x) { return ftz ? flush(x) : x; };
      float q = in(in(f[k]) / in(f[k + kN])),
            s = in(std::sqrt(in(f[k + 2 * kN])));
      check(std::memcmp(&fo[k], &q, 4) == 0 ||
                (std::isnan(q) && std::isnan(fo[k])),
            "f32 " + std::to_string(f[k]) + " / " + std::to_string(f[k + kN]));
      check(std::memcmp(&fo[k + 2 * kN], &s, 4) == 0,
            "sqrtf " + std::to_string(f[k + 2 * kN]));
      double dq = d[k] / d[k + kN], ds = std::sqrt(d[k + 2 * kN]);
      check(std::memcmp(&dout[k], &dq, 8) == 0,
            "f64 division at " + std::to_string(k));
      check(std::memcmp(&dout[k + 2 * kN], &ds, 8) == 0,
            "sqrt at " + std::to_string(k));
      if (!(i32[k] == INT32_MIN && i32[k + kN] == -1)) {
        check(io[k] == i32[k] / i32[k + kN], "i32 / at " + std::to_string(k));
        check(io[k + 2 * kN] == i32[k] % i32[k + kN],
              "i32 % at " + std::to_string(k));
      }
      check(uo[k] == u32[k] / u32[k + kN], "u32 / at " + std::to_string(k));
      check(uo[k + 2 * kN] == u32[k] % u32[k + kN],
            "u32 % at " + std::to_string(k));
      check(lo[k] == i64[k] / i64[k + kN], "i64 / at " + std::to_string(k));
      check(lo[k + 2 * kN] == i64[k] % i64[k + kN],
            "i64 % at " + std::to_string(k));
      uint16_t hq = toHalf(fromHalf(h[k]) / fromHalf(h[k + kN]));
      check(ho[k] == hq, "f16 division at " + std::to_string(k));
      float conv = float(i64[k + 3 * kN]) + float(uint64_t(i64[k + 3 * kN]));
      check(std::memcmp(&fo[k + 3 * kN], &conv, 4) == 0,
            "i64 -> f32 at " + std::to_string(k));
    }
    EXPECT_EQ(failures, 0u);
  }
}

} // namespace
