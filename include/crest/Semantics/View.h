//===- View.h - When a crest.slice is a window of its input's bytes -*- C++ -*-===//
//
// One rule, shared by the compiler (crest-lower-ops-to-gpu gives such a
// slice no kernel; the host planner makes its result an alias at an offset
// into its input's buffer) and the runtime's package validator (which
// recognises those aliases from the reference graph): a slice whose
// elements are one contiguous run of its input's row-major elements is a
// *window* of the input's bytes. No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_SEMANTICS_VIEW_H
#define CREST_SEMANTICS_VIEW_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <optional>

namespace crest {

/// The widest access a Crest kernel makes (a 16-byte vector load): a window
/// starting at a byte offset that is not a multiple of it gets a kernel
/// instead, so kernels may keep assuming that rows start as aligned as the
/// buffer does.
constexpr int64_t kWindowAlignment = 16;

/// If the slice of `input` (shape) to `result` (shape) at `offsets` with
/// `strides` (empty: all 1) reads one contiguous run of the input's
/// row-major elements, the run's first element (its element offset in the
/// input); otherwise std::nullopt. That holds when, for the innermost
/// dimension `d` the slice does not take whole, every dimension before `d`
/// has extent 1 and `d` itself has stride 1 or extent 1. Shapes of
/// different rank, offsets or strides of the wrong length, windows that do
/// not fit, empty tensors and offsets past int64_t give std::nullopt.
inline std::optional<int64_t>
getContiguousWindowOffset(llvm::ArrayRef<int64_t> input,
                          llvm::ArrayRef<int64_t> result,
                          llvm::ArrayRef<int64_t> offsets,
                          llvm::ArrayRef<int64_t> strides) {
  size_t rank = input.size();
  if (result.size() != rank || offsets.size() != rank ||
      (!strides.empty() && strides.size() != rank))
    return std::nullopt;
  auto strideOf = [&](size_t i) { return strides.empty() ? 1 : strides[i]; };
  for (size_t i = 0; i < rank; ++i) {
    if (input[i] <= 0 || result[i] <= 0 || offsets[i] < 0 ||
        strideOf(i) <= 0)
      return std::nullopt;
    // The last element read along i must lie inside the input.
    if (offsets[i] > input[i] - 1 ||
        (result[i] - 1) > (input[i] - 1 - offsets[i]) / strideOf(i))
      return std::nullopt;
  }
  // The innermost dimension not taken whole (none: the identity).
  size_t d = rank;
  for (size_t i = rank; i-- > 0;)
    if (result[i] != input[i]) {
      d = i;
      break;
    }
  for (size_t i = 0; i < rank; ++i) {
    if (i < d && d != rank && result[i] != 1)
      return std::nullopt;
    if (i == d && result[i] != 1 && strideOf(i) != 1)
      return std::nullopt;
    // Dimensions after d are whole: offset 0 and (extent > 1) stride 1,
    // which the bounds above already imply; checked for clarity.
    if (i > d && i < rank && (offsets[i] != 0 ||
                              (result[i] != 1 && strideOf(i) != 1)))
      return std::nullopt;
  }
  if (d == rank)
    return 0;
  // The input's element count may exceed int64_t (a malformed package):
  // every step is checked.
  int64_t offset = 0, stride = 1;
  for (size_t i = rank; i-- > 0;) {
    int64_t term;
    if (llvm::MulOverflow(offsets[i], stride, term) ||
        llvm::AddOverflow(offset, term, offset))
      return std::nullopt;
    if (i > 0 && llvm::MulOverflow(stride, input[i], stride))
      return std::nullopt;
  }
  return offset;
}

/// The same window in bytes: its first byte's offset in the input's, for
/// elements of `elementBytes` bytes; std::nullopt when the slice is not a
/// window (above), `elementBytes` is not positive, or the offset overflows.
inline std::optional<int64_t> getContiguousWindowByteOffset(
    llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> result,
    llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> strides,
    int64_t elementBytes) {
  std::optional<int64_t> first =
      getContiguousWindowOffset(input, result, offsets, strides);
  int64_t bytes;
  if (!first || elementBytes <= 0 ||
      llvm::MulOverflow(*first, elementBytes, bytes))
    return std::nullopt;
  return bytes;
}

/// Whether a window starting `byteOffset` bytes into its input's may be an
/// alias rather than get a kernel (kWindowAlignment).
inline bool isAliasableWindowOffset(int64_t byteOffset) {
  return byteOffset >= 0 && byteOffset % kWindowAlignment == 0;
}

} // namespace crest

#endif // CREST_SEMANTICS_VIEW_H
