//===- VALUCore.h - The lane loop shared by the VALU handlers ---*- C++ -*-===//
//
// Most VALU instructions are "one value per lane": read typed sources, apply
// the source modifiers of the encoding, compute, apply the output modifiers,
// write the lane. `lanewise<Fn, Flags>` is that loop for a per-lane
// operation `R Fn(Lane &, A...)`; the C++ types in the signature say how
// each operand is read and the result written:
//
//   uint32_t, int32_t, uint16_t, int16_t, uint64_t, int64_t  integer values
//   float, double, Half, BFloat                              IEEE values
//   bool (argument)     a lane mask bit: the SGPR-pair source at that
//                       position (e64), else VCC (e32, SDWA, DPP)
//   bool (result)       a compare: one bit per lane into VCC (e32, SDWA
//                       without sdst) or the SGPR-pair destination, inactive
//                       lanes cleared
//   WithFlag<T>         a T result plus a per-lane flag (carry-out,
//                       v_div_scale's VCC) written like a compare's bits
//
// The loop handles, for every encoding of the instruction:
// - EXEC: inactive lanes are neither read nor written;
// - e64 (VOP3) source modifiers abs then neg (IEEE types: the sign bit; the
//   32-bit integer moves v_cndmask/v_mov: bit 31), op_sel of 16-bit operands
//   (OP_SEL_0 takes bits [31:16]), clamp ([0, 1] for IEEE results, a
//   saturating integer result for operations flagged IntClamp) and omod
//   (x2, x4, /2; ignored, as the hardware does, when MODE.IEEE is set or the
//   result type keeps output denormals);
// - SDWA: BYTE/WORD/DWORD source selects with zero or sign extension (the
//   `sext` modifier), destination select with dst_unused PAD/SEXT/PRESERVE;
// - DPP: src0 is read from the lane dpp_ctrl names (every gfx9 control, and
//   gfx90a's row_newbcast); row_mask/bank_mask leave lanes unwritten (the
//   tied "old" value survives); a source lane that is out of range or
//   inactive is "invalid": with bound_ctrl the lane reads 0, without it the
//   lane is not written;
// - MODE: denormal inputs and outputs flushed to signed zero per MODE's
//   FP_DENORM field of the value's format (f32: bits [5:4], f16/f64/bf16:
//   bits [7:6]; bit 0 of the field keeps input denormals, bit 1 output
//   denormals), unless the operation is flagged NoFlush (bit-exact moves,
//   v_cmp_class) or AlwaysFlush (v_mad/v_mac and the f32 transcendentals,
//   which never handle denormals); operations read the round mode through
//   Lane::round<T>().
// A form the loop does not implement (clamp on an integer operation without
// saturating semantics, SDWA on 64-bit operands, an unknown control layout,
// ...) fails the wave with a message; nothing is silently computed.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_OPS_VALUCORE_H
#define CREST_EMU_LIB_OPS_VALUCORE_H

#include "../Machine.h"
#include "VALUFloat.h"

#include <tuple>
#include <type_traits>
#include <utility>

namespace crest::emu::valu {

//===----------------------------------------------------------------------===//
// Encoding facts
//===----------------------------------------------------------------------===//

/// Bits of a source-modifier operand (LLVM's SISrcMods).
namespace srcmods {
constexpr uint8_t Neg = 1;
constexpr uint8_t Abs = 2;
constexpr uint8_t OpSel0 = 4;
constexpr uint8_t OpSel1 = 8;
/// SDWA integer sign extension (`sext(v1)`).
constexpr uint8_t Sext = 16;
/// VOP3P neg_hi shares the abs bit.
constexpr uint8_t NegHi = Abs;
/// VOP3 op_sel destination half, carried in src0's modifiers.
constexpr uint8_t DstOpSel = OpSel1;
} // namespace srcmods

/// SDWA selects (src0_sel, src1_sel, dst_sel).
enum SdwaSel : int64_t {
  SelByte0 = 0,
  SelByte1 = 1,
  SelByte2 = 2,
  SelByte3 = 3,
  SelWord0 = 4,
  SelWord1 = 5,
  SelDword = 6,
};
/// SDWA dst_unused.
enum SdwaUnused : int64_t { UnusedPad = 0, UnusedSext = 1, UnusedPreserve = 2 };

/// Flags describing an operation to the lane loop.
namespace op {
constexpr unsigned NoFlush = 1u << 0;
constexpr unsigned AlwaysFlush = 1u << 1;
constexpr unsigned IntClamp = 1u << 2;
/// A 16-bit result keeps bits [31:16] of the destination (else zeroed, the
/// gfx9 behaviour of most 16-bit VOP1/VOP2/VOP3 instructions).
constexpr unsigned KeepHigh16 = 1u << 3;
/// VOP3 op_sel: src0's DST_OP_SEL picks the destination half written; the
/// other half is kept.
constexpr unsigned OpSelDst = 1u << 4;
/// A compare that also writes EXEC (v_cmpx).
constexpr unsigned Cmpx = 1u << 5;
} // namespace op

//===----------------------------------------------------------------------===//
// MODE
//===----------------------------------------------------------------------===//

/// MODE.GPR_IDX_EN (bit 27): s_set_gpr_idx_on's VGPR index mode, which
/// offsets VALU VGPR operands by M0[7:0]. The VALU handlers do not model it
/// and fail when it is on.
constexpr uint32_t kGprIndexMode = 1u << 27;

/// Fails the wave if MODE's VGPR index mode is on; true if it is off.
bool checkNoGprIndexMode(Wave &wave, const Inst &inst);

/// MODE's FP_DENORM field for format T (0: flush in and out, 1: flush
/// out, 2: flush in, 3: keep both).
template <class T> unsigned denormField(uint32_t modeReg) {
  return std::is_same_v<T, float> ? (modeReg >> 4) & 3 : (modeReg >> 6) & 3;
}
template <class T> bool keepsDenormIn(uint32_t modeReg) {
  return denormField<T>(modeReg) & 1;
}
template <class T> bool keepsDenormOut(uint32_t modeReg) {
  return denormField<T>(modeReg) & 2;
}
/// MODE's round mode for results of format T ([1:0] f32, [3:2] f16/f64).
template <class T> Round roundFor(uint32_t modeReg) {
  return Round(std::is_same_v<T, float> ? modeReg & 3 : (modeReg >> 2) & 3);
}

//===----------------------------------------------------------------------===//
// Per-lane view
//===----------------------------------------------------------------------===//

/// What an operation sees of its lane.
struct Lane {
  Wave &wave;
  const Inst &inst;
  unsigned lane;
  uint32_t modeReg;
  /// The instruction's clamp bit (saturating integer operations read it).
  bool clamp;

  bool ieee() const { return modeReg & mode::Ieee; }
  template <class T> Round round() const { return roundFor<T>(modeReg); }
};

/// A result with a per-lane flag (carry-out, v_div_scale's VCC).
template <class T> struct WithFlag {
  T value;
  bool flag;
};
template <class T> struct IsWithFlag : std::false_type {};
template <class T> struct IsWithFlag<WithFlag<T>> : std::true_type {};
/// The value type of a result (T for WithFlag<T>).
template <class T> struct ResultValue { using type = T; };
template <class T> struct ResultValue<WithFlag<T>> { using type = T; };

//===----------------------------------------------------------------------===//
// Values in registers
//===----------------------------------------------------------------------===//

template <class T> constexpr unsigned byteSize() {
  if constexpr (IsFloat<T>)
    return sizeof(FpBits<T>);
  else
    return sizeof(T);
}
template <class T> T fromRaw(uint64_t raw) {
  if constexpr (IsFloat<T>)
    return fromBits<T>(FpBits<T>(raw));
  else
    return static_cast<T>(raw);
}
template <class T> uint64_t toRaw(T v) {
  if constexpr (IsFloat<T>)
    return toBits(v);
  else
    return uint64_t(std::make_unsigned_t<T>(v));
}

/// Applies abs then neg to the sign bit of a `bits`-wide value.
inline uint64_t applySignMods(uint64_t raw, uint8_t m, unsigned bits) {
  uint64_t sign = uint64_t(1) << (bits - 1);
  if (m & srcmods::Abs)
    raw &= ~sign;
  if (m & srcmods::Neg)
    raw ^= sign;
  return raw;
}

/// Flushes a denormal input as MODE (and the operation's flags) ask.
template <class T> T flushInput(T v, uint32_t modeReg, unsigned flags) {
  if (flags & op::NoFlush)
    return v;
  if ((flags & op::AlwaysFlush) || !keepsDenormIn<T>(modeReg))
    return flushDenormal(v);
  return v;
}
template <class T> T flushOutput(T v, uint32_t modeReg, unsigned flags) {
  if (flags & op::NoFlush)
    return v;
  if ((flags & op::AlwaysFlush) || !keepsDenormOut<T>(modeReg))
    return flushDenormal(v);
  return v;
}

//===----------------------------------------------------------------------===//
// Controls
//===----------------------------------------------------------------------===//

/// The trailing control operands of a VOP1/VOP2/VOPC/VOP3 instruction.
struct Controls {
  bool clamp = false;
  unsigned omod = 0; ///< 0 none, 1 x2, 2 x4, 3 /2
  bool sdwa = false;
  bool dpp = false;
  int64_t srcSel[2] = {SelDword, SelDword};
  int64_t dstSel = SelDword;
  int64_t dstUnused = UnusedPad;
  unsigned dppCtrl = 0;
  unsigned rowMask = 0xf;
  unsigned bankMask = 0xf;
  bool boundCtrl = false;
};

/// Reads the controls of `inst` (`compare`: a VOPC, whose SDWA form has no
/// destination select). Fails the wave on a layout it does not know.
bool decodeControls(Wave &wave, const Inst &inst, bool compare, Controls &c);

/// SDWA source select: the selected byte/word, zero- or sign-extended.
uint32_t sdwaSelect(uint32_t value, int64_t sel, bool sext);
/// SDWA destination: `result` placed per dst_sel, the other bits per
/// dst_unused (`old` is the destination's previous value).
uint32_t sdwaMerge(uint32_t result, uint32_t old, int64_t dstSel,
                   int64_t dstUnused);

/// The lane `lane` reads under DPP control `ctrl`, or -1 when out of range;
/// -2 for a control value gfx9 does not define.
int dppSourceLane(unsigned ctrl, unsigned lane, unsigned lanes);

/// src0 of a DPP instruction, read for every lane before any is written.
struct DppSource {
  uint64_t value[64];
  bool valid[64];  ///< source lane in range and active
  bool writes[64]; ///< row_mask and bank_mask enable the lane
};
bool gatherDpp(Wave &wave, const Inst &inst, const Controls &c, unsigned bytes,
               DppSource &out);

/// Writes per-lane flag bits (a compare result, a carry-out): to the last
/// SGPR-pair destination when the instruction has one, else to VCC.
void writeLaneMask(Wave &wave, const Inst &inst, bool hasVectorDst,
                   uint64_t mask);

/// omod, clamp and output denormal flushing of an IEEE result.
template <class T>
T finishFloat(T r, const Controls &c, uint32_t modeReg, unsigned flags) {
  if (c.omod && !(modeReg & mode::Ieee) && !keepsDenormOut<T>(modeReg)) {
    static constexpr int kScale[4] = {0, 1, 2, -1};
    r = ldexp(r, kScale[c.omod], roundFor<T>(modeReg));
    if (isZero(r))
      r = zero<T>(false); // omod turns -0 into +0
  }
  r = flushOutput(r, modeReg, flags);
  if (c.clamp) {
    if (isNaN(r))
      r = (modeReg & mode::Dx10Clamp) ? zero<T>(false) : r;
    else if (signBit(r))
      r = zero<T>(false);
    else if (toDouble(r) > 1.0)
      r = fromDouble<T>(1.0, Round::NearestEven);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// The lane loop
//===----------------------------------------------------------------------===//

namespace detail {

template <class R, class... A> struct Signature {
  using Result = R;
  static constexpr unsigned NumArgs = sizeof...(A);
};
template <class R, class... A>
Signature<R, A...> signatureOf(R (*)(Lane &, A...));

/// Checks the forms the loop supports for result R and arguments A.
template <class R, class... A>
bool checkForm(Wave &wave, const Inst &inst, const Controls &c,
               unsigned flags) {
  constexpr bool floatResult = IsFloat<typename ResultValue<R>::type>;
  if (c.clamp && !floatResult && !(flags & op::IntClamp)) {
    wave.fail(inst, "clamp is not implemented for this instruction");
    return false;
  }
  if (c.omod && !floatResult) {
    wave.fail(inst, "omod on a non-floating-point result");
    return false;
  }
  if (c.sdwa && ((byteSize<A>() > 4) || ...)) {
    wave.fail(inst, "SDWA with a 64-bit operand");
    return false;
  }
  // Every non-mask argument needs an operand (v_fmac_dpp's accumulator is
  // the tied "old" operand).
  unsigned available = inst.numSrcs + (c.dpp && inst.dppOld >= 0 ? 1 : 0);
  unsigned index = 0;
  bool ok = true;
  ((ok = ok && (std::is_same_v<A, bool> || index < available), ++index), ...);
  if (!ok) {
    wave.fail(inst, "operand layout does not match the operation (" +
                        llvm::Twine(inst.numSrcs) + " sources)");
    return false;
  }
  // VOP3 op_sel: OP_SEL_0 of a source picks the high half of a 16-bit
  // operand; OP_SEL_1 of src0 is the destination half. Anything else has no
  // meaning the loop knows.
  if (inst.encoding == Encoding::VOP3) {
    index = 0;
    ((ok = ok &&
           (index >= inst.numSrcs ||
            (!(inst.mods(index) & srcmods::OpSel0) || byteSize<A>() == 2)) &&
           (index >= inst.numSrcs || !(inst.mods(index) & srcmods::OpSel1) ||
            (index == 0 && (flags & op::OpSelDst))),
      ++index),
     ...);
    if (!ok) {
      wave.fail(inst, "op_sel on an operand that has no halves");
      return false;
    }
  }
  return true;
}

template <class T>
T fetch(const Lane &l, const Controls &c, const DppSource *dpp,
        const uint64_t *masks, unsigned i, unsigned flags) {
  if constexpr (std::is_same_v<T, bool>) {
    return (masks[i] >> l.lane) & 1;
  } else {
    const Inst &inst = l.inst;
    bool tiedOld = i >= inst.numSrcs;
    const Operand &src = tiedOld ? inst.ops[inst.dppOld] : inst.src(i);
    uint8_t m = tiedOld ? 0 : inst.mods(i);
    constexpr unsigned bytes = byteSize<T>();
    uint64_t raw;
    if (c.dpp && i == 0)
      raw = dpp->valid[l.lane] ? dpp->value[l.lane] : 0;
    else if constexpr (bytes == 8)
      raw = l.wave.readLane64(src, l.lane);
    else
      raw = l.wave.readLane32(src, l.lane);
    if constexpr (bytes <= 4) {
      if (c.sdwa && i < 2)
        raw = sdwaSelect(uint32_t(raw), c.srcSel[i], m & srcmods::Sext);
      if constexpr (bytes == 2)
        if (inst.encoding == Encoding::VOP3 && (m & srcmods::OpSel0))
          raw >>= 16;
    }
    if (m & (srcmods::Abs | srcmods::Neg))
      raw = applySignMods(raw, m, 8 * bytes);
    T v = fromRaw<T>(raw);
    if constexpr (IsFloat<T>)
      v = flushInput(v, l.modeReg, flags);
    return v;
  }
}

/// Writes a 32-bit lane result, through SDWA's destination select.
inline void writeResult32(Lane &l, const Controls &c, uint32_t value) {
  const Operand &dst = l.inst.def(0);
  if (c.sdwa)
    value =
        sdwaMerge(value, l.wave.readLane32(dst, l.lane), c.dstSel, c.dstUnused);
  l.wave.writeLane32(dst, l.lane, value);
}

/// Writes a 16-bit lane result into its 32-bit register.
inline void writeResult16(Lane &l, const Controls &c, unsigned flags,
                          uint16_t value) {
  const Operand &dst = l.inst.def(0);
  if (c.sdwa)
    return writeResult32(l, c, value);
  uint32_t old = l.wave.readLane32(dst, l.lane);
  uint32_t word;
  if ((flags & op::OpSelDst) && (l.inst.mods(0) & srcmods::DstOpSel))
    word = (old & 0xffff) | (uint32_t(value) << 16);
  else if (flags & (op::OpSelDst | op::KeepHigh16))
    word = (old & 0xffff0000u) | value;
  else
    word = value;
  l.wave.writeLane32(dst, l.lane, word);
}

template <class T>
void store(Lane &l, const Controls &c, unsigned flags, T value) {
  if constexpr (IsFloat<T>)
    value = finishFloat(value, c, l.modeReg, flags);
  uint64_t raw = toRaw(value);
  if constexpr (byteSize<T>() == 8)
    l.wave.writeLane64(l.inst.def(0), l.lane, raw);
  else if constexpr (byteSize<T>() == 4)
    writeResult32(l, c, uint32_t(raw));
  else
    writeResult16(l, c, flags, uint16_t(raw));
}

template <unsigned Flags, class R, class... A, size_t... I>
void runLanes(Wave &wave, const Inst &inst, R (*fn)(Lane &, A...),
              std::index_sequence<I...>) {
  constexpr bool maskResult = std::is_same_v<R, bool>;
  Controls c;
  if (!checkNoGprIndexMode(wave, inst) ||
      !decodeControls(wave, inst, maskResult, c))
    return;
  if (!checkForm<R, A...>(wave, inst, c, Flags))
    return;
  // Lane-mask sources are read once, before any flag is written.
  uint64_t masks[sizeof...(A) + 1] = {};
  unsigned index = 0;
  ((masks[index] = !std::is_same_v<A, bool> ? 0
                   : index < inst.numSrcs   ? wave.readScalar64(inst.src(index))
                                            : wave.vcc(),
    ++index),
   ...);
  DppSource dpp;
  if (c.dpp) {
    constexpr unsigned src0Bytes =
        byteSize<std::tuple_element_t<0, std::tuple<A..., uint32_t>>>();
    if (!gatherDpp(wave, inst, c, src0Bytes, dpp))
      return;
  }
  uint64_t exec = wave.exec();
  uint64_t flagMask = 0;
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    if (c.dpp && (!dpp.writes[lane] || (!dpp.valid[lane] && !c.boundCtrl)))
      continue;
    Lane l{wave, inst, lane, wave.mode, c.clamp};
    R r = fn(l, fetch<A>(l, c, &dpp, masks, I, Flags)...);
    if (wave.status == Wave::Status::Done) // the operation failed the wave
      return;
    if constexpr (maskResult) {
      flagMask |= uint64_t(r) << lane;
    } else if constexpr (IsWithFlag<R>::value) {
      store(l, c, Flags, r.value);
      flagMask |= uint64_t(r.flag) << lane;
    } else {
      store(l, c, Flags, r);
    }
  }
  if constexpr (maskResult || IsWithFlag<R>::value)
    writeLaneMask(wave, inst, !maskResult, flagMask);
  if constexpr ((Flags & op::Cmpx) != 0)
    wave.setExec(flagMask);
}

} // namespace detail

/// The handler running `Fn` on every active lane (see the file comment).
template <auto Fn, unsigned Flags = 0>
void lanewise(Wave &wave, const Inst &inst) {
  using Sig = decltype(detail::signatureOf(Fn));
  detail::runLanes<Flags>(wave, inst, Fn,
                          std::make_index_sequence<Sig::NumArgs>());
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

// Per-family registration (VALU*.cpp); registerVALUHandlers calls them all.
void registerValuIntegerHandlers(HandlerRegistry &registry);
void registerValuFloatHandlers(HandlerRegistry &registry);
void registerValuConvertHandlers(HandlerRegistry &registry);
void registerValuFp8Handlers(HandlerRegistry &registry);
void registerValuCompareHandlers(HandlerRegistry &registry);
void registerValuPackedHandlers(HandlerRegistry &registry);
void registerValuLaneHandlers(HandlerRegistry &registry);

} // namespace crest::emu::valu

#endif // CREST_EMU_LIB_OPS_VALUCORE_H
