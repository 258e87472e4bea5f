//===- MemoryTest.h - Helpers of the memory and LDS tests -------*- C++ -*-===//
//
// Running AsmKernel bodies with buffers whose device addresses the test
// knows before the launch, so that it can store per-lane address tables in
// them. Kernels then compute nothing but lane * size (v_lshlrev_b32) and
// load their addresses with the instruction forms under test, which keeps
// the tests independent of the VALU handlers other than v_mov_b32,
// v_lshlrev_b32 and v_and_b32.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_UNITTESTS_EMULATOR_MEMORYTEST_H
#define CREST_UNITTESTS_EMULATOR_MEMORYTEST_H

#include "AsmKernel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

namespace crest::emu::test {

using Bytes = std::vector<uint8_t>;

/// Little-endian accessors of test buffers.
template <typename T> T get(const Bytes &b, size_t byteOffset) {
  T v;
  std::memcpy(&v, b.data() + byteOffset, sizeof(T));
  return v;
}
template <typename T> void put(Bytes &b, size_t byteOffset, T v) {
  std::memcpy(b.data() + byteOffset, &v, sizeof(T));
}

/// Builds `k`, or records a test failure and returns null.
inline std::unique_ptr<LoadedKernel> buildKernel(const AsmKernel &k) {
  auto kernel = LoadedKernel::build(k);
  if (!kernel) {
    ADD_FAILURE() << llvm::toString(kernel.takeError());
    return nullptr;
  }
  return std::move(*kernel);
}

using Prepare =
    llvm::function_ref<void(llvm::ArrayRef<uint64_t>, std::vector<Bytes> &)>;

/// Like LoadedKernel::run, but calls `prepare(addresses, buffers)` with the
/// device address of every buffer ("buffer i") before copying the buffers to
/// the device.
inline llvm::Expected<LaunchResult>
runOn(Emulator &emulator, const Program &program, std::vector<Bytes> &buffers,
      Prepare prepare, const LaunchConfig &config) {
  Memory &memory = emulator.getMemory();
  std::vector<uint64_t> addresses;
  std::vector<uint8_t> kernargs;
  for (size_t i = 0; i < buffers.size(); ++i) {
    addresses.push_back(memory.allocate(std::max<size_t>(buffers[i].size(), 1),
                                        "buffer " + std::to_string(i)));
    for (unsigned b = 0; b < 8; ++b)
      kernargs.push_back(uint8_t(addresses.back() >> (8 * b)));
  }
  prepare(addresses, buffers);
  for (size_t i = 0; i < buffers.size(); ++i)
    cantFail(memory.write(addresses[i], buffers[i]));
  auto result = emulator.launch(program, kernargs, config);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (result)
      cantFail(memory.read(addresses[i], buffers[i]));
    memory.release(addresses[i]);
  }
  return result;
}

inline llvm::Expected<LaunchResult>
runPrepared(LoadedKernel &kernel, std::vector<Bytes> &buffers, Prepare prepare,
            const LaunchConfig &config = {}) {
  return runOn(kernel.getEmulator(), kernel.getProgram(), buffers, prepare,
               config);
}

/// A kernel with private (scratch) memory, which AsmKernel cannot describe
/// on gfx90a. Buffer argument i is loaded into s[20+2i:21+2i]. On gfx90a
/// the private segment buffer is in s[0:3] (kernarg pointer s[4:5], the
/// private wave offset s7); on gfx942 scratch is architected (kernarg
/// pointer s[0:1]).
class PrivateKernel {
public:
  static std::unique_ptr<PrivateKernel>
  build(const std::string &chip, const std::string &body, unsigned numBuffers,
        unsigned privateBytes, unsigned ldsBytes = 0) {
    bool psb = chip != "gfx942";
    std::string prologue, args;
    for (unsigned i = 0; i < numBuffers; ++i) {
      prologue += "  s_load_dwordx2 s[" + std::to_string(20 + 2 * i) + ":" +
                  std::to_string(21 + 2 * i) + "], " +
                  (psb ? "s[4:5]" : "s[0:1]") + ", " + std::to_string(8 * i) +
                  "\n";
      args += "      - { .size: 8, .offset: " + std::to_string(8 * i) +
              ", .value_kind: global_buffer, .address_space: global }\n";
    }
    std::string scratch =
        psb ? "    .amdhsa_user_sgpr_private_segment_buffer 1\n"
              "    .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n"
            : "    .amdhsa_enable_private_segment 1\n";
    std::string n = std::to_string(privateBytes), l = std::to_string(ldsBytes);
    std::string source =
        "  .amdgcn_target \"amdgcn-amd-amdhsa--" + chip +
        "\"\n  .amdhsa_code_object_version 5\n  .text\n  .globl k\n"
        "  .p2align 8\n  .type k,@function\nk:\n" +
        prologue + "  s_waitcnt lgkmcnt(0)\n" + body +
        "\n  s_endpgm\n.Lend:\n  .size k, .Lend-k\n  .rodata\n"
        "  .p2align 6\n  .amdhsa_kernel k\n" +
        scratch +
        "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
        "    .amdhsa_system_sgpr_workgroup_id_x 1\n"
        "    .amdhsa_next_free_vgpr 512\n    .amdhsa_next_free_sgpr 96\n"
        "    .amdhsa_accum_offset 256\n"
        "    .amdhsa_group_segment_fixed_size " +
        l + "\n    .amdhsa_private_segment_fixed_size " + n +
        "\n  .end_amdhsa_kernel\n  .amdgpu_metadata\n---\n"
        "amdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n  - .name: k\n"
        "    .symbol: k.kd\n    .kernarg_segment_size: " +
        std::to_string(std::max(8u, 8 * numBuffers)) +
        "\n    .kernarg_segment_align: 8\n"
        "    .group_segment_fixed_size: " +
        l + "\n    .private_segment_fixed_size: " + n +
        "\n    .wavefront_size: 64\n    .sgpr_count: 96\n"
        "    .vgpr_count: 512\n    .max_flat_workgroup_size: 1024\n"
        "    .args:\n" +
        args + "...\n  .end_amdgpu_metadata\n";
    auto bytes = assemble(source, chip);
    if (!bytes) {
      ADD_FAILURE() << llvm::toString(bytes.takeError());
      return nullptr;
    }
    auto object = CodeObject::load(*bytes, "private.co");
    if (!object) {
      ADD_FAILURE() << llvm::toString(object.takeError());
      return nullptr;
    }
    auto kernel = std::unique_ptr<PrivateKernel>(new PrivateKernel());
    kernel->object = std::make_unique<CodeObject>(std::move(*object));
    auto program =
        Program::decode(*kernel->object, kernel->object->getKernels().front());
    if (!program) {
      ADD_FAILURE() << llvm::toString(program.takeError());
      return nullptr;
    }
    kernel->program = std::move(*program);
    return kernel;
  }

  llvm::Expected<LaunchResult> run(
      std::vector<Bytes> &buffers,
      Prepare prepare = [](llvm::ArrayRef<uint64_t>, std::vector<Bytes> &) {},
      const LaunchConfig &config = {}) {
    return runOn(emulator, *program, buffers, prepare, config);
  }

private:
  std::unique_ptr<CodeObject> object;
  std::unique_ptr<Program> program;
  Emulator emulator;
};

/// Runs `k` and returns its result, or records a failure.
inline bool runOk(
    LoadedKernel &kernel, std::vector<Bytes> &buffers,
    LaunchResult *out = nullptr, const LaunchConfig &config = {},
    llvm::function_ref<void(llvm::ArrayRef<uint64_t>, std::vector<Bytes> &)>
        prepare = [](llvm::ArrayRef<uint64_t>, std::vector<Bytes> &) {}) {
  auto result = runPrepared(kernel, buffers, prepare, config);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return false;
  }
  if (out)
    *out = std::move(*result);
  return true;
}

/// Runs `k`, expecting a failure; returns the message.
inline std::string runError(
    LoadedKernel &kernel, std::vector<Bytes> &buffers,
    const LaunchConfig &config = {},
    llvm::function_ref<void(llvm::ArrayRef<uint64_t>, std::vector<Bytes> &)>
        prepare = [](llvm::ArrayRef<uint64_t>, std::vector<Bytes> &) {}) {
  auto result = runPrepared(kernel, buffers, prepare, config);
  if (result) {
    ADD_FAILURE() << "the launch succeeded";
    return "";
  }
  return llvm::toString(result.takeError());
}

/// The cache-policy modifier that makes an atomic return the old value.
inline const char *returnModifier(const std::string &chip) {
  return chip == "gfx90a" ? "glc" : "sc0";
}

/// Checks that the values `returned` by atomics applying `apply(value,
/// lane)` to one location that started at `initial` and ended at `final`
/// are consistent with some serial order of the lanes.
template <typename T, class Apply>
void expectSerializable(T initial, T final, const std::vector<T> &returned,
                        Apply apply) {
  std::vector<bool> used(returned.size(), false);
  T current = initial;
  for (size_t step = 0; step < returned.size(); ++step) {
    size_t pick = returned.size();
    for (size_t lane = 0; lane < returned.size(); ++lane)
      if (!used[lane] && returned[lane] == current) {
        pick = lane;
        break;
      }
    ASSERT_NE(pick, returned.size())
        << "no lane returned " << current << " after " << step << " steps";
    used[pick] = true;
    current = apply(current, unsigned(pick));
  }
  EXPECT_EQ(current, final);
}

/// Float bit patterns.
inline float f32(uint64_t b) { return llvm::bit_cast<float>(uint32_t(b)); }
inline uint64_t bits(float f) { return llvm::bit_cast<uint32_t>(f); }
inline double f64(uint64_t b) { return llvm::bit_cast<double>(b); }
inline uint64_t bits(double d) { return llvm::bit_cast<uint64_t>(d); }
/// Small non-negative integers as f16 and bf16 (exact), and back.
inline uint16_t f16(unsigned n) {
  if (n == 0)
    return 0;
  int e = 31 - llvm::countl_zero(n);
  return uint16_t(((e + 15) << 10) | ((n << (10 - e)) & 0x3ff));
}
inline unsigned fromF16(uint16_t h) {
  if (!h)
    return 0;
  int e = (h >> 10) - 15;
  return ((h & 0x3ff) | 0x400) >> (10 - e);
}
inline uint16_t bf16(unsigned n) { return uint16_t(bits(float(n)) >> 16); }
inline unsigned fromBF16(uint16_t h) {
  return unsigned(f32(uint32_t(h) << 16));
}

/// Bytes with both high and low halves set, so sign extension shows.
inline Bytes patternBytes(size_t n, unsigned seed = 0) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = uint8_t((i * 131 + 7 + seed * 29) ^ (i >> 3));
  return b;
}

inline uint32_t sext8(uint8_t v) { return uint32_t(int32_t(int8_t(v))); }
inline uint32_t sext16(uint16_t v) { return uint32_t(int32_t(int16_t(v))); }

/// The 24 result dwords of the load-width kernels (global and LDS): from
/// the 16 bytes `in` of a lane, in the order ubyte@1, sbyte@3, ushort@2,
/// sshort@6, dword@4, 0, dwordx2@8, dwordx3@4, 0, dwordx4@0, then the D16
/// loads into 0x11223344: ubyte_d16@5, ubyte_d16_hi@9, sbyte_d16@13,
/// sbyte_d16_hi@7, short_d16@10, short_d16_hi@14, then 0, 0.
inline std::vector<uint32_t> loadWidthResults(const uint8_t *in) {
  auto b = [&](unsigned k) { return uint32_t(in[k]); };
  auto h = [&](unsigned k) { return uint32_t(in[k] | (in[k + 1] << 8)); };
  auto w = [&](unsigned k) {
    uint32_t v;
    std::memcpy(&v, in + k, 4);
    return v;
  };
  return {b(1),
          sext8(uint8_t(b(3))),
          h(2),
          sext16(uint16_t(h(6))),
          w(4),
          0,
          w(8),
          w(12),
          w(4),
          w(8),
          w(12),
          0,
          w(0),
          w(4),
          w(8),
          w(12),
          0x11220000u | b(5),
          (b(9) << 16) | 0x3344u,
          0x11220000u | (sext8(uint8_t(b(13))) & 0xffff),
          ((sext8(uint8_t(b(7))) & 0xffff) << 16) | 0x3344u,
          0x11220000u | h(10),
          (h(14) << 16) | 0x3344u,
          0,
          0};
}

/// The 64 bytes the store-width kernels leave from a lane's dwords `d`
/// (16 bytes) over 0xaa: byte d0@0, byte_d16_hi d0@1, short d1@2,
/// short_d16_hi d1@4, dword d2@8, dwordx2 d0-d1@12, dwordx3 d0-d2@20,
/// dwordx4 d0-d3@32.
inline Bytes storeWidthResults(const uint8_t *d) {
  Bytes expected(64, 0xaa);
  expected[0] = d[0];
  expected[1] = d[2];
  expected[2] = d[4];
  expected[3] = d[5];
  expected[4] = d[6];
  expected[5] = d[7];
  std::memcpy(&expected[8], d + 8, 4);
  std::memcpy(&expected[12], d, 8);
  std::memcpy(&expected[20], d, 12);
  std::memcpy(&expected[32], d, 16);
  return expected;
}

/// The instruction address of the first instruction whose disassembly
/// starts with `prefix`, or ~0.
inline uint64_t addressOf(const Program &program, llvm::StringRef prefix) {
  for (size_t i = 0; i < program.getInstructions().size(); ++i)
    if (program.getDisassembly(i).starts_with(prefix))
      return program.getInstructions()[i].address;
  return ~uint64_t(0);
}

/// Test suites parameterized by the chip.
class ChipTest : public ::testing::TestWithParam<std::string> {
protected:
  std::string chip() const { return GetParam(); }
  AsmKernel asmKernel(const std::string &body, unsigned numBuffers = 1) const {
    AsmKernel k;
    k.chip = chip();
    k.body = body;
    k.numBuffers = numBuffers;
    return k;
  }
};

} // namespace crest::emu::test

#endif // CREST_UNITTESTS_EMULATOR_MEMORYTEST_H
