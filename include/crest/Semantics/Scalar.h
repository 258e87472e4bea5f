//===- Scalar.h - Scalar semantics of Crest's elementwise ops ---*- C++ -*-===//
//
// One definition of what every crest elementwise op and cast computes on one
// element of each element type: the compute type, rounding, saturation, NaN
// and infinity, and denormals. The reference evaluator (runtime/lib/
// Reference.cpp), the dialect's folders (CrestOps.cpp) and later the ONNX
// importer's constant folding evaluate ops with it; the kernels the compiler
// emits (lib/Codegen/ElementwiseEmitter.cpp) implement the same rules on the
// device, and the emulator's fp8 conversions share its codecs. It depends on
// LLVMSupport (APFloat) and the chip table only, never on MLIR, so the
// runtime and the emulator link it.
//
// The rules (docs/Semantics.md states them for users):
//
// - Compute type. Ops on f16, bf16 and the fp8 types compute in f32 and
//   round once to the result type; f32 ops compute in f32, f64 ops in f64.
//   Each op of a fused epilogue rounds its result to its own result type,
//   exactly as a standalone kernel does.
// - Float to float: round to nearest even. Narrowing to an fp8 type
//   saturates: finite values beyond the largest magnitude and infinities
//   become +-largest (the kernels clamp before converting); NaN stays NaN.
//   Every other narrowing overflows to infinity as IEEE says.
// - Float to integer: truncate toward zero, then saturate to the integer's
//   range; +-inf saturate; NaN becomes 0. (ONNX leaves NaN and out-of-range
//   undefined; this is what AMD's v_cvt_i32_f32 does.)
// - Integer to float: round to nearest even. Integer to integer: widening
//   is exact, narrowing saturates to the target range.
// - Integer add, sub, mul wrap around (two's complement), like ONNX and
//   NumPy; max and min are exact. Integer division truncates toward zero
//   (ONNX Div, C); the smallest integer divided by -1 wraps to itself.
//   Integer remainder has ONNX Mod's two modes: the sign of the divisor
//   (fmod = 0, Python's %) or of the dividend (fmod = 1, C's %). A zero
//   divisor has no result (ONNX leaves it undefined; the importer's folding
//   reports it).
// - max/min (and relu, clip, hardsigmoid's clamps) propagate NaN and order
//   -0 < +0 (arith.maximumf / arith.minimumf).
// - Arithmetic steps of composite ops (hardswish, hardsigmoid, sigmoid,
//   gelu) round to the compute type after each step, in the order the
//   kernels compute them; transcendental steps (exp, tanh, erf, pow) use
//   the host's libm in double rounded to the compute type, which the
//   kernels' polynomial approximations match to within the ulp bounds of
//   docs/Semantics.md.
// - Denormals: elementwise kernels keep them. Matrix instructions that the
//   chip table marks (ChipInfo::mmaFlushesHalfDenormals, see
//   mmaFlushesDenormals) flush subnormal A/B inputs and D outputs to zero of
//   the same sign.
//
// Values are carried as doubles: every value of f32 and narrower floats and
// of integers up to 32 bits is exact in double (i64 beyond 2^53 is not).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_SEMANTICS_SCALAR_H
#define CREST_SEMANTICS_SCALAR_H

#include "crest/Target/ChipTable.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace crest::sem {

/// An element type as the scalar rules see it: a float format or a
/// (signless, i.e. signed, or unsigned) integer of some width.
struct ScalarType {
  const llvm::fltSemantics *flt = nullptr;
  unsigned intBits = 0;
  bool isUnsigned = false;

  static ScalarType getFloat(const llvm::fltSemantics &s) {
    return {&s, 0, false};
  }
  static ScalarType getInt(unsigned bits, bool isUnsigned = false) {
    return {nullptr, bits, isUnsigned};
  }
  static ScalarType getF64() { return getFloat(llvm::APFloat::IEEEdouble()); }
  static ScalarType getF32() { return getFloat(llvm::APFloat::IEEEsingle()); }
  static ScalarType getF16() { return getFloat(llvm::APFloat::IEEEhalf()); }
  static ScalarType getBF16() { return getFloat(llvm::APFloat::BFloat()); }

  bool isFloat() const { return flt != nullptr; }
  bool isInteger() const { return flt == nullptr; }
  /// Bit width of one element.
  unsigned getBitWidth() const;
  bool isFp8() const { return isFloat() && getBitWidth() == 8; }
  bool operator==(const ScalarType &o) const {
    return flt == o.flt && intBits == o.intBits && isUnsigned == o.isUnsigned;
  }
  bool operator!=(const ScalarType &o) const { return !(*this == o); }
};

/// The type an op with result type `result` computes in: f32 for floats of
/// at most 32 bits, f64 for f64, the integer itself for integers.
ScalarType getComputeType(ScalarType result);

/// The float semantics of a chip-table kind (null for integer kinds; XF32
/// maps to f32).
const llvm::fltSemantics *getSemantics(ScalarKind kind);

//===----------------------------------------------------------------------===//
// Conversions (crest.cast)
//===----------------------------------------------------------------------===//

/// `x` (an exact value, e.g. of any type that embeds in double) converted to
/// `to` with crest.cast's rules above, returned as a double.
double castTo(double x, ScalarType to);
/// The same conversion of an APFloat (any semantics), exactly rounded once.
llvm::APFloat castFloat(const llvm::APFloat &x,
                        const llvm::fltSemantics &to);
/// Float to integer (toward zero, saturating, NaN -> 0); the result fits
/// `bits` (unsigned when `isUnsigned`).
int64_t castFloatToInt(double x, unsigned bits, bool isUnsigned = false);
/// Integer to integer, saturating when narrowing.
int64_t castIntToInt(int64_t x, unsigned bits, bool isUnsigned = false);
/// Integer wrap-around to `bits` (two's complement; zero-extended when
/// `isUnsigned`).
int64_t wrapInt(int64_t x, unsigned bits, bool isUnsigned = false);
/// The smallest and largest integers of a width.
int64_t getIntMin(unsigned bits, bool isUnsigned = false);
int64_t getIntMax(unsigned bits, bool isUnsigned = false);

/// The largest finite magnitude of a float type.
double getLargest(const llvm::fltSemantics &sem);
/// The smallest normal magnitude of a float type.
double getSmallestNormal(const llvm::fltSemantics &sem);

/// Whether `x` is a subnormal of float type `sem`.
bool isDenormal(double x, const llvm::fltSemantics &sem);
/// A subnormal of `sem` becomes a zero of the same sign; others unchanged.
double flushDenormal(double x, const llvm::fltSemantics &sem);

/// Whether matrix instructions reading `lhs` operands on `chip` flush
/// subnormal A/B inputs and D outputs (the chip-table fact
/// ChipInfo::mmaFlushesHalfDenormals applies to the f16 and bf16 forms).
bool mmaFlushesDenormals(const ChipInfo &chip, ScalarKind lhs);

//===----------------------------------------------------------------------===//
// fp8 codecs (OCP and FNUZ), shared with the emulator
//===----------------------------------------------------------------------===//

/// The exact value of an fp8 encoding (`sem` one of the four fp8 formats).
/// NaN encodings give a quiet NaN of the encoding's sign (FNUZ: positive).
double decodeFp8(uint8_t bits, const llvm::fltSemantics &sem);
/// Rounds `x` to nearest even into an fp8 encoding. With `saturate`
/// (crest.cast), finite overflow and infinities give +-largest; without it
/// (the hardware's v_cvt_pk_fp8_f32), they give NaN where the format has no
/// infinity and infinity otherwise (OCP E5M2). A NaN gives the canonical
/// NaN: 0x80 (FNUZ), sign | 0x7f (E4M3FN), sign | 0x7e (E5M2). FNUZ has no
/// negative zero: -0 and negative values rounding to zero encode as 0.
uint8_t encodeFp8(double x, const llvm::fltSemantics &sem, bool saturate);

/// Bits of `x` (a value of `type`, e.g. castTo's result) in `type`'s
/// encoding, zero-extended (integers: two's complement).
uint64_t encodeBits(double x, ScalarType type);
/// The value of an encoding (the inverse of encodeBits).
double decodeBits(uint64_t bits, ScalarType type);

//===----------------------------------------------------------------------===//
// Elementwise operations
//===----------------------------------------------------------------------===//

enum class ElementwiseOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Relu,
  Neg,
  Abs,
  Exp,
  Sqrt,
  Tanh,
  Erf,
  Sigmoid,
  HardSigmoid,
  HardSwish,
  LeakyRelu, ///< x < 0 ? alpha x : x (NaN passes through)
  Log,
  Floor,
  Ceil,
  Round, ///< to nearest, ties to even
  Clip,
  Gelu,     ///< exact: x/2 (1 + erf(x / sqrt 2))
  GeluTanh, ///< the tanh approximation
  Cast,
  // Predicates: the result is i1 (0 or 1). Floats compare as IEEE ordered
  // relations (false when either side is NaN); integers by value.
  Equal,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  // On i1 operands.
  And,
  Or,
  Xor,
  Not,
  /// condition (i1) ? operand 1 : operand 2
  Select,
};

/// The crest op's mnemonic ("add", ..., "gelu" for both gelu forms).
llvm::StringRef getElementwiseOpName(ElementwiseOp op);
/// The op of a mnemonic; `approximate` selects GeluTanh for "gelu".
std::optional<ElementwiseOp> lookupElementwiseOp(llvm::StringRef name,
                                                 bool tanhApproximation = false);
/// Number of operands (1, 2, or 3 for Select).
unsigned getNumOperands(ElementwiseOp op);
/// Whether every step is correctly rounded (the device result must match
/// bit for bit); false for ops with transcendental steps.
bool isCorrectlyRounded(ElementwiseOp op);
/// The largest distance, in units in the last place of the result type,
/// between a kernel's result and `evaluate`'s for finite inputs and results
/// (0 for correctly rounded ops). The per-op table of docs/Semantics.md.
unsigned getUlpBound(ElementwiseOp op, ScalarType result);

/// Attributes of the ops that have some.
struct OpParams {
  double alpha = 0.2, beta = 0.5; ///< hardsigmoid (alpha: leaky_relu too)
  /// clip's bounds (an absent bound is infinite)
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
};

/// Integer `x / y` truncated toward zero, wrapped to `result` (an integer
/// type); nullopt when `y` is 0.
std::optional<int64_t> divInt(int64_t x, int64_t y, ScalarType result);
/// Integer remainder of `x / y` with the sign of the dividend
/// (`signOfDividend`, ONNX Mod with fmod = 1, C's %) or of the divisor
/// (ONNX Mod with fmod = 0, Python's %); nullopt when `y` is 0.
std::optional<int64_t> remInt(int64_t x, int64_t y, bool signOfDividend,
                              ScalarType result);
/// Integer `op` (Add, Sub, Mul, Div, Max, Min) on exact 64-bit operands of
/// integer type `result`, with the rules above; nullopt for a zero divisor
/// or an op with no integer form. Unlike `evaluate`, values beyond 2^53
/// stay exact (shape arithmetic uses INT64_MAX as "to the end").
std::optional<int64_t> evaluateInt(ElementwiseOp op, int64_t x, int64_t y,
                                   ScalarType result);

/// A predicate (Equal ... GreaterEqual, And, Or, Xor) on exact 64-bit
/// integer operands, ordered as unsigned when `isUnsigned` (ui64 beyond
/// INT64_MAX, stored two's complement); nullopt for any other op. The same
/// relations as `evaluate`'s, without its 2^53 limit.
std::optional<bool> evaluateIntPredicate(ElementwiseOp op, int64_t x,
                                         int64_t y, bool isUnsigned);

/// Evaluates `op` on `operands` (values of their operand types) with the
/// rules above and returns the result rounded to `result`.
double evaluate(ElementwiseOp op, llvm::ArrayRef<double> operands,
                ScalarType result, const OpParams &params = {});

/// The same for APFloat operands, for folders: each operand is converted
/// exactly to double (all of Crest's float types embed in it).
llvm::APFloat evaluate(ElementwiseOp op, llvm::ArrayRef<llvm::APFloat> operands,
                       const llvm::fltSemantics &result,
                       const OpParams &params = {});

} // namespace crest::sem

#endif // CREST_SEMANTICS_SCALAR_H
