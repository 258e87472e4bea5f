//===- VALUCore.cpp - Controls, SDWA and DPP of the VALU encodings --------===//
//
// Control operand layouts (LLVM 22's MCInst order, pinned by
// VALULayoutTest):
//   e32 (VOP1/VOP2/VOPC)  none
//   e64 (VOP3)            [clamp [, omod]]
//   SDWA VOP1/VOP2        clamp [, omod], dst_sel, dst_unused, src0_sel
//                         [, src1_sel]   (omod only for IEEE operations)
//   SDWA VOPC             clamp, src0_sel, src1_sel
//   SDWA fp8 conversions  clamp, omod, src0_sel
//   DPP                   dpp_ctrl, row_mask, bank_mask, bound_ctrl
//
// DPP controls (gfx9 ISA "DPP_CTRL" table; row = 16 lanes, bank = 4 lanes
// of a row): quad_perm 0x00-0xff, row_shl 0x101-0x10f (lane i reads i+n
// in its row), row_shr 0x111-0x11f (i-n), row_ror 0x121-0x12f ((i-n) mod
// 16), wave_shl1 0x130 (i+1), wave_rol1 0x134, wave_shr1 0x138 (i-1),
// wave_ror1 0x13c, row_mirror 0x140, row_half_mirror 0x141, row_bcast15
// 0x142 (lane 15 of each row to the next row), row_bcast31 0x143 (lane 31
// to rows 2 and 3), and gfx90a's row_newbcast 0x150-0x15f (lane n of each
// row to the whole row, the only control of the 64-bit "DPALU" DPP).
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::valu;

bool crest::emu::valu::checkNoGprIndexMode(Wave &wave, const Inst &inst) {
  if (!(wave.mode & kGprIndexMode))
    return true;
  wave.fail(inst, "VGPR index mode (s_set_gpr_idx_on) is not implemented for "
                  "VALU instructions");
  return false;
}

bool crest::emu::valu::decodeControls(Wave &wave, const Inst &inst,
                                      bool compare, Controls &c) {
  unsigned n = inst.numControls;
  const int64_t *k = inst.controls;
  auto bad = [&](const char *what) {
    wave.fail(inst, formatv("unsupported {0} control layout ({1} controls)",
                            what, n));
    return false;
  };
  switch (inst.encoding) {
  case Encoding::VOP1:
    return n == 0 || bad("e32");
  case Encoding::VOP3:
    if (n > 2)
      return bad("e64");
    c.clamp = n >= 1 && k[0];
    c.omod = n >= 2 ? unsigned(k[1]) & 3 : 0;
    return true;
  case Encoding::SDWA: {
    unsigned sels = std::min<unsigned>(inst.numSrcs, 2);
    // The fp8 conversions (gfx940+) have no destination select: clamp, omod,
    // src0_sel.
    bool noDst = !compare && n == sels + 2;
    unsigned fixed = sels + (compare || noDst ? 0 : 2);
    if (n < fixed || n > fixed + 2)
      return bad("SDWA");
    c.sdwa = true;
    for (unsigned i = 0; i < sels; ++i)
      c.srcSel[i] = k[n - sels + i];
    if (!compare && !noDst) {
      c.dstSel = k[n - sels - 2];
      c.dstUnused = k[n - sels - 1];
    }
    unsigned lead = n - fixed;
    c.clamp = lead >= 1 && k[0];
    c.omod = lead >= 2 ? unsigned(k[1]) & 3 : 0;
    for (int64_t sel : {c.srcSel[0], c.srcSel[1], c.dstSel})
      if (sel < SelByte0 || sel > SelDword)
        return bad("SDWA select");
    if (c.dstUnused < UnusedPad || c.dstUnused > UnusedPreserve)
      return bad("SDWA dst_unused");
    return true;
  }
  case Encoding::DPP:
    if (n != 4)
      return bad("DPP");
    c.dpp = true;
    c.dppCtrl = unsigned(k[0]);
    c.rowMask = unsigned(k[1]) & 0xf;
    c.bankMask = unsigned(k[2]) & 0xf;
    c.boundCtrl = k[3] != 0;
    return true;
  default:
    wave.fail(inst, "not a VOP1/VOP2/VOPC/VOP3 encoding");
    return false;
  }
}

uint32_t crest::emu::valu::sdwaSelect(uint32_t value, int64_t sel, bool sext) {
  if (sel == SelDword)
    return value;
  unsigned width = sel <= SelByte3 ? 8 : 16;
  unsigned shift = sel <= SelByte3 ? 8 * unsigned(sel) : 16 * unsigned(sel - 4);
  uint32_t field = (value >> shift) & ((1u << width) - 1);
  if (sext)
    return uint32_t(signExtend(field, width));
  return field;
}

uint32_t crest::emu::valu::sdwaMerge(uint32_t result, uint32_t old,
                                     int64_t dstSel, int64_t dstUnused) {
  if (dstSel == SelDword)
    return result;
  unsigned width = dstSel <= SelByte3 ? 8 : 16;
  unsigned shift =
      dstSel <= SelByte3 ? 8 * unsigned(dstSel) : 16 * unsigned(dstSel - 4);
  uint32_t fieldMask = ((1u << width) - 1) << shift;
  uint32_t field = (result << shift) & fieldMask;
  switch (dstUnused) {
  case UnusedSext: {
    // Bits above the field copy its sign; bits below are zero.
    bool negative = (result >> (width - 1)) & 1;
    uint64_t below = (uint64_t(1) << (shift + width)) - 1;
    return field | (negative ? uint32_t(~below) : 0u);
  }
  case UnusedPreserve:
    return (old & ~fieldMask) | field;
  default:
    return field;
  }
}

int crest::emu::valu::dppSourceLane(unsigned ctrl, unsigned lane,
                                    unsigned lanes) {
  unsigned rowBase = lane & ~15u, inRow = lane & 15u;
  if (ctrl <= 0xff)
    return int((lane & ~3u) | ((ctrl >> (2 * (lane & 3))) & 3));
  if (ctrl >= 0x101 && ctrl <= 0x10f) {
    unsigned n = ctrl & 0xf;
    return inRow + n < 16 ? int(lane + n) : -1;
  }
  if (ctrl >= 0x111 && ctrl <= 0x11f) {
    unsigned n = ctrl & 0xf;
    return inRow >= n ? int(lane - n) : -1;
  }
  if (ctrl >= 0x121 && ctrl <= 0x12f)
    return int(rowBase | ((inRow - (ctrl & 0xf)) & 15u));
  if (ctrl >= 0x150 && ctrl <= 0x15f)
    return int(rowBase | (ctrl & 0xf));
  switch (ctrl) {
  case 0x130: // wave_shl:1
    return lane + 1 < lanes ? int(lane + 1) : -1;
  case 0x134: // wave_rol:1
    return int((lane + 1) % lanes);
  case 0x138: // wave_shr:1
    return lane >= 1 ? int(lane - 1) : -1;
  case 0x13c: // wave_ror:1
    return int((lane + lanes - 1) % lanes);
  case 0x140: // row_mirror
    return int(rowBase | (15 - inRow));
  case 0x141: // row_half_mirror
    return int((lane & ~7u) | (7 - (lane & 7u)));
  case 0x142: // row_bcast:15
    return lane >= 16 ? int(rowBase - 1) : -1;
  case 0x143: // row_bcast:31
    return lane >= 32 ? 31 : -1;
  default:
    return -2;
  }
}

bool crest::emu::valu::gatherDpp(Wave &wave, const Inst &inst,
                                 const Controls &c, unsigned bytes,
                                 DppSource &out) {
  const Operand &src = inst.src(0);
  if (src.kind != OperandKind::Vector) {
    wave.fail(inst, "DPP src0 is not a VGPR");
    return false;
  }
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    int from = dppSourceLane(c.dppCtrl, lane, wave.lanes);
    if (from == -2) {
      wave.fail(inst, formatv("unsupported dpp_ctrl {0:x}", c.dppCtrl));
      return false;
    }
    out.valid[lane] = from >= 0 && ((exec >> from) & 1);
    out.value[lane] = 0;
    if (from >= 0)
      out.value[lane] = bytes == 8 ? wave.readLane64(src, unsigned(from))
                                   : wave.readLane32(src, unsigned(from));
    unsigned row = lane / 16, bank = (lane % 16) / 4;
    out.writes[lane] = ((c.rowMask >> row) & 1) && ((c.bankMask >> bank) & 1);
  }
  return true;
}

void crest::emu::valu::writeLaneMask(Wave &wave, const Inst &inst,
                                     bool hasVectorDst, uint64_t mask) {
  unsigned scalarDefs = inst.numDefs - (hasVectorDst && inst.numDefs ? 1 : 0);
  if (scalarDefs >= 1) {
    const Operand &dst = inst.def(inst.numDefs - 1);
    if (dst.kind == OperandKind::Scalar) {
      wave.writeScalar64(dst, mask);
      return;
    }
  }
  wave.setVcc(mask);
}
