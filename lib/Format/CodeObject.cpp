//===- CodeObject.cpp - The one HSA code-object reader --------------------===//
//
// The ELF layout, the kernel descriptor and the metadata follow LLVM's
// AMDGPUUsage ("Code Object Metadata", "Kernel Descriptor"). Each read from
// the file is bounds-checked against the buffer.
//
//===----------------------------------------------------------------------===//

#include "crest/Format/CodeObject.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Object/ELF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "crest/Support/Limits.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

using namespace llvm;
using namespace crest;
using namespace crest::hsa;

using ELFT = object::ELF64LE;

namespace {
/// Builds errors that all start with the code object's name.
struct ErrorBuilder {
  StringRef file;
  template <typename... Ts>
  Error operator()(const char *fmt, Ts &&...vals) const {
    return createStringError(
        inconvertibleErrorCode(),
        (file + ": " + formatv(fmt, std::forward<Ts>(vals)...).str()).str());
  }
};
} // namespace

const KernelArg *Kernel::findArgByKind(StringRef valueKind) const {
  for (const KernelArg &arg : args)
    if (arg.valueKind == valueKind)
      return &arg;
  return nullptr;
}

const Kernel *CodeObject::findKernel(StringRef kernelName) const {
  for (const Kernel &kernel : kernels)
    if (kernel.name == kernelName)
      return &kernel;
  return nullptr;
}

/// Maps a virtual address range onto file bytes through the section headers.
static Expected<ArrayRef<uint8_t>>
readAtAddress(const object::ELFFile<ELFT> &elf, ArrayRef<ELFT::Shdr> sections,
              uint64_t address, uint64_t size, const ErrorBuilder &error) {
  ArrayRef<uint8_t> file(elf.base(), elf.getBufSize());
  for (const ELFT::Shdr &sec : sections) {
    if (sec.sh_type == ELF::SHT_NOBITS || !(sec.sh_flags & ELF::SHF_ALLOC))
      continue;
    if (address < sec.sh_addr || address - sec.sh_addr >= sec.sh_size)
      continue;
    uint64_t offsetInSection = address - sec.sh_addr;
    if (size > sec.sh_size - offsetInSection)
      return error("{0} bytes at address {1:x} run past the end of their "
                   "section",
                   size, address);
    uint64_t offset = sec.sh_offset + offsetInSection;
    if (offset > file.size() || size > file.size() - offset)
      return error("section data at file offset {0:x} lies outside the "
                   "{1}-byte file",
                   offset, file.size());
    return file.slice(offset, size);
  }
  return error("address {0:x} is in no section of the file", address);
}

static uint64_t getUInt(const msgpack::DocNode &node) {
  if (node.getKind() == msgpack::Type::UInt)
    return node.getUInt();
  if (node.getKind() == msgpack::Type::Int && node.getInt() >= 0)
    return node.getInt();
  return 0;
}

/// Reads `key` of a metadata map as an unsigned integer; missing keys give
/// `fallback`, values of another kind an error.
static Expected<uint64_t> getMapUInt(msgpack::MapDocNode &map, StringRef key,
                                     std::optional<uint64_t> fallback,
                                     StringRef context,
                                     const ErrorBuilder &error) {
  auto it = map.find(map.getDocument()->getNode(key));
  if (it == map.end()) {
    if (fallback)
      return *fallback;
    return error("metadata of {0} has no '{1}'", context, key);
  }
  msgpack::Type kind = it->second.getKind();
  if (kind != msgpack::Type::UInt &&
      !(kind == msgpack::Type::Int && it->second.getInt() >= 0))
    return error("metadata '{0}' of {1} is not a non-negative integer", key,
                 context);
  return getUInt(it->second);
}

static std::string getMapString(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(map.getDocument()->getNode(key));
  if (it == map.end() || it->second.getKind() != msgpack::Type::String)
    return "";
  return it->second.getString().str();
}

namespace {
struct KernelMetadata {
  Kernel fields; // everything but the descriptor and the code
  std::string symbol;
};
} // namespace

/// Checks that `blob` is one MessagePack object whose map keys are all
/// strings, as AMDGPU metadata is: LLVM's msgpack::Document traps on keys it
/// cannot order (maps, arrays), so corrupt input must not reach it.
static Error checkMetadataStructure(StringRef blob, const ErrorBuilder &error) {
  struct Frame {
    uint64_t remaining; ///< items left (keys and values for maps)
    bool isMap;
  };
  SmallVector<Frame> stack;
  msgpack::Reader reader(MemoryBufferRef(blob, "metadata"));
  bool readRoot = false;
  while (!readRoot || !stack.empty()) {
    msgpack::Object object;
    Expected<bool> read = reader.read(object);
    if (!read)
      return error("the AMDGPU metadata note is not valid MessagePack: {0}",
                   toString(read.takeError()));
    if (!*read)
      return error("the AMDGPU metadata note is not valid MessagePack (it "
                   "ends inside a map or list)");
    readRoot = true;
    bool isKey =
        !stack.empty() && stack.back().isMap && stack.back().remaining % 2 == 0;
    if (!stack.empty())
      --stack.back().remaining;
    if (isKey && object.Kind != msgpack::Type::String)
      return error("the AMDGPU metadata has a map key that is not a string");
    if (object.Kind == msgpack::Type::Map)
      stack.push_back({2 * uint64_t(object.Length), true});
    else if (object.Kind == msgpack::Type::Array)
      stack.push_back({uint64_t(object.Length), false});
    while (!stack.empty() && stack.back().remaining == 0)
      stack.pop_back();
  }
  return Error::success();
}

static Expected<std::vector<KernelMetadata>>
parseMetadata(StringRef blob, const ErrorBuilder &error) {
  if (Error e = checkMetadataStructure(blob, error))
    return std::move(e);
  msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false))
    return error("the AMDGPU metadata note is not valid MessagePack");
  if (doc.getRoot().getKind() != msgpack::Type::Map)
    return error("the AMDGPU metadata is not a map");
  msgpack::MapDocNode root = doc.getRoot().getMap();
  auto kernelsIt = root.find(doc.getNode("amdhsa.kernels"));
  if (kernelsIt == root.end() ||
      kernelsIt->second.getKind() != msgpack::Type::Array)
    return error("the AMDGPU metadata has no 'amdhsa.kernels' list");

  std::vector<KernelMetadata> result;
  for (msgpack::DocNode &node : kernelsIt->second.getArray()) {
    if (node.getKind() != msgpack::Type::Map)
      return error("an entry of 'amdhsa.kernels' is not a map");
    msgpack::MapDocNode map = node.getMap();
    KernelMetadata md;
    md.fields.name = getMapString(map, ".name");
    md.symbol = getMapString(map, ".symbol");
    if (md.fields.name.empty() || md.symbol.empty())
      return error("a kernel's metadata lacks '.name' or '.symbol'");
    std::string context = "kernel '" + md.fields.name + "'";
    auto read = [&](StringRef key, std::optional<uint64_t> fallback,
                    uint32_t &out) -> Error {
      Expected<uint64_t> value = getMapUInt(map, key, fallback, context, error);
      if (!value)
        return value.takeError();
      if (*value > UINT32_MAX)
        return error("metadata '{0}' of {1} is out of range ({2})", key,
                     context, *value);
      out = static_cast<uint32_t>(*value);
      return Error::success();
    };
    Kernel &k = md.fields;
    if (Error e =
            read(".kernarg_segment_size", std::nullopt, k.kernargSegmentSize))
      return std::move(e);
    if (Error e =
            read(".kernarg_segment_align", std::nullopt, k.kernargSegmentAlign))
      return std::move(e);
    if (Error e = read(".group_segment_fixed_size", std::nullopt,
                       k.groupSegmentFixedSize))
      return std::move(e);
    if (Error e = read(".private_segment_fixed_size", std::nullopt,
                       k.privateSegmentFixedSize))
      return std::move(e);
    if (Error e = read(".wavefront_size", std::nullopt, k.wavefrontSize))
      return std::move(e);
    if (Error e = read(".sgpr_count", std::nullopt, k.sgprCount))
      return std::move(e);
    if (Error e = read(".vgpr_count", std::nullopt, k.vgprCount))
      return std::move(e);
    if (Error e = read(".agpr_count", 0, k.agprCount))
      return std::move(e);
    if (Error e = read(".sgpr_spill_count", 0, k.sgprSpillCount))
      return std::move(e);
    if (Error e = read(".vgpr_spill_count", 0, k.vgprSpillCount))
      return std::move(e);
    if (Error e = read(".max_flat_workgroup_size", std::nullopt,
                       k.maxFlatWorkgroupSize))
      return std::move(e);
    if (k.maxFlatWorkgroupSize == 0 || k.maxFlatWorkgroupSize > 1024)
      return error("{0} has .max_flat_workgroup_size {1}; must be 1 to 1024",
                   context, k.maxFlatWorkgroupSize);
    auto reqd = map.find(doc.getNode(".reqd_workgroup_size"));
    if (reqd != map.end()) {
      if (reqd->second.getKind() != msgpack::Type::Array ||
          reqd->second.getArray().size() != 3)
        return error("'.reqd_workgroup_size' of {0} is not a list of three "
                     "integers",
                     context);
      uint64_t product = 1;
      for (auto [index, dim] : llvm::enumerate(reqd->second.getArray())) {
        msgpack::Type kind = dim.getKind();
        if (!(kind == msgpack::Type::UInt ||
              (kind == msgpack::Type::Int && dim.getInt() >= 0)) ||
            getUInt(dim) == 0 || getUInt(dim) > 1024)
          return error("'.reqd_workgroup_size' of {0} has an entry that is "
                       "not an integer from 1 to 1024",
                       context);
        k.reqdWorkgroupSize[index] = uint32_t(getUInt(dim));
        product *= getUInt(dim);
      }
      if (product > k.maxFlatWorkgroupSize)
        return error("'.reqd_workgroup_size' of {0} ({1} work-items) exceeds "
                     "its .max_flat_workgroup_size {2}",
                     context, product, k.maxFlatWorkgroupSize);
    }
    if (k.wavefrontSize != 32 && k.wavefrontSize != 64)
      return error("{0} has wavefront size {1}; must be 32 or 64", context,
                   k.wavefrontSize);
    auto dyn = map.find(doc.getNode(".uses_dynamic_stack"));
    k.usesDynamicStack = dyn != map.end() &&
                         dyn->second.getKind() == msgpack::Type::Boolean &&
                         dyn->second.getBool();

    auto argsIt = map.find(doc.getNode(".args"));
    if (argsIt != map.end()) {
      if (argsIt->second.getKind() != msgpack::Type::Array)
        return error("'.args' of {0} is not a list", context);
      for (msgpack::DocNode &argNode : argsIt->second.getArray()) {
        if (argNode.getKind() != msgpack::Type::Map)
          return error("an argument of {0} is not a map", context);
        msgpack::MapDocNode argMap = argNode.getMap();
        KernelArg arg;
        arg.name = getMapString(argMap, ".name");
        arg.valueKind = getMapString(argMap, ".value_kind");
        arg.addressSpace = getMapString(argMap, ".address_space");
        std::string argContext =
            "argument " + std::to_string(k.args.size()) + " of " + context;
        Expected<uint64_t> offset =
            getMapUInt(argMap, ".offset", std::nullopt, argContext, error);
        if (!offset)
          return offset.takeError();
        Expected<uint64_t> size =
            getMapUInt(argMap, ".size", std::nullopt, argContext, error);
        if (!size)
          return size.takeError();
        if (arg.valueKind.empty())
          return error("{0} has no '.value_kind'", argContext);
        if (*offset + *size > k.kernargSegmentSize)
          return error("{0} (offset {1}, size {2}) lies outside the {3}-byte "
                       "kernarg segment",
                       argContext, *offset, *size, k.kernargSegmentSize);
        arg.offset = static_cast<uint32_t>(*offset);
        arg.size = static_cast<uint32_t>(*size);
        k.args.push_back(std::move(arg));
      }
    }
    result.push_back(std::move(md));
  }
  return result;
}

Expected<CodeObject> CodeObject::load(ArrayRef<uint8_t> bytes,
                                      StringRef fileName) {
  ErrorBuilder error{fileName};
  StringRef data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  if (bytes.size() < sizeof(ELFT::Ehdr) || !data.starts_with("\x7f"
                                                             "ELF"))
    return error("not an ELF file");
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return error("not a 64-bit little-endian ELF file");

  Expected<object::ELFFile<ELFT>> elfOrErr =
      object::ELFFile<ELFT>::create(data);
  if (!elfOrErr)
    return error("malformed ELF: {0}", toString(elfOrErr.takeError()));
  object::ELFFile<ELFT> &elf = *elfOrErr;
  const ELFT::Ehdr &header = elf.getHeader();
  if (header.e_machine != ELF::EM_AMDGPU)
    return error("not an AMDGPU code object (e_machine {0})", header.e_machine);
  if (header.e_ident[ELF::EI_OSABI] != ELF::ELFOSABI_AMDGPU_HSA)
    return error("not an HSA code object (OS/ABI {0}; expected {1})",
                 header.e_ident[ELF::EI_OSABI], ELF::ELFOSABI_AMDGPU_HSA);

  CodeObject object;
  object.name = fileName.str();
  switch (header.e_ident[ELF::EI_ABIVERSION]) {
  case ELF::ELFABIVERSION_AMDGPU_HSA_V4:
    object.version = 4;
    break;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    object.version = 5;
    break;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V6:
    object.version = 6;
    break;
  default:
    return error("unsupported code object version (EI_ABIVERSION {0}); "
                 "supported: v4, v5, v6",
                 header.e_ident[ELF::EI_ABIVERSION]);
  }
  unsigned mach = header.e_flags & ELF::EF_AMDGPU_MACH;
  object.chip = lookupChipByElfMachine(mach);
  if (!object.chip)
    return error("code object is for a chip Crest does not know "
                 "(EF_AMDGPU_MACH {0:x}); known chips: {1}",
                 mach, getKnownChipNames());

  Expected<ELFT::ShdrRange> sectionsOrErr = elf.sections();
  if (!sectionsOrErr)
    return error("malformed section headers: {0}",
                 toString(sectionsOrErr.takeError()));
  ArrayRef<ELFT::Shdr> sections = *sectionsOrErr;

  // Kernel descriptors (<name>.kd) and function symbols by name.
  std::map<std::string, std::pair<uint64_t, uint64_t>> descriptors, functions;
  for (const ELFT::Shdr &sec : sections) {
    if (sec.sh_type != ELF::SHT_SYMTAB && sec.sh_type != ELF::SHT_DYNSYM)
      continue;
    Expected<ELFT::SymRange> symbols = elf.symbols(&sec);
    if (!symbols)
      return error("malformed symbol table: {0}",
                   toString(symbols.takeError()));
    Expected<StringRef> strtab = elf.getStringTableForSymtab(sec, sections);
    if (!strtab)
      return error("malformed symbol string table: {0}",
                   toString(strtab.takeError()));
    for (const ELFT::Sym &sym : *symbols) {
      Expected<StringRef> symName = sym.getName(*strtab);
      if (!symName)
        return error("malformed symbol name: {0}",
                     toString(symName.takeError()));
      if (sym.getType() == ELF::STT_OBJECT && symName->ends_with(".kd"))
        descriptors[symName->drop_back(3).str()] = {sym.st_value, sym.st_size};
      else if (sym.getType() == ELF::STT_FUNC)
        functions[symName->str()] = {sym.st_value, sym.st_size};
    }
  }

  // The metadata note.
  std::optional<std::vector<KernelMetadata>> metadata;
  for (const ELFT::Shdr &sec : sections) {
    if (sec.sh_type != ELF::SHT_NOTE)
      continue;
    Error noteErr = Error::success();
    for (const ELFT::Note &note : elf.notes(sec, noteErr)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(sec.sh_addralign);
      Expected<std::vector<KernelMetadata>> parsed = parseMetadata(
          StringRef(reinterpret_cast<const char *>(desc.data()), desc.size()),
          error);
      if (!parsed) {
        consumeError(std::move(noteErr));
        return parsed.takeError();
      }
      metadata = std::move(*parsed);
    }
    if (noteErr)
      return error("malformed note section: {0}", toString(std::move(noteErr)));
  }
  if (!metadata)
    return error("no AMDGPU metadata note (NT_AMDGPU_METADATA)");

  for (KernelMetadata &md : *metadata) {
    StringRef symbol = md.symbol;
    if (!symbol.consume_back(".kd"))
      return error("kernel '{0}' names symbol '{1}', which is not a kernel "
                   "descriptor (<name>.kd)",
                   md.fields.name, md.symbol);
    auto kdIt = descriptors.find(symbol.str());
    if (kdIt == descriptors.end())
      return error("metadata names kernel '{0}' but the code object has no "
                   "symbol '{1}'",
                   md.fields.name, md.symbol);
    auto [kdAddress, kdSize] = kdIt->second;
    if (kdSize != 64)
      return error("kernel descriptor '{0}' is {1} bytes; must be 64",
                   md.symbol, kdSize);
    Expected<ArrayRef<uint8_t>> kdBytes =
        readAtAddress(elf, sections, kdAddress, 64, error);
    if (!kdBytes)
      return kdBytes.takeError();

    Kernel kernel = std::move(md.fields);
    KernelDescriptor &kd = kernel.descriptor;
    const uint8_t *p = kdBytes->data();
    using support::endian::read16le;
    using support::endian::read32le;
    using support::endian::read64le;
    kd.groupSegmentFixedSize = read32le(p + 0);
    kd.privateSegmentFixedSize = read32le(p + 4);
    kd.kernargSize = read32le(p + 8);
    kd.kernelCodeEntryByteOffset = static_cast<int64_t>(read64le(p + 16));
    kd.computePgmRsrc3 = read32le(p + 44);
    kd.computePgmRsrc1 = read32le(p + 48);
    kd.computePgmRsrc2 = read32le(p + 52);
    kd.kernelCodeProperties = read16le(p + 56);
    kd.kernargPreload = read16le(p + 58);

    if (kd.groupSegmentFixedSize != kernel.groupSegmentFixedSize)
      return error("kernel '{0}': descriptor and metadata disagree on the "
                   "group segment size ({1} vs {2})",
                   kernel.name, kd.groupSegmentFixedSize,
                   kernel.groupSegmentFixedSize);
    if (kd.groupSegmentFixedSize > object.chip->ldsBytesPerWorkgroup)
      return error("kernel '{0}' needs {1} bytes of LDS; {2} has {3}",
                   kernel.name, kd.groupSegmentFixedSize, object.chip->name,
                   object.chip->ldsBytesPerWorkgroup);
    if ((kernel.wavefrontSize == 32) != kd.wave32())
      return error("kernel '{0}': metadata says wave{1} but the descriptor "
                   "says wave{2}",
                   kernel.name, kernel.wavefrontSize, kd.wave32() ? 32 : 64);
    if (!object.chip->supportsWaveSize(kernel.wavefrontSize))
      return error("kernel '{0}' is wave{1}, which {2} does not run",
                   kernel.name, kernel.wavefrontSize, object.chip->name);
    if (unsigned length = kd.kernargPreloadLength()) {
      unsigned offset = kd.kernargPreloadOffset();
      if (uint64_t(offset + length) * 4 > kernel.kernargSegmentSize)
        return error("kernel '{0}' preloads kernarg dwords {1} to {2} "
                     "(KERNARG_PRELOAD_SPEC_OFFSET {1}, LENGTH {3}), which "
                     "run past its {4}-byte kernarg segment",
                     kernel.name, offset, offset + length - 1, length,
                     kernel.kernargSegmentSize);
      unsigned enabled = kd.getNumEnabledUserSgprs();
      if (enabled + length > kMaxUserSgprs)
        return error("kernel '{0}' enables {1} user SGPRs and preloads {2} "
                     "kernarg dwords after them; a wave has at most {3} user "
                     "SGPRs",
                     kernel.name, enabled, length, kMaxUserSgprs);
    }

    kernel.entryAddress = kdAddress + kd.kernelCodeEntryByteOffset;
    // The code runs from the entry to the end of the kernel's function
    // symbol (or of its section when the symbol is missing).
    uint64_t codeEnd = 0;
    auto fnIt = functions.find(kernel.name);
    if (fnIt != functions.end() && fnIt->second.first == kernel.entryAddress)
      codeEnd = fnIt->second.first + fnIt->second.second;
    for (const ELFT::Shdr &sec : sections) {
      if (!(sec.sh_flags & ELF::SHF_EXECINSTR) ||
          kernel.entryAddress < sec.sh_addr ||
          kernel.entryAddress - sec.sh_addr >= sec.sh_size)
        continue;
      if (codeEnd <= kernel.entryAddress || codeEnd > sec.sh_addr + sec.sh_size)
        codeEnd = sec.sh_addr + sec.sh_size;
    }
    if (codeEnd <= kernel.entryAddress)
      return error("kernel '{0}': entry point {1:x} is not in an executable "
                   "section",
                   kernel.name, kernel.entryAddress);
    Expected<ArrayRef<uint8_t>> code =
        readAtAddress(elf, sections, kernel.entryAddress,
                      codeEnd - kernel.entryAddress, error);
    if (!code)
      return code.takeError();
    if (kd.kernargPreloadLength() &&
        code->size() <= kKernargPreloadPrologueBytes)
      return error("kernel '{0}' preloads kernel arguments, so it starts {1} "
                   "bytes past its entry (after the compatibility prologue), "
                   "but its code is {2} bytes",
                   kernel.name, kKernargPreloadPrologueBytes, code->size());
    kernel.code.assign(code->begin(), code->end());
    object.kernels.push_back(std::move(kernel));
  }
  if (object.kernels.empty())
    return error("the code object has no kernels");
  return object;
}

Expected<CodeObject> CodeObject::loadFile(StringRef path) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer =
      crest::readBoundedFile(path);
  if (!buffer)
    return buffer.takeError();
  ArrayRef<uint8_t> bytes = arrayRefFromStringRef((*buffer)->getBuffer());
  return load(bytes, path);
}
