//===- MemoryGlobalTest.cpp - Global and flat memory instructions ---------===//
//
// Every load and store width of global_* in the SADDR and 64-bit-VGPR
// forms (sign/zero extension, D16 and D16_HI merging, negative offsets),
// EXEC masking, out-of-bounds reports, global/flat atomics from 64 lanes on
// one address (results must fit a serial order), float atomic rules, and
// flat routing to LDS, private and global memory; on gfx942 and gfx90a.
// Expected values are computed here from the input bytes.
//
//===----------------------------------------------------------------------===//

#include "MemoryTest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <functional>

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

class MemoryGlobal : public ChipTest {};

TEST_P(MemoryGlobal, LoadWidthsSaddrForm) {
  // v1 = lane * 16 into `in`; s[10:11] = in + 32 (from a pointer box) for
  // the negative offsets. Results go to out[lane * 128].
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v30, 7, v0
  v_mov_b32_e32 v37, 0
  v_mov_b32_e32 v43, 0
  v_mov_b32_e32 v54, 0
  v_mov_b32_e32 v55, 0
  v_mov_b32_e32 v48, 0x11223344
  v_mov_b32_e32 v49, 0x11223344
  v_mov_b32_e32 v50, 0x11223344
  v_mov_b32_e32 v51, 0x11223344
  v_mov_b32_e32 v52, 0x11223344
  v_mov_b32_e32 v53, 0x11223344
  s_load_dwordx2 s[10:11], s[8:9], 0x0
  s_waitcnt lgkmcnt(0)
  global_load_ubyte v32, v1, s[4:5] offset:1
  global_load_sbyte v33, v1, s[10:11] offset:-29
  global_load_ushort v34, v1, s[4:5] offset:2
  global_load_sshort v35, v1, s[10:11] offset:-26
  global_load_dword v36, v1, s[4:5] offset:4
  global_load_dwordx2 v[38:39], v1, s[10:11] offset:-24
  global_load_dwordx3 v[40:42], v1, s[4:5] offset:4
  global_load_dwordx4 v[44:47], v1, s[10:11] offset:-32
  global_load_ubyte_d16 v48, v1, s[4:5] offset:5
  global_load_ubyte_d16_hi v49, v1, s[4:5] offset:9
  global_load_sbyte_d16 v50, v1, s[4:5] offset:13
  global_load_sbyte_d16_hi v51, v1, s[4:5] offset:7
  global_load_short_d16 v52, v1, s[4:5] offset:10
  global_load_short_d16_hi v53, v1, s[4:5] offset:14
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v30, v[32:35], s[6:7]
  global_store_dwordx4 v30, v[36:39], s[6:7] offset:16
  global_store_dwordx4 v30, v[40:43], s[6:7] offset:32
  global_store_dwordx4 v30, v[44:47], s[6:7] offset:48
  global_store_dwordx4 v30, v[48:51], s[6:7] offset:64
  global_store_dwordx4 v30, v[52:55], s[6:7] offset:80
)";
  auto kernel = buildKernel(asmKernel(body, 3));
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(64 * 16);
  std::vector<Bytes> buffers = {in, Bytes(64 * 128, 0xaa), Bytes(8)};
  ASSERT_TRUE(runOk(*kernel, buffers, nullptr, {},
                    [](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                      put<uint64_t>(b[2], 0, a[0] + 32);
                    }));
  for (unsigned lane = 0; lane < 64; ++lane) {
    std::vector<uint32_t> expected = loadWidthResults(&in[lane * 16]);
    for (unsigned r = 0; r < 24; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[1], lane * 128 + 4 * r), expected[r])
          << "lane " << lane << " result " << r;
  }
}

TEST_P(MemoryGlobal, StoreWidthsSaddrForm) {
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v6, 6, v0
  global_load_dwordx4 v[2:5], v1, s[4:5]
  s_waitcnt vmcnt(0)
  global_store_byte v6, v2, s[6:7]
  global_store_byte_d16_hi v6, v2, s[6:7] offset:1
  global_store_short v6, v3, s[6:7] offset:2
  global_store_short_d16_hi v6, v3, s[6:7] offset:4
  global_store_dword v6, v4, s[6:7] offset:8
  global_store_dwordx2 v6, v[2:3], s[6:7] offset:12
  global_store_dwordx3 v6, v[2:4], s[6:7] offset:20
  global_store_dwordx4 v6, v[2:5], s[6:7] offset:32
)";
  auto kernel = buildKernel(asmKernel(body, 2));
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(64 * 16, 1);
  std::vector<Bytes> buffers = {in, Bytes(64 * 64, 0xaa)};
  ASSERT_TRUE(runOk(*kernel, buffers));
  for (unsigned lane = 0; lane < 64; ++lane) {
    Bytes expected = storeWidthResults(&in[lane * 16]);
    for (unsigned k = 0; k < 64; ++k)
      EXPECT_EQ(buffers[1][lane * 64 + k], expected[k])
          << "lane " << lane << " byte " << k;
  }
}

TEST_P(MemoryGlobal, VgprAddressForm) {
  // Per-lane addresses from a table: lane L loads in[perm(L)] through
  // in + 16 + 4 * perm(L) with offset -16 and stores it to out[rev(L)]
  // through out + 4 * rev(L) - 8 with offset 8.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 3, v0
  global_load_dwordx2 v[2:3], v1, s[6:7]
  global_load_dwordx2 v[4:5], v1, s[10:11]
  s_waitcnt vmcnt(0)
  global_load_dword v6, v[2:3], off offset:-16
  global_load_dwordx2 v[8:9], v[2:3], off offset:-16
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v6, off offset:8
  global_store_dword v[4:5], v8, off offset:264
  global_store_dword v[4:5], v9, off offset:520
)";
  auto kernel = buildKernel(asmKernel(body, 4));
  ASSERT_TRUE(kernel);
  auto perm = [](unsigned l) { return (l * 7 + 3) % 64; };
  auto rev = [](unsigned l) { return 63 - l; };
  Bytes in = patternBytes(65 * 4, 2);
  std::vector<Bytes> buffers = {in, Bytes(64 * 8), Bytes(768, 0xaa),
                                Bytes(64 * 8)};
  ASSERT_TRUE(runOk(*kernel, buffers, nullptr, {},
                    [&](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                      for (unsigned l = 0; l < 64; ++l) {
                        put<uint64_t>(b[1], 8 * l, a[0] + 16 + 4 * perm(l));
                        put<uint64_t>(b[3], 8 * l, a[2] + 4 * rev(l) - 8);
                      }
                    }));
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(get<uint32_t>(buffers[2], 4 * rev(l)),
              get<uint32_t>(in, 4 * perm(l)))
        << "lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], 256 + 4 * rev(l)),
              get<uint32_t>(in, 4 * perm(l)))
        << "lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], 512 + 4 * rev(l)),
              get<uint32_t>(in, 4 * perm(l) + 4))
        << "lane " << l;
  }
}

TEST_P(MemoryGlobal, InactiveLanesDoNotAccessMemory) {
  // Inactive lanes point at address 0 and LDS byte 0xffff0000: neither may
  // fault, and their outputs keep the poison.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 3, v0
  v_lshlrev_b32_e32 v7, 2, v0
  global_load_dwordx2 v[2:3], v1, s[6:7]
  global_load_dword v8, v7, s[10:11]
  s_waitcnt vmcnt(0)
  s_mov_b32 exec_lo, 0x0f0f0f0f
  s_mov_b32 exec_hi, 0x80000001
  global_load_dword v4, v[2:3], off
  s_waitcnt vmcnt(0)
  global_store_dword v[2:3], v4, off offset:4
  ds_write_b32 v8, v4
  ds_read_b32 v9, v8
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dword v7, v4, s[8:9]
  global_store_dword v7, v9, s[8:9] offset:256
)";
  AsmKernel k = asmKernel(body, 4);
  k.ldsBytes = 256;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  uint64_t mask = 0x800000010f0f0f0full;
  Bytes in = patternBytes(64 * 8, 3);
  std::vector<Bytes> buffers = {in, Bytes(64 * 8), Bytes(512, 0xaa),
                                Bytes(64 * 4)};
  ASSERT_TRUE(runOk(*kernel, buffers, nullptr, {},
                    [&](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                      for (unsigned l = 0; l < 64; ++l) {
                        bool on = (mask >> l) & 1;
                        put<uint64_t>(b[1], 8 * l, on ? a[0] + 8 * l : 0);
                        put<uint32_t>(b[3], 4 * l, on ? 4 * l : 0xffff0000u);
                      }
                    }));
  for (unsigned l = 0; l < 64; ++l) {
    bool on = (mask >> l) & 1;
    uint32_t value = get<uint32_t>(in, 8 * l);
    EXPECT_EQ(get<uint32_t>(buffers[2], 4 * l), on ? value : 0xaaaaaaaau)
        << "lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], 256 + 4 * l), on ? value : 0xaaaaaaaau)
        << "lane " << l;
    // The store at +4 overwrote the second dword of active lanes only.
    EXPECT_EQ(get<uint32_t>(buffers[0], 8 * l + 4),
              on ? value : get<uint32_t>(in, 8 * l + 4))
        << "lane " << l;
  }
}

TEST_P(MemoryGlobal, OutOfBoundsAccessIsReported) {
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 3, v0
  global_load_dwordx2 v[2:3], v1, s[6:7]
  s_waitcnt vmcnt(0)
  global_load_dword v4, v[2:3], off
)";
  auto kernel = buildKernel(asmKernel(body, 2));
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(256), Bytes(64 * 8)};
  std::string message =
      runError(*kernel, buffers, {},
               [&](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                 for (unsigned l = 0; l < 64; ++l)
                   put<uint64_t>(b[1], 8 * l, a[0] + (l == 37 ? 254 : 4 * l));
               });
  EXPECT_NE(message.find("out-of-bounds access of 4 bytes"), std::string::npos)
      << message;
  EXPECT_NE(message.find("by lane 37"), std::string::npos) << message;
  EXPECT_NE(message.find("byte 254 of 'buffer 0'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("global_load_dword v4, v[2:3], off"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

struct AtomicCase {
  const char *name; ///< Mnemonic suffix: "add", "cmpswap_x2", ...
  bool wide;        ///< 64-bit data
  bool gfx942Only;
  uint64_t initial;
  std::function<uint64_t(unsigned)> data;
  std::function<uint64_t(unsigned)> cmp; ///< for cmpswap, else null
  /// The new memory value after `lane` applies its atomic to `old`.
  std::function<uint64_t(uint64_t, unsigned)> apply;
};

std::vector<AtomicCase> atomicCases() {
  auto d = [](unsigned l) -> uint64_t { return l * 3 + 1; };
  std::vector<AtomicCase> c;
  c.push_back({"add", false, false, 100, d, nullptr,
               [=](uint64_t o, unsigned l) { return uint32_t(o + d(l)); }});
  c.push_back({"sub", false, false, 5000, d, nullptr,
               [=](uint64_t o, unsigned l) { return uint32_t(o - d(l)); }});
  auto sd = [](unsigned l) -> uint64_t {
    return uint32_t(int32_t(l * 37 % 101) - 50);
  };
  c.push_back(
      {"smin", false, false, 7, sd, nullptr, [=](uint64_t o, unsigned l) {
         return int32_t(sd(l)) < int32_t(o) ? sd(l) : o;
       }});
  c.push_back({"smax", false, false, uint32_t(-60), sd, nullptr,
               [=](uint64_t o, unsigned l) {
                 return int32_t(sd(l)) > int32_t(o) ? sd(l) : o;
               }});
  c.push_back({"umin", false, false, 0xfffffff0u, sd, nullptr,
               [=](uint64_t o, unsigned l) { return std::min(sd(l), o); }});
  c.push_back({"umax", false, false, 3, sd, nullptr,
               [=](uint64_t o, unsigned l) { return std::max(sd(l), o); }});
  auto bit = [](unsigned l) -> uint64_t { return 1u << (l % 32); };
  c.push_back({"or", false, false, 0, bit, nullptr,
               [=](uint64_t o, unsigned l) { return o | bit(l); }});
  auto nbit = [](unsigned l) -> uint64_t { return ~(1u << (l % 32)); };
  c.push_back({"and", false, false, 0xffffffffu, nbit, nullptr,
               [=](uint64_t o, unsigned l) { return o & nbit(l); }});
  auto xd = [](unsigned l) -> uint64_t { return 0x10001u << (l % 16); };
  c.push_back({"xor", false, false, 0x5a5a5a5au, xd, nullptr,
               [=](uint64_t o, unsigned l) { return o ^ xd(l); }});
  auto sw = [](unsigned l) -> uint64_t { return 1000 + l; };
  c.push_back({"swap", false, false, 7, sw, nullptr,
               [=](uint64_t, unsigned l) { return sw(l); }});
  auto src = [](unsigned l) -> uint64_t { return l + 1; };
  auto zero = [](unsigned) -> uint64_t { return 0; };
  c.push_back({"cmpswap", false, false, 0, src, zero,
               [=](uint64_t o, unsigned l) { return o == 0 ? src(l) : o; }});
  auto lim = [](unsigned) -> uint64_t { return 40; };
  c.push_back({"inc", false, false, 30, lim, nullptr,
               [](uint64_t o, unsigned) { return o >= 40 ? 0 : o + 1; }});
  c.push_back({"dec", false, false, 20, lim, nullptr, [](uint64_t o, unsigned) {
                 return o == 0 || o > 40 ? 40 : o - 1;
               }});
  auto wd = [](unsigned l) -> uint64_t {
    return (uint64_t(l) << 33) | (l * 5 + 1);
  };
  c.push_back({"add_x2", true, false, 0xfffffff0ull, wd, nullptr,
               [=](uint64_t o, unsigned l) { return o + wd(l); }});
  c.push_back({"sub_x2", true, false, 1ull << 62, wd, nullptr,
               [=](uint64_t o, unsigned l) { return o - wd(l); }});
  auto sw64 = [](unsigned l) -> uint64_t { return (uint64_t(l) << 40) | 0x77; };
  c.push_back({"swap_x2", true, false, 5, sw64, nullptr,
               [=](uint64_t, unsigned l) { return sw64(l); }});
  auto src64 = [](unsigned l) -> uint64_t {
    return (uint64_t(l + 1) << 32) | 9;
  };
  c.push_back({"cmpswap_x2", true, false, 0, src64, zero,
               [=](uint64_t o, unsigned l) { return o == 0 ? src64(l) : o; }});
  auto sd64 = [](unsigned l) -> uint64_t {
    return uint64_t(int64_t(l * 37 % 101) - 50) * 0x100000001ull;
  };
  c.push_back(
      {"smin_x2", true, false, 0, sd64, nullptr, [=](uint64_t o, unsigned l) {
         return int64_t(sd64(l)) < int64_t(o) ? sd64(l) : o;
       }});
  c.push_back({"umax_x2", true, false, 0, sd64, nullptr,
               [=](uint64_t o, unsigned l) { return std::max(sd64(l), o); }});
  auto lim64 = [](unsigned) -> uint64_t { return 0x100000002ull; };
  c.push_back(
      {"inc_x2", true, false, 0xffffffffull, lim64, nullptr,
       [](uint64_t o, unsigned) { return o >= 0x100000002ull ? 0 : o + 1; }});
  auto fd = [](unsigned l) -> uint64_t { return bits(float(l % 8) + 0.5f); };
  c.push_back(
      {"add_f32", false, false, bits(2.0f), fd, nullptr,
       [=](uint64_t o, unsigned l) { return bits(f32(o) + f32(fd(l))); }});
  auto hd = [](unsigned l) -> uint64_t {
    return f16(l % 4 + 1) | (uint32_t(f16(l % 3 + 2)) << 16);
  };
  c.push_back({"pk_add_f16", false, false, uint64_t(f16(1) | (f16(7) << 16)),
               hd, nullptr, [=](uint64_t o, unsigned l) {
                 unsigned lo = fromF16(uint16_t(o)) + fromF16(uint16_t(hd(l)));
                 unsigned hi = fromF16(uint16_t(o >> 16)) +
                               fromF16(uint16_t(hd(l) >> 16));
                 return uint64_t(f16(lo) | (uint32_t(f16(hi)) << 16));
               }});
  auto bd = [](unsigned l) -> uint64_t {
    return bf16(l % 2 + 1) | (uint32_t(bf16(1)) << 16);
  };
  c.push_back({"pk_add_bf16", false, true, uint64_t(bf16(3) | (bf16(5) << 16)),
               bd, nullptr, [=](uint64_t o, unsigned l) {
                 unsigned lo =
                     fromBF16(uint16_t(o)) + fromBF16(uint16_t(bd(l)));
                 unsigned hi = fromBF16(uint16_t(o >> 16)) +
                               fromBF16(uint16_t(bd(l) >> 16));
                 return uint64_t(bf16(lo) | (uint32_t(bf16(hi)) << 16));
               }});
  auto dd = [](unsigned l) -> uint64_t { return bits(double(l) * 0.25); };
  c.push_back(
      {"add_f64", true, false, bits(-3.0), dd, nullptr,
       [=](uint64_t o, unsigned l) { return bits(f64(o) + f64(dd(l))); }});
  auto md = [](unsigned l) -> uint64_t {
    return bits(double(int(l * 29 % 64) - 32));
  };
  c.push_back({"min_f64", true, false, bits(10.0), md, nullptr,
               [=](uint64_t o, unsigned l) {
                 return f64(md(l)) < f64(o) ? md(l) : o;
               }});
  c.push_back({"max_f64", true, false, bits(-100.0), md, nullptr,
               [=](uint64_t o, unsigned l) {
                 return f64(md(l)) > f64(o) ? md(l) : o;
               }});
  return c;
}

/// Runs each atomic of `cases` from all 64 lanes on its own address
/// (through the SADDR global form, the 64-bit VGPR global form, or flat),
/// with or without return, in one kernel, and checks each final value and
/// that the returned values fit a serial order. A pointer box gives case i
/// its data, results and target addresses in s[12:13], s[14:15], s[16:17].
void checkAtomics(const std::string &chip, const std::vector<AtomicCase> &cases,
                  const std::string &form, bool rtn) {
  SCOPED_TRACE(form + (rtn ? " rtn" : ""));
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v10, 3, v0
  v_mov_b32_e32 v6, 0
)";
  for (size_t i = 0; i < cases.size(); ++i) {
    const AtomicCase &c = cases[i];
    std::string dst = c.wide ? "v[8:9]" : "v8";
    std::string data = c.wide ? (c.cmp ? "v[12:15]" : "v[12:13]")
                              : (c.cmp ? "v[12:13]" : "v12");
    std::string op = form == "flat" ? "flat_atomic_" : "global_atomic_";
    std::string address = form == "saddr" ? "v6, " : "v[2:3], ";
    std::string tail = form == "saddr"   ? ", s[16:17]"
                       : form == "vaddr" ? ", off"
                                         : "";
    std::string modifier = rtn ? std::string(" ") + returnModifier(chip) : "";
    body += "  s_load_dwordx4 s[12:15], s[4:5], " + std::to_string(32 * i) +
            "\n  s_load_dwordx2 s[16:17], s[4:5], " +
            std::to_string(32 * i + 16) + R"(
  v_mov_b32_e32 v8, 0
  v_mov_b32_e32 v9, 0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[12:15], v1, s[12:13]
  v_mov_b32_e32 v2, s16
  v_mov_b32_e32 v3, s17
  s_waitcnt vmcnt(0)
  )" + op + c.name +
            " " + (rtn ? dst + ", " : "") + address + data + tail + modifier +
            R"(
  s_waitcnt vmcnt(0)
  global_store_dwordx2 v10, v[8:9], s[14:15]
)";
  }
  AsmKernel k;
  k.chip = chip;
  k.body = body;
  k.numBuffers = 1;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  size_t n = cases.size();
  // Buffers: 0 pointer box, 1 targets, 2 data, 3 returned values.
  std::vector<Bytes> buffers = {Bytes(32 * n), Bytes(8 * n), Bytes(1024 * n),
                                Bytes(512 * n, 0xaa)};
  for (size_t i = 0; i < n; ++i) {
    const AtomicCase &c = cases[i];
    put<uint64_t>(buffers[1], 8 * i, c.initial);
    for (unsigned l = 0; l < 64; ++l) {
      size_t at = 1024 * i + 16 * l;
      if (c.wide) {
        put<uint64_t>(buffers[2], at, c.data(l));
        put<uint64_t>(buffers[2], at + 8, c.cmp ? c.cmp(l) : 0);
      } else {
        put<uint32_t>(buffers[2], at, uint32_t(c.data(l)));
        put<uint32_t>(buffers[2], at + 4, c.cmp ? uint32_t(c.cmp(l)) : 0);
      }
    }
  }
  // AsmKernel passes one buffer (the box); the others are allocated here
  // in the same emulator and reached through the box.
  Memory &memory = kernel->getEmulator().getMemory();
  uint64_t targets = memory.allocate(buffers[1].size(), "targets");
  uint64_t data = memory.allocate(buffers[2].size(), "data");
  uint64_t results = memory.allocate(buffers[3].size(), "results");
  for (size_t i = 0; i < n; ++i) {
    put<uint64_t>(buffers[0], 32 * i, data + 1024 * i);
    put<uint64_t>(buffers[0], 32 * i + 8, results + 512 * i);
    put<uint64_t>(buffers[0], 32 * i + 16, targets + 8 * i);
  }
  cantFail(memory.write(targets, buffers[1]));
  cantFail(memory.write(data, buffers[2]));
  cantFail(memory.write(results, buffers[3]));
  std::vector<Bytes> box = {buffers[0]};
  bool ran = runOk(*kernel, box);
  cantFail(memory.read(targets, buffers[1]));
  cantFail(memory.read(results, buffers[3]));
  ASSERT_TRUE(ran);
  for (size_t i = 0; i < n; ++i) {
    const AtomicCase &c = cases[i];
    SCOPED_TRACE(c.name);
    std::string name = c.name;
    bool exchange = name.find("swap") != std::string::npos;
    uint64_t mask = c.wide ? ~0ull : 0xffffffffull;
    // The final value does not depend on the order for these operations.
    uint64_t expectedFinal = c.initial;
    for (unsigned l = 0; l < 64; ++l)
      expectedFinal = c.apply(expectedFinal, l) & mask;
    uint64_t final = get<uint64_t>(buffers[1], 8 * i) & mask;
    if (!exchange)
      EXPECT_EQ(final, expectedFinal);
    std::vector<uint64_t> returned(64);
    for (unsigned l = 0; l < 64; ++l)
      returned[l] = get<uint64_t>(buffers[3], 512 * i + 8 * l);
    if (!rtn) {
      // Without return the destination keeps the 0 the kernel put there,
      // and an exchange leaves one lane's value.
      for (unsigned l = 0; l < 64; ++l)
        EXPECT_EQ(returned[l], 0u) << "lane " << l;
      if (exchange) {
        bool some = false;
        for (unsigned l = 0; l < 64; ++l)
          some |= final == (c.apply(c.initial, l) & mask);
        EXPECT_TRUE(some) << "final " << final;
      }
      continue;
    }
    expectSerializable<uint64_t>(
        c.initial & mask, final, returned,
        [&](uint64_t v, unsigned l) { return c.apply(v, l) & mask; });
  }
}

TEST_P(MemoryGlobal, AtomicsFromAllLanesOnOneAddress) {
  std::vector<AtomicCase> cases;
  for (const AtomicCase &c : atomicCases())
    if (!c.gfx942Only || chip() == "gfx942")
      cases.push_back(c);
  checkAtomics(chip(), cases, "saddr", true);
  checkAtomics(chip(), cases, "saddr", false);
}

TEST_P(MemoryGlobal, AtomicForms) {
  std::vector<AtomicCase> cases;
  for (const AtomicCase &c : atomicCases()) {
    std::string name = c.name;
    if (name == "add" || name == "cmpswap_x2" || name == "add_f64" ||
        name == "inc" || name == "pk_add_f16")
      cases.push_back(c);
  }
  checkAtomics(chip(), cases, "vaddr", true);
  checkAtomics(chip(), cases, "vaddr", false);
  // flat_atomic_pk_add_f16 is gfx940+.
  if (chip() != "gfx942")
    llvm::erase_if(cases, [](const AtomicCase &c) {
      return std::string(c.name) == "pk_add_f16";
    });
  checkAtomics(chip(), cases, "flat", true);
  checkAtomics(chip(), cases, "flat", false);
}

TEST_P(MemoryGlobal, FloatAtomicRules) {
  // global_atomic_add_f32 flushes input denormals (the L2 cache's rule)
  // whatever MODE says; NaNs propagate quieted and -inf + inf is the
  // default NaN. min/max_f64 order -0 below +0 and ignore a quiet NaN.
  std::string r = returnModifier(chip());
  std::string body = R"(
  v_mov_b32_e32 v1, 0
  global_load_dwordx4 v[2:5], v1, s[6:7]
  global_load_dwordx4 v[6:9], v1, s[6:7] offset:16
  s_waitcnt vmcnt(0)
  global_atomic_add_f32 v10, v1, v2, s[4:5] )" +
                     r + R"(
  global_atomic_add_f32 v11, v1, v3, s[4:5] offset:4 )" +
                     r + R"(
  global_atomic_add_f32 v12, v1, v4, s[4:5] offset:8 )" +
                     r + R"(
  global_atomic_max_f64 v[14:15], v1, v[6:7], s[4:5] offset:16 )" +
                     r + R"(
  global_atomic_min_f64 v[16:17], v1, v[8:9], s[4:5] offset:24 )" +
                     r + R"(
)";
  auto kernel = buildKernel(asmKernel(body, 2));
  ASSERT_TRUE(kernel);
  uint64_t qnan = 0x7ff8000000000001ull;
  Bytes target(32), data(32);
  put<uint32_t>(target, 0, 0x00000100u); // denormal
  put<uint32_t>(target, 4, 0x7fa00000u); // signaling NaN
  put<uint32_t>(target, 8, 0xff800000u); // -inf
  put<uint64_t>(target, 16, bits(-0.0));
  put<uint64_t>(target, 24, qnan);
  put<uint32_t>(data, 0, bits(0.0f));
  put<uint32_t>(data, 4, bits(1.0f));
  put<uint32_t>(data, 8, 0x7f800000u); // +inf
  put<uint64_t>(data, 16, bits(0.0));
  put<uint64_t>(data, 24, bits(-7.0));
  // Only lane 0 runs: a one-lane block.
  std::vector<Bytes> buffers = {target, data};
  LaunchConfig config;
  config.block = {1, 1, 1};
  ASSERT_TRUE(runOk(*kernel, buffers, nullptr, config));
  EXPECT_EQ(get<uint32_t>(buffers[0], 0), 0u);          // denormal flushed
  EXPECT_EQ(get<uint32_t>(buffers[0], 4), 0x7fe00000u); // quieted
  EXPECT_EQ(get<uint32_t>(buffers[0], 8), 0x7fc00000u); // default NaN
  EXPECT_EQ(get<uint64_t>(buffers[0], 16), bits(0.0));  // +0 > -0
  EXPECT_EQ(get<uint64_t>(buffers[0], 24), bits(-7.0)); // QNaN ignored
}

//===----------------------------------------------------------------------===//
// Flat routing
//===----------------------------------------------------------------------===//

TEST_P(MemoryGlobal, FlatRoutesByAperture) {
  // The shared aperture reaches LDS (seen by ds_read), the private one the
  // lane's scratch (seen by scratch_load), anything else global memory.
  // (Buffers: s[20:21] global target, s[22:23] address table, s[24:25]
  // results.)
  std::string r = returnModifier(chip());
  std::string body = R"(
  s_mov_b64 s[30:31], src_shared_base
  s_mov_b64 s[32:33], src_private_base
  v_lshlrev_b32_e32 v2, 2, v0
  v_mov_b32_e32 v3, s31
  v_lshlrev_b32_e32 v4, 8, v0
  v_mov_b32_e32 v27, 0
  flat_store_dword v[2:3], v4 offset:16
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_read_b32 v20, v2 offset:16
  flat_load_dword v21, v[2:3] offset:16
  flat_atomic_add v22, v[2:3], v4 offset:16 )" +
                     r + R"(
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_read_b32 v23, v2 offset:16
  v_mov_b32_e32 v10, 8
  v_mov_b32_e32 v11, s33
  flat_store_dword v[10:11], v4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b32 s34, 4
  scratch_load_dword v24, off, s34 offset:4
  flat_load_dword v25, v[10:11]
  v_lshlrev_b32_e32 v1, 3, v0
  global_load_dwordx2 v[14:15], v1, s[22:23]
  s_waitcnt vmcnt(0)
  flat_store_dword v[14:15], v4
  flat_load_dword v26, v[14:15]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_lshlrev_b32_e32 v1, 5, v0
  global_store_dwordx4 v1, v[20:23], s[24:25]
  global_store_dwordx4 v1, v[24:27], s[24:25] offset:16
)";
  auto pk = PrivateKernel::build(chip(), body, 3, 16, 512);
  ASSERT_TRUE(pk);
  std::vector<Bytes> buffers = {Bytes(256, 0xaa), Bytes(64 * 8),
                                Bytes(64 * 32, 0xaa)};
  auto result =
      pk->run(buffers, [](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
        for (unsigned l = 0; l < 64; ++l)
          put<uint64_t>(b[1], 8 * l, a[0] + 4 * l);
      });
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->racesFound, 0u);
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t v = l << 8;
    size_t o = 32 * l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o), v) << "ds_read, lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o + 4), v) << "flat_load, lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o + 8), v) << "atomic, lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o + 12), 2 * v) << "lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o + 16), v) << "scratch, lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o + 20), v) << "private, lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[2], o + 24), v) << "global, lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[0], 4 * l), v) << "global, lane " << l;
  }
}

TEST_P(MemoryGlobal, FlatAtomicOnPrivateMemoryFails) {
  std::string body = R"(
  s_mov_b64 s[30:31], src_private_base
  v_mov_b32_e32 v2, 0
  v_mov_b32_e32 v3, s31
  flat_atomic_add v[2:3], v2
)";
  auto kernel = PrivateKernel::build(chip(), body, 0, 16);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers;
  auto result = kernel->run(buffers);
  ASSERT_FALSE(bool(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("scratch atomics are not supported"),
            std::string::npos)
      << message;
}

INSTANTIATE_TEST_SUITE_P(Chips, MemoryGlobal,
                         ::testing::Values("gfx942", "gfx90a"));

} // namespace
