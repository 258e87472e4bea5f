//===- CodeObject.h - The one HSA code-object reader ------------*- C++ -*-===//
//
// Loads an AMDGPU HSA code object (ELF, code object v4, v5 or v6): its
// kernels, each kernel's 64-byte kernel descriptor and the metadata note.
// The emulator's loader and `crest-compile --report` both read code objects
// through it, so one set of rules decides what is valid: the metadata
// fields AMDGPUUsage calls required must be present (.name, .symbol,
// .kernarg_segment_size, .kernarg_segment_align, .group_segment_fixed_size,
// .private_segment_fixed_size, .wavefront_size, .sgpr_count, .vgpr_count,
// .max_flat_workgroup_size), the optional ones default to 0 / false
// (.agpr_count, .sgpr_spill_count, .vgpr_spill_count, .uses_dynamic_stack;
// no .reqd_workgroup_size), and a field of the wrong kind is an error.
// Malformed input is an llvm::Error naming the file and what is wrong,
// never a crash. No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_FORMAT_CODEOBJECT_H
#define CREST_FORMAT_CODEOBJECT_H

#include "crest/Target/ChipTable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace crest::hsa {

/// One kernel argument as the metadata describes it.
struct KernelArg {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  /// `.value_kind`: "global_buffer", "by_value", "hidden_block_count_x", ...
  std::string valueKind;
  /// `.address_space` for pointers ("global", "generic", ...), else empty.
  std::string addressSpace;
};

/// The fields of the 64-byte kernel descriptor (AMDGPUUsage, "Kernel
/// Descriptor") that the dispatch ABI needs.
struct KernelDescriptor {
  uint32_t groupSegmentFixedSize = 0;
  uint32_t privateSegmentFixedSize = 0;
  uint32_t kernargSize = 0;
  int64_t kernelCodeEntryByteOffset = 0;
  uint32_t computePgmRsrc1 = 0;
  uint32_t computePgmRsrc2 = 0;
  uint32_t computePgmRsrc3 = 0;
  uint16_t kernelCodeProperties = 0;
  uint16_t kernargPreload = 0;

  // Decoded from the words above.
  bool enablePrivateSegment() const { return computePgmRsrc2 & 1; }
  unsigned userSgprCount() const { return (computePgmRsrc2 >> 1) & 0x1f; }
  bool enableWorkgroupId(unsigned dim) const {
    return (computePgmRsrc2 >> (7 + dim)) & 1;
  }
  bool enableWorkgroupInfo() const { return (computePgmRsrc2 >> 10) & 1; }
  /// 0: X only, 1: X and Y, 2: X, Y and Z.
  unsigned enableVgprWorkitemId() const { return (computePgmRsrc2 >> 11) & 3; }
  bool userSgprPrivateSegmentBuffer() const {
    return kernelCodeProperties & (1 << 0);
  }
  bool userSgprDispatchPtr() const { return kernelCodeProperties & (1 << 1); }
  bool userSgprQueuePtr() const { return kernelCodeProperties & (1 << 2); }
  bool userSgprKernargSegmentPtr() const {
    return kernelCodeProperties & (1 << 3);
  }
  bool userSgprDispatchId() const { return kernelCodeProperties & (1 << 4); }
  bool userSgprFlatScratchInit() const {
    return kernelCodeProperties & (1 << 5);
  }
  bool userSgprPrivateSegmentSize() const {
    return kernelCodeProperties & (1 << 6);
  }
  bool wave32() const { return kernelCodeProperties & (1 << 10); }
  /// The user SGPRs the kernel code properties enable (private segment
  /// buffer 4, dispatch ptr, queue ptr, kernarg segment ptr, dispatch id and
  /// flat scratch init 2 each, private segment size 1), not counting
  /// preloaded kernel arguments.
  unsigned getNumEnabledUserSgprs() const {
    return 4 * userSgprPrivateSegmentBuffer() + 2 * userSgprDispatchPtr() +
           2 * userSgprQueuePtr() + 2 * userSgprKernargSegmentPtr() +
           2 * userSgprDispatchId() + 2 * userSgprFlatScratchInit() +
           userSgprPrivateSegmentSize();
  }
  /// KERNARG_PRELOAD_SPEC_LENGTH: kernarg dwords the firmware copies into
  /// the user SGPRs after the enabled ones (0: no preloading).
  unsigned kernargPreloadLength() const { return kernargPreload & 0x7f; }
  /// KERNARG_PRELOAD_SPEC_OFFSET: the kernarg dword the copy starts at.
  unsigned kernargPreloadOffset() const { return kernargPreload >> 7; }
  /// gfx90a+: first AGPR in the unified register file, (ACCUM_OFFSET+1)*4.
  unsigned accumOffset() const { return ((computePgmRsrc3 & 0x3f) + 1) * 4; }
  /// FLOAT_DENORM_MODE_32 (0: flush in and out, 3: preserve).
  unsigned floatDenormMode32() const { return (computePgmRsrc1 >> 16) & 3; }
  unsigned floatDenormMode16_64() const { return (computePgmRsrc1 >> 18) & 3; }
  unsigned floatRoundMode32() const { return (computePgmRsrc1 >> 12) & 3; }
  unsigned floatRoundMode16_64() const { return (computePgmRsrc1 >> 14) & 3; }
  bool ieeeMode() const { return (computePgmRsrc1 >> 23) & 1; }
  bool dx10Clamp() const { return (computePgmRsrc1 >> 21) & 1; }
};

/// User SGPRs a wave can receive (USER_SGPR_COUNT at most) on every chip
/// Crest knows (LLVM's getMaxNumUserSGPRs: 16 before gfx1250).
constexpr unsigned kMaxUserSgprs = 16;

/// Bytes of compatibility prologue at the entry of a kernel that preloads
/// kernel arguments: firmware that preloads starts the kernel this far past
/// the entry; the prologue loads the same values with s_load for firmware
/// that does not (AMDGPUUsage, "Preloaded Kernel Arguments").
constexpr unsigned kKernargPreloadPrologueBytes = 256;

/// One kernel of a code object.
struct Kernel {
  std::string name;
  KernelDescriptor descriptor;
  /// Virtual address of the first instruction and the code bytes, from the
  /// entry to the end of the kernel's function symbol.
  uint64_t entryAddress = 0;
  std::vector<uint8_t> code;
  // From the metadata note.
  uint32_t kernargSegmentSize = 0;
  uint32_t kernargSegmentAlign = 0;
  uint32_t groupSegmentFixedSize = 0;
  uint32_t privateSegmentFixedSize = 0;
  uint32_t wavefrontSize = 64;
  uint32_t sgprCount = 0;
  /// Arch VGPRs, plus AGPRs on chips with a unified register file.
  uint32_t vgprCount = 0;
  uint32_t agprCount = 0;
  uint32_t sgprSpillCount = 0;
  uint32_t vgprSpillCount = 0;
  uint32_t maxFlatWorkgroupSize = 1024;
  /// .reqd_workgroup_size, all 0 when absent.
  std::array<uint32_t, 3> reqdWorkgroupSize = {0, 0, 0};
  bool usesDynamicStack = false;
  std::vector<KernelArg> args;

  /// Work-items of one workgroup: the required size when the kernel has
  /// one, else the largest it allows.
  uint32_t getWorkgroupSize() const {
    if (reqdWorkgroupSize[0])
      return reqdWorkgroupSize[0] * reqdWorkgroupSize[1] * reqdWorkgroupSize[2];
    return maxFlatWorkgroupSize;
  }

  const KernelArg *findArgByKind(llvm::StringRef valueKind) const;
};

/// A loaded code object.
class CodeObject {
public:
  /// Parses and validates `bytes` (an ET_DYN AMDGPU ELF). `name` is used in
  /// error messages (the file name).
  static llvm::Expected<CodeObject> load(llvm::ArrayRef<uint8_t> bytes,
                                         llvm::StringRef name);
  static llvm::Expected<CodeObject> loadFile(llvm::StringRef path);

  /// The chip (from the ELF e_flags), never null for a loaded object.
  const ChipInfo &getChip() const { return *chip; }
  /// 4, 5 or 6.
  unsigned getCodeObjectVersion() const { return version; }
  llvm::ArrayRef<Kernel> getKernels() const { return kernels; }
  /// Returns null if there is no kernel of that name.
  const Kernel *findKernel(llvm::StringRef name) const;
  llvm::StringRef getName() const { return name; }

private:
  std::string name;
  const ChipInfo *chip = nullptr;
  unsigned version = 0;
  std::vector<Kernel> kernels;
};

} // namespace crest::hsa

#endif // CREST_FORMAT_CODEOBJECT_H
