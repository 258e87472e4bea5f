//===- Classify.cpp - What each instruction is to the timing model --------===//
//
// Sorts decoded instructions into the model's classes by their MC opcode
// name (the handler-registry key), finds each MFMA in the chip table for
// its pass count, decodes s_waitcnt, and lists the VGPRs each instruction
// reads and writes for the wait-state rules.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "../ops/MfmaOps.h"
#include "crest/Target/MmaLayout.h"
#include "crest/emu/Program.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;
using namespace crest;
using namespace crest::emu;
using namespace crest::emu::timing;

namespace {

/// The chip's MFMAs by handler-registry key.
const StringMap<const MmaInstruction *> &getMfmaKeys(const ChipInfo &chip) {
  static std::vector<std::pair<const ChipInfo *,
                               std::unique_ptr<StringMap<const MmaInstruction *>>>>
      cache;
  for (auto &[c, map] : cache)
    if (c == &chip)
      return *map;
  auto map = std::make_unique<StringMap<const MmaInstruction *>>();
  for (const MmaInstruction &inst : chip.mmaInstructions)
    for (const std::string &key : mfma::getHandlerKeys(inst.mnemonic))
      map->try_emplace(key, &inst);
  cache.emplace_back(&chip, std::move(map));
  return *cache.back().second;
}

/// The opcode without its VALU encoding suffix ("V_EXP_F32_e64" ->
/// "V_EXP_F32").
StringRef valuBase(StringRef name) {
  for (StringRef suffix : {"_e32", "_e64", "_sdwa", "_dpp"})
    if (name.consume_back(suffix))
      return name;
  return name;
}

bool isTranscendental(StringRef base) {
  static const StringRef kTranscendental[] = {
      "V_EXP_F32",  "V_LOG_F32",  "V_RCP_F32",        "V_RCP_IFLAG_F32",
      "V_RSQ_F32",  "V_SQRT_F32", "V_SIN_F32",        "V_COS_F32",
      "V_EXP_F16",  "V_LOG_F16",  "V_RCP_F16",        "V_RSQ_F16",
      "V_SQRT_F16", "V_SIN_F16",  "V_COS_F16",        "V_RCP_F64",
      "V_RSQ_F64",  "V_SQRT_F64", "V_EXP_LEGACY_F32", "V_LOG_LEGACY_F32"};
  return llvm::is_contained(kTranscendental, base);
}

RegRange rangeOf(const Operand &op) {
  if (op.kind != OperandKind::Vector)
    return {};
  return {op.index, uint8_t(std::max<unsigned>(op.dwords, 1))};
}

void addRegisters(StaticInst &si, const Inst &inst) {
  for (unsigned i = 0; i < inst.numOps; ++i) {
    RegRange r = rangeOf(inst.ops[i]);
    if (!r.count)
      continue;
    if (i < inst.numMcDefs)
      si.writes.push_back(r);
    else
      si.reads.push_back(r);
  }
}

StaticInst classify(const Inst &inst, const ChipInfo &chip,
                    const TimingParams &params) {
  StaticInst si;
  StringRef name(inst.name);
  addRegisters(si, inst);

  if (mma::isMatrixMnemonic(name)) {
    si.cls = InstClass::Mfma;
    si.category = Category::Valu;
    const auto &keys = getMfmaKeys(chip);
    auto it = keys.find(name);
    const MmaInstruction *mma = it == keys.end() ? nullptr : it->second;
    // The emulator executes only the chip table's MFMAs, so an unknown one
    // never reaches the replay; 4 passes keeps the model total.
    si.mfmaCycles = uint16_t(mma ? mma->cycles : 16);
    si.passes = uint8_t(si.mfmaCycles / 4);
    si.flops = mma ? mma->getOps() : 0;
    if (mma && mma->acc == ScalarKind::F64)
      si.mfmaKind = MfmaKind::Dgemm;
    else if (mma && mma->lhs == ScalarKind::F32 && !params.f32MfmaIsXdl)
      si.mfmaKind = MfmaKind::NonXdl;
    else
      si.mfmaKind = MfmaKind::Xdl;
    // vdst, src0 (A), src1 (B), src2 (C).
    if (inst.numOps >= 4) {
      si.srcAB[0] = rangeOf(inst.ops[1]);
      si.srcAB[1] = rangeOf(inst.ops[2]);
      si.srcC = rangeOf(inst.ops[3]);
    }
    return si;
  }
  if (inst.encoding != Encoding::Other || name.starts_with("V_")) {
    si.category = Category::Valu;
    si.cls = isTranscendental(valuBase(name)) ? InstClass::Trans
                                              : InstClass::Valu;
    return si;
  }
  if (name.starts_with("DS_")) {
    si.cls = InstClass::Lds;
    si.category = Category::Lds;
    si.countsLgkm = true;
    return si;
  }
  bool isFlat = name.starts_with("FLAT_");
  if (name.starts_with("GLOBAL_") || name.starts_with("BUFFER_") ||
      name.starts_with("SCRATCH_") || isFlat) {
    bool load = name.contains("_LOAD") || si.writes.size() > 0;
    si.cls = load ? InstClass::VmemLoad : InstClass::VmemStore;
    si.category = Category::Vmem;
    si.countsVm = true;
    si.countsLgkm = isFlat;
    return si;
  }
  if (name == "S_WAITCNT") {
    si.cls = InstClass::Waitcnt;
    si.category = Category::None;
    if (inst.numOps > 0 && inst.ops[0].isImm()) {
      // gfx9 SIMM16: vmcnt [3:0] and [15:14], lgkmcnt [11:8]; the field's
      // largest value does not wait.
      uint64_t imm = inst.ops[0].imm;
      unsigned vm = unsigned((imm & 0xf) | ((imm >> 10) & 0x30));
      unsigned lgkm = unsigned((imm >> 8) & 0xf);
      if (vm != 0x3f)
        si.waitVm = uint16_t(vm);
      if (lgkm != 0xf)
        si.waitLgkm = uint16_t(lgkm);
    }
    return si;
  }
  if (name == "S_BARRIER") {
    si.cls = InstClass::Barrier;
    si.category = Category::Branch;
    return si;
  }
  auto immOf = [&] {
    return uint16_t(inst.numOps > 0 && inst.ops[0].isImm() ? inst.ops[0].imm
                                                            : 0);
  };
  if (name == "S_NOP") {
    si.cls = InstClass::Nop;
    si.category = Category::None;
    si.imm = immOf() & 0xf;
    return si;
  }
  if (name == "S_SLEEP") {
    si.cls = InstClass::Sleep;
    si.category = Category::None;
    si.imm = immOf() & 0x7f;
    return si;
  }
  if (name == "S_SETPRIO") {
    si.cls = InstClass::SetPrio;
    si.category = Category::None;
    si.imm = immOf() & 3;
    return si;
  }
  if (name == "S_ENDPGM") {
    si.cls = InstClass::EndPgm;
    si.category = Category::Branch;
    return si;
  }
  if (name.starts_with("S_BRANCH") || name.starts_with("S_CBRANCH") ||
      name.starts_with("S_SETPC") || name.starts_with("S_SWAPPC")) {
    si.cls = InstClass::Branch;
    si.category = Category::Branch;
    return si;
  }
  if (name.starts_with("S_LOAD_") || name.starts_with("S_BUFFER_LOAD_") ||
      name.starts_with("S_STORE_") || name.starts_with("S_BUFFER_STORE_") ||
      name.starts_with("S_SCRATCH_") || name.starts_with("S_ATOMIC_") ||
      name.starts_with("S_BUFFER_ATOMIC_") || name.starts_with("S_MEMTIME") ||
      name.starts_with("S_MEMREALTIME") || name.starts_with("S_DCACHE_")) {
    si.cls = InstClass::Smem;
    si.category = Category::Salu;
    si.countsLgkm = true;
    return si;
  }
  if (name.starts_with("S_SENDMSG") || name.starts_with("S_TTRACE") ||
      name.starts_with("S_ICACHE")) {
    si.cls = InstClass::Other;
    si.category = Category::Branch;
    return si;
  }
  si.cls = InstClass::Salu;
  si.category = Category::Salu;
  return si;
}

} // namespace

std::vector<StaticInst> timing::classifyProgram(const Program &program,
                                                const ChipInfo &chip) {
  std::vector<StaticInst> code;
  const std::vector<Inst> &insts = program.getInstructions();
  code.reserve(insts.size());
  for (const Inst &inst : insts)
    code.push_back(classify(inst, chip, *chip.timing));
  return code;
}
