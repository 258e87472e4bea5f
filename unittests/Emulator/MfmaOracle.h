//===- MfmaOracle.h - MFMA layouts from the calculator data -----*- C++ -*-===//
//
// Reads test/Inputs/mfma-layouts/cdna*.json (AMD's matrix instruction
// calculator, see its README) for the MFMA tests: where every element of A,
// B, C and D lives, the calculator's modifier properties and its BLGP lane
// table. The tests place data and read results through these layouts, so
// they check the emulator's closed-form layouts independently.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_UNITTESTS_EMULATOR_MFMAORACLE_H
#define CREST_UNITTESTS_EMULATOR_MFMAORACLE_H

#include "crest/Target/ChipTable.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace crest::emu::test {

/// One element's slot: register `vgpr` of the operand, bits [lo, hi], lane.
struct OracleSlot {
  unsigned vgpr, lo, hi, lane;
};

/// One operand: slots[block][x][y] flattened, with the dims the file gives
/// ([block][i][k] for A, [block][k][j] for B, [block][i][j] for C/D).
struct OracleMatrix {
  unsigned blocks = 0, rows = 0, cols = 0;
  unsigned elementBits = 0, vgprsUsed = 0;
  std::vector<OracleSlot> slots;

  const OracleSlot &at(unsigned b, unsigned x, unsigned y) const {
    return slots[(b * rows + x) * cols + y];
  }
};

struct OracleInstruction {
  unsigned m = 0, n = 0, k = 0, blocks = 0;
  std::string inType, inTypeB, outType;
  bool blgp = false, cbszAbid = false, sparse = false;
  OracleMatrix a, b, c, d;
};

struct OracleFile {
  std::string path;
  std::map<std::string, OracleInstruction> instructions;
  std::array<std::array<unsigned, 64>, 8> blgpSourceLane = {};
};

/// The calculator file for `chip` ("CDNA3" -> .../mfma-layouts/cdna3.json).
std::string getOracleJsonPath(const ChipInfo &chip);
/// Parses (once per process) the calculator data for `chip`; null with
/// `why` set if the file is absent or malformed.
const OracleFile *loadOracle(const ChipInfo &chip, std::string &why);

} // namespace crest::emu::test

#endif // CREST_UNITTESTS_EMULATOR_MFMAORACLE_H
