//===- LdsTest.cpp - DS instructions, race detector and bank model --------===//
//
// Every DS read/write width (sign/zero extension, D16 merging), read2/
// write2 and their st64 forms with offset units, exchanges, atomics from 64
// lanes on one LDS address, ds_bpermute/permute/swizzle patterns with
// inactive lanes, addtid, loads to LDS, the race detector (RAW, WAR, WAW,
// unwaited writes, atomics, self-accesses) and the bank-conflict model; on
// gfx942 and gfx90a. Expected values are computed here.
//
//===----------------------------------------------------------------------===//

#include "MemoryTest.h"

#include <functional>

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

class LdsTest : public ChipTest {};

TEST_P(LdsTest, ReadWidths) {
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v30, 7, v0
  global_load_dwordx4 v[2:5], v1, s[4:5]
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
  s_waitcnt vmcnt(0)
  ds_write_b128 v1, v[2:5]
  ds_read_u8 v32, v1 offset:1
  ds_read_i8 v33, v1 offset:3
  ds_read_u16 v34, v1 offset:2
  ds_read_i16 v35, v1 offset:6
  ds_read_b32 v36, v1 offset:4
  ds_read_b64 v[38:39], v1 offset:8
  ds_read_b96 v[40:42], v1 offset:4
  ds_read_b128 v[44:47], v1
  ds_read_u8_d16 v48, v1 offset:5
  ds_read_u8_d16_hi v49, v1 offset:9
  ds_read_i8_d16 v50, v1 offset:13
  ds_read_i8_d16_hi v51, v1 offset:7
  ds_read_u16_d16 v52, v1 offset:10
  ds_read_u16_d16_hi v53, v1 offset:14
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v30, v[32:35], s[6:7]
  global_store_dwordx4 v30, v[36:39], s[6:7] offset:16
  global_store_dwordx4 v30, v[40:43], s[6:7] offset:32
  global_store_dwordx4 v30, v[44:47], s[6:7] offset:48
  global_store_dwordx4 v30, v[48:51], s[6:7] offset:64
  global_store_dwordx4 v30, v[52:55], s[6:7] offset:80
)";
  AsmKernel k = asmKernel(body, 2);
  k.ldsBytes = 1024;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(64 * 16, 4);
  std::vector<Bytes> buffers = {in, Bytes(64 * 128, 0xaa)};
  LaunchResult result;
  ASSERT_TRUE(runOk(*kernel, buffers, &result));
  for (unsigned lane = 0; lane < 64; ++lane) {
    std::vector<uint32_t> expected = loadWidthResults(&in[lane * 16]);
    for (unsigned r = 0; r < 24; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[1], lane * 128 + 4 * r), expected[r])
          << "lane " << lane << " result " << r;
  }
  EXPECT_EQ(result.ldsInstructions, 15u);
  EXPECT_EQ(result.vmemInstructions, 7u);
  EXPECT_EQ(result.racesFound, 0u);
}

TEST_P(LdsTest, WriteWidths) {
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v6, 6, v0
  global_load_dwordx4 v[2:5], v1, s[4:5]
  v_mov_b32_e32 v10, 0xaaaaaaaa
  v_mov_b32_e32 v11, 0xaaaaaaaa
  v_mov_b32_e32 v12, 0xaaaaaaaa
  v_mov_b32_e32 v13, 0xaaaaaaaa
  ds_write_b128 v6, v[10:13]
  ds_write_b128 v6, v[10:13] offset:16
  ds_write_b128 v6, v[10:13] offset:32
  ds_write_b128 v6, v[10:13] offset:48
  s_waitcnt vmcnt(0)
  ds_write_b8 v6, v2
  ds_write_b8_d16_hi v6, v2 offset:1
  ds_write_b16 v6, v3 offset:2
  ds_write_b16_d16_hi v6, v3 offset:4
  ds_write_b32 v6, v4 offset:8
  ds_write_b64 v6, v[2:3] offset:12
  ds_write_b96 v6, v[2:4] offset:20
  ds_write_b128 v6, v[2:5] offset:32
  ds_read_b128 v[20:23], v6
  ds_read_b128 v[24:27], v6 offset:16
  ds_read_b128 v[28:31], v6 offset:32
  ds_read_b128 v[32:35], v6 offset:48
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v6, v[20:23], s[6:7]
  global_store_dwordx4 v6, v[24:27], s[6:7] offset:16
  global_store_dwordx4 v6, v[28:31], s[6:7] offset:32
  global_store_dwordx4 v6, v[32:35], s[6:7] offset:48
)";
  AsmKernel k = asmKernel(body, 2);
  k.ldsBytes = 4096;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(64 * 16, 5);
  std::vector<Bytes> buffers = {in, Bytes(64 * 64)};
  ASSERT_TRUE(runOk(*kernel, buffers));
  for (unsigned lane = 0; lane < 64; ++lane) {
    Bytes expected = storeWidthResults(&in[lane * 16]);
    for (unsigned k = 0; k < 64; ++k)
      EXPECT_EQ(buffers[1][lane * 64 + k], expected[k])
          << "lane " << lane << " byte " << k;
  }
}

TEST_P(LdsTest, PairsAndExchanges) {
  // Lane data d0..d3. Regions (bytes, l = lane):
  //   write2_b32 (base 4l) offset0:1 offset1:255      -> 4+4l, 1020+4l
  //   write2_b64 (base 8l) offset0:160 offset1:230    -> 1280+8l, 1840+8l
  //   write2st64_b32 (4l) offset0:16 offset1:17       -> 4096+4l, 4352+4l
  //   write2st64_b64 (8l) offset0:9 offset1:10        -> 4608+8l, 5120+8l
  // then the read2 twins, plain reads that pin the addresses, and
  // wrxchg2(st64) returning the old values.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 3, v0
  v_lshlrev_b32_e32 v2, 2, v0
  v_lshlrev_b32_e32 v3, 4, v0
  v_lshlrev_b32_e32 v4, 7, v0
  v_lshlrev_b32_e32 v14, 8, v0
  v_lshlrev_b32_e32 v15, 16, v0
  v_mov_b32_e32 v38, 0
  v_mov_b32_e32 v39, 0
  global_load_dwordx4 v[10:13], v3, s[4:5]
  s_waitcnt vmcnt(0)
  ds_write2_b32 v2, v10, v11 offset0:1 offset1:255
  ds_write2_b64 v1, v[10:11], v[12:13] offset0:160 offset1:230
  ds_write2st64_b32 v2, v12, v13 offset0:16 offset1:17
  ds_write2st64_b64 v1, v[10:11], v[12:13] offset0:9 offset1:10
  ds_read2_b32 v[20:21], v2 offset0:1 offset1:255
  ds_read2st64_b32 v[22:23], v2 offset0:16 offset1:17
  ds_read2st64_b64 v[24:27], v1 offset0:9 offset1:10
  ds_read2_b64 v[28:31], v1 offset0:160 offset1:230
  ds_read_b32 v32, v2 offset:1020
  ds_read_b32 v33, v2 offset:4352
  ds_read_b64 v[34:35], v1 offset:5120
  ds_read_b64 v[36:37], v1 offset:1840
  ds_wrxchg2_rtn_b32 v[40:41], v2, v14, v15 offset0:1 offset1:255
  ds_wrxchg2st64_rtn_b64 v[44:47], v1, v[14:15], v[14:15] offset0:9 offset1:10
  ds_read2_b32 v[42:43], v2 offset0:1 offset1:255
  ds_read2st64_b64 v[48:51], v1 offset0:9 offset1:10
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v4, v[20:23], s[6:7]
  global_store_dwordx4 v4, v[24:27], s[6:7] offset:16
  global_store_dwordx4 v4, v[28:31], s[6:7] offset:32
  global_store_dwordx4 v4, v[32:35], s[6:7] offset:48
  global_store_dwordx4 v4, v[36:39], s[6:7] offset:64
  global_store_dwordx4 v4, v[40:43], s[6:7] offset:80
  global_store_dwordx4 v4, v[44:47], s[6:7] offset:96
  global_store_dwordx4 v4, v[48:51], s[6:7] offset:112
)";
  AsmKernel k = asmKernel(body, 2);
  k.ldsBytes = 8192;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(64 * 16, 6);
  std::vector<Bytes> buffers = {in, Bytes(64 * 128)};
  ASSERT_TRUE(runOk(*kernel, buffers));
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t d[4], x = l << 8, y = l << 16;
    std::memcpy(d, &in[16 * l], 16);
    uint32_t expected[32] = {d[0], d[1], d[2], d[3], // read2, st64
                             d[0], d[1], d[2], d[3], // st64_b64
                             d[0], d[1], d[2], d[3], // read2_b64
                             d[1], d[3], d[2], d[3], // plain reads
                             d[2], d[3], 0,    0,    // plain b64
                             d[0], d[1], x,    y,    // wrxchg2_b32
                             d[0], d[1], d[2], d[3], // old b64 pair
                             x,    y,    x,    y};   // new b64 pair
    for (unsigned r = 0; r < 32; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[1], 128 * l + 4 * r), expected[r])
          << "lane " << l << " result " << r;
  }
}

TEST_P(LdsTest, AddTidAndM0) {
  // ds_write_addtid_b32 / ds_read_addtid_b32 address offset + M0[15:0] +
  // 4 * lane; M0's upper half is ignored.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_lshlrev_b32_e32 v2, 9, v0
  s_mov_b32 m0, 0xabcd0040
  ds_write_addtid_b32 v2 offset:16
  ds_read_addtid_b32 v3 offset:16
  ds_read_b32 v4, v1 offset:80
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v3, s[4:5]
  global_store_dword v1, v4, s[4:5] offset:256
)";
  AsmKernel k = asmKernel(body, 1);
  k.ldsBytes = 512;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(512)};
  ASSERT_TRUE(runOk(*kernel, buffers));
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(get<uint32_t>(buffers[0], 4 * l), l << 9) << "lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[0], 256 + 4 * l), l << 9) << "lane " << l;
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

struct DsAtomic {
  const char *name; ///< "add_u32", "cmpst_b64", ...
  bool wide;
  bool twoData;       ///< data0 and data1
  bool alwaysReturns; ///< only a _rtn form exists
  bool gfx942Only;
  uint64_t initial;
  std::function<uint64_t(unsigned)> data0, data1;
  std::function<uint64_t(uint64_t, unsigned)> apply;
};

std::vector<DsAtomic> dsAtomics() {
  std::vector<DsAtomic> c;
  auto d = [](unsigned l) -> uint64_t { return l * 5 + 2; };
  auto none = [](unsigned) -> uint64_t { return 0; };
  auto u32 = [](uint64_t v) { return v & 0xffffffffu; };
  c.push_back({"add_u32", false, false, false, false, 9, d, none,
               [=](uint64_t o, unsigned l) { return u32(o + d(l)); }});
  c.push_back({"sub_u32", false, false, false, false, 9, d, none,
               [=](uint64_t o, unsigned l) { return u32(o - d(l)); }});
  c.push_back({"rsub_u32", false, false, false, false, 9, d, none,
               [=](uint64_t o, unsigned l) { return u32(d(l) - o); }});
  auto lim = [](unsigned) -> uint64_t { return 50; };
  c.push_back({"inc_u32", false, false, false, false, 45, lim, none,
               [](uint64_t o, unsigned) { return o >= 50 ? 0 : o + 1; }});
  c.push_back(
      {"dec_u32", false, false, false, false, 3, lim, none,
       [](uint64_t o, unsigned) { return o == 0 || o > 50 ? 50 : o - 1; }});
  auto sd = [](unsigned l) -> uint64_t {
    return uint32_t(int32_t(l * 41 % 97) - 48);
  };
  c.push_back({"min_i32", false, false, false, false, 0, sd, none,
               [=](uint64_t o, unsigned l) {
                 return int32_t(sd(l)) < int32_t(o) ? sd(l) : o;
               }});
  c.push_back({"max_i32", false, false, false, false, uint32_t(-100), sd, none,
               [=](uint64_t o, unsigned l) {
                 return int32_t(sd(l)) > int32_t(o) ? sd(l) : o;
               }});
  c.push_back({"min_u32", false, false, false, false, 0xffffff00u, sd, none,
               [=](uint64_t o, unsigned l) { return std::min(o, sd(l)); }});
  c.push_back({"max_u32", false, false, false, false, 0, sd, none,
               [=](uint64_t o, unsigned l) { return std::max(o, sd(l)); }});
  auto bit = [](unsigned l) -> uint64_t { return 1u << (l % 32); };
  c.push_back({"or_b32", false, false, false, false, 0, bit, none,
               [=](uint64_t o, unsigned l) { return o | bit(l); }});
  c.push_back({"and_b32", false, false, false, false, 0xffffffffu,
               [=](unsigned l) -> uint64_t { return u32(~bit(l)); }, none,
               [=](uint64_t o, unsigned l) { return o & u32(~bit(l)); }});
  c.push_back({"xor_b32", false, false, false, false, 0x3c3c3c3c, d, none,
               [=](uint64_t o, unsigned l) { return o ^ d(l); }});
  // mskor: (old & ~data0) | data1 with data0 = data1 = one bit: sets bits.
  c.push_back({"mskor_b32", false, true, false, false, 0x80000000u, bit, bit,
               [=](uint64_t o, unsigned l) { return (o & ~bit(l)) | bit(l); }});
  // cmpst: data0 is the compare value, data1 the new one.
  auto next = [](unsigned l) -> uint64_t { return l + 1; };
  auto zero = [](unsigned) -> uint64_t { return 0; };
  c.push_back({"cmpst_b32", false, true, false, false, 0, zero, next,
               [=](uint64_t o, unsigned l) { return o == 0 ? next(l) : o; }});
  c.push_back({"wrxchg_rtn_b32", false, false, true, false, 77, next, none,
               [=](uint64_t, unsigned l) { return next(l); }});
  // wrap: old >= data0 ? old - data0 : old + data1.
  auto w0 = [](unsigned) -> uint64_t { return 7; };
  auto w1 = [](unsigned) -> uint64_t { return 3; };
  c.push_back({"wrap_rtn_b32", false, true, true, false, 20, w0, w1,
               [](uint64_t o, unsigned) { return o >= 7 ? o - 7 : o + 3; }});
  auto fd = [](unsigned l) -> uint64_t { return bits(float(l % 5) * 0.25f); };
  c.push_back(
      {"add_f32", false, false, false, false, bits(1.0f), fd, none,
       [=](uint64_t o, unsigned l) { return bits(f32(o) + f32(fd(l))); }});
  auto fm = [](unsigned l) -> uint64_t {
    return bits(float(int(l * 13 % 64) - 30));
  };
  c.push_back({"min_f32", false, false, false, false, bits(5.0f), fm, none,
               [=](uint64_t o, unsigned l) {
                 return f32(fm(l)) < f32(o) ? fm(l) : o;
               }});
  c.push_back({"max_f32", false, false, false, false, bits(-50.0f), fm, none,
               [=](uint64_t o, unsigned l) {
                 return f32(fm(l)) > f32(o) ? fm(l) : o;
               }});
  auto fnext = [](unsigned l) -> uint64_t { return bits(float(l + 1)); };
  auto fzero = [](unsigned) -> uint64_t { return bits(-0.0f); };
  // -0 == +0 for the float compare.
  c.push_back(
      {"cmpst_f32", false, true, false, false, bits(0.0f), fzero, fnext,
       [=](uint64_t o, unsigned l) { return f32(o) == 0.0f ? fnext(l) : o; }});
  auto hd = [](unsigned l) -> uint64_t {
    return f16(l % 3 + 1) | (uint32_t(f16(l % 2 + 1)) << 16);
  };
  c.push_back({"pk_add_f16", false, false, false, true, // gfx940+
               uint64_t(f16(2) | (f16(4) << 16)), hd, none,
               [=](uint64_t o, unsigned l) {
                 unsigned lo = fromF16(uint16_t(o)) + fromF16(uint16_t(hd(l)));
                 unsigned hi = fromF16(uint16_t(o >> 16)) +
                               fromF16(uint16_t(hd(l) >> 16));
                 return uint64_t(f16(lo) | (uint32_t(f16(hi)) << 16));
               }});
  auto bd = [](unsigned l) -> uint64_t {
    return bf16(l % 2 + 1) | (uint32_t(bf16(2)) << 16);
  };
  c.push_back({"pk_add_bf16", false, false, false, true,
               uint64_t(bf16(1) | (bf16(6) << 16)), bd, none,
               [=](uint64_t o, unsigned l) {
                 unsigned lo =
                     fromBF16(uint16_t(o)) + fromBF16(uint16_t(bd(l)));
                 unsigned hi = fromBF16(uint16_t(o >> 16)) +
                               fromBF16(uint16_t(bd(l) >> 16));
                 return uint64_t(bf16(lo) | (uint32_t(bf16(hi)) << 16));
               }});
  auto wd = [](unsigned l) -> uint64_t {
    return (uint64_t(l + 1) << 32) | (l * 3);
  };
  c.push_back({"add_u64", true, false, false, false, 0xfffffffeull, wd, none,
               [=](uint64_t o, unsigned l) { return o + wd(l); }});
  auto sd64 = [](unsigned l) -> uint64_t {
    return uint64_t(int64_t(l * 41 % 97) - 48) << 20;
  };
  c.push_back({"min_i64", true, false, false, false, 0, sd64, none,
               [=](uint64_t o, unsigned l) {
                 return int64_t(sd64(l)) < int64_t(o) ? sd64(l) : o;
               }});
  c.push_back({"max_u64", true, false, false, false, 0, sd64, none,
               [=](uint64_t o, unsigned l) { return std::max(o, sd64(l)); }});
  auto next64 = [](unsigned l) -> uint64_t {
    return (uint64_t(l + 1) << 33) | 1;
  };
  c.push_back({"cmpst_b64", true, true, false, false, 0, zero, next64,
               [=](uint64_t o, unsigned l) { return o == 0 ? next64(l) : o; }});
  c.push_back({"wrxchg_rtn_b64", true, false, true, false, 5, next64, none,
               [=](uint64_t, unsigned l) { return next64(l); }});
  auto dd = [](unsigned l) -> uint64_t { return bits(double(l) * 0.5); };
  c.push_back(
      {"add_f64", true, false, false, false, bits(1.0), dd, none,
       [=](uint64_t o, unsigned l) { return bits(f64(o) + f64(dd(l))); }});
  auto dm = [](unsigned l) -> uint64_t {
    return bits(double(int(l * 13 % 64) - 30));
  };
  c.push_back({"max_f64", true, false, false, false, bits(-99.0), dm, none,
               [=](uint64_t o, unsigned l) {
                 return f64(dm(l)) > f64(o) ? dm(l) : o;
               }});
  c.push_back({"min_f64", true, false, false, false, bits(99.0), dm, none,
               [=](uint64_t o, unsigned l) {
                 return f64(dm(l)) < f64(o) ? dm(l) : o;
               }});
  return c;
}

/// All cases in one kernel: case i works on LDS bytes [8i, 8i + 8), takes
/// lane data from global memory and stores the returned values.
void checkDsAtomics(const std::string &chip, const std::vector<DsAtomic> &cases,
                    bool rtn) {
  SCOPED_TRACE(rtn ? "rtn" : "no rtn");
  size_t n = cases.size();
  // One block per case; the data and result addresses of case i come from
  // the pointer box (s[4:5]) at 16i and 16i + 8.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v10, 3, v0
  v_mov_b32_e32 v20, 0
)";
  // LDS initial values: lane 0 writes all of them.
  body += "  s_mov_b64 exec, 1\n";
  for (size_t i = 0; i < n; ++i)
    body += "  s_load_dwordx2 s[12:13], s[4:5], " +
            std::to_string(16 * n + 8 * i) +
            "\n  s_waitcnt lgkmcnt(0)\n  v_mov_b32_e32 v2, s12\n"
            "  v_mov_b32_e32 v3, s13\n  ds_write_b64 v20, v[2:3] offset:" +
            std::to_string(8 * i) + "\n";
  body += "  s_mov_b64 exec, -1\n";
  for (size_t i = 0; i < n; ++i) {
    const DsAtomic &c = cases[i];
    std::string name = c.name;
    if ((rtn || c.alwaysReturns) && name.find("_rtn_") == std::string::npos) {
      size_t at = name.rfind('_');
      name = name.substr(0, at) + "_rtn" + name.substr(at);
    }
    bool returns = name.find("_rtn_") != std::string::npos;
    std::string d0 = c.wide ? "v[12:13]" : "v12";
    std::string d1 = c.wide ? "v[14:15]" : "v14";
    std::string dst = c.wide ? "v[8:9]" : "v8";
    body += "  s_load_dwordx4 s[12:15], s[4:5], " + std::to_string(16 * i) +
            R"(
  v_mov_b32_e32 v8, 0
  v_mov_b32_e32 v9, 0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[12:15], v1, s[12:13]
  s_waitcnt vmcnt(0)
  ds_)" + name +
            " " + (returns ? dst + ", " : "") + "v20, " + d0 +
            (c.twoData ? ", " + d1 : "") + " offset:" + std::to_string(8 * i) +
            R"(
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v10, v[8:9], s[14:15]
)";
  }
  // The final LDS values to buffer box + 24n.
  body += "  s_mov_b64 exec, 1\n";
  for (size_t i = 0; i < n; ++i)
    body += "  ds_read_b64 v[2:3], v20 offset:" + std::to_string(8 * i) +
            "\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx2 v20, v[2:3], "
            "s[4:5] offset:" +
            std::to_string(24 * n + 8 * i) + "\n";
  AsmKernel k;
  k.chip = chip;
  k.body = body;
  k.numBuffers = 1;
  k.ldsBytes = unsigned(8 * n);
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  // Buffer 0 (the box): [16i] data address, [16i+8] results address,
  // [16n+8i] initial value, [24n+8i] final value. Data and results live in
  // extra allocations of the kernel's emulator.
  Memory &memory = kernel->getEmulator().getMemory();
  uint64_t data = memory.allocate(1024 * n, "data");
  uint64_t results = memory.allocate(512 * n, "results");
  Bytes dataBytes(1024 * n), resultBytes(512 * n, 0xaa), box(32 * n);
  for (size_t i = 0; i < n; ++i) {
    const DsAtomic &c = cases[i];
    put<uint64_t>(box, 16 * i, data + 1024 * i);
    put<uint64_t>(box, 16 * i + 8, results + 512 * i);
    put<uint64_t>(box, 16 * n + 8 * i, c.initial);
    for (unsigned l = 0; l < 64; ++l) {
      size_t at = 1024 * i + 16 * l;
      if (c.wide) {
        put<uint64_t>(dataBytes, at, c.data0(l));
        put<uint64_t>(dataBytes, at + 8, c.data1(l));
      } else {
        put<uint32_t>(dataBytes, at, uint32_t(c.data0(l)));
        put<uint32_t>(dataBytes, at + 8, uint32_t(c.data1(l)));
      }
    }
  }
  cantFail(memory.write(data, dataBytes));
  cantFail(memory.write(results, resultBytes));
  std::vector<Bytes> buffers = {box};
  LaunchResult result;
  ASSERT_TRUE(runOk(*kernel, buffers, &result));
  cantFail(memory.read(results, resultBytes));
  EXPECT_EQ(result.racesFound, 0u);
  for (size_t i = 0; i < n; ++i) {
    const DsAtomic &c = cases[i];
    SCOPED_TRACE(c.name);
    uint64_t mask = c.wide ? ~0ull : 0xffffffffull;
    bool exchange = std::string(c.name).find("xchg") != std::string::npos ||
                    std::string(c.name).find("cmpst") != std::string::npos;
    uint64_t final = get<uint64_t>(buffers[0], 24 * n + 8 * i) & mask;
    if (!exchange) {
      uint64_t expected = c.initial;
      for (unsigned l = 0; l < 64; ++l)
        expected = c.apply(expected, l) & mask;
      EXPECT_EQ(final, expected);
    }
    bool returns = rtn || c.alwaysReturns;
    std::vector<uint64_t> returned(64);
    for (unsigned l = 0; l < 64; ++l)
      returned[l] = get<uint64_t>(resultBytes, 512 * i + 8 * l);
    if (!returns) {
      for (unsigned l = 0; l < 64; ++l)
        EXPECT_EQ(returned[l], 0u) << "lane " << l;
      continue;
    }
    expectSerializable<uint64_t>(
        c.initial & mask, final, returned,
        [&](uint64_t v, unsigned l) { return c.apply(v, l) & mask; });
  }
}

TEST_P(LdsTest, AtomicsFromAllLanesOnOneAddress) {
  std::vector<DsAtomic> cases;
  for (const DsAtomic &c : dsAtomics())
    if (!c.gfx942Only || chip() == "gfx942")
      cases.push_back(c);
  checkDsAtomics(chip(), cases, true);
  checkDsAtomics(chip(), cases, false);
}

TEST_P(LdsTest, FloatRulesFollowMode) {
  // ds_add_f32 keeps a denormal result with MODE.fp_denorm f32 = 3 and
  // flushes it with 0; NaN operands come back quieted.
  for (unsigned denorm : {3u, 0u}) {
    std::string body = R"(
  v_mov_b32_e32 v1, 0
  v_mov_b32_e32 v2, 0x00000100
  v_mov_b32_e32 v3, 0x00000200
  v_mov_b32_e32 v4, 0x7f800001
  v_mov_b32_e32 v5, 0x3f800000
  ds_write_b32 v1, v2
  ds_write_b32 v1, v4 offset:4
  ds_add_f32 v1, v3
  ds_add_rtn_f32 v6, v1, v5 offset:4
  ds_read_b32 v7, v1
  ds_read_b32 v8, v1 offset:4
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v6, s[4:5]
  global_store_dword v1, v7, s[4:5] offset:4
  global_store_dword v1, v8, s[4:5] offset:8
)";
    AsmKernel k = asmKernel(body, 1);
    k.ldsBytes = 16;
    k.descriptorDirectives =
        ".amdhsa_float_denorm_mode_32 " + std::to_string(denorm);
    auto kernel = buildKernel(k);
    ASSERT_TRUE(kernel);
    std::vector<Bytes> buffers = {Bytes(12)};
    LaunchConfig config;
    config.block = {1, 1, 1};
    ASSERT_TRUE(runOk(*kernel, buffers, nullptr, config));
    EXPECT_EQ(get<uint32_t>(buffers[0], 0), 0x7f800001u); // old value
    EXPECT_EQ(get<uint32_t>(buffers[0], 4), denorm == 3 ? 0x300u : 0u)
        << "denorm mode " << denorm;
    EXPECT_EQ(get<uint32_t>(buffers[0], 8), 0x7fc00001u); // quieted NaN
  }
}

//===----------------------------------------------------------------------===//
// Cross-lane
//===----------------------------------------------------------------------===//

TEST_P(LdsTest, PermutesAndSwizzles) {
  // EXEC has lanes 5, 17, 40 and 63 off: their outputs keep 0xdead and
  // reading them gives 0.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[6:7]
  global_load_dword v4, v1, s[8:9]
  v_mov_b32_e32 v10, 0xdead
  v_mov_b32_e32 v11, 0xdead
  v_mov_b32_e32 v12, 0xdead
  v_mov_b32_e32 v13, 0xdead
  v_mov_b32_e32 v14, 0xdead
  v_mov_b32_e32 v15, 0xdead
  v_mov_b32_e32 v16, 0xdead
  v_mov_b32_e32 v17, 0xdead
  v_mov_b32_e32 v18, 0xdead
  v_mov_b32_e32 v19, 0xdead
  v_mov_b32_e32 v20, 0xdead
  v_mov_b32_e32 v21, 0xdead
  s_waitcnt vmcnt(0)
  s_mov_b32 exec_lo, 0xfffdffdf
  s_mov_b32 exec_hi, 0x7ffffeff
  ds_bpermute_b32 v10, v3, v2
  ds_permute_b32 v11, v4, v2
  ds_bpermute_b32 v12, v3, v2 offset:8
  ds_swizzle_b32 v13, v2 offset:swizzle(QUAD_PERM,1,0,3,2)
  ds_swizzle_b32 v14, v2 offset:swizzle(BITMASK_PERM,"01pi0")
  ds_swizzle_b32 v15, v2 offset:swizzle(SWAP,16)
  ds_swizzle_b32 v16, v2 offset:swizzle(BROADCAST,8,3)
  ds_swizzle_b32 v17, v2 offset:swizzle(REVERSE,32)
  ds_swizzle_b32 v18, v2 offset:swizzle(ROTATE,1,3)
  ds_swizzle_b32 v19, v2 offset:swizzle(ROTATE,0,5)
  ds_swizzle_b32 v20, v2 offset:swizzle(FFT,0)
  ds_swizzle_b32 v21, v2 offset:swizzle(FFT,16)
  s_waitcnt lgkmcnt(0)
  s_mov_b64 exec, -1
  v_lshlrev_b32_e32 v1, 6, v0
  global_store_dwordx4 v1, v[10:13], s[10:11]
  global_store_dwordx4 v1, v[14:17], s[10:11] offset:16
  global_store_dwordx4 v1, v[18:21], s[10:11] offset:32
)";
  auto kernel = buildKernel(asmKernel(body, 4));
  ASSERT_TRUE(kernel);
  uint64_t exec = 0x7ffffefffffdffdfull;
  auto on = [&](unsigned l) { return (exec >> l) & 1; };
  auto bperm = [](unsigned l) { return (l * 11 + 5) % 64; };
  auto perm = [](unsigned l) { return (l * 13 + 7) % 64; };
  Bytes data(256), back(256), forward(256);
  for (unsigned l = 0; l < 64; ++l) {
    put<uint32_t>(data, 4 * l, 0x1000 + l);
    // Address bits above the lane index are ignored.
    put<uint32_t>(back, 4 * l, 4 * bperm(l) + (l % 3) * 256);
    put<uint32_t>(forward, 4 * l, 4 * perm(l) + 1);
  }
  std::vector<Bytes> buffers = {data, back, forward, Bytes(64 * 64)};
  ASSERT_TRUE(runOk(*kernel, buffers));
  auto value = [&](unsigned source) -> uint32_t {
    return on(source) ? 0x1000 + source : 0;
  };
  // ds_permute: the highest active lane sending to a lane wins.
  uint32_t permuted[64] = {};
  for (unsigned l = 0; l < 64; ++l)
    if (on(l))
      permuted[perm(l)] = 0x1000 + l;
  auto rev5 = [](unsigned i) {
    unsigned r = 0;
    for (unsigned b = 0; b < 5; ++b)
      r |= ((i >> b) & 1) << (4 - b);
    return r;
  };
  for (unsigned l = 0; l < 64; ++l) {
    unsigned g = l & 32, i = l & 31;
    uint32_t expected[12] = {
        value(bperm(l)),
        permuted[l],
        value((bperm(l) + 2) % 64),
        value(l ^ 1),
        // "01pi0": bit 4 = 0, bit 3 = 1, bit 2 kept, bit 1 inverted, bit 0 = 0
        value(g | (((i & 0x4) | 0x8 | ((i & 2) ^ 2)) & 0x1e)),
        value(l ^ 16),
        value((l & ~7u) | 3),
        value(g | (31 - i)),
        value(g | ((i + 29) % 32)), // rotate right by 3
        value(g | ((i + 5) % 32)),  // rotate left by 5
        value(g | rev5(i)),
        value(g | (rev5(i) >> 1) | (i & 16)),
    };
    for (unsigned r = 0; r < 12; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[3], 64 * l + 4 * r),
                on(l) ? expected[r] : 0xdeadu)
          << "lane " << l << " result " << r;
  }
}

//===----------------------------------------------------------------------===//
// Loads to LDS
//===----------------------------------------------------------------------===//

TEST_P(LdsTest, LoadsToLds) {
  // buffer_load_dword ... lds (both chips) and global_load_lds_dword
  // (gfx942) write lane L's dword to LDS M0 + inst_offset + 4 * L.
  bool global = chip() == "gfx942";
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  s_load_dwordx4 s[12:15], s[6:7], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0x100
  buffer_load_dword v1, s[12:15], 0 offen offset:8 lds
)" +
                     std::string(global ? R"(
  s_mov_b32 m0, 0x400
  global_load_lds_dword v1, s[4:5] offset:4
)"
                                        : "") +
                     R"(
  s_waitcnt vmcnt(0)
  ds_read_b32 v2, v1 offset:264
  ds_read_b32 v3, v1 offset:1028
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[8:9]
  global_store_dword v1, v3, s[8:9] offset:256
)";
  AsmKernel k = asmKernel(body, 3);
  k.ldsBytes = 2048;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(300, 7);
  // A raw buffer over `in` of 200 bytes: lanes past it load 0.
  std::vector<Bytes> buffers = {in, Bytes(16), Bytes(512, 0xaa)};
  LaunchResult result;
  ASSERT_TRUE(runOk(*kernel, buffers, &result, {},
                    [](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                      put<uint32_t>(b[1], 0, uint32_t(a[0]));
                      put<uint32_t>(b[1], 4, uint32_t(a[0] >> 32));
                      put<uint32_t>(b[1], 8, 200);
                      put<uint32_t>(b[1], 12, 0x27000);
                    }));
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t expected = 4 * l + 8 + 4 <= 200 ? get<uint32_t>(in, 4 * l + 8) : 0;
    EXPECT_EQ(get<uint32_t>(buffers[2], 4 * l), expected) << "lane " << l;
    if (global)
      EXPECT_EQ(get<uint32_t>(buffers[2], 256 + 4 * l),
                get<uint32_t>(in, 4 * l + 4))
          << "lane " << l;
  }
  EXPECT_EQ(result.racesFound, 0u);
}

//===----------------------------------------------------------------------===//
// Bounds
//===----------------------------------------------------------------------===//

TEST_P(LdsTest, OutOfRangeAccessIsReported) {
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b64 v[2:3], v1 offset:4
)";
  AsmKernel k = asmKernel(body, 1);
  k.ldsBytes = 256;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(4)};
  std::string message = runError(*kernel, buffers);
  // Lane 62 reads bytes [252, 260).
  EXPECT_NE(message.find("LDS access of 8 bytes at offset 252 is outside the "
                         "256-byte LDS allocation"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("ds_read_b64 v[2:3], v1 offset:4"), std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Race detector
//===----------------------------------------------------------------------===//

/// Two waves (128 work-items) run `code` with per-work-item LDS addresses
/// v1 and v2 from tables (v9 = work-item * 4, the stored data); returns
/// the launch result.
LaunchResult runTwoWaves(const std::string &chip, const std::string &code,
                         std::function<uint32_t(unsigned)> first,
                         std::function<uint32_t(unsigned)> second,
                         const LaunchConfig *config = nullptr,
                         const Program **program = nullptr,
                         std::unique_ptr<LoadedKernel> *keep = nullptr) {
  std::string body = R"(
  v_lshlrev_b32_e32 v9, 2, v0
  global_load_dword v1, v9, s[4:5]
  global_load_dword v2, v9, s[6:7]
  v_mov_b32_e32 v3, 0
  s_waitcnt vmcnt(0)
)" + code + R"(
  s_waitcnt lgkmcnt(0)
  global_store_dword v9, v3, s[8:9]
)";
  AsmKernel k;
  k.chip = chip;
  k.body = body;
  k.numBuffers = 3;
  k.ldsBytes = 2048;
  auto kernel = buildKernel(k);
  if (!kernel)
    return {};
  Bytes a(512), b(512);
  for (unsigned i = 0; i < 128; ++i) {
    put<uint32_t>(a, 4 * i, first(i));
    put<uint32_t>(b, 4 * i, second(i));
  }
  std::vector<Bytes> buffers = {a, b, Bytes(512)};
  LaunchConfig defaults;
  defaults.block = {128, 1, 1};
  LaunchResult result;
  runOk(*kernel, buffers, &result, config ? *config : defaults);
  if (program)
    *program = &kernel->getProgram();
  if (keep)
    *keep = std::move(kernel);
  return result;
}

/// Wave 0 (work-items 0-63) and wave 1 (64-127) each get a 256-byte
/// region; `shared` gives both the same one.
uint32_t own(unsigned i, unsigned region) {
  return region * 256 + 4 * (i % 64);
}
bool wave1(unsigned i) { return i >= 64; }

TEST_P(LdsTest, ReadAfterWriteWithoutBarrierIsReported) {
  // Wave 0 writes region 0; wave 1 reads it with no barrier between.
  std::unique_ptr<LoadedKernel> keep;
  const Program *program = nullptr;
  LaunchResult r = runTwoWaves(
      chip(), "  ds_write_b32 v1, v9\n  ds_read_b32 v3, v2\n",
      [](unsigned i) { return own(i, wave1(i) ? 2 : 0); },
      [](unsigned i) { return own(i, wave1(i) ? 0 : 3); }, nullptr, &program,
      &keep);
  ASSERT_TRUE(program);
  EXPECT_EQ(r.racesFound, 256u); // every byte wave 1 read
  ASSERT_EQ(r.races.size(), 1u);
  const RaceReport &race = r.races[0];
  EXPECT_EQ(race.kind, RaceReport::ReadAfterWrite);
  EXPECT_EQ(race.address, addressOf(*program, "ds_read_b32"));
  EXPECT_EQ(race.otherAddress, addressOf(*program, "ds_write_b32"));
  EXPECT_EQ(race.disassembly, "ds_read_b32 v3, v2");
  EXPECT_EQ(race.otherDisassembly, "ds_write_b32 v1, v9");
  EXPECT_EQ(race.wave, 1u);
  EXPECT_EQ(race.otherWave, 0u);
  EXPECT_LT(race.ldsByte, 256u);
  std::string text = race.describe();
  EXPECT_NE(text.find("read-after-write"), std::string::npos) << text;
  EXPECT_NE(text.find("wave 1"), std::string::npos) << text;
}

TEST_P(LdsTest, WaitAndBarrierMakeItRaceFree) {
  LaunchResult r = runTwoWaves(
      chip(),
      "  ds_write_b32 v1, v9\n  s_waitcnt lgkmcnt(0)\n  s_barrier\n"
      "  ds_read_b32 v3, v2\n",
      [](unsigned i) { return own(i, wave1(i) ? 2 : 0); },
      [](unsigned i) { return own(i, wave1(i) ? 0 : 3); });
  EXPECT_EQ(r.racesFound, 0u);
  EXPECT_TRUE(r.races.empty());
  EXPECT_EQ(r.barriers, 1u);
}

TEST_P(LdsTest, BarrierWithoutWaitIsAnUnwaitedWrite) {
  // ds_write; s_barrier with no s_waitcnt lgkmcnt(0) between: the write may
  // still be in flight when wave 1 reads.
  std::unique_ptr<LoadedKernel> keep;
  const Program *program = nullptr;
  LaunchResult r = runTwoWaves(
      chip(), "  ds_write_b32 v1, v9\n  s_barrier\n  ds_read_b32 v3, v2\n",
      [](unsigned i) { return own(i, wave1(i) ? 2 : 0); },
      [](unsigned i) { return own(i, wave1(i) ? 0 : 3); }, nullptr, &program,
      &keep);
  ASSERT_TRUE(program);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].kind, RaceReport::UnwaitedWrite);
  EXPECT_EQ(r.races[0].address, addressOf(*program, "ds_read_b32"));
  EXPECT_EQ(r.races[0].otherAddress, addressOf(*program, "ds_write_b32"));
  EXPECT_EQ(r.races[0].wave, 1u);
  EXPECT_EQ(r.races[0].otherWave, 0u);
  EXPECT_NE(r.races[0].describe().find("no s_waitcnt lgkmcnt(0)"),
            std::string::npos);
  // A wait for another counter does not help; one for LGKM does, even
  // with other instructions between.
  EXPECT_EQ(runTwoWaves(
                chip(),
                "  ds_write_b32 v1, v9\n  s_waitcnt vmcnt(0)\n"
                "  s_barrier\n  ds_read_b32 v3, v2\n",
                [](unsigned i) { return own(i, wave1(i) ? 2 : 0); },
                [](unsigned i) { return own(i, wave1(i) ? 0 : 3); })
                .racesFound,
            256u);
  EXPECT_EQ(runTwoWaves(
                chip(),
                "  ds_write_b32 v1, v9\n  s_waitcnt lgkmcnt(0)\n"
                "  v_mov_b32_e32 v4, 0\n  s_barrier\n"
                "  ds_read_b32 v3, v2\n",
                [](unsigned i) { return own(i, wave1(i) ? 2 : 0); },
                [](unsigned i) { return own(i, wave1(i) ? 0 : 3); })
                .racesFound,
            0u);
}

TEST_P(LdsTest, WriteAfterReadIsReported) {
  // Wave 0 reads region 0 (and writes region 2); then wave 1 writes
  // region 0.
  std::unique_ptr<LoadedKernel> keep;
  const Program *program = nullptr;
  LaunchResult r = runTwoWaves(
      chip(), "  ds_read_b32 v3, v2\n  ds_write_b32 v1, v9\n",
      [](unsigned i) { return own(i, wave1(i) ? 0 : 2); },
      [](unsigned i) { return own(i, wave1(i) ? 3 : 0); }, nullptr, &program,
      &keep);
  ASSERT_TRUE(program);
  EXPECT_EQ(r.racesFound, 256u);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].kind, RaceReport::WriteAfterRead);
  EXPECT_EQ(r.races[0].address, addressOf(*program, "ds_write_b32"));
  EXPECT_EQ(r.races[0].otherAddress, addressOf(*program, "ds_read_b32"));
  EXPECT_EQ(r.races[0].wave, 1u);
  EXPECT_EQ(r.races[0].otherWave, 0u);
}

TEST_P(LdsTest, WriteAfterWriteIsReported) {
  LaunchResult r = runTwoWaves(
      chip(), "  ds_write_b32 v1, v9\n", [](unsigned i) { return own(i, 0); },
      [](unsigned i) { return 0u; });
  EXPECT_EQ(r.racesFound, 256u);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(r.races[0].kind, RaceReport::WriteAfterWrite);
  EXPECT_EQ(r.races[0].address, r.races[0].otherAddress);
  EXPECT_EQ(r.races[0].wave, 1u);
  EXPECT_EQ(r.races[0].otherWave, 0u);
}

TEST_P(LdsTest, AtomicsDoNotRaceWithAtomics) {
  // Both waves add to the same dwords: ordered by the LDS, no race; but a
  // plain write after another wave's atomic is one.
  LaunchResult atomics = runTwoWaves(
      chip(), "  ds_add_u32 v1, v9\n  ds_add_rtn_u32 v3, v1, v9\n",
      [](unsigned i) { return own(i, 0); }, [](unsigned) { return 0u; });
  EXPECT_EQ(atomics.racesFound, 0u);
  LaunchResult mixed = runTwoWaves(
      chip(), "  ds_add_u32 v1, v9\n  ds_write_b32 v2, v9\n",
      [](unsigned i) { return own(i, wave1(i) ? 2 : 0); },
      [](unsigned i) { return own(i, wave1(i) ? 0 : 3); });
  ASSERT_EQ(mixed.races.size(), 1u);
  EXPECT_EQ(mixed.races[0].kind, RaceReport::WriteAfterWrite);
}

TEST_P(LdsTest, AWaveNeverRacesWithItself) {
  // Both waves write, read back and overwrite their own region, byte and
  // dword accesses mixed.
  LaunchResult r = runTwoWaves(
      chip(),
      "  ds_write_b32 v1, v9\n  ds_read_u8 v3, v1 offset:1\n"
      "  ds_write_b8 v1, v9 offset:2\n  ds_read_b32 v3, v1\n"
      "  ds_write_b32 v1, v3\n",
      [](unsigned i) { return own(i, wave1(i) ? 1 : 0); },
      [](unsigned) { return 0u; });
  EXPECT_EQ(r.racesFound, 0u);
}

TEST_P(LdsTest, SubDwordRacesAreByteExact) {
  // Wave 0 writes byte 0 of each dword, wave 1 reads byte 1: no race; then
  // wave 1 reads the whole dword: a race on byte 0 only.
  LaunchResult none = runTwoWaves(
      chip(), "  ds_write_b8 v1, v9\n  ds_read_u8 v3, v2 offset:1\n",
      [](unsigned i) { return own(i, wave1(i) ? 4 : 0); },
      [](unsigned i) { return own(i, 0); });
  EXPECT_EQ(none.racesFound, 0u);
  LaunchResult one = runTwoWaves(
      chip(), "  ds_write_b8 v1, v9\n  ds_read_b32 v3, v2\n",
      [](unsigned i) { return wave1(i) ? 1024 + 4 * i : own(i, 0); },
      [](unsigned i) { return own(i, 0); });
  // Wave 0's own reads are fine; wave 1 reads 64 bytes wave 0 wrote.
  EXPECT_EQ(one.racesFound, 64u);
  ASSERT_EQ(one.races.size(), 1u);
  EXPECT_EQ(one.races[0].ldsByte % 4, 0u);
}

//===----------------------------------------------------------------------===//
// Bank conflicts
//===----------------------------------------------------------------------===//

TEST_P(LdsTest, BankConflictCycles) {
  // One wave of 64 lanes, two half-waves of 32; 32 banks of 4 bytes.
  std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_lshlrev_b32_e32 v2, 7, v0
  v_lshlrev_b32_e32 v3, 3, v0
  v_lshlrev_b32_e32 v4, 4, v0
  v_mov_b32_e32 v5, 0
  ds_read_b32 v10, v1
  ds_read_b32 v11, v2
  ds_read_b32 v12, v5 offset:12
  ds_read_b32 v13, v3
  ds_read_b64 v[14:15], v3
  ds_write_b128 v4, v[20:23]
  ds_read2_b32 v[16:17], v1 offset0:0 offset1:32
  ds_read_u8 v18, v0
)";
  AsmKernel k = asmKernel(body, 1);
  k.ldsBytes = 8192;
  auto kernel = buildKernel(k);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(4)};
  LaunchResult r;
  ASSERT_TRUE(runOk(*kernel, buffers, &r));
  const Program &program = kernel->getProgram();
  auto cycles = [&](llvm::StringRef prefix) -> uint64_t {
    auto it = r.bankConflictCyclesByAddress.find(addressOf(program, prefix));
    return it == r.bankConflictCyclesByAddress.end() ? 0 : it->second;
  };
  // Stride 1 dword: 32 lanes, 32 banks.
  EXPECT_EQ(cycles("ds_read_b32 v10"), 0u);
  // Stride 32 dwords: each half-wave asks bank 0 for 32 dwords: 31 extra.
  EXPECT_EQ(cycles("ds_read_b32 v11"), 2u * 31);
  // Broadcast.
  EXPECT_EQ(cycles("ds_read_b32 v12"), 0u);
  // Stride 2 dwords: banks 0, 2, ..., 30 get two dwords each.
  EXPECT_EQ(cycles("ds_read_b32 v13"), 2u * 1);
  // b64 at stride 2 dwords: groups of 16 lanes read 32 consecutive
  // dwords, one per bank.
  EXPECT_EQ(cycles("ds_read_b64"), 0u);
  // b128 at stride 4 dwords: groups of 8 lanes, 32 consecutive dwords.
  EXPECT_EQ(cycles("ds_write_b128"), 0u);
  // read2 b32 offsets 0 and 32 dwords: two conflict-free passes.
  EXPECT_EQ(cycles("ds_read2_b32"), 0u);
  // Bytes 0..31 of 8 dwords: lanes share dwords (broadcast), no conflict.
  EXPECT_EQ(cycles("ds_read_u8"), 0u);
  EXPECT_EQ(r.bankConflictCycles, 62u + 2);
  EXPECT_EQ(r.ldsInstructions, 8u);
}

INSTANTIATE_TEST_SUITE_P(Chips, LdsTest, ::testing::Values("gfx942", "gfx90a"));

} // namespace
