//===- Reference.h - Host reference evaluator of a package's graph -*- C++
//-*-===//
//
// Evaluates the manifest's reference graph (pkg::Node, the crest ops as
// written, before fusion) on the host in double precision, and carries with
// every element a bound on how far a correct device result may be from it.
// crest-run --verify compares each output against it.
//
// Values. Inputs and weights are converted exactly from their stored types.
// Elementwise ops and casts take their values from the scalar core
// (crest/Semantics/Scalar.h, the rules the kernels implement: compute in
// f32 for f32 and narrower floats, round once to the result type; fp8
// saturates; float to integer truncates toward zero and saturates, NaN
// gives 0; integer add/sub/mul wrap). Other ops compute in double and round
// their result to the result's element type with the same cast rules.
// Contractions on a chip whose table row flushes the f16/bf16 MFMAs'
// denormals (sem::mmaFlushesDenormals) read flushed A/B operands.
//
// Tolerance (per element, absolute). With u(T) the unit roundoff of a type
// (2^-53 f64, 2^-24 f32, 2^-11 xf32 and f16, 2^-8 bf16, 2^-4 e4m3, 2^-3
// e5m2, 0 for integers), u_c = u(f32) the compute precision of kernels
// (u(f64) for f64 results), and t(x) an operand's tolerance:
//
//   contraction (matmul, batch_matmul, conv2d), per output element over its
//     K products a_k b_k:
//       sum_k (|a_k| t(b_k) + |b_k| t(a_k) + t(a_k) t(b_k))   propagated
//     + (u(lhs) [if the operand is wider than lhs] + u(rhs) [likewise]
//        + K u(acc)) * sum_k |a_k b_k|                         rounding
//   add/sub: t(a) + t(b); mul: |a| t(b) + |b| t(a) + t(a) t(b);
//   div: (t(a) + |y| t(b)) / (|b| - t(b));
//   max/min/relu/neg/abs/clip: the operands' largest t; hardsigmoid
//     |alpha| t; pow: |b a^(b-1)| t(a) + |y ln a| t(b)
//     + (2 |b log2 |a|| + 8) u_c |y|;
//   transcendentals (exp, sigmoid, tanh, erf, gelu): L t(x) with L a bound
//     of |f'| near x, + 8 u_c (|y| + |x|) for the kernels' polynomial
//     approximations; sqrt: L t(x) (correctly rounded); hardswish: 1.5 t
//     + 4 u_c (|y| + |x|);
//   softmax: y_i (2 max_j t(x_j) + (n + 10) u_c);
//   layer_norm: |gamma| (2 + |xhat|) max t(x) / sigma + |xhat| t(gamma)
//     + t(beta) + (n + 10) u_c |gamma| (1 + |xhat|) (1 + mean^2 / sigma^2)
//     + 4 u_c |beta|;
//   avg pools, global_avg_pool2d, reduce_mean: mean t(x) + (n + 2) u_c
//     mean |x|; reduce_sum: sum t(x) + (n + 1) u_c sum |x|; reduce_prod:
//     P - prod |x| + (n + 1) u_c P with P = prod (|x| + t(x));
//     max_pool2d, reduce_max, reduce_min: the largest t of the reduced set.
//   data movement (reshape, transpose, concat, slice, gather): each element
//     is its source element with its tolerance, unrounded (an out-of-range
//     gather index gives an exact 0); with exact inputs the device must
//     match bit for bit.
//   contraction on a flushing chip: + K 2^-126 (the D outputs' flushes).
//   Then the rounding to the result type T: when t > 0 it grows by one ulp,
//   2 u(T) |y| (floats); an integer result's t is the width of the cast of
//   [y - t, y + t] (0 for NaN, which converts to exactly 0); when t = 0
//   the device, rounding the same exact value, must produce the same bits.
//   div and sqrt are correctly rounded on the device (no rounding term).
//
// These worst-case bounds compound along deep graphs (a layer norm divides
// by sigma, a softmax takes the largest t of its row, ...) until they no
// longer say anything. A graph output's tolerance is therefore capped at a
// max-norm relative bound set by the least precise float type anywhere in
// the graph (value types and contraction precisions; xf32 counts as f16):
//
//   t_i = min(t_i, r * max_j |y_j|),  r = 1e-3 (f32, f64), 3e-2 (f16, xf32),
//                                       6e-2 (bf16), 0.25 (fp8)
//
// -- the same standards issue 6 sets for whole models against onnxruntime.
// Elements whose bound is already tighter keep it; exact (integer, data
// movement) elements keep t = 0.
//
// An element passes if it equals the reference exactly or |got - want| <= t
// (NaN only matches NaN, whatever its tolerance).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_REFERENCE_H
#define CREST_RUNTIME_REFERENCE_H

#include "crest/Semantics/Scalar.h"
#include "crest/runtime/Package.h"
#include "crest/runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crest::rt {

/// A tensor of the reference evaluation.
struct RefTensor {
  pkg::TensorType type;
  std::vector<double> values;
  std::vector<double> tolerance; ///< per element, absolute
};

/// The elements of `data` (of `type`) as doubles.
std::vector<double> decodeElements(pkg::ElementType type,
                                   llvm::ArrayRef<uint8_t> data);
/// The scalar core's view of a package element type.
sem::ScalarType getScalarType(pkg::ElementType type);
/// `value` converted to `type` and back to double, with crest.cast's
/// rules (crest/Semantics/Scalar.h: nearest even; fp8 saturates; to
/// integers: toward zero, saturating, NaN -> 0).
double roundToType(double value, pkg::ElementType type);
/// Unit roundoff of a type as the manifest spells it ("f16", "xf32", ...);
/// 0 for integer types; nullopt for an unknown name.
std::optional<double> getUnitRoundoff(llvm::StringRef typeName);
double getUnitRoundoff(pkg::ElementType type);

/// Evaluates the reference graph of `package` with the graph inputs
/// `inputs` (in the manifest's input order). The result holds every value
/// the graph defines, by value id (values it never touches are empty).
llvm::Expected<std::vector<RefTensor>>
evaluateReference(const pkg::Package &package,
                  llvm::ArrayRef<HostTensor> inputs);

/// The max-norm relative cap above for the graph of `manifest`: r for its
/// least precise float type (0 when the graph has no float value).
double getToleranceCap(const pkg::Manifest &manifest);
/// Caps the tolerance of every element of `tensor` at `cap * max |y|`
/// (float tensors only).
void capTolerance(RefTensor &tensor, double cap);

/// How one device output compares with its reference.
struct Comparison {
  std::string name;
  pkg::TensorType type;
  double maxAbsError = 0; ///< max |got - want|
  double maxRelError = 0; ///< max |got - want| / |want| over want != 0
  double maxTolerance = 0;
  uint64_t failures = 0; ///< elements beyond their tolerance
  /// The worst element (largest error / tolerance).
  int64_t worst = -1;
  double worstGot = 0, worstWant = 0, worstTolerance = 0;
  bool passed() const { return failures == 0; }
};

/// The reference values of `tensor` encoded in its element type (NaN as the
/// canonical quiet NaN of its sign), e.g. to write them to a file.
HostTensor encodeReference(const RefTensor &tensor);

Comparison compareTensor(llvm::StringRef name, const RefTensor &want,
                         const HostTensor &got);
/// "output 'y' f32[8, 10]: max abs error 1.2e-07, max rel error 3.1e-07,
/// tolerance 2.4e-06: PASS", plus the worst element on failure.
void printComparison(llvm::raw_ostream &os, const Comparison &comparison);

} // namespace crest::rt

#endif // CREST_RUNTIME_REFERENCE_H
