//===- Memory.cpp - Helpers of the memory instruction handlers ------------===//

#include "Memory.h"

#include "llvm/Support/FormatVariadic.h"

using namespace crest::emu;
using namespace crest::emu::mem;

uint64_t mem::roundToFormat(double value, unsigned man, unsigned exp) {
  uint64_t sign = std::signbit(value) ? uint64_t(1) << (man + exp) : 0;
  uint64_t expAll = (uint64_t(1) << exp) - 1;
  double a = std::fabs(value);
  if (std::isinf(a))
    return sign | (expAll << man);
  if (a == 0)
    return sign;
  int bias = (1 << (exp - 1)) - 1;
  int e;
  std::frexp(a, &e);                        // a = m * 2^e, m in [0.5, 1)
  int unbiased = std::max(e - 1, 1 - bias); // denormals share the minimum
  // The significand (with its implicit bit) in units of the last place,
  // rounded to nearest even by the host's default rounding mode.
  uint64_t m = uint64_t(std::nearbyint(std::ldexp(a, int(man) - unbiased)));
  if (m >> (man + 1)) { // rounding carried into the next binade
    m >>= 1;
    ++unbiased;
  }
  if (!(m >> man)) // denormal (or zero)
    return sign | m;
  uint64_t field = uint64_t(unbiased + bias);
  if (field >= expAll)
    return sign | (expAll << man);
  return sign | (field << man) | (m & ((uint64_t(1) << man) - 1));
}

uint8_t *mem::privateBytes(Wave &wave, const Inst &inst, unsigned lane,
                           uint64_t offset, uint32_t size) {
  if (offset <= wave.privateBytes && size <= wave.privateBytes - offset)
    return wave.scratch.data() + size_t(lane) * wave.privateBytes + offset;
  wave.fail(inst, llvm::formatv("private (scratch) access of {0} bytes at "
                                "offset {1} of lane {2} is outside the "
                                "kernel's {3}-byte private segment",
                                size, offset, lane, wave.privateBytes));
  return nullptr;
}
