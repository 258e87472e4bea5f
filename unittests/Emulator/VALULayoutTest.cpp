//===- VALULayoutTest.cpp - VALU operand layouts and rejected forms -------===//
//
// Pins the VALU view the decoder builds from LLVM's MCInst operands (defs,
// sources, modifiers, trailing controls) for one instance of each encoding
// family the handlers rely on, so that an LLVM upgrade that reorders or
// adds operands fails here first. Also checks that operand forms the
// handlers do not model fail the dispatch with a clear message.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "gtest/gtest.h"

#include <string>

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

/// Decodes `lines` (one VALU instruction each) for `chip` in one kernel and
/// returns copies of their Insts, in order.
std::vector<Inst> decodeAll(const std::vector<std::string> &lines,
                            const std::string &chip = "gfx942") {
  std::string body;
  for (const std::string &line : lines)
    body += "  " + line + "\n";
  auto kernel = buildValuKernel(chip, body);
  EXPECT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Inst> insts;
  if (!kernel)
    return insts;
  for (const Inst &inst : (*kernel)->getProgram().getInstructions())
    if (std::string(inst.name).rfind("V_", 0) == 0)
      insts.push_back(inst);
  EXPECT_EQ(insts.size(), lines.size());
  insts.resize(lines.size());
  return insts;
}

struct Layout {
  std::string line;
  const char *name;
  Encoding encoding;
  unsigned defs, srcs;
  std::vector<uint8_t> mods;
  std::vector<int64_t> controls;
  int dppOld = -1;
};

void expectLayouts(const std::vector<Layout> &layouts,
                   const std::string &chip = "gfx942") {
  std::vector<std::string> lines;
  for (const Layout &l : layouts)
    lines.push_back(l.line);
  std::vector<Inst> insts = decodeAll(lines, chip);
  for (size_t k = 0; k < layouts.size() && k < insts.size(); ++k) {
    const Layout &want = layouts[k];
    const Inst &inst = insts[k];
    SCOPED_TRACE(chip + ": " + want.line);
    EXPECT_EQ(std::string(inst.name ? inst.name : ""), want.name);
    EXPECT_EQ(int(inst.encoding), int(want.encoding));
    EXPECT_EQ(inst.numDefs, want.defs);
    EXPECT_EQ(inst.numSrcs, want.srcs);
    for (unsigned i = 0;
         i < want.srcs && i < inst.numSrcs && i < want.mods.size(); ++i)
      EXPECT_EQ(int(inst.mods(i)), int(want.mods[i])) << "source " << i;
    EXPECT_EQ(inst.numControls, want.controls.size());
    for (unsigned i = 0; i < want.controls.size() && i < inst.numControls; ++i)
      EXPECT_EQ(inst.control(i), want.controls[i]) << "control " << i;
    EXPECT_EQ(int(inst.dppOld), want.dppOld);
  }
}

TEST(VALULayout, EncodingFamilies) {
  expectLayouts({
      // e32: vdst, src0, src1; VCC and the carry are implicit.
      {"v_add_f32_e32 v1, v2, v3",
       "V_ADD_F32_e32",
       Encoding::VOP1,
       1,
       2,
       {0, 0},
       {}},
      {"v_addc_co_u32_e32 v1, vcc, v2, v3, vcc",
       "V_ADDC_CO_U32_e32",
       Encoding::VOP1,
       1,
       2,
       {0, 0},
       {}},
      {"v_cmp_lt_f32_e32 vcc, v1, v2",
       "V_CMP_LT_F32_e32",
       Encoding::VOP1,
       0,
       2,
       {0, 0},
       {}},
      // fmac: the accumulator is the tied third source.
      {"v_fmac_f32_e32 v1, v2, v3",
       "V_FMAC_F32_e32",
       Encoding::VOP1,
       1,
       3,
       {0, 0, 0},
       {}},
      // e64 floating point: modifiers (neg 1, abs 2), then clamp and omod.
      {"v_fma_f32 v1, -v2, |v3|, -|v4| clamp div:2",
       "V_FMA_F32",
       Encoding::VOP3,
       1,
       3,
       {1, 2, 3},
       {1, 3}},
      // e64 integer: no modifiers, a clamp control.
      {"v_add_u32_e64 v1, v2, v3 clamp",
       "V_ADD_U32_e64",
       Encoding::VOP3,
       1,
       2,
       {0, 0},
       {1}},
      {"v_add3_u32 v1, v2, v3, v4",
       "V_ADD3_U32",
       Encoding::VOP3,
       1,
       3,
       {0, 0, 0},
       {}},
      // e64 carry-out: vdst and the SGPR pair are defs.
      {"v_add_co_u32_e64 v1, s[2:3], v2, v3",
       "V_ADD_CO_U32_e64",
       Encoding::VOP3,
       2,
       2,
       {0, 0},
       {0}},
      {"v_addc_co_u32_e64 v1, s[2:3], v2, v3, s[4:5]",
       "V_ADDC_CO_U32_e64",
       Encoding::VOP3,
       2,
       3,
       {0, 0, 0},
       {0}},
      {"v_mad_u64_u32 v[2:3], s[4:5], v6, v7, v[8:9]",
       "V_MAD_U64_U32",
       Encoding::VOP3,
       2,
       3,
       {0, 0, 0},
       {0}},
      {"v_div_scale_f32 v1, vcc, v2, v3, v2",
       "V_DIV_SCALE_F32",
       Encoding::VOP3,
       2,
       3,
       {0, 0, 0},
       {0, 0}},
      {"v_cmp_lt_f32_e64 s[2:3], -v1, v2",
       "V_CMP_LT_F32_e64",
       Encoding::VOP3,
       1,
       2,
       {1, 0},
       {0}},
      // VOP3 op_sel (gfx9 16-bit): OP_SEL_0 (4) per source, DST_OP_SEL (8)
      // in src0's modifiers; only clamp remains a control.
      {"v_mad_u16 v1, v2, v3, v4 op_sel:[1,0,1,1]",
       "V_MAD_U16",
       Encoding::VOP3,
       1,
       3,
       {12, 0, 4},
       {0}},
      // SDWA float: clamp, omod, dst_sel, dst_unused, src0_sel, src1_sel.
      {"v_add_f32_sdwa v1, -v2, |v3| clamp mul:2 dst_sel:WORD_1 "
       "dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0",
       "V_ADD_F32_sdwa",
       Encoding::SDWA,
       1,
       2,
       {1, 2},
       {1, 1, 5, 2, 1, 4}},
      // SDWA integer: no omod; sext is modifier bit 4.
      {"v_add_u32_sdwa v1, sext(v2), v3 dst_sel:WORD_1 dst_unused:UNUSED_SEXT "
       "src0_sel:BYTE_1 src1_sel:WORD_0",
       "V_ADD_U32_sdwa",
       Encoding::SDWA,
       1,
       2,
       {16, 0},
       {0, 5, 1, 1, 4}},
      {"v_mov_b32_sdwa v1, v2 dst_sel:BYTE_3 dst_unused:UNUSED_PAD "
       "src0_sel:WORD_1",
       "V_MOV_B32_sdwa",
       Encoding::SDWA,
       1,
       1,
       {0},
       {0, 3, 0, 5}},
      // SDWA compare: the sdst is a def; clamp, src0_sel, src1_sel.
      {"v_cmp_lt_i32_sdwa s[2:3], sext(v1), v2 src0_sel:WORD_1 "
       "src1_sel:DWORD",
       "V_CMP_LT_I32_sdwa",
       Encoding::SDWA,
       1,
       2,
       {16, 0},
       {0, 5, 6}},
      // DPP: the tied "old" operand (ops[1]), dpp_ctrl, row_mask,
      // bank_mask, bound_ctrl (asm bound_ctrl:0 sets the bit).
      {"v_add_f32_dpp v1, -v2, |v3| quad_perm:[1,0,3,2] row_mask:0xa "
       "bank_mask:0x5 bound_ctrl:0",
       "V_ADD_F32_dpp",
       Encoding::DPP,
       1,
       2,
       {1, 2},
       {0xb1, 0xa, 0x5, 1},
       1},
      {"v_mov_b32_dpp v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf",
       "V_MOV_B32_dpp",
       Encoding::DPP,
       1,
       1,
       {0},
       {0x142, 0xa, 0xf, 0},
       1},
      // v_fmac_dpp: the accumulator is the tied operand after the sources.
      {"v_fmac_f32_dpp v1, v2, v3 row_shr:1 row_mask:0xf bank_mask:0xf",
       "V_FMAC_F32_dpp",
       Encoding::DPP,
       1,
       2,
       {0, 0},
       {0x111, 0xf, 0xf, 0},
       5},
      // VOP3P: op_sel (4), op_sel_hi (8), neg_lo (1), neg_hi (2) per
      // source; only clamp remains a control.
      {"v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,1] op_sel_hi:[0,1,0] "
       "neg_lo:[1,0,0] neg_hi:[0,0,1] clamp",
       "V_PK_FMA_F16",
       Encoding::VOP3P,
       1,
       3,
       {5, 8, 6},
       {1}},
      {"v_pk_mul_f32 v[2:3], v[4:5], v[6:7] op_sel:[0,1] op_sel_hi:[1,0]",
       "V_PK_MUL_F32",
       Encoding::VOP3P,
       1,
       2,
       {8, 4},
       {0}},
      // The VOP3P dot products are classified VOP3 (not named V_PK_).
      {"v_dot2_f32_f16 v1, v2, v3, v4 neg_lo:[1,1,0] neg_hi:[1,0,0]",
       "V_DOT2_F32_F16",
       Encoding::VOP3,
       1,
       3,
       {11, 9, 8},
       {0}},
      // Lane access.
      {"v_readlane_b32 s1, v2, s3",
       "V_READLANE_B32",
       Encoding::VOP3,
       1,
       2,
       {0, 0},
       {}},
      {"v_writelane_b32 v1, s2, 5",
       "V_WRITELANE_B32",
       Encoding::VOP3,
       1,
       3,
       {0, 0, 0},
       {}},
  });
  // gfx90a spellings.
  expectLayouts({{"v_mac_f32_e32 v1, v2, v3",
                  "V_MAC_F32_e32",
                  Encoding::VOP1,
                  1,
                  3,
                  {0, 0, 0},
                  {}},
                 {"v_pk_mov_b32 v[2:3], v[4:5], v[6:7] op_sel:[1,0]",
                  "V_PK_MOV_B32",
                  Encoding::VOP3P,
                  1,
                  2,
                  {12, 8},
                  {0}},
                 {"v_add_co_u32_e32 v1, vcc, v2, v3",
                  "V_ADD_CO_U32_e32",
                  Encoding::VOP1,
                  1,
                  2,
                  {0, 0},
                  {}}},
                "gfx90a");
}

TEST(VALULayout, OperandKinds) {
  std::vector<Inst> insts = decodeAll({
      // Literal constants: 32-bit, f64 (the high dword), 64-bit integer.
      "v_add_f32_e32 v1, 0x3e800001, v3",
      "v_cvt_f32_f64_e32 v1, 0x40080000",
      "v_mov_b64_e32 v[2:3], 0x80000000",
      // Inline constants: an f16 bit pattern, a sign-extended integer.
      "v_pk_add_f16 v1, v2, 1.0",
      "v_add_u32_e64 v1, v2, -1",
      // Register pairs.
      "v_add_f64 v[2:3], v[4:5], s[6:7]",
  });
  ASSERT_EQ(insts.size(), 6u);
  EXPECT_TRUE(insts[0].src(0).isImm());
  EXPECT_EQ(insts[0].src(0).imm, 0x3e800001u);
  EXPECT_EQ(insts[1].src(0).imm, 0x4008000000000000ull);
  EXPECT_EQ(insts[2].src(0).imm, 0x80000000ull);
  EXPECT_EQ(insts[3].src(1).imm, 0x3c00u);
  EXPECT_EQ(insts[4].src(1).imm, ~uint64_t(0));
  EXPECT_EQ(insts[5].src(0).kind, OperandKind::Vector);
  EXPECT_EQ(insts[5].src(0).dwords, 2);
  EXPECT_EQ(insts[5].src(1).kind, OperandKind::Scalar);
  EXPECT_EQ(insts[5].src(1).index, 6);
}

/// Forms the handlers do not model fail with a message instead of computing
/// something.
TEST(VALULayout, UnmodelledFormsFail) {
  auto expectFailure = [](const std::string &body, const std::string &text,
                          const std::string &chip = "gfx942") {
    ValuCase c;
    c.chip = chip;
    c.inputs = {lanes([](unsigned i) { return i; })};
    c.body = body;
    auto out = runValu(c);
    ASSERT_FALSE(bool(out)) << body;
    std::string message = llvm::toString(out.takeError());
    EXPECT_NE(message.find(text), std::string::npos) << message;
  };
  expectFailure("v_mad_u64_u32 v[40:41], s[20:21], v10, v10, v[10:11] clamp",
                "clamp is not implemented");
  expectFailure("v_pk_add_f32 v[40:41], v[10:11], 1.0",
                "high dword of an inline constant");
}

} // namespace
