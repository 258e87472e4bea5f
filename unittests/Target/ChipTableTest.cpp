//===- ChipTableTest.cpp - Tests for the chip table -------------*- C++ -*-===//
//
// Two kinds of checks:
// - The table against AMD's matrix instruction calculator data in
//   test/Inputs/mfma-layouts/*.json, both ways: every listed instruction is in
//   the file with the same shape, types and cycles, and every dense
//   instruction of the file is listed or excluded below with a reason. The
//   per-lane element counts are checked against the layouts themselves.
// - Facts written down independently of the implementation.
//
//===----------------------------------------------------------------------===//

#include "crest/Target/ChipTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <optional>
#include <set>
#include <string>

#ifndef CREST_MFMA_LAYOUTS_DIR
#define CREST_MFMA_LAYOUTS_DIR ""
#endif

using namespace crest;
using llvm::StringRef;

namespace {

//===----------------------------------------------------------------------===//
// Calculator data
//===----------------------------------------------------------------------===//

/// Dense instructions of the calculator files that the table leaves out on
/// purpose. Every entry must name an instruction that exists in the file and
/// is absent from the table.
struct Exclusion {
  StringRef file;
  StringRef mnemonic;
  StringRef reason;
};

const Exclusion kExclusions[] = {
    // int4 WMMA: no ScalarKind for 4-bit integers, so Crest cannot emit them.
    {"rdna3.json", "v_wmma_i32_16x16x16_iu4", "int4 (iu4) inputs"},
    {"rdna4.json", "v_wmma_i32_16x16x16_iu4", "int4 (iu4) inputs"},
    {"rdna4.json", "v_wmma_i32_16x16x32_iu4", "int4 (iu4) inputs"},
};

bool isExcluded(StringRef file, StringRef mnemonic) {
  for (const Exclusion &e : kExclusions)
    if (e.file == file && e.mnemonic == mnemonic)
      return true;
  return false;
}

/// The calculator's type names (see shared/mfma-layouts/README.md).
std::optional<ScalarKind> parseCalculatorType(StringRef name) {
  if (name == "fp64")
    return ScalarKind::F64;
  if (name == "fp32")
    return ScalarKind::F32;
  if (name == "xf32")
    return ScalarKind::XF32;
  if (name == "fp16")
    return ScalarKind::F16;
  if (name == "bf16")
    return ScalarKind::BF16;
  if (name == "int8" || name == "iu8")
    return ScalarKind::I8;
  if (name == "int32")
    return ScalarKind::I32;
  if (name == "amd_fp8")
    return ScalarKind::F8E4M3FNUZ;
  if (name == "amd_bf8")
    return ScalarKind::F8E5M2FNUZ;
  if (name == "fp8")
    return ScalarKind::F8E4M3FN;
  if (name == "bf8")
    return ScalarKind::F8E5M2;
  return std::nullopt; // e.g. "iu4"
}

struct ChipFile {
  const char *chip;
  const char *file;
};

std::ostream &operator<<(std::ostream &os, const ChipFile &p) {
  return os << p.chip << "/" << p.file;
}

std::string layoutsPath(StringRef file) {
  llvm::SmallString<256> path(CREST_MFMA_LAYOUTS_DIR);
  llvm::sys::path::append(path, file);
  return std::string(path);
}

/// Per-lane statistics of one operand layout (one MATRIX object).
struct OperandStats {
  /// Elements held by each lane that holds any; all such lanes must agree.
  unsigned elementsPerLane = 0;
  bool uniform = true;
  /// Lanes that hold at least one element.
  unsigned lanesUsed = 0;
  /// Elements that the register count implies: vgprs_used registers, each
  /// holding as many elements as distinct bit offsets occur (so 16-bit
  /// values packed two to a register count twice, and RDNA3's unpacked
  /// 16-bit results once), or half a register each for 64-bit elements.
  unsigned elementsFromRegisters = 0;
};

std::optional<OperandStats> getOperandStats(const llvm::json::Object &matrix,
                                            std::string &error) {
  std::optional<int64_t> vgprsUsed = matrix.getInteger("vgprs_used");
  std::optional<int64_t> bits = matrix.getInteger("element_bits");
  const llvm::json::Array *entries = matrix.getArray("entries");
  if (!vgprsUsed || !bits || !entries) {
    error = "matrix lacks vgprs_used, element_bits or entries";
    return std::nullopt;
  }
  llvm::DenseMap<int64_t, unsigned> perLane;
  std::set<int64_t> bitOffsets;
  // entries[block][row][col] = [vgpr, bit_lo, bit_hi, [lane, ...]]
  for (const llvm::json::Value &block : *entries) {
    for (const llvm::json::Value &row : *block.getAsArray()) {
      for (const llvm::json::Value &cell : *row.getAsArray()) {
        const llvm::json::Array *slot = cell.getAsArray();
        if (!slot || slot->size() != 4) {
          error = "malformed entry";
          return std::nullopt;
        }
        bitOffsets.insert(*(*slot)[1].getAsInteger());
        for (const llvm::json::Value &lane : *(*slot)[3].getAsArray())
          ++perLane[*lane.getAsInteger()];
      }
    }
  }
  OperandStats stats;
  stats.lanesUsed = perLane.size();
  for (const auto &[lane, count] : perLane) {
    (void)lane;
    if (stats.elementsPerLane == 0)
      stats.elementsPerLane = count;
    else if (stats.elementsPerLane != count)
      stats.uniform = false;
  }
  stats.elementsFromRegisters =
      *bits == 64 ? *vgprsUsed / 2 : *vgprsUsed * bitOffsets.size();
  return stats;
}

class CalculatorDataTest : public ::testing::TestWithParam<ChipFile> {
protected:
  void SetUp() override {
    path = layoutsPath(GetParam().file);
    if (!llvm::sys::fs::exists(path))
      GTEST_SKIP() << "calculator data not found: " << path;

    chip = lookupChip(GetParam().chip);
    ASSERT_NE(chip, nullptr) << GetParam().chip;

    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(buffer)) << path << ": " << buffer.getError().message();
    llvm::Expected<llvm::json::Value> parsed =
        llvm::json::parse((*buffer)->getBuffer());
    ASSERT_TRUE(bool(parsed))
        << path << ": " << llvm::toString(parsed.takeError());
    root = std::move(*parsed);
    const llvm::json::Object *object = root.getAsObject();
    ASSERT_NE(object, nullptr);
    instructions = object->getObject("instructions");
    ASSERT_NE(instructions, nullptr) << path << " has no 'instructions'";
  }

  static const llvm::json::Object &properties(const llvm::json::Value &inst) {
    return *inst.getAsObject()->getObject("properties");
  }

  std::string path;
  const ChipInfo *chip = nullptr;
  llvm::json::Value root = nullptr;
  const llvm::json::Object *instructions = nullptr;
};

TEST_P(CalculatorDataTest, TableInstructionsMatchCalculator) {
  for (const MmaInstruction &inst : chip->mmaInstructions) {
    SCOPED_TRACE(inst.mnemonic.str());
    const llvm::json::Value *entry = instructions->get(inst.mnemonic);
    ASSERT_NE(entry, nullptr) << "not in " << GetParam().file;
    const llvm::json::Object &props = properties(*entry);
    EXPECT_EQ(props.getBoolean("sparse"), std::optional<bool>(false));
    EXPECT_EQ(props.getInteger("m"), std::optional<int64_t>(inst.m));
    EXPECT_EQ(props.getInteger("n"), std::optional<int64_t>(inst.n));
    EXPECT_EQ(props.getInteger("k"), std::optional<int64_t>(inst.k));
    EXPECT_EQ(props.getInteger("blocks"), std::optional<int64_t>(inst.blocks));
    EXPECT_EQ(props.getInteger("cycles"), std::optional<int64_t>(inst.cycles));
    EXPECT_EQ(parseCalculatorType(*props.getString("in_type")), inst.lhs);
    EXPECT_EQ(parseCalculatorType(*props.getString("in_type_src1")), inst.rhs);
    EXPECT_EQ(parseCalculatorType(*props.getString("out_type")), inst.acc);
    // The calculator's "C/D may be ArchVGPRs" flag is a per-chip fact.
    EXPECT_EQ(props.getBoolean("c_d_arch"),
              std::optional<bool>(chip->mmaAccInArchVgprs));
  }
}

TEST_P(CalculatorDataTest, EveryDenseInstructionIsListedOrExcluded) {
  unsigned dense = 0;
  for (const auto &[key, value] : *instructions) {
    StringRef mnemonic = key;
    if (*properties(value).getBoolean("sparse"))
      continue;
    ++dense;
    bool listed = chip->lookupMma(mnemonic) != nullptr;
    bool excluded = isExcluded(GetParam().file, mnemonic);
    EXPECT_TRUE(listed || excluded)
        << mnemonic.str() << " from " << GetParam().file
        << " is neither in the " << chip->name.str()
        << " table nor in kExclusions";
    EXPECT_FALSE(listed && excluded)
        << mnemonic.str() << " is both listed and excluded";
  }
  EXPECT_GT(dense, 0u);
  // Exclusions must not go stale.
  for (const Exclusion &e : kExclusions)
    if (e.file == GetParam().file)
      EXPECT_NE(instructions->get(e.mnemonic), nullptr)
          << "stale exclusion " << e.mnemonic.str() << " (" << e.reason.str()
          << ")";
}

TEST_P(CalculatorDataTest, ElementsPerLaneMatchLayouts) {
  const llvm::json::Object *object = root.getAsObject();
  const llvm::json::Array *waveSizes = object->getArray("wave_sizes");
  ASSERT_NE(waveSizes, nullptr);
  bool sawDefault = false;
  for (const llvm::json::Value &w : *waveSizes) {
    unsigned waveSize = *w.getAsInteger();
    if (!chip->supportsWaveSize(waveSize))
      continue;
    sawDefault |= waveSize == chip->defaultWaveSize;
    std::string layoutName = "wave" + std::to_string(waveSize);
    for (const MmaInstruction &inst : chip->mmaInstructions) {
      SCOPED_TRACE(inst.mnemonic.str() + " " + layoutName);
      const llvm::json::Object *layouts =
          instructions->getObject(inst.mnemonic)->getObject("layouts");
      ASSERT_NE(layouts, nullptr);
      const llvm::json::Object *layout = layouts->getObject(layoutName);
      ASSERT_NE(layout, nullptr);

      std::string error;
      std::optional<OperandStats> a =
          getOperandStats(*layout->getObject("A"), error);
      ASSERT_TRUE(a.has_value()) << error;
      EXPECT_TRUE(a->uniform);
      EXPECT_EQ(a->lanesUsed, waveSize);
      EXPECT_EQ(inst.getLhsElementsPerLane(waveSize), a->elementsPerLane);
      EXPECT_EQ(inst.getLhsElementsPerLane(waveSize), a->elementsFromRegisters);

      std::optional<OperandStats> d =
          getOperandStats(*layout->getObject("D"), error);
      ASSERT_TRUE(d.has_value()) << error;
      EXPECT_TRUE(d->uniform);
      EXPECT_EQ(d->lanesUsed, waveSize);
      EXPECT_EQ(inst.getAccElementsPerLane(waveSize), d->elementsPerLane);
      EXPECT_EQ(inst.getAccElementsPerLane(waveSize), d->elementsFromRegisters);
    }
  }
  EXPECT_TRUE(sawDefault) << GetParam().file << " has no wave"
                          << chip->defaultWaveSize << " layouts";
}

INSTANTIATE_TEST_SUITE_P(Chips, CalculatorDataTest,
                         ::testing::Values(ChipFile{"gfx908", "cdna1.json"},
                                           ChipFile{"gfx90a", "cdna2.json"},
                                           ChipFile{"gfx942", "cdna3.json"},
                                           ChipFile{"gfx1100", "rdna3.json"},
                                           ChipFile{"gfx1201", "rdna4.json"}),
                         [](const ::testing::TestParamInfo<ChipFile> &info) {
                           return std::string(info.param.chip);
                         });

//===----------------------------------------------------------------------===//
// Independent facts
//===----------------------------------------------------------------------===//

const ChipInfo &getChip(StringRef name) {
  const ChipInfo *chip = lookupChip(name);
  if (!chip) {
    ADD_FAILURE() << "unknown chip " << name.str();
    static const ChipInfo empty{};
    return empty;
  }
  return *chip;
}

bool hasFnuzOperand(const MmaInstruction &inst) {
  for (ScalarKind kind : {inst.lhs, inst.rhs, inst.acc})
    if (kind == ScalarKind::F8E4M3FNUZ || kind == ScalarKind::F8E5M2FNUZ)
      return true;
  return false;
}

bool hasOcpFp8Operand(const MmaInstruction &inst) {
  for (ScalarKind kind : {inst.lhs, inst.rhs, inst.acc})
    if (kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2)
      return true;
  return false;
}

TEST(ChipTableTest, KnownChips) {
  EXPECT_EQ(getAllChips().size(), 6u);
  EXPECT_EQ(getKnownChipNames(),
            "gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201");
  for (StringRef name :
       {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"}) {
    const ChipInfo *chip = lookupChip(name);
    ASSERT_NE(chip, nullptr) << name.str();
    EXPECT_EQ(chip->name, name);
    EXPECT_TRUE(chip->hasMatrixCores());
  }
  EXPECT_EQ(lookupChip("gfx9999"), nullptr);
  EXPECT_EQ(lookupChip(""), nullptr);
  // Names are matched exactly, as LLVM's -mcpu does.
  EXPECT_EQ(lookupChip("GFX942"), nullptr);
  EXPECT_EQ(lookupChip("gfx942:sramecc+"), nullptr);
}

TEST(ChipTableTest, Gfx942VersusGfx90aF16) {
  // CDNA3 renamed the f16 MFMAs and halved the single-block latency:
  // 32x32x8 takes 8 passes (32 cycles) on gfx942, 16 passes on gfx90a.
  const MmaInstruction *cdna3 =
      getChip("gfx942").lookupMma("v_mfma_f32_32x32x8_f16");
  ASSERT_NE(cdna3, nullptr);
  EXPECT_EQ(cdna3->m, 32u);
  EXPECT_EQ(cdna3->n, 32u);
  EXPECT_EQ(cdna3->k, 8u);
  EXPECT_EQ(cdna3->blocks, 1u);
  EXPECT_EQ(cdna3->lhs, ScalarKind::F16);
  EXPECT_EQ(cdna3->rhs, ScalarKind::F16);
  EXPECT_EQ(cdna3->acc, ScalarKind::F32);
  EXPECT_EQ(cdna3->cycles, 32u);
  EXPECT_EQ(cdna3->getPasses(), 8u);
  EXPECT_EQ(cdna3->kind, MmaKind::MFMA);
  EXPECT_EQ(cdna3->layout, MmaLayoutFamily::CdnaMfma);
  EXPECT_EQ(cdna3->getOps(), 2ull * 32 * 32 * 8);
  // A is 32x8 halves over 64 lanes: 4 per lane; C/D 32x32 floats: 16.
  EXPECT_EQ(cdna3->getLhsElementsPerLane(64), 4u);
  EXPECT_EQ(cdna3->getAccElementsPerLane(64), 16u);

  const MmaInstruction *small =
      getChip("gfx942").lookupMma("v_mfma_f32_16x16x16_f16");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->k, 16u);
  EXPECT_EQ(small->getAccElementsPerLane(64), 4u);

  const ChipInfo &gfx90a = getChip("gfx90a");
  const MmaInstruction *cdna2 = gfx90a.lookupMma("v_mfma_f32_32x32x8f16");
  ASSERT_NE(cdna2, nullptr);
  EXPECT_EQ(cdna2->cycles, 64u);
  EXPECT_EQ(cdna2->getPasses(), 16u);
  // Each chip spells it its own way.
  EXPECT_EQ(gfx90a.lookupMma("v_mfma_f32_32x32x8_f16"), nullptr);
  EXPECT_EQ(getChip("gfx942").lookupMma("v_mfma_f32_32x32x8f16"), nullptr);
}

TEST(ChipTableTest, Gfx908HasNo1kBf16) {
  // The full-rate "_1k" bf16 MFMAs arrived with CDNA2.
  llvm::SmallVector<const MmaInstruction *> bf16 = getChip("gfx908").findMma(
      ScalarKind::BF16, ScalarKind::BF16, ScalarKind::F32);
  EXPECT_FALSE(bf16.empty());
  for (const MmaInstruction *inst : bf16)
    EXPECT_FALSE(inst->mnemonic.ends_with("_1k")) << inst->mnemonic.str();

  llvm::SmallVector<const MmaInstruction *> gfx90aBf16 =
      getChip("gfx90a").findMma(ScalarKind::BF16, ScalarKind::BF16,
                                ScalarKind::F32);
  ASSERT_FALSE(gfx90aBf16.empty());
  // The preferred gfx90a bf16 form is a full-rate "_1k" one.
  EXPECT_TRUE(gfx90aBf16.front()->mnemonic.ends_with("_1k"))
      << gfx90aBf16.front()->mnemonic.str();
}

TEST(ChipTableTest, Fp8Flavours) {
  EXPECT_EQ(getChip("gfx908").fp8, Fp8Flavour::None);
  EXPECT_EQ(getChip("gfx90a").fp8, Fp8Flavour::None);
  EXPECT_EQ(getChip("gfx942").fp8, Fp8Flavour::FNUZ);
  EXPECT_EQ(getChip("gfx950").fp8, Fp8Flavour::OCP);
  EXPECT_EQ(getChip("gfx1100").fp8, Fp8Flavour::None);
  EXPECT_EQ(getChip("gfx1201").fp8, Fp8Flavour::OCP);

  EXPECT_EQ(getFp8FlavourName(Fp8Flavour::None), "none");
  EXPECT_EQ(getFp8FlavourName(Fp8Flavour::FNUZ), "FNUZ");
  EXPECT_EQ(getFp8FlavourName(Fp8Flavour::OCP), "OCP");

  // Same mnemonic, different encodings: FNUZ on gfx942, OCP on gfx950.
  const MmaInstruction *fnuz =
      getChip("gfx942").lookupMma("v_mfma_f32_16x16x32_fp8_fp8");
  const MmaInstruction *ocp =
      getChip("gfx950").lookupMma("v_mfma_f32_16x16x32_fp8_fp8");
  ASSERT_NE(fnuz, nullptr);
  ASSERT_NE(ocp, nullptr);
  EXPECT_EQ(fnuz->lhs, ScalarKind::F8E4M3FNUZ);
  EXPECT_EQ(ocp->lhs, ScalarKind::F8E4M3FN);
  EXPECT_TRUE(
      getChip("gfx942")
          .findMma(ScalarKind::F8E4M3FN, ScalarKind::F8E4M3FN, ScalarKind::F32)
          .empty());
  EXPECT_TRUE(getChip("gfx950")
                  .findMma(ScalarKind::F8E4M3FNUZ, ScalarKind::F8E4M3FNUZ,
                           ScalarKind::F32)
                  .empty());
}

TEST(ChipTableTest, Fp8TypesMatchChipFlavour) {
  for (const ChipInfo &chip : getAllChips()) {
    for (const MmaInstruction &inst : chip.mmaInstructions) {
      SCOPED_TRACE(chip.name.str() + " " + inst.mnemonic.str());
      if (hasFnuzOperand(inst))
        EXPECT_EQ(chip.fp8, Fp8Flavour::FNUZ);
      if (hasOcpFp8Operand(inst))
        EXPECT_EQ(chip.fp8, Fp8Flavour::OCP);
    }
  }
}

TEST(ChipTableTest, Xf32OnlyOnGfx942) {
  // xf32 MFMAs exist on CDNA3 only; LLVM 22 aborts selecting them for gfx950.
  EXPECT_FALSE(getChip("gfx942")
                   .findMma(ScalarKind::XF32, ScalarKind::XF32, ScalarKind::F32)
                   .empty());
  for (StringRef name : {"gfx908", "gfx90a", "gfx950", "gfx1100", "gfx1201"})
    EXPECT_TRUE(
        getChip(name)
            .findMma(ScalarKind::XF32, ScalarKind::XF32, ScalarKind::F32)
            .empty())
        << name.str();
}

TEST(ChipTableTest, Gfx950AddsDoubleRateForms) {
  const ChipInfo &gfx950 = getChip("gfx950");
  const MmaInstruction *f16 = gfx950.lookupMma("v_mfma_f32_16x16x32_f16");
  ASSERT_NE(f16, nullptr);
  EXPECT_EQ(f16->k, 32u);
  EXPECT_EQ(f16->lhs, ScalarKind::F16);
  // 8 halves of A per lane (16x32 over 64 lanes).
  EXPECT_EQ(f16->getLhsElementsPerLane(64), 8u);
  for (StringRef mnemonic :
       {"v_mfma_f32_32x32x16_f16", "v_mfma_f32_16x16x32_bf16",
        "v_mfma_f32_32x32x16_bf16", "v_mfma_i32_16x16x64_i8",
        "v_mfma_i32_32x32x32_i8"}) {
    EXPECT_NE(gfx950.lookupMma(mnemonic), nullptr) << mnemonic.str();
    EXPECT_EQ(getChip("gfx942").lookupMma(mnemonic), nullptr) << mnemonic.str();
  }
  // MI355X peaks: 4096 f16 and 8192 i8 ops per clock per CU (4 SIMDs).
  const MmaInstruction *i8 = gfx950.lookupMma("v_mfma_i32_16x16x64_i8");
  ASSERT_NE(i8, nullptr);
  EXPECT_EQ(4 * f16->getOps() / f16->cycles, 4096u);
  EXPECT_EQ(4 * i8->getOps() / i8->cycles, 8192u);
}

TEST(ChipTableTest, OldBf16FormsOnlyBeforeCdna3) {
  // The CDNA1 bf16 MFMAs read 2 x bf16 (one VGPR) of A per lane; the "_1k"
  // forms and all CDNA3 bf16 MFMAs read 4 or more. LLVM 22 aborts selecting
  // the old ones for gfx942/gfx950, so those chips must not list them.
  auto countOld = [](const ChipInfo &chip) {
    unsigned old = 0;
    for (const MmaInstruction &inst : chip.mmaInstructions)
      if (inst.kind == MmaKind::MFMA && inst.lhs == ScalarKind::BF16 &&
          inst.getLhsElementsPerLane(64) == 2)
        ++old;
    return old;
  };
  EXPECT_EQ(countOld(getChip("gfx908")), 5u);
  EXPECT_EQ(countOld(getChip("gfx90a")), 5u);
  EXPECT_EQ(countOld(getChip("gfx942")), 0u);
  EXPECT_EQ(countOld(getChip("gfx950")), 0u);
}

TEST(ChipTableTest, WaveSizes) {
  const ChipInfo &gfx1100 = getChip("gfx1100");
  EXPECT_EQ(gfx1100.defaultWaveSize, 32u);
  EXPECT_TRUE(gfx1100.supportsWaveSize(32));
  EXPECT_TRUE(gfx1100.supportsWaveSize(64));
  EXPECT_EQ(getChip("gfx1201").defaultWaveSize, 32u);
  for (StringRef name : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    const ChipInfo &chip = getChip(name);
    EXPECT_EQ(chip.defaultWaveSize, 64u) << name.str();
    EXPECT_FALSE(chip.supportsWaveSize(32)) << name.str();
    EXPECT_TRUE(chip.supportsWaveSize(64)) << name.str();
  }
}

TEST(ChipTableTest, MemoryAndRegisters) {
  for (StringRef name : {"gfx908", "gfx90a", "gfx942", "gfx1100", "gfx1201"})
    EXPECT_EQ(getChip(name).ldsBytesPerWorkgroup, 65536u) << name.str();
  EXPECT_EQ(getChip("gfx950").ldsBytesPerWorkgroup, 163840u);
  EXPECT_EQ(getChip("gfx950").ldsAllocGranuleBytes, 1280u);
  EXPECT_EQ(getChip("gfx942").ldsAllocGranuleBytes, 512u);

  const ChipInfo &gfx908 = getChip("gfx908");
  EXPECT_FALSE(gfx908.unifiedVgprFile);
  EXPECT_FALSE(gfx908.mmaAccInArchVgprs);
  EXPECT_EQ(gfx908.maxArchVgprs, 256u);
  EXPECT_EQ(gfx908.maxAccVgprs, 256u);
  EXPECT_EQ(gfx908.maxWavesPerSimd, 10u);
  for (StringRef name : {"gfx90a", "gfx942", "gfx950"}) {
    const ChipInfo &chip = getChip(name);
    EXPECT_TRUE(chip.unifiedVgprFile) << name.str();
    EXPECT_TRUE(chip.mmaAccInArchVgprs) << name.str();
    EXPECT_EQ(chip.maxArchVgprs + chip.maxAccVgprs, 512u) << name.str();
    EXPECT_EQ(chip.vgprFilePerSimd, 512u) << name.str();
    EXPECT_EQ(chip.maxWavesPerSimd, 8u) << name.str();
  }
  for (StringRef name : {"gfx1100", "gfx1201"}) {
    const ChipInfo &chip = getChip(name);
    EXPECT_EQ(chip.maxAccVgprs, 0u) << name.str();
    EXPECT_EQ(chip.maxArchVgprs, 256u) << name.str();
    EXPECT_EQ(chip.maxWavesPerSimd, 16u) << name.str();
    // 192 KiB of VGPRs per SIMD: 1536 per lane in wave32, 768 in wave64.
    EXPECT_EQ(chip.getVgprFilePerSimd(32), 1536u) << name.str();
    EXPECT_EQ(chip.getVgprFilePerSimd(64), 768u) << name.str();
    EXPECT_EQ(chip.getVgprAllocGranule(32), 24u) << name.str();
    EXPECT_EQ(chip.getVgprAllocGranule(64), 12u) << name.str();
  }
  EXPECT_EQ(getChip("gfx942").getVgprFilePerSimd(64), 512u);
  EXPECT_EQ(getChip("gfx942").maxSgprsPerWave, 102u);
  EXPECT_EQ(getChip("gfx1100").maxSgprsPerWave, 106u);
}

TEST(ChipTableTest, RdnaLhsElementsPerLane) {
  // RDNA3 replicates A in every 16-lane group: 16 halves per lane in both
  // wave sizes. RDNA4 does not: 16x16 / 32 = 8 halves in wave32, 4 in wave64.
  const MmaInstruction *rdna3 =
      getChip("gfx1100").lookupMma("v_wmma_f32_16x16x16_f16");
  ASSERT_NE(rdna3, nullptr);
  EXPECT_EQ(rdna3->layout, MmaLayoutFamily::Rdna3Wmma);
  EXPECT_EQ(rdna3->kind, MmaKind::WMMA);
  EXPECT_EQ(rdna3->getLhsElementsPerLane(32), 16u);
  EXPECT_EQ(rdna3->getLhsElementsPerLane(64), 16u);
  EXPECT_EQ(rdna3->getAccElementsPerLane(32), 8u);

  const MmaInstruction *rdna4 =
      getChip("gfx1201").lookupMma("v_wmma_f32_16x16x16_f16");
  ASSERT_NE(rdna4, nullptr);
  EXPECT_EQ(rdna4->layout, MmaLayoutFamily::Rdna4Wmma);
  EXPECT_EQ(rdna4->getLhsElementsPerLane(32), 8u);
  EXPECT_EQ(rdna4->getLhsElementsPerLane(64), 4u);

  // 16-bit accumulators exist on RDNA only.
  EXPECT_FALSE(getChip("gfx1100")
                   .findMma(ScalarKind::F16, ScalarKind::F16, ScalarKind::F16)
                   .empty());
  EXPECT_TRUE(getChip("gfx942")
                  .findMma(ScalarKind::F16, ScalarKind::F16, ScalarKind::F16)
                  .empty());
}

TEST(ChipTableTest, TableInvariants) {
  for (const ChipInfo &chip : getAllChips()) {
    llvm::StringSet<> seen;
    for (const MmaInstruction &inst : chip.mmaInstructions) {
      SCOPED_TRACE(chip.name.str() + " " + inst.mnemonic.str());
      EXPECT_TRUE(seen.insert(inst.mnemonic).second) << "listed twice";
      EXPECT_EQ(chip.lookupMma(inst.mnemonic), &inst);
      EXPECT_TRUE(inst.mnemonic.starts_with(
          inst.kind == MmaKind::MFMA ? "v_mfma_" : "v_wmma_"));
      EXPECT_GT(inst.cycles, 0u);
      EXPECT_GE(inst.blocks, 1u);
      for (unsigned waveSize : {32u, 64u}) {
        if (!chip.supportsWaveSize(waveSize))
          continue;
        EXPECT_EQ(inst.m * inst.n * inst.blocks % waveSize, 0u) << waveSize;
        EXPECT_GT(inst.getLhsElementsPerLane(waveSize), 0u) << waveSize;
      }
      // Integer inputs accumulate in i32, float inputs in a float type.
      EXPECT_EQ(isFloatKind(inst.lhs), isFloatKind(inst.acc));
      EXPECT_EQ(isFloatKind(inst.rhs), isFloatKind(inst.acc));
    }
  }
}

TEST(ChipTableTest, PreferredFormsComeFirst) {
  // Within one type combination, ops per cycle never rise along findMma's
  // order, and at equal rate single-block forms precede multi-block ones.
  for (const ChipInfo &chip : getAllChips()) {
    std::set<std::tuple<ScalarKind, ScalarKind, ScalarKind>> combos;
    for (const MmaInstruction &inst : chip.mmaInstructions)
      combos.insert({inst.lhs, inst.rhs, inst.acc});
    for (const auto &[lhs, rhs, acc] : combos) {
      llvm::SmallVector<const MmaInstruction *> found =
          chip.findMma(lhs, rhs, acc);
      ASSERT_FALSE(found.empty());
      for (size_t i = 0; i + 1 < found.size(); ++i) {
        const MmaInstruction *a = found[i], *b = found[i + 1];
        SCOPED_TRACE(chip.name.str() + " " + a->mnemonic.str() + " before " +
                     b->mnemonic.str());
        // Compare ops/cycle without rounding: a.ops * b.cycles vs b.ops *
        // a.cycles.
        uint64_t lhsRate = a->getOps() * b->cycles;
        uint64_t rhsRate = b->getOps() * a->cycles;
        EXPECT_GE(lhsRate, rhsRate);
        if (lhsRate == rhsRate)
          EXPECT_FALSE(a->blocks > 1 && b->blocks == 1);
        EXPECT_EQ(a->lhs, lhs);
        EXPECT_EQ(a->rhs, rhs);
        EXPECT_EQ(a->acc, acc);
      }
    }
  }
}

TEST(ChipTableTest, ScalarKinds) {
  EXPECT_EQ(getScalarKindName(ScalarKind::F8E4M3FNUZ), "f8E4M3FNUZ");
  EXPECT_EQ(getScalarKindName(ScalarKind::F8E5M2), "f8E5M2");
  EXPECT_EQ(getScalarKindName(ScalarKind::XF32), "xf32");
  EXPECT_EQ(getScalarKindName(ScalarKind::BF16), "bf16");
  EXPECT_EQ(getScalarKindBits(ScalarKind::F64), 64u);
  EXPECT_EQ(getScalarKindBits(ScalarKind::XF32), 32u);
  EXPECT_EQ(getScalarKindBits(ScalarKind::BF16), 16u);
  EXPECT_EQ(getScalarKindBits(ScalarKind::F8E5M2FNUZ), 8u);
  EXPECT_EQ(getScalarKindBits(ScalarKind::I8), 8u);
  EXPECT_TRUE(isFloatKind(ScalarKind::XF32));
  EXPECT_FALSE(isFloatKind(ScalarKind::I32));
  EXPECT_TRUE(isFp8Kind(ScalarKind::F8E4M3FN));
  EXPECT_FALSE(isFp8Kind(ScalarKind::F16));
  EXPECT_FALSE(isFp8Kind(ScalarKind::I8));
}

} // namespace
