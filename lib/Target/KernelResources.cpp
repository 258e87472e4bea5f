//===- KernelResources.cpp - The LDS a GEMM kernel allocates --------------===//

#include "crest/Target/KernelResources.h"

#include <algorithm>

using namespace crest;

/// Row padding in bytes: 16 bytes move the next row by four 4-byte banks.
static constexpr int64_t kLdsRowPadBytes = 16;

int64_t crest::getLdsElementBytes(unsigned bits) {
  return std::max<int64_t>(1, bits / 8);
}

int64_t crest::getLdsRowPadElements(unsigned bits) {
  return kLdsRowPadBytes / getLdsElementBytes(bits);
}

static LdsTile getStagedTile(int64_t stages, int64_t rows, int64_t tileK,
                             unsigned bits) {
  LdsTile tile;
  tile.stages = stages;
  tile.rows = rows;
  tile.padElements = getLdsRowPadElements(bits);
  tile.rowElements = tileK + tile.padElements;
  tile.elementBytes = getLdsElementBytes(bits);
  return tile;
}

int64_t crest::getAccRegistersPerLane(int64_t waveM, int64_t waveN,
                                      unsigned waveSize, unsigned accBits) {
  return waveM * waveN / waveSize * std::max<int64_t>(1, accBits / 32);
}

GemmLdsLayout crest::computeGemmLdsLayout(const GemmLdsShape &shape) {
  GemmLdsLayout layout;
  if (shape.staged) {
    layout.lhs =
        getStagedTile(shape.stages, shape.tileM, shape.tileK, shape.lhsBits);
    layout.rhs =
        getStagedTile(shape.stages, shape.tileN, shape.tileK, shape.rhsBits);
  }
  if (shape.vectorRhs) {
    int64_t rows = shape.problemM > 0 && shape.problemM < shape.tileM
                       ? shape.problemM
                       : shape.tileM;
    layout.splitKBytes = shape.splitK * rows * shape.tileN *
                         getLdsElementBytes(shape.accBits);
  } else if (shape.splitK > 1) {
    layout.splitKBytes = (shape.splitK - 1) * shape.tileM * shape.tileN *
                         getLdsElementBytes(shape.accBits);
  }
  return layout;
}

int64_t crest::getStepsPerGroup(int64_t fullSteps, int64_t groups) {
  if (groups < 1 || fullSteps < groups)
    return 0;
  int64_t perGroup = (fullSteps + groups - 1) / groups;
  return (groups - 1) * perGroup < fullSteps ? perGroup : 0;
}
