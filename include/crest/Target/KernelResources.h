//===- KernelResources.h - The LDS a GEMM kernel allocates ------*- C++ -*-===//
//
// The one definition of the LDS layout of Crest's GEMM kernels: the staged A
// and B tiles (rows padded so that consecutive rows start in different
// banks) and the split-K partial sums; and of their accumulator registers. The
// lowering allocates exactly these buffers; the config verifier, the cost model
// of configuration selection and the selection remark all read their sizes from
// here. No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TARGET_KERNELRESOURCES_H
#define CREST_TARGET_KERNELRESOURCES_H

#include <cstdint>

namespace crest {

/// What the LDS layout of a GEMM kernel depends on.
struct GemmLdsShape {
  int64_t tileM = 0, tileN = 0, tileK = 0;
  int64_t stages = 1;
  int64_t splitK = 1;
  unsigned lhsBits = 0, rhsBits = 0, accBits = 0;
  /// Whether A and B tiles are staged in LDS (workgroup scope).
  bool staged = false;
  /// The skinny path (rhs_vector > 1): every K slice's partial sums, of
  /// the rows inside the problem's M (`problemM`, 0 when unknown) when it
  /// is smaller than the tile, row-major.
  bool vectorRhs = false;
  int64_t problemM = 0;
};

/// One staged operand: `stages` buffers of `rows` rows of `rowElements`
/// elements (the tile's K extent plus `padElements`).
struct LdsTile {
  int64_t stages = 0, rows = 0, rowElements = 0, padElements = 0;
  int64_t elementBytes = 0;
  int64_t getBytes() const {
    return stages * rows * rowElements * elementBytes;
  }
};

struct GemmLdsLayout {
  /// The A tile (rows = tile M) and the B tile (rows = tile N, stored
  /// transposed: one row per column of B); empty when nothing is staged.
  LdsTile lhs, rhs;
  /// The partial accumulators of split_k - 1 groups of waves (of all
  /// split_k with `vectorRhs`; a global split-K kernel then reuses their
  /// first element for the flag that says the workgroup arrived last).
  int64_t splitKBytes = 0;

  int64_t getStagingBytes() const { return lhs.getBytes() + rhs.getBytes(); }
  int64_t getTotalBytes() const { return getStagingBytes() + splitKBytes; }
};

/// Bytes an element of `bits` bits occupies in LDS (sub-byte types take a
/// byte each).
int64_t getLdsElementBytes(unsigned bits);

/// Elements added to each staged K row: 16 bytes' worth, so that the rows of
/// a tile start four banks apart.
int64_t getLdsRowPadElements(unsigned bits);

/// The LDS layout of a GEMM kernel of `shape`.
GemmLdsLayout computeGemmLdsLayout(const GemmLdsShape &shape);

/// K split across `groups` workgroups (global_split_k): group g adds up the
/// full K steps [g * s, min((g + 1) * s, fullSteps)) with s the result, and
/// the last group also the partial step past them. 0 when some group would
/// get no full step (fewer steps than groups can use).
int64_t getStepsPerGroup(int64_t fullSteps, int64_t groups);

/// 32-bit accumulator registers per lane for a `waveM` x `waveN` output
/// tile of one wave of `waveSize` lanes (64-bit accumulators take two).
int64_t getAccRegistersPerLane(int64_t waveM, int64_t waveN, unsigned waveSize,
                               unsigned accBits);

} // namespace crest

#endif // CREST_TARGET_KERNELRESOURCES_H
