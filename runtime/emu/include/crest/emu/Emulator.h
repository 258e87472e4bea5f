//===- Emulator.h - Run AMDGPU code objects on the CPU ----------*- C++ -*-===//
//
// The emulator's public interface: device memory, and launching a decoded
// kernel over a grid with a race detector and counters.
//
//   Emulator emu;
//   uint64_t a = emu.getMemory().allocate(bytes, "a");
//   emu.getMemory().write(a, hostData);
//   Expected<LaunchResult> r = emu.launch(program, kernargs, config);
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_EMULATOR_H
#define CREST_EMU_EMULATOR_H

#include "crest/emu/Program.h"
#include "crest/emu/Timing.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace crest::emu {

/// Device global memory: allocations at distinct addresses in a 64-bit
/// address space, each with guard space around it, so that an access
/// outside every allocation is caught.
class Memory {
public:
  /// Returns the device address of `bytes` fresh bytes, filled with
  /// `fill`, 256-byte aligned. Not checked against the limit (for the
  /// emulator's own small allocations and tests); see tryAllocate.
  uint64_t allocate(uint64_t bytes, llvm::StringRef name, uint8_t fill = 0);
  /// allocate(), failing with a message naming `name` when the bytes
  /// allocated would exceed the limit.
  llvm::Expected<uint64_t> tryAllocate(uint64_t bytes, llvm::StringRef name,
                                       uint8_t fill = 0);
  /// The most bytes tryAllocate hands out in total (default:
  /// getDefaultLimit()).
  void setLimit(uint64_t bytes) { limit = bytes; }
  uint64_t getLimit() const { return limit; }
  /// Half of the host's physical memory (4 GiB if it cannot be read).
  static uint64_t getDefaultLimit();
  void release(uint64_t address);
  llvm::Error write(uint64_t address, llvm::ArrayRef<uint8_t> data);
  llvm::Error read(uint64_t address, llvm::MutableArrayRef<uint8_t> out) const;
  /// Host pointer to `size` bytes at `address` if they lie inside one
  /// allocation, else null.
  uint8_t *translate(uint64_t address, uint64_t size);
  /// translate() without its one-entry cache: safe to call from several
  /// threads at once while no allocation is made or released (a dispatch's
  /// workers). Sets `base`, `size` and `data` to the allocation found.
  uint8_t *find(uint64_t address, uint64_t size, uint64_t &allocBase,
                uint64_t &allocSize, uint8_t *&allocData) const;
  /// "12 bytes past the end of 'c' (0x..., 4096 bytes)", for diagnostics.
  std::string describe(uint64_t address) const;

  /// The lowest address allocations start at; flat addresses below the
  /// apertures and at or above this are global.
  static constexpr uint64_t kGlobalBase = 0x0000'1000'0000'0000ull;
  /// The shared (LDS) and private (scratch) apertures of flat addressing.
  static constexpr uint64_t kSharedAperture = 0x0001'0000'0000'0000ull;
  static constexpr uint64_t kPrivateAperture = 0x0002'0000'0000'0000ull;
  static constexpr uint64_t kApertureSize = 0x0001'0000'0000'0000ull;
  /// The base of the private segment buffer descriptor (s[0:3]) a dispatch
  /// gives each wave. A buffer resource address is 48 bits, so the private
  /// aperture cannot be used; buffer accesses whose address falls in
  /// [kPrivateSegmentBase, kPrivateSegmentBase + kPrivateSegmentSize) go to
  /// the wave's private memory, laid out as the hardware's swizzled scratch
  /// (4-byte elements interleaved across the lanes of the wave).
  static constexpr uint64_t kPrivateSegmentBase = 0x0000'0800'0000'0000ull;
  static constexpr uint64_t kPrivateSegmentSize = 0x0000'0800'0000'0000ull;

private:
  struct Allocation {
    std::string name;
    std::vector<uint8_t> bytes;
  };
  std::map<uint64_t, Allocation> allocations;
  uint64_t next = kGlobalBase;
  uint64_t allocated = 0;
  uint64_t limit = getDefaultLimit();
  // The last allocation translate() hit, to skip the map lookup.
  uint64_t cachedBase = 0, cachedSize = 0;
  uint8_t *cachedData = nullptr;
};

/// The host's hardware threads: the tools' default LaunchConfig::threads.
unsigned getHostThreads();

struct LaunchConfig {
  /// Workgroups in each dimension.
  std::array<uint32_t, 3> grid = {1, 1, 1};
  /// Work-items per workgroup in each dimension.
  std::array<uint32_t, 3> block = {64, 1, 1};
  uint32_t dynamicLdsBytes = 0;
  /// The value of the hidden_grid_dims argument; 0 counts the dimensions
  /// with more than one work-item (1, 2 or 3). HIP's module launches always
  /// pass 3 (a HIP launch is a 3-dimensional NDRange).
  uint32_t gridDims = 0;
  /// Instructions a wave runs before the scheduler switches to the next
  /// (1 interleaves most finely).
  uint32_t quantum = 64;
  /// With a seed, the next wave and each quantum (1..quantum) are drawn at
  /// random from this seed (per workgroup: the seed and the workgroup's
  /// linear index seed its own generator).
  std::optional<uint64_t> seed;
  bool detectRaces = true;
  /// Host threads that run workgroups at once (1: one after another). The
  /// results do not depend on it: each workgroup runs as it would alone
  /// (its own interleaving seed, its own counters and race reports, merged
  /// in workgroup order), global atomics are serialised per instruction,
  /// and the first failing workgroup in grid order is the one reported.
  /// Timing runs (which replay workgroups in order) use one thread.
  unsigned threads = 1;
  /// For kernels whose descriptor asks for kernel arguments in SGPRs
  /// (KERNARG_PRELOAD_SPEC_LENGTH != 0): true does what current firmware
  /// does, copying the kernarg dwords into the user SGPRs after the enabled
  /// ones and starting 256 bytes past the entry; false starts at the entry,
  /// as firmware without preloading does, so the kernel's compatibility
  /// prologue loads them.
  bool preloadKernargs = true;
  /// A dispatch that executes more wave instructions than this fails (a
  /// kernel that never ends), as does a wave that executes more than
  /// maxWaveInstructions, or a dispatch that runs longer than
  /// timeoutSeconds of host time (0: no timeout). docs/Reliability.md.
  uint64_t maxInstructions = kDefaultMaxInstructions;
  uint64_t maxWaveInstructions = kDefaultMaxWaveInstructions;
  double timeoutSeconds = 0;
  static constexpr uint64_t kDefaultMaxInstructions = uint64_t(1) << 28;
  static constexpr uint64_t kDefaultMaxWaveInstructions = uint64_t(1) << 20;
  /// With options, the timing model projects the dispatch's time on the
  /// chip (LaunchResult::timing); chips without a model are an error.
  std::optional<TimingOptions> timing;
};

/// A cross-wave LDS access pair with no barrier between them, or
/// (UnwaitedWrite) an access to bytes another wave wrote before the last
/// barrier without an `s_waitcnt lgkmcnt(0)` between its write and the
/// barrier (`ds_write; s_barrier` with the write still in flight).
struct RaceReport {
  enum Kind {
    ReadAfterWrite,
    WriteAfterRead,
    WriteAfterWrite,
    UnwaitedWrite
  } kind;
  uint64_t address; ///< PC of the second access.
  std::string disassembly;
  uint64_t otherAddress; ///< PC of the first access.
  std::string otherDisassembly;
  unsigned wave, otherWave;
  uint32_t ldsByte;
  std::array<uint32_t, 3> workgroup;

  std::string describe() const;
};

struct LaunchResult {
  uint64_t waveInstructions = 0;
  uint64_t valuInstructions = 0;
  uint64_t saluInstructions = 0;
  uint64_t mfmaInstructions = 0;
  uint64_t ldsInstructions = 0;
  uint64_t vmemInstructions = 0;
  uint64_t barriers = 0;
  /// Extra LDS cycles from bank conflicts, in total and per instruction
  /// address (instructions without conflicts have no entry). Model: 32
  /// banks of 4 bytes; an access of W dwords per lane is served in groups
  /// of 32 / W lanes (a half-wave for b32, 8 lanes for b128); per group,
  /// the most distinct dwords one bank holds, minus one (ops/DS.cpp).
  uint64_t bankConflictCycles = 0;
  std::map<uint64_t, uint64_t> bankConflictCyclesByAddress;
  /// The races found: one report per (kind, address, otherAddress), at
  /// most `kMaxRaces`; `racesFound` counts every racy byte access.
  std::vector<RaceReport> races;
  uint64_t racesFound = 0;
  static constexpr size_t kMaxRaces = 64;
  /// Host wall time of the emulation (not the GPU's time: see `timing`).
  double seconds = 0;
  /// The modelled time, when LaunchConfig::timing asked for it.
  std::shared_ptr<const KernelTiming> timing;
};

namespace timing {
struct CacheState;
} // namespace timing

class Emulator {
public:
  Emulator();
  ~Emulator();
  Emulator(Emulator &&);
  Emulator &operator=(Emulator &&);

  Memory &getMemory() { return memory; }

  /// Runs `program` over `config.grid`. `kernargs` holds the explicit
  /// arguments laid out as the metadata says (its size is the offset just
  /// past the last explicit argument); the hidden arguments of code object
  /// v5 and later are filled in by the emulator. Fails with a message on a
  /// bad configuration, an out-of-bounds access, an unimplemented operand
  /// form, a deadlock or a runaway kernel.
  llvm::Expected<LaunchResult> launch(const Program &program,
                                      llvm::ArrayRef<uint8_t> kernargs,
                                      const LaunchConfig &config);

private:
  Memory memory;
  /// The timing model's caches, kept across launches (created on the first
  /// timed launch).
  std::unique_ptr<timing::CacheState> caches;
};

} // namespace crest::emu

#endif // CREST_EMU_EMULATOR_H
