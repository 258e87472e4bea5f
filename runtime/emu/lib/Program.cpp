//===- Program.cpp - Decode kernels with LLVM's AMDGPU disassembler
//---------===//
//
// Uses only LLVM's public MC API: the AMDGPU disassembler turns the code into
// MCInsts; registers are classified by their hardware encoding value
// (bits 0-7: the operand number, bit 10: VGPR, bit 11: AGPR) and their width
// by the smallest register class that contains them. Opcode names, stripped
// of the target suffix, select the handler.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <map>
#include <mutex>
#include <optional>

using namespace llvm;
using namespace crest;
using namespace crest::emu;

namespace {

/// LLVM's MC objects for one chip, created once per process.
struct MCBundle {
  std::unique_ptr<MCRegisterInfo> registerInfo;
  std::unique_ptr<MCAsmInfo> asmInfo;
  std::unique_ptr<MCSubtargetInfo> subtargetInfo;
  std::unique_ptr<MCInstrInfo> instrInfo;
  std::unique_ptr<MCContext> context;
  std::unique_ptr<MCDisassembler> disassembler;
  std::unique_ptr<MCInstPrinter> printer;
  /// Whether VOP3 instructions may carry a 32-bit literal (gfx10 and later;
  /// LLVM's "vop3-literal" feature). Without it, LLVM 22's disassembler
  /// crashes on a VOP3 source field of 255 instead of failing.
  bool vop3Literal = false;
  /// OperandType of source-modifier operands (AMDGPU's OPERAND_INPUT_MODS),
  /// read off V_ADD_F32_e64 so no target-private enum is needed.
  uint8_t inputModsType = 0xff;
  /// Width in dwords of each register, computed on first use.
  mutable std::map<unsigned, uint8_t> widthCache;

  uint8_t getRegisterDwords(MCRegister reg) const;
};
} // namespace

uint8_t MCBundle::getRegisterDwords(MCRegister reg) const {
  auto it = widthCache.find(reg.id());
  if (it != widthCache.end())
    return it->second;
  unsigned bits = 0;
  for (const MCRegisterClass &rc : registerInfo->regclasses())
    if (rc.contains(reg) && (bits == 0 || rc.getSizeInBits() < bits))
      bits = rc.getSizeInBits();
  uint8_t dwords = static_cast<uint8_t>(std::max(1u, (bits + 31) / 32));
  widthCache[reg.id()] = dwords;
  return dwords;
}

static Expected<const MCBundle *> getMCBundle(StringRef chip) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<MCBundle>> bundles;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = bundles.find(chip.str());
  if (it != bundles.end())
    return it->second.get();

  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
  Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError(inconvertibleErrorCode(),
                             "LLVM has no AMDGPU target: " + error);
  auto bundle = std::make_unique<MCBundle>();
  bundle->registerInfo.reset(target->createMCRegInfo(triple));
  MCTargetOptions options;
  bundle->asmInfo.reset(
      target->createMCAsmInfo(*bundle->registerInfo, triple, options));
  bundle->subtargetInfo.reset(target->createMCSubtargetInfo(triple, chip, ""));
  if (bundle->subtargetInfo)
    bundle->vop3Literal = bundle->subtargetInfo->checkFeatures("+vop3-literal");
  bundle->instrInfo.reset(target->createMCInstrInfo());
  if (!bundle->registerInfo || !bundle->asmInfo || !bundle->subtargetInfo ||
      !bundle->instrInfo)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create LLVM's MC layer for " + chip);
  bundle->context = std::make_unique<MCContext>(triple, bundle->asmInfo.get(),
                                                bundle->registerInfo.get(),
                                                bundle->subtargetInfo.get());
  bundle->disassembler.reset(
      target->createMCDisassembler(*bundle->subtargetInfo, *bundle->context));
  bundle->printer.reset(target->createMCInstPrinter(
      triple, 0, *bundle->asmInfo, *bundle->instrInfo, *bundle->registerInfo));
  if (!bundle->disassembler || !bundle->printer)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create LLVM's AMDGPU disassembler for " +
                                 chip);
  for (unsigned opc = 0, e = bundle->instrInfo->getNumOpcodes(); opc < e;
       ++opc) {
    if (bundle->instrInfo->getName(opc) != "V_ADD_F32_e64_vi")
      continue;
    bundle->inputModsType =
        bundle->instrInfo->get(opc).operands()[1].OperandType;
    break;
  }
  const MCBundle *result = bundle.get();
  bundles[chip.str()] = std::move(bundle);
  return result;
}

/// Drops the target/encoding-generation suffixes LLVM appends to MC opcode
/// names ("_vi", "_gfx9", "_gfx90a", "_gfx940", "_acd", ...), and "_agpr",
/// which only says that data or results are AGPRs (the decoded register
/// operands carry that). The encoding
/// form (_e32, _e64, _sdwa, _dpp) and addressing forms (_SADDR, _OFFEN, ...)
/// stay: they change the operand list.
static StringRef stripTargetSuffix(StringRef name) {
  static constexpr StringLiteral kSuffixes[] = {
      "_acd",    "_vcd",   "_agpr",  "_vi",    "_gfx9", "_gfx90a", "_gfx940",
      "_gfx950", "_gfx10", "_gfx11", "_gfx12", "_si",   "_ci",
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (StringRef suffix : kSuffixes)
      if (name.consume_back(suffix))
        changed = true;
  }
  return name;
}

StringRef crest::emu::getHandlerKey(StringRef mcOpcodeName) {
  return stripTargetSuffix(mcOpcodeName);
}

static Encoding getEncoding(StringRef key) {
  if (!key.starts_with("V_") || key.starts_with("V_MFMA") ||
      key.starts_with("V_SMFMAC"))
    return Encoding::Other;
  if (key.ends_with("_e32"))
    return Encoding::VOP1;
  if (key.ends_with("_sdwa"))
    return Encoding::SDWA;
  if (key.ends_with("_dpp"))
    return Encoding::DPP;
  if (key.starts_with("V_PK_"))
    return Encoding::VOP3P;
  return Encoding::VOP3;
}

/// Fills the VALU view of `inst` (defs, sources with modifiers, trailing
/// controls) from the operand descriptions.
static Error buildValuView(Inst &inst, const MCInstrDesc &desc,
                           const MCBundle &mc, StringRef key) {
  inst.numDefs = static_cast<uint8_t>(desc.getNumDefs());
  uint8_t pendingMods = 0;
  bool sawControl = false;
  for (unsigned i = inst.numDefs; i < inst.numOps; ++i) {
    bool described = i < desc.getNumOperands();
    const MCOperandInfo *info = described ? &desc.operands()[i] : nullptr;
    if (described && desc.getOperandConstraint(i, MCOI::TIED_TO) >= 0 &&
        inst.encoding == Encoding::DPP) {
      inst.dppOld = static_cast<int8_t>(i);
      continue;
    }
    if (info && info->OperandType == mc.inputModsType) {
      pendingMods = static_cast<uint8_t>(inst.ops[i].imm);
      continue;
    }
    bool isValue = info && info->RegClass != -1 && !sawControl;
    if (isValue) {
      if (inst.numSrcs == Inst::kMaxSources)
        return createStringError(inconvertibleErrorCode(),
                                 "%s has more than %u sources",
                                 key.str().c_str(), Inst::kMaxSources);
      inst.srcOp[inst.numSrcs] = static_cast<uint8_t>(i);
      inst.srcMods[inst.numSrcs] = pendingMods;
      ++inst.numSrcs;
      pendingMods = 0;
      continue;
    }
    sawControl = true;
    if (inst.numControls == Inst::kMaxControls)
      return createStringError(inconvertibleErrorCode(),
                               "%s has more than %u control operands",
                               key.str().c_str(), Inst::kMaxControls);
    inst.controls[inst.numControls++] = static_cast<int64_t>(inst.ops[i].imm);
  }
  return Error::success();
}

/// The source field (0-2) of the VOP3/VOP3P instruction at the start of
/// `bytes` that names a literal (255), when the chip cannot encode one.
static std::optional<unsigned> findVop3Literal(ArrayRef<uint8_t> bytes,
                                               bool chipHasVop3Literal) {
  if (chipHasVop3Literal || bytes.size() < 8)
    return std::nullopt;
  uint32_t first = support::endian::read32le(bytes.data());
  // GFX9's VOP3A/VOP3B/VOP3P encodings all start 0b110100.
  if ((first >> 26) != 0x34)
    return std::nullopt;
  uint32_t second = support::endian::read32le(bytes.data() + 4);
  for (unsigned field = 0; field < 3; ++field)
    if (((second >> (9 * field)) & 0x1ff) == 255)
      return field;
  return std::nullopt;
}

/// Runs `fn` (a call into LLVM's AMDGPU disassembler or printer) so that a
/// crash in it is caught rather than ending the process: LLVM 22's
/// disassembler crashes on several malformed encodings (a destination or
/// source field naming a literal where none can be, among others). The
/// guards before the disassembler catch the classes known (with their own
/// messages); this catches the rest. LLVM's CrashRecoveryContext handles the
/// signal on this thread only and passes signals outside a guarded call on
/// to the handlers installed before it (a sanitizer's, a fuzzer's).
static bool runGuarded(llvm::function_ref<void()> fn) {
  static std::once_flag enabled;
  std::call_once(enabled, [] { CrashRecoveryContext::Enable(); });
  CrashRecoveryContext context;
  return context.RunSafely(fn);
}

static std::string disassemblerCrash(ArrayRef<uint8_t> bytes,
                                     StringRef chip) {
  std::string hex;
  for (uint8_t b : bytes.take_front(12))
    hex += formatv("{0:x-2} ", b).str();
  return formatv("LLVM's disassembler fails on the bytes {0}(not an "
                 "instruction {1} can run)",
                 hex, chip)
      .str();
}

/// On chips without VOP3 literals (the gfx9 family), a MUBUF or MTBUF
/// instruction at the start of `bytes` whose SOFFSET names a literal (255).
/// The ISA allows only an SGPR, M0 or an inline constant there, and LLVM 22's
/// disassembler crashes on it.
static bool hasBufferLiteralOffset(ArrayRef<uint8_t> bytes,
                                   bool chipHasVop3Literal) {
  if (chipHasVop3Literal || bytes.size() < 8)
    return false;
  uint32_t first = support::endian::read32le(bytes.data());
  // MUBUF starts 0b111000, MTBUF 0b111010; SOFFSET is bits 31:24 of the
  // second dword.
  unsigned prefix = first >> 26;
  if (prefix != 0x38 && prefix != 0x3a)
    return false;
  return (support::endian::read32le(bytes.data() + 4) >> 24) == 255;
}

/// The VOP2 forms with a 32-bit constant K after the instruction word
/// (v_madmk/madak/fmamk/fmaak, f32 and f16), by VOP2 opcode (bits 30:25):
/// K's position among the MC operands (vdst, src0, K, src1 for the mk
/// forms; vdst, src0, src1, K for the ak forms), or none. LLVM 22's
/// disassembler decodes K as a source-operand encoding: a K of 128 to 254
/// comes out as an inline constant (K = 0xf0 as 0.5) and a K of 255 crashes
/// it. The decoder hands LLVM a K of 0 and takes K from the bytes.
static std::optional<unsigned> getConstantKOperand(uint32_t first,
                                                   bool gfx9Encoding) {
  if (first >> 31)
    return std::nullopt;
  unsigned opcode = (first >> 25) & 0x3f;
  if (gfx9Encoding) {
    switch (opcode) {
    case 0x17: // v_madmk_f32 / v_fmamk_f32
    case 0x24: // v_madmk_f16
      return 2;
    case 0x18: // v_madak_f32 / v_fmaak_f32
    case 0x25: // v_madak_f16
      return 3;
    }
    return std::nullopt;
  }
  switch (opcode) {
  case 0x2c: // v_fmamk_f32
  case 0x37: // v_fmamk_f16
    return 2;
  case 0x2d: // v_fmaak_f32
  case 0x38: // v_fmaak_f16
    return 3;
  }
  return std::nullopt;
}

Expected<std::unique_ptr<Program>> Program::decode(const CodeObject &object,
                                                   const Kernel &kernel) {
  Expected<const MCBundle *> mcOrErr = getMCBundle(object.getChip().name);
  if (!mcOrErr)
    return mcOrErr.takeError();
  const MCBundle &mc = **mcOrErr;
  const HandlerRegistry &registry = HandlerRegistry::get();

  auto program = std::unique_ptr<Program>(new Program());
  program->kernel = &kernel;
  program->chip = &object.getChip();
  unsigned accumOffset = kernel.descriptor.accumOffset();
  bool unified = object.getChip().unifiedVgprFile;

  auto error = [&](uint64_t address, const Twine &message) {
    return createStringError(inconvertibleErrorCode(),
                             formatv("{0}: kernel '{1}' at {2:x}: {3}",
                                     object.getName(), kernel.name, address,
                                     message.str())
                                 .str());
  };

  // The disassembler reads the code with 8 zero bytes after it: LLVM 22's
  // crashes when a literal operand needs bytes past the end of its buffer,
  // so it never gets to the end; an instruction that extends into the
  // padding is refused below.
  ArrayRef<uint8_t> code = kernel.code;
  std::vector<uint8_t> padded(code.begin(), code.end());
  padded.resize(code.size() + 8, 0);
  bool gfx9Encoding = object.getChip().name.starts_with("gfx9");
  uint64_t offset = 0;
  while (offset < code.size()) {
    uint64_t address = kernel.entryAddress + offset;
    ArrayRef<uint8_t> bytes = ArrayRef<uint8_t>(padded).slice(offset);
    // A literal in a VOP3 (or VOP3P) source field where the chip has no VOP3
    // literals is not an instruction (nor padding, which is s_code_end or
    // zeros); refuse it before the disassembler sees it (MCBundle::vop3Literal).
    if (std::optional<unsigned> field =
            findVop3Literal(code.slice(offset), mc.vop3Literal))
      return error(address,
                   formatv("VOP3 instruction with a literal operand (src{0} "
                           "= 255), which {1} cannot encode",
                           *field, object.getChip().name)
                       .str());
    if (hasBufferLiteralOffset(code.slice(offset), mc.vop3Literal))
      return error(address,
                   formatv("MUBUF/MTBUF instruction whose soffset names a "
                           "literal (255), which {0} cannot encode",
                           object.getChip().name)
                       .str());
    // A constant K is decoded from a copy that holds 0 in its place.
    std::optional<unsigned> kOperand;
    uint32_t constantK = 0;
    std::array<uint8_t, 8> kForm;
    if (code.size() - offset >= 4)
      kOperand = getConstantKOperand(support::endian::read32le(bytes.data()),
                                     gfx9Encoding);
    if (kOperand) {
      if (code.size() - offset < 8)
        return error(address, "instruction with a constant K runs past the "
                              "end of the code");
      constantK = support::endian::read32le(bytes.data() + 4);
      std::copy(bytes.begin(), bytes.begin() + 4, kForm.begin());
      std::fill(kForm.begin() + 4, kForm.end(), 0);
    }
    MCInst mcInst;
    uint64_t size = 0;
    MCDisassembler::DecodeStatus status = MCDisassembler::Fail;
    if (!runGuarded([&] {
          status = mc.disassembler->getInstruction(
              mcInst, size, kOperand ? ArrayRef<uint8_t>(kForm) : bytes,
              address, nulls());
        }))
      return error(address, disassemblerCrash(code.slice(offset),
                                              object.getChip().name));
    if (status != MCDisassembler::Success || size == 0) {
      // Padding after s_endpgm (s_code_end, zeros) is not code.
      if (!program->insts.empty())
        break;
      return error(address, "cannot decode the instruction bytes");
    }
    if (kOperand && (size != 8 || mcInst.getNumOperands() <= *kOperand ||
                     !mcInst.getOperand(*kOperand).isImm()))
      return error(address, "unexpected operands for an instruction with a "
                            "constant K");
    if (offset + size > code.size()) {
      // Bytes after the last instruction that do not make a whole one are
      // padding, as undecodable ones are.
      if (!program->insts.empty())
        break;
      return error(address, formatv("instruction of {0} bytes runs past the "
                                    "end of the code ({1} bytes left)",
                                    size, code.size() - offset)
                                .str());
    }
    if (kOperand)
      mcInst.getOperand(*kOperand).setImm(constantK);

    Inst inst;
    inst.address = address;
    inst.size = static_cast<uint16_t>(size);
    StringRef mcName = mc.instrInfo->getName(mcInst.getOpcode());
    StringRef key = stripTargetSuffix(mcName);
    Handler handler = registry.lookup(key, &inst.name);
    std::string text;
    raw_string_ostream os(text);
    if (!runGuarded([&] {
          mc.printer->printInst(&mcInst, address, "", *mc.subtargetInfo, os);
        }))
      return error(address, disassemblerCrash(code.slice(offset),
                                              object.getChip().name));
    StringRef disassembly = StringRef(text).trim();
    if (!handler)
      return error(address,
                   "unimplemented opcode " + key + " ('" + disassembly + "')");
    inst.handler = handler;
    if (mcInst.getNumOperands() > Inst::kMaxOperands)
      return error(address, key + " has too many operands");

    inst.numOps = static_cast<uint8_t>(mcInst.getNumOperands());
    for (unsigned i = 0; i < inst.numOps; ++i) {
      const MCOperand &mcOp = mcInst.getOperand(i);
      Operand &op = inst.ops[i];
      if (mcOp.isImm()) {
        op.kind = OperandKind::Imm;
        op.imm = static_cast<uint64_t>(mcOp.getImm());
        op.dwords = 1;
        continue;
      }
      if (mcOp.isExpr()) {
        // A literal whose value is also an inline constant comes out as
        // lit(value), an expression, so that it prints back as a literal.
        int64_t value = 0;
        if (!mcOp.getExpr()->evaluateAsAbsolute(value))
          return error(address, formatv("operand {0} of '{1}' is an "
                                        "expression with no constant value",
                                        i, disassembly));
        op.kind = OperandKind::Imm;
        op.imm = static_cast<uint64_t>(value);
        op.dwords = 1;
        continue;
      }
      if (!mcOp.isReg() || !mcOp.getReg()) {
        op.kind = OperandKind::None;
        continue;
      }
      MCRegister reg = mcOp.getReg();
      uint16_t encoding = mc.registerInfo->getEncodingValue(reg);
      op.dwords = mc.getRegisterDwords(reg);
      unsigned number = encoding & 0xff;
      if (encoding & 0x400) {
        op.kind = OperandKind::Vector;
        op.index = static_cast<uint16_t>(number);
      } else if (encoding & 0x800) {
        op.kind = OperandKind::Vector;
        op.isAgpr = true;
        op.index =
            static_cast<uint16_t>((unified ? accumOffset : 256) + number);
      } else {
        op.kind = OperandKind::Scalar;
        op.index = static_cast<uint16_t>(number);
      }
    }

    inst.numMcDefs = static_cast<uint8_t>(
        mc.instrInfo->get(mcInst.getOpcode()).getNumDefs());
    inst.encoding = getEncoding(key);
    if (inst.encoding != Encoding::Other)
      if (Error e = buildValuView(inst, mc.instrInfo->get(mcInst.getOpcode()),
                                  mc, key))
        return error(address, toString(std::move(e)));

    program->insts.push_back(inst);
    program->disassembly.push_back(disassembly.str());
    offset += size;
  }
  if (program->insts.empty())
    return error(kernel.entryAddress, "the kernel has no instructions");

  // The code must fit in the registers the descriptor grants
  // (GRANULATED_WORKITEM_VGPR_COUNT; arch VGPRs then AGPRs from
  // ACCUM_OFFSET on a unified file, the larger of the two on gfx908): the
  // hardware would give a wave only those, so a run past them is not what
  // the GPU does.
  {
    unsigned granule = object.getChip().getVgprAllocGranule(
        kernel.wavefrontSize == 32 ? 32 : 64);
    unsigned granted =
        ((kernel.descriptor.computePgmRsrc1 & 0x3f) + 1) * granule;
    unsigned archEnd = 0, accEnd = 0;
    const Inst *archInst = nullptr, *accInst = nullptr;
    for (const Inst &inst : program->insts)
      for (unsigned i = 0; i < inst.numOps; ++i) {
        const Operand &op = inst.ops[i];
        if (op.kind != OperandKind::Vector)
          continue;
        unsigned base = op.isAgpr ? (unified ? accumOffset : 256) : 0;
        unsigned end = op.index - base + std::max<unsigned>(op.dwords, 1);
        unsigned &slot = op.isAgpr ? accEnd : archEnd;
        if (end > slot) {
          slot = end;
          (op.isAgpr ? accInst : archInst) = &inst;
        }
      }
    unsigned needed = unified ? (accEnd ? accumOffset + accEnd : archEnd)
                              : std::max(archEnd, accEnd);
    if (needed > granted) {
      bool acc = unified ? accEnd != 0 && accumOffset + accEnd > archEnd
                         : accEnd > archEnd;
      const Inst *at = acc ? accInst : archInst;
      size_t index = at - program->insts.data();
      return error(at->address,
                   formatv("the code uses {0}{1} ('{2}'), {3} VGPRs{4}, but "
                           "the kernel descriptor grants {5} "
                           "(GRANULATED_WORKITEM_VGPR_COUNT {6})",
                           acc ? "a" : "v", (acc ? accEnd : archEnd) - 1,
                           program->disassembly[index], needed,
                           acc && unified ? " with AGPRs from ACCUM_OFFSET"
                                          : "",
                           granted, kernel.descriptor.computePgmRsrc1 & 0x3f));
    }
  }
  if (kernel.descriptor.kernargPreloadLength()) {
    uint64_t start = kernel.entryAddress + kKernargPreloadPrologueBytes;
    int32_t index = program->indexOf(start);
    if (index < 0)
      return error(start, formatv("the kernel preloads kernel arguments, so "
                                  "it starts {0} bytes past its entry, but "
                                  "no instruction begins there",
                                  kKernargPreloadPrologueBytes));
    program->preloadStartIndex = static_cast<uint32_t>(index);
  }

  // Resolve branch targets (SOPP: the last operand is the target address
  // the disassembler computed, pc + 4 + 4 * simm16).
  for (Inst &inst : program->insts) {
    StringRef name(inst.name);
    if (!name.starts_with("S_BRANCH") && !name.starts_with("S_CBRANCH"))
      continue;
    if (name.starts_with("S_CBRANCH_G_FORK") ||
        name.starts_with("S_CBRANCH_JOIN"))
      continue;
    if (inst.numOps == 0 || !inst.ops[0].isImm())
      return error(inst.address, "branch without a target");
    uint64_t target = inst.address + 4 + 4 * signExtend(inst.ops[0].imm, 16);
    int32_t index = program->indexOf(target);
    if (index < 0)
      return error(inst.address,
                   formatv("branch target {0:x} is not an instruction of the "
                           "kernel",
                           target));
    inst.target = index;
  }
  return program;
}

int32_t Program::indexOf(uint64_t address) const {
  auto it = std::lower_bound(
      insts.begin(), insts.end(), address,
      [](const Inst &inst, uint64_t a) { return inst.address < a; });
  if (it == insts.end() || it->address != address)
    return -1;
  return static_cast<int32_t>(it - insts.begin());
}

//===----------------------------------------------------------------------===//
// Handler registry
//===----------------------------------------------------------------------===//

const HandlerRegistry &HandlerRegistry::get() {
  static const HandlerRegistry registry = [] {
    HandlerRegistry r;
    registerControlHandlers(r);
    registerSALUHandlers(r);
    registerSMEMHandlers(r);
    registerVALUHandlers(r);
    registerVMEMHandlers(r);
    registerDSHandlers(r);
    registerMFMAHandlers(r);
    return r;
  }();
  return registry;
}

Handler HandlerRegistry::lookup(StringRef key, const char **storedKey) const {
  auto it = handlers.find(key);
  if (it == handlers.end())
    return nullptr;
  *storedKey = it->getKeyData();
  return it->second;
}

void HandlerRegistry::add(StringRef key, Handler handler) {
  handlers[key] = handler;
}

void HandlerRegistry::addVALU(StringRef base, Handler handler) {
  add(base, handler);
  for (StringRef suffix : {"_e32", "_e64", "_sdwa", "_dpp"})
    add((base + suffix).str(), handler);
}
