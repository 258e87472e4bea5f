//===- VALUTest.cpp - Harness of the VALU instruction tests ---------------===//

#include "VALUTest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::test;

namespace {

constexpr unsigned kFirstInput = 10;
constexpr unsigned kFirstOutput = 40;
constexpr unsigned kMaxOutputs = 16;

std::string kernelBody(const ValuCase &c) {
  std::string s;
  // Inputs: buffer 0 holds 64 dwords per input register.
  for (unsigned i = 0; i < c.inputs.size(); ++i)
    for (unsigned chunk = 0; chunk < 4; ++chunk) {
      s += formatv("  s_load_dwordx16 s[16:31], s[4:5], {0:x}\n"
                   "  s_waitcnt lgkmcnt(0)\n",
                   4 * (kLanes * i + 16 * chunk));
      for (unsigned j = 0; j < 16; ++j)
        s += formatv("  v_writelane_b32 v{0}, s{1}, {2}\n", kFirstInput + i,
                     16 + j, 16 * chunk + j);
    }
  for (unsigned k = 0; k < c.numOutputs; ++k)
    s += formatv("  v_mov_b32_e32 v{0}, {1:x}\n", kFirstOutput + k, c.poison);
  if (c.exec != ~uint64_t(0))
    s += formatv("  s_mov_b32 exec_lo, {0:x}\n  s_mov_b32 exec_hi, {1:x}\n",
                 uint32_t(c.exec), uint32_t(c.exec >> 32));
  s += c.body + "\n";
  s += "  s_mov_b64 exec, -1\n";
  s += c.epilogue + "\n";
  s += "  v_lshlrev_b32_e32 v1, 2, v0\n";
  for (unsigned k = 0; k < c.numOutputs; ++k)
    s += formatv("  global_store_dword v1, v{0}, s[6:7] offset:{1}\n",
                 kFirstOutput + k, 4 * kLanes * k);
  return s;
}

} // namespace

Expected<std::unique_ptr<LoadedKernel>>
crest::emu::test::buildValuKernel(const std::string &chip,
                                  const std::string &body) {
  AsmKernel k;
  k.chip = chip;
  k.body = body;
  return LoadedKernel::build(k);
}

Expected<std::vector<LaneValues>> crest::emu::test::runValu(const ValuCase &c) {
  if (c.numOutputs > kMaxOutputs)
    return createStringError(inconvertibleErrorCode(), "too many outputs");
  for (const LaneValues &in : c.inputs)
    if (in.size() != kLanes)
      return createStringError(inconvertibleErrorCode(),
                               "an input does not have 64 lanes");
  AsmKernel k;
  k.chip = c.chip;
  k.numBuffers = 2;
  k.body = kernelBody(c);
  k.descriptorDirectives = c.directives;
  auto kernel = LoadedKernel::build(k);
  if (!kernel)
    return kernel.takeError();
  std::vector<uint32_t> in;
  for (const LaneValues &v : c.inputs)
    in.insert(in.end(), v.begin(), v.end());
  if (in.empty())
    in.assign(kLanes, 0);
  std::vector<uint32_t> out(kLanes * c.numOutputs, 0x5eed5eed);
  std::vector<std::vector<uint8_t>> buffers = {toBytes(in), toBytes(out)};
  LaunchConfig config;
  config.block = {kLanes, 1, 1};
  auto result = (*kernel)->run(buffers, config);
  if (!result)
    return result.takeError();
  out = fromBytes<uint32_t>(buffers[1]);
  std::vector<LaneValues> outputs(c.numOutputs);
  for (unsigned k = 0; k < c.numOutputs; ++k)
    outputs[k].assign(out.begin() + kLanes * k, out.begin() + kLanes * (k + 1));
  return outputs;
}

LaneValues crest::emu::test::lanes(const std::function<uint32_t(unsigned)> &f) {
  LaneValues v(kLanes);
  for (unsigned i = 0; i < kLanes; ++i)
    v[i] = f(i);
  return v;
}

LaneValues crest::emu::test::cycle(const std::vector<uint32_t> &values) {
  return lanes([&](unsigned i) { return values[i % values.size()]; });
}

std::vector<LaneValues>
crest::emu::test::split64(const std::vector<uint64_t> &values) {
  std::vector<LaneValues> out(2, LaneValues(kLanes));
  for (unsigned i = 0; i < kLanes; ++i) {
    uint64_t v = values[i % values.size()];
    out[0][i] = uint32_t(v);
    out[1][i] = uint32_t(v >> 32);
  }
  return out;
}

std::vector<uint64_t> crest::emu::test::join64(const LaneValues &lo,
                                               const LaneValues &hi) {
  std::vector<uint64_t> v(lo.size());
  for (size_t i = 0; i < lo.size(); ++i)
    v[i] = lo[i] | (uint64_t(hi[i]) << 32);
  return v;
}

namespace {

std::string expandPlaceholders(std::string line, unsigned dst) {
  auto replace = [&](const std::string &from, const std::string &to) {
    for (size_t at = line.find(from); at != std::string::npos;
         at = line.find(from, at + to.size()))
      line.replace(at, from.size(), to);
  };
  replace("{d}", formatv("v{0}", dst).str());
  replace("{D}", formatv("v[{0}:{1}]", dst, dst + 1).str());
  replace("{a}", "v10");
  replace("{b}", "v11");
  replace("{c}", "v12");
  replace("{A}", "v[10:11]");
  replace("{B}", "v[12:13]");
  replace("{C}", "v[14:15]");
  return line;
}

/// Maps IEEE bits to integers ordered like the values they encode.
int64_t ordered(uint64_t bits, unsigned width) {
  uint64_t sign = uint64_t(1) << (width - 1);
  uint64_t magnitude = bits & (sign - 1);
  return (bits & sign) ? -int64_t(magnitude) : int64_t(magnitude);
}

bool isNaNBits(uint64_t bits, unsigned width) {
  unsigned man = width == 16 ? 10 : width == 32 ? 23 : 52;
  uint64_t expMask = ((uint64_t(1) << (width - 1 - man)) - 1) << man;
  return (bits & expMask) == expMask && (bits & ((uint64_t(1) << man) - 1));
}

bool matches(const OpCheck &check, uint64_t got, uint64_t want) {
  if (check.compare == Compare::Exact || got == want)
    return got == want;
  unsigned width = check.compare == Compare::F16Ulps   ? 16
                   : check.compare == Compare::F32Ulps ? 32
                                                       : 64;
  if (width == 16 && (got >> 16) != (want >> 16))
    return false;
  uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  got &= mask;
  want &= mask;
  if (isNaNBits(got, width) || isNaNBits(want, width))
    return isNaNBits(got, width) && isNaNBits(want, width);
  return std::llabs(ordered(got, width) - ordered(want, width)) <=
         int64_t(check.ulps);
}

} // namespace

void crest::emu::test::checkOps(const std::vector<OpCheck> &checks,
                                const std::vector<LaneValues> &inputs,
                                const std::string &chip,
                                const std::string &directives, uint64_t exec) {
  size_t next = 0;
  while (next < checks.size()) {
    // Fill up to 16 output registers.
    std::vector<std::pair<size_t, unsigned>> batch; // check, first output
    unsigned used = 0;
    std::string body;
    while (next < checks.size()) {
      unsigned need = checks[next].wide ? 2 : 1;
      if (checks[next].wide && (used & 1)) // 64-bit registers are even
        ++used;
      if (used + need > 16)
        break;
      body += "  " + expandPlaceholders(checks[next].asmLine, 40 + used) + "\n";
      batch.push_back({next, used});
      used += need;
      ++next;
    }
    ValuCase c;
    c.chip = chip;
    c.inputs = inputs;
    c.body = body;
    c.numOutputs = used;
    c.exec = exec;
    c.directives = directives;
    auto out = runValu(c);
    if (!out) {
      ADD_FAILURE() << toString(out.takeError());
      continue;
    }
    for (auto [index, first] : batch) {
      const OpCheck &check = checks[index];
      unsigned failures = 0;
      for (unsigned lane = 0; lane < kLanes && failures < 4; ++lane) {
        uint64_t got = (*out)[first][lane];
        if (check.wide)
          got |= uint64_t((*out)[first + 1][lane]) << 32;
        uint64_t want;
        if ((exec >> lane) & 1) {
          uint32_t in[8] = {};
          for (size_t i = 0; i < inputs.size() && i < 8; ++i)
            in[i] = inputs[i][lane];
          want = check.expect(lane, in);
        } else {
          want = check.wide ? (uint64_t(c.poison) << 32) | c.poison : c.poison;
        }
        if (!check.wide)
          want &= 0xffffffffu;
        bool ok =
            ((exec >> lane) & 1) ? matches(check, got, want) : got == want;
        if (!ok) {
          ++failures;
          std::string ins;
          for (size_t i = 0; i < inputs.size(); ++i)
            ins += formatv(" {0:x8}", inputs[i][lane]).str();
          ADD_FAILURE() << chip << ": '" << check.asmLine << "' lane " << lane
                        << " inputs" << ins << ": got "
                        << formatv("{0:x}", got).str() << ", want "
                        << formatv("{0:x}", want).str();
        }
      }
    }
  }
}
