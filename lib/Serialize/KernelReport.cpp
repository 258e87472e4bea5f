//===- KernelReport.cpp - What a compiled kernel uses ---------------------===//

#include "crest/Serialize/KernelReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace crest;
using namespace llvm;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Code object metadata
//===----------------------------------------------------------------------===//

static const msgpack::DocNode *lookup(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(map.getDocument()->getNode(key));
  return it == map.end() ? nullptr : &it->second;
}

static std::optional<uint64_t> getUInt(const msgpack::DocNode &node) {
  if (node.getKind() == msgpack::Type::UInt)
    return node.getUInt();
  if (node.getKind() == msgpack::Type::Int && node.getInt() >= 0)
    return node.getInt();
  return std::nullopt;
}

/// Reads an unsigned field; `required` fields must be present.
static Error readUInt(msgpack::MapDocNode &map, StringRef key, bool required,
                      StringRef kernel, uint64_t &value) {
  const msgpack::DocNode *node = lookup(map, key);
  if (!node) {
    if (required)
      return makeError("kernel '" + kernel + "' has no " + key +
                       " in its metadata");
    return Error::success();
  }
  std::optional<uint64_t> number = getUInt(*node);
  if (!number)
    return makeError("kernel '" + kernel + "': " + key +
                     " is not an unsigned integer");
  value = *number;
  return Error::success();
}

static Expected<KernelResources> readKernel(msgpack::DocNode &node) {
  if (node.getKind() != msgpack::Type::Map)
    return makeError("an amdhsa.kernels entry is not a map");
  msgpack::MapDocNode map = node.getMap();
  KernelResources kernel;
  const msgpack::DocNode *name = lookup(map, ".name");
  if (!name || name->getKind() != msgpack::Type::String)
    return makeError("an amdhsa.kernels entry has no .name");
  kernel.name = name->getString().str();

  auto read = [&](StringRef key, bool required, auto &field) -> Error {
    uint64_t value = field;
    if (Error error = readUInt(map, key, required, kernel.name, value))
      return error;
    field = value;
    return Error::success();
  };
  if (Error error = read(".vgpr_count", true, kernel.vgprCount))
    return std::move(error);
  if (Error error = read(".sgpr_count", true, kernel.sgprCount))
    return std::move(error);
  if (Error error = read(".agpr_count", false, kernel.agprCount))
    return std::move(error);
  if (Error error = read(".vgpr_spill_count", false, kernel.vgprSpillCount))
    return std::move(error);
  if (Error error = read(".sgpr_spill_count", false, kernel.sgprSpillCount))
    return std::move(error);
  if (Error error = read(".group_segment_fixed_size", true, kernel.ldsBytes))
    return std::move(error);
  if (Error error =
          read(".private_segment_fixed_size", true, kernel.scratchBytes))
    return std::move(error);
  if (Error error = read(".wavefront_size", true, kernel.wavefrontSize))
    return std::move(error);
  if (Error error =
          read(".max_flat_workgroup_size", false, kernel.maxFlatWorkgroupSize))
    return std::move(error);
  if (const msgpack::DocNode *reqd = lookup(map, ".reqd_workgroup_size")) {
    if (reqd->getKind() != msgpack::Type::Array)
      return makeError("kernel '" + kernel.name +
                       "': .reqd_workgroup_size is not an array");
    unsigned size = 1;
    for (const msgpack::DocNode &dim :
         const_cast<msgpack::DocNode *>(reqd)->getArray()) {
      std::optional<uint64_t> value = getUInt(dim);
      if (!value)
        return makeError("kernel '" + kernel.name +
                         "': .reqd_workgroup_size has a non-integer entry");
      size *= *value;
    }
    kernel.requiredWorkgroupSize = size;
  }
  if (const msgpack::DocNode *dynamic = lookup(map, ".uses_dynamic_stack"))
    kernel.usesDynamicStack =
        dynamic->getKind() == msgpack::Type::Boolean && dynamic->getBool();
  return kernel;
}

Expected<CodeObjectInfo> crest::readCodeObjectInfo(StringRef bytes) {
  Expected<object::ELF64LEFile> elfOrErr = object::ELF64LEFile::create(bytes);
  if (!elfOrErr)
    return elfOrErr.takeError();
  const object::ELF64LEFile &elf = *elfOrErr;
  const object::ELF64LE::Ehdr &header = elf.getHeader();
  if (header.e_machine != ELF::EM_AMDGPU)
    return makeError("not an AMDGPU ELF file");
  CodeObjectInfo info;
  switch (header.e_ident[ELF::EI_ABIVERSION]) {
  case ELF::ELFABIVERSION_AMDGPU_HSA_V4:
    info.codeObjectVersion = 4;
    break;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    info.codeObjectVersion = 5;
    break;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V6:
    info.codeObjectVersion = 6;
    break;
  default:
    return makeError("unsupported code object ABI version " +
                     Twine(header.e_ident[ELF::EI_ABIVERSION]));
  }
  info.chip = lookupChipByElfMachine(header.e_flags & ELF::EF_AMDGPU_MACH);

  Expected<object::ELF64LE::PhdrRange> phdrs = elf.program_headers();
  if (!phdrs)
    return phdrs.takeError();
  bool foundMetadata = false;
  for (const object::ELF64LE::Phdr &phdr : *phdrs) {
    if (phdr.p_type != ELF::PT_NOTE)
      continue;
    Error noteError = Error::success();
    for (object::ELF64LE::Note note : elf.notes(phdr, noteError)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(phdr.p_align);
      msgpack::Document doc;
      if (!doc.readFromBlob(toStringRef(desc), /*Multi=*/false))
        return makeError("the AMDGPU metadata note is not valid MessagePack");
      if (doc.getRoot().getKind() != msgpack::Type::Map)
        return makeError("the AMDGPU metadata is not a map");
      msgpack::MapDocNode root = doc.getRoot().getMap();
      auto kernels = root.find(doc.getNode("amdhsa.kernels"));
      if (kernels == root.end() ||
          kernels->second.getKind() != msgpack::Type::Array)
        return makeError("the AMDGPU metadata has no amdhsa.kernels");
      for (msgpack::DocNode &node : kernels->second.getArray()) {
        Expected<KernelResources> kernel = readKernel(node);
        if (!kernel)
          return kernel.takeError();
        info.kernels.push_back(std::move(*kernel));
      }
      foundMetadata = true;
    }
    if (noteError)
      return std::move(noteError);
  }
  if (!foundMetadata)
    return makeError("the code object has no AMDGPU metadata note");
  return info;
}

//===----------------------------------------------------------------------===//
// Assembly
//===----------------------------------------------------------------------===//

InstructionCounts crest::countInstructions(StringRef assembly,
                                           StringRef kernel) {
  InstructionCounts counts;
  SmallVector<StringRef> lines;
  assembly.split(lines, '\n');
  bool inKernel = false;
  for (StringRef line : lines) {
    StringRef code = line.split(';').first.trim();
    if (!inKernel) {
      // The kernel's entry label: "name:" (the comment after it is gone).
      if (code.consume_back(":") && code == kernel) {
        inKernel = true;
        counts.found = true;
      }
      continue;
    }
    if (code.starts_with(".Lfunc_end"))
      break;
    if (code.empty() || code.starts_with(".") || code.ends_with(":"))
      continue;
    StringRef mnemonic = code.take_until(llvm::isSpace);
    ++counts.instructions;
    if (mnemonic.starts_with("v_mfma") || mnemonic.starts_with("v_smfmac") ||
        mnemonic.starts_with("v_wmma") || mnemonic.starts_with("v_swmmac"))
      ++counts.matrix;
    if (mnemonic == "s_barrier" || mnemonic.starts_with("s_barrier_signal"))
      ++counts.barriers;
  }
  return counts;
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

Expected<std::vector<KernelReport>>
crest::buildKernelReports(StringRef module, StringRef codeObject,
                          StringRef assembly, const ChipInfo &chip,
                          unsigned waveSize) {
  Expected<CodeObjectInfo> info = readCodeObjectInfo(codeObject);
  if (!info)
    return info.takeError();
  std::vector<KernelReport> reports;
  for (KernelResources &kernel : info->kernels) {
    KernelReport report;
    report.module = module.str();
    report.occupancy = computeOccupancy(
        chip, kernel.wavefrontSize ? kernel.wavefrontSize : waveSize,
        kernel.vgprCount, kernel.agprCount, kernel.ldsBytes,
        kernel.getWorkgroupSize());
    report.counts = countInstructions(assembly, kernel.name);
    if (!report.counts.found)
      return makeError("kernel '" + kernel.name +
                       "' is not in the assembly of gpu.module @" + module);
    report.resources = std::move(kernel);
    reports.push_back(std::move(report));
  }
  return reports;
}

void crest::printKernelReports(raw_ostream &os, ArrayRef<KernelReport> reports,
                               const ChipInfo &chip, unsigned waveSize,
                               unsigned codeObjectVersion) {
  StringRef matrixColumn = "mma";
  if (chip.hasMatrixCores())
    matrixColumn =
        chip.mmaInstructions.front().kind == MmaKind::MFMA ? "mfma" : "wmma";
  os << "crest-compile report: " << chip.name << " (" << chip.architecture
     << "), wave" << waveSize << ", code object v" << codeObjectVersion << "\n";

  SmallVector<std::string> header = {
      "kernel", "module",           "vgpr",       "agpr",       "sgpr",
      "lds",    "scratch",          "vgpr-spill", "sgpr-spill", "waves/SIMD",
      "limit",  matrixColumn.str(), "barriers"};
  SmallVector<SmallVector<std::string>> rows;
  rows.push_back(header);
  for (const KernelReport &report : reports) {
    const KernelResources &r = report.resources;
    rows.push_back(
        {r.name, report.module, std::to_string(r.vgprCount),
         std::to_string(r.agprCount), std::to_string(r.sgprCount),
         std::to_string(r.ldsBytes), std::to_string(r.scratchBytes),
         std::to_string(r.vgprSpillCount), std::to_string(r.sgprSpillCount),
         std::to_string(report.occupancy.wavesPerSimd),
         report.occupancy.limiter.str(), std::to_string(report.counts.matrix),
         std::to_string(report.counts.barriers)});
  }
  SmallVector<size_t> widths(header.size(), 0);
  for (const auto &row : rows)
    for (auto [index, cell] : llvm::enumerate(row))
      widths[index] = std::max(widths[index], cell.size());
  for (const auto &row : rows) {
    std::string line;
    for (auto [index, cell] : llvm::enumerate(row)) {
      // Names left-aligned, numbers right-aligned.
      bool left = index < 2 || index == 10;
      size_t pad = widths[index] - cell.size();
      if (index)
        line += "  ";
      if (!left)
        line.append(pad, ' ');
      line += cell;
      if (left && index + 1 < row.size())
        line.append(pad, ' ');
    }
    os << StringRef(line).rtrim() << "\n";
  }
}
