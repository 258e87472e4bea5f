//===- RowKernels.h - What the row kernels hold in registers ----*- C++ -*-===//
//
// The row kernels of crest-lower-ops-to-gpu (softmax, layer_norm: one wave
// per row) read a short row into registers once and a long one three
// times. crest-fuse-epilogues reads the same rule to decide whether a
// prologue fused into a row kernel is computed once per element.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_CODEGEN_ROWKERNELS_H
#define CREST_CODEGEN_ROWKERNELS_H

#include <cstdint>

namespace crest {

/// Rows of at most this many elements per lane are read into registers
/// once (softmax and layer norm then read their row once instead of three
/// times).
constexpr int64_t kMaxCachedRowPerLane = 16;

/// Whether a row kernel at `waveSize` holds a row of `length` elements in
/// registers (reads it once).
inline bool isCachedRow(int64_t length, unsigned waveSize) {
  return length <= kMaxCachedRowPerLane * int64_t(waveSize);
}

} // namespace crest

#endif // CREST_CODEGEN_ROWKERNELS_H
