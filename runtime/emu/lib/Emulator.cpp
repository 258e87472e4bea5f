//===- Emulator.cpp - Dispatch, scheduling and the race detector
//------------===//
//
// A dispatch runs its workgroups one after another. Inside a workgroup the
// waves run round-robin, each for up to `quantum` instructions (or a random
// wave and quantum with a seed). `s_barrier` parks a wave until every wave
// that has not ended reaches it; if no wave can run, the dispatch fails with
// a deadlock. Register set-up follows AMDGPUUsage's "Initial Kernel
// Execution State".
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "crest/Support/Limits.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <chrono>
#include <random>
#include <unistd.h>

using namespace llvm;
using namespace crest;
using namespace crest::emu;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

uint64_t Memory::allocate(uint64_t bytes, StringRef name, uint8_t fill) {
  uint64_t base = next;
  Allocation &alloc = allocations[base];
  alloc.name = name.str();
  alloc.bytes.assign(bytes, fill);
  allocated += bytes;
  // Leave a gap of at least 64 KiB after each allocation so that accesses
  // just past the end land in no allocation.
  next = alignTo(base + std::max<uint64_t>(bytes, 1) + (64 << 10), 256);
  return base;
}

Expected<uint64_t> Memory::tryAllocate(uint64_t bytes, StringRef name,
                                       uint8_t fill) {
  if (bytes > limit || allocated > limit - bytes)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("cannot allocate {0} bytes for '{1}': the emulator's device "
                "memory limit is {2} bytes ({3} in use; set it with "
                "--emu-memory-limit)",
                bytes, name, limit, allocated)
            .str());
  return allocate(bytes, name, fill);
}

uint64_t Memory::getDefaultLimit() {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t(4) << 30;
  return uint64_t(pages) * uint64_t(pageSize) / 2;
}

void Memory::release(uint64_t address) {
  if (auto it = allocations.find(address); it != allocations.end())
    allocated -= it->second.bytes.size();
  allocations.erase(address);
  cachedBase = cachedSize = 0;
  cachedData = nullptr;
}

uint8_t *Memory::translate(uint64_t address, uint64_t size) {
  if (address - cachedBase < cachedSize &&
      size <= cachedSize - (address - cachedBase))
    return cachedData + (address - cachedBase);
  return find(address, size, cachedBase, cachedSize, cachedData);
}

uint8_t *Memory::find(uint64_t address, uint64_t size, uint64_t &allocBase,
                      uint64_t &allocSize, uint8_t *&allocData) const {
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin())
    return nullptr;
  --it;
  uint64_t offset = address - it->first;
  // The bytes are the device's memory: handing out a mutable pointer from a
  // const lookup is what lets several workers share the map.
  auto &bytes = const_cast<std::vector<uint8_t> &>(it->second.bytes);
  if (offset >= bytes.size() || size > bytes.size() - offset)
    return nullptr;
  allocBase = it->first;
  allocSize = bytes.size();
  allocData = bytes.data();
  return bytes.data() + offset;
}

uint8_t *Dispatch::translate(uint64_t address, uint64_t size) {
  if (address - cachedBase < cachedSize &&
      size <= cachedSize - (address - cachedBase))
    return cachedData + (address - cachedBase);
  return memory.find(address, size, cachedBase, cachedSize, cachedData);
}

Error Memory::write(uint64_t address, ArrayRef<uint8_t> data) {
  uint8_t *p = translate(address, data.size());
  if (!p)
    return createStringError(
        inconvertibleErrorCode(), "host write of %zu bytes at 0x%llx: %s",
        data.size(), (unsigned long long)address, describe(address).c_str());
  std::memcpy(p, data.data(), data.size());
  return Error::success();
}

Error Memory::read(uint64_t address, MutableArrayRef<uint8_t> out) const {
  auto *self = const_cast<Memory *>(this);
  uint8_t *p = self->translate(address, out.size());
  if (!p)
    return createStringError(
        inconvertibleErrorCode(), "host read of %zu bytes at 0x%llx: %s",
        out.size(), (unsigned long long)address, describe(address).c_str());
  std::memcpy(out.data(), p, out.size());
  return Error::success();
}

std::string Memory::describe(uint64_t address) const {
  auto it = allocations.upper_bound(address);
  if (it != allocations.begin()) {
    auto prev = std::prev(it);
    uint64_t size = prev->second.bytes.size();
    uint64_t offset = address - prev->first;
    if (offset < size)
      return formatv("byte {0} of '{1}' ({2} bytes at {3:x})", offset,
                     prev->second.name, size, prev->first);
    return formatv("{0} bytes past the end of '{1}' ({2} bytes at {3:x})",
                   offset - size, prev->second.name, size, prev->first);
  }
  if (it != allocations.end())
    return formatv("{0} bytes before '{1}' ({2:x})", it->first - address,
                   it->second.name, it->first);
  return "outside every allocation";
}

//===----------------------------------------------------------------------===//
// Waves
//===----------------------------------------------------------------------===//

Wave::Wave(Dispatch &dispatch, Workgroup &workgroup, unsigned id,
           unsigned numVgprs)
    : dispatch(dispatch), workgroup(workgroup), program(dispatch.program),
      id(id), lanes(program.getKernel().wavefrontSize),
      vgpr(size_t(numVgprs) * 64, 0), numVgprs(numVgprs) {}

uint32_t Wave::readScalar32(const Operand &op) const {
  if (op.kind == OperandKind::Imm)
    return static_cast<uint32_t>(op.imm);
  switch (op.index) {
  case sreg::SharedBase:
    return uint32_t(Memory::kSharedAperture >> 32);
  case sreg::PrivateBase:
    return uint32_t(Memory::kPrivateAperture >> 32);
  case sreg::SharedLimit:
    return uint32_t((Memory::kSharedAperture + Memory::kApertureSize - 1) >>
                    32);
  case sreg::PrivateLimit:
    return uint32_t((Memory::kPrivateAperture + Memory::kApertureSize - 1) >>
                    32);
  case sreg::Vccz:
    return vcc() == 0;
  case sreg::Execz:
    return exec() == 0;
  case sreg::Scc:
    return scc;
  case sreg::Null:
    return 0;
  default:
    return sgpr[op.index];
  }
}

uint64_t Wave::readScalar64(const Operand &op) const {
  if (op.kind == OperandKind::Imm)
    return op.imm;
  switch (op.index) {
  case sreg::SharedBase:
    return Memory::kSharedAperture;
  case sreg::PrivateBase:
    return Memory::kPrivateAperture;
  case sreg::SharedLimit:
    return Memory::kSharedAperture + Memory::kApertureSize - 1;
  case sreg::PrivateLimit:
    return Memory::kPrivateAperture + Memory::kApertureSize - 1;
  case sreg::Vccz:
  case sreg::Execz:
  case sreg::Scc:
  case sreg::Null:
    return readScalar32(op);
  default:
    return sgpr[op.index] | (uint64_t(sgpr[(op.index + 1) & 0xff]) << 32);
  }
}

void Wave::readScalarN(const Operand &op, uint32_t *out) const {
  if (op.kind == OperandKind::Imm) {
    out[0] = static_cast<uint32_t>(op.imm);
    for (unsigned i = 1; i < op.dwords; ++i)
      out[i] = 0;
    return;
  }
  for (unsigned i = 0; i < op.dwords; ++i)
    out[i] = sgpr[(op.index + i) & 0xff];
}

void Wave::writeScalar32(const Operand &op, uint32_t value) {
  if (op.index == sreg::Null)
    return;
  sgpr[op.index] = value;
}

void Wave::writeScalar64(const Operand &op, uint64_t value) {
  if (op.index == sreg::Null)
    return;
  sgpr[op.index] = uint32_t(value);
  sgpr[(op.index + 1) & 0xff] = uint32_t(value >> 32);
}

void Wave::writeScalarN(const Operand &op, const uint32_t *values, unsigned n) {
  if (op.index == sreg::Null)
    return;
  for (unsigned i = 0; i < n; ++i)
    sgpr[(op.index + i) & 0xff] = values[i];
}

uint8_t *Wave::global(const Inst &inst, uint64_t address, uint32_t size,
                      unsigned lane) {
  if (uint8_t *p = dispatch.translate(address, size)) {
    if (trace)
      trace->noteGlobal(address, size, dispatch.lineShift);
    return p;
  }
  fail(inst, formatv("out-of-bounds access of {0} bytes at {1:x} by lane "
                     "{2}: {3}",
                     size, address, lane, dispatch.memory.describe(address)));
  return nullptr;
}

void Wave::fail(const Inst &inst, const Twine &message) {
  status = Status::Done;
  if (dispatch.failed())
    return;
  size_t index = &inst - program.getInstructions().data();
  const Workgroup &wg = workgroup;
  dispatch.error =
      formatv("{0:x}: '{1}' (workgroup ({2}, {3}, {4}), wave {5}): {6}",
              inst.address, program.getDisassembly(index), wg.id[0], wg.id[1],
              wg.id[2], id, message.str())
          .str();
}

//===----------------------------------------------------------------------===//
// Race detector
//===----------------------------------------------------------------------===//
//
// Between two barriers (an epoch), an LDS byte that one wave writes and
// another wave reads or writes is a race, unless both accesses are DS
// atomics (the LDS orders those). The shadow keeps, per byte, the last
// write (wave, instruction, epoch, whether it was an atomic, and the
// writer's count of `s_waitcnt lgkmcnt(0)` at that time) and the last two
// distinct waves that read it in the current epoch. A write forgets the
// reads before it: a later access by another wave conflicts with the write
// itself. A wave never races with itself (its LDS accesses are in order).
//
// A write of the previous epoch may still be in flight after the barrier if
// its wave executed no `s_waitcnt lgkmcnt(0)` between the write and the
// barrier (gfx90a and gfx942 barriers do not wait for memory): an access by
// another wave is then an UnwaitedWrite race. Writes older than one barrier
// are taken as complete.
//
// The state is kept per 4-byte granule (the bank width, which nearly every
// access covers whole) and split into per-byte states only when a sub-dword
// access makes the bytes of a granule disagree; a later access that covers
// the granule and leaves its bytes equal merges them again.

std::string RaceReport::describe() const {
  static const char *kinds[] = {"read-after-write", "write-after-read",
                                "write-after-write", "unwaited-write"};
  if (kind == UnwaitedWrite)
    return formatv("LDS {0} race on byte {1} in workgroup ({2}, {3}, {4}): "
                   "wave {5} at {6:x} '{7}' accesses what wave {8} wrote at "
                   "{9:x} '{10}' before the last s_barrier with no "
                   "s_waitcnt lgkmcnt(0) between the write and the barrier",
                   kinds[kind], ldsByte, workgroup[0], workgroup[1],
                   workgroup[2], wave, address, disassembly, otherWave,
                   otherAddress, otherDisassembly);
  return formatv("LDS {0} race on byte {1} in workgroup ({2}, {3}, {4}): "
                 "wave {5} at {6:x} '{7}' and wave {8} at {9:x} '{10}' with "
                 "no barrier between them",
                 kinds[kind], ldsByte, workgroup[0], workgroup[1], workgroup[2],
                 wave, address, disassembly, otherWave, otherAddress,
                 otherDisassembly);
}

void Dispatch::reportRace(RaceReport::Kind kind, const Wave &wave, uint32_t pc,
                          unsigned otherWave, uint32_t otherPc,
                          uint32_t ldsByte, uint32_t bytes) {
  result.racesFound += bytes;
  const std::vector<Inst> &insts = program.getInstructions();
  uint64_t address = insts[pc].address, otherAddress = insts[otherPc].address;
  for (const RaceReport &race : result.races)
    if (race.kind == kind && race.address == address &&
        race.otherAddress == otherAddress)
      return;
  if (result.races.size() >= LaunchResult::kMaxRaces)
    return;
  RaceReport report{kind,
                    address,
                    program.getDisassembly(pc).str(),
                    otherAddress,
                    program.getDisassembly(otherPc).str(),
                    wave.id,
                    otherWave,
                    ldsByte,
                    wave.workgroup.id};
  result.races.push_back(std::move(report));
}

namespace {
/// One LDS access, as the race detector sees it.
struct ShadowAccess {
  Wave &wave;
  uint32_t pc;
  uint32_t epoch;
  uint16_t self;
  LdsAccess access;

  /// Reports the races of this access on `bytes` bytes from `byte` whose
  /// shadow state is `s`, then records the access in `s`.
  void apply(LdsShadow &s, uint32_t byte, uint32_t bytes) const;
};
} // namespace

void ShadowAccess::apply(LdsShadow &s, uint32_t byte, uint32_t bytes) const {
  Dispatch &dispatch = wave.dispatch;
  bool isRead = access == LdsAccess::Read;
  bool reported = false;
  if (s.writer != LdsShadow::kNoWave && s.writer != self &&
      !(s.writeAtomic && access == LdsAccess::Atomic)) {
    if (s.writeEpoch == epoch) {
      dispatch.reportRace(isRead ? RaceReport::ReadAfterWrite
                                 : RaceReport::WriteAfterWrite,
                          wave, pc, s.writer, s.writePc, byte, bytes);
      reported = true;
    } else if (s.writeEpoch + 1 == epoch &&
               s.writeWaits ==
                   wave.workgroup.waves[s.writer]->lgkmWaitsAtBarrier) {
      dispatch.reportRace(RaceReport::UnwaitedWrite, wave, pc, s.writer,
                          s.writePc, byte, bytes);
      reported = true;
    }
  }
  bool readThisEpoch = s.readEpoch == epoch;
  if (!isRead && !reported && readThisEpoch) {
    bool lastIsOther = s.reader != self;
    uint16_t other = lastIsOther ? s.reader : s.otherReader;
    if (other != LdsShadow::kNoWave)
      dispatch.reportRace(RaceReport::WriteAfterRead, wave, pc, other,
                          lastIsOther ? s.readPc : s.otherReadPc, byte, bytes);
  }

  if (isRead) {
    if (!readThisEpoch) {
      s.readEpoch = epoch;
      s.otherReader = LdsShadow::kNoWave;
      s.otherReadPc = 0;
    } else if (s.reader != self) {
      s.otherReader = s.reader;
      s.otherReadPc = s.readPc;
    }
    s.reader = self;
    s.readPc = pc;
    return;
  }
  s.writer = self;
  s.writeAtomic = access == LdsAccess::Atomic;
  s.writeEpoch = epoch;
  s.writePc = pc;
  s.writeWaits = wave.lgkmWaits;
  s.reader = s.otherReader = LdsShadow::kNoWave;
  s.readEpoch = s.readPc = s.otherReadPc = 0;
}

void Workgroup::initRaceDetector(size_t bytes) {
  size_t granules = (bytes + 3) / 4;
  ldsShadow.assign(granules, LdsShadow());
  ldsSplit.assign(granules, 0);
  ldsByteShadow.clear();
}

bool Workgroup::checkLdsAccess(Wave &wave, const Inst &inst, uint64_t offset,
                               uint32_t size, bool isWrite) {
  return checkLdsAccess(wave, inst, offset, size,
                        isWrite ? LdsAccess::Write : LdsAccess::Read);
}

bool Workgroup::checkLdsAccess(Wave &wave, const Inst &inst, uint64_t offset,
                               uint32_t size, LdsAccess access) {
  if (offset > lds.size() || size > lds.size() - offset) {
    wave.fail(inst, formatv("LDS access of {0} bytes at offset {1} is outside "
                            "the {2}-byte LDS allocation",
                            size, offset, lds.size()));
    return false;
  }
  if (ldsShadow.empty() || size == 0)
    return true;
  ShadowAccess sa{
      wave,
      static_cast<uint32_t>(&inst - wave.program.getInstructions().data()),
      barrierEpoch, static_cast<uint16_t>(wave.id), access};
  uint64_t end = offset + size;
  for (uint64_t g = offset / 4; g * 4 < end; ++g) {
    uint32_t lo = uint32_t(std::max(offset, g * 4));
    uint32_t hi = uint32_t(std::min(end, g * 4 + 4));
    bool whole = hi - lo == 4;
    if (!ldsSplit[g]) {
      LdsShadow &s = ldsShadow[g];
      if (whole) {
        sa.apply(s, lo, 4);
        continue;
      }
      LdsShadow updated = s;
      sa.apply(updated, lo, hi - lo);
      if (updated == s)
        continue;
      if (ldsByteShadow.empty())
        ldsByteShadow.resize(ldsShadow.size() * 4);
      for (uint32_t b = 0; b < 4; ++b)
        ldsByteShadow[g * 4 + b] = s;
      for (uint32_t b = lo; b < hi; ++b)
        ldsByteShadow[b] = updated;
      ldsSplit[g] = 1;
      continue;
    }
    LdsShadow *bytes = &ldsByteShadow[g * 4];
    for (uint32_t b = lo; b < hi; ++b)
      sa.apply(bytes[b - g * 4], b, 1);
    if (whole && bytes[1] == bytes[0] && bytes[2] == bytes[0] &&
        bytes[3] == bytes[0]) {
      ldsShadow[g] = bytes[0];
      ldsSplit[g] = 0;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

/// "gfx90a, gfx942": the chips the timing model has parameters for.
static std::string getTimingChipNames() {
  std::string names;
  for (const ChipInfo &chip : getAllChips())
    if (chip.timing)
      names += (names.empty() ? "" : ", ") + chip.name.str();
  return names;
}

/// Writes `value` (of `size` bytes) at `offset` of the kernarg segment.
static void putArg(std::vector<uint8_t> &segment, uint32_t offset,
                   uint32_t size, uint64_t value) {
  for (uint32_t i = 0; i < size && offset + i < segment.size(); ++i)
    segment[offset + i] = uint8_t(value >> (8 * i));
}

/// Lays out the kernarg segment: the caller's explicit arguments, then the
/// hidden arguments the metadata asks for.
static Expected<std::vector<uint8_t>>
buildKernargs(const Kernel &kernel, ArrayRef<uint8_t> explicitArgs,
              const LaunchConfig &config) {
  uint32_t explicitEnd = 0;
  for (const KernelArg &arg : kernel.args)
    if (!StringRef(arg.valueKind).starts_with("hidden_"))
      explicitEnd = std::max(explicitEnd, arg.offset + arg.size);
  if (explicitArgs.size() != explicitEnd)
    return createStringError(
        inconvertibleErrorCode(),
        "kernel '%s' takes %u bytes of explicit arguments, got %zu",
        kernel.name.c_str(), explicitEnd, explicitArgs.size());
  std::vector<uint8_t> segment(std::max(kernel.kernargSegmentSize, 256u), 0);
  std::copy(explicitArgs.begin(), explicitArgs.end(), segment.begin());
  for (const KernelArg &arg : kernel.args) {
    StringRef kind = arg.valueKind;
    uint64_t value = 0;
    if (kind.consume_front("hidden_block_count_")) {
      value = config.grid[kind[0] - 'x'];
    } else if (kind.consume_front("hidden_group_size_")) {
      value = config.block[kind[0] - 'x'];
    } else if (kind.consume_front("hidden_remainder_")) {
      value = 0; // every workgroup is full-sized: grid is in workgroups
    } else if (kind == "hidden_grid_dims") {
      value = config.gridDims                          ? config.gridDims
              : config.grid[2] * config.block[2] > 1   ? 3
              : config.grid[1] * config.block[1] > 1 ? 2
                                                     : 1;
    } else if (kind == "hidden_dynamic_lds_size") {
      value = config.dynamicLdsBytes;
    } else if (kind == "hidden_private_base") {
      value = uint32_t(Memory::kPrivateAperture >> 32);
    } else if (kind == "hidden_shared_base") {
      value = uint32_t(Memory::kSharedAperture >> 32);
    } else if (kind.starts_with("hidden_global_offset_") ||
               kind == "hidden_none" || kind == "hidden_printf_buffer" ||
               kind == "hidden_hostcall_buffer" ||
               kind == "hidden_default_queue" ||
               kind == "hidden_completion_action" ||
               kind == "hidden_multigrid_sync_arg" ||
               kind == "hidden_heap_v1" || kind == "hidden_queue_ptr") {
      value = 0;
    } else if (kind.starts_with("hidden_")) {
      return createStringError(inconvertibleErrorCode(),
                               "kernel '%s' needs the hidden argument '%s', "
                               "which the emulator does not provide",
                               kernel.name.c_str(), arg.valueKind.c_str());
    } else {
      continue;
    }
    putArg(segment, arg.offset, arg.size, value);
  }
  return segment;
}

namespace {
/// Runs one workgroup to completion.
class WorkgroupRunner {
public:
  explicit WorkgroupRunner(Dispatch &dispatch);

  /// Runs `wg`; with a seed, its waves interleave at random from a
  /// generator seeded by the seed and the workgroup's linear index.
  void run(Workgroup &wg, std::optional<uint64_t> seed, uint64_t linear);

private:
  void run(Workgroup &wg);
  void setUpWave(Wave &wave, unsigned firstItem, unsigned totalItems);
  Dispatch &dispatch;
  std::mt19937_64 *rng = nullptr;
  /// Per instruction: 1 if it is an `s_waitcnt` with lgkmcnt(0) (the race
  /// detector's view of when a wave's LDS writes have completed).
  std::vector<uint8_t> waitsForLgkm;
};
} // namespace

WorkgroupRunner::WorkgroupRunner(Dispatch &dispatch) : dispatch(dispatch) {
  const std::vector<Inst> &insts = dispatch.program.getInstructions();
  waitsForLgkm.assign(insts.size(), 0);
  for (size_t i = 0; i < insts.size(); ++i)
    // gfx9 SIMM16: vmcnt [3:0] and [15:14], expcnt [6:4], lgkmcnt [11:8].
    waitsForLgkm[i] = StringRef(insts[i].name) == "S_WAITCNT" &&
                      insts[i].numOps > 0 && insts[i].ops[0].isImm() &&
                      ((insts[i].ops[0].imm >> 8) & 0xf) == 0;
}

void WorkgroupRunner::setUpWave(Wave &wave, unsigned firstItem,
                                unsigned totalItems) {
  const Kernel &kernel = dispatch.program.getKernel();
  const KernelDescriptor &kd = kernel.descriptor;
  const LaunchConfig &config = dispatch.config;
  unsigned s = 0;
  auto put64 = [&](uint64_t v) {
    wave.sgpr[s++] = uint32_t(v);
    wave.sgpr[s++] = uint32_t(v >> 32);
  };
  if (kd.userSgprPrivateSegmentBuffer()) {
    // The scratch V# the ROCm runtime builds for gfx9 (ROCr's
    // InitScratchSRD): swizzled (DWORD1[31]), stride 0, NUM_RECORDS the
    // wave's scratch size, DST_SEL XYZW, NUM_FORMAT UINT, DATA_FORMAT 32,
    // INDEX_STRIDE 64 (wave64) or 32 (wave32), ADD_TID_ENABLE, TYPE buffer.
    // Its base is Memory::kPrivateSegmentBase, which the buffer handlers
    // map onto the wave's private memory (each wave has its own, so the
    // wave offset is 0).
    uint64_t base = Memory::kPrivateSegmentBase;
    unsigned indexStride = wave.lanes == 64 ? 3 : 2;
    wave.sgpr[s++] = uint32_t(base);
    wave.sgpr[s++] = uint32_t(base >> 32) | (1u << 31);
    wave.sgpr[s++] = kernel.privateSegmentFixedSize * wave.lanes;
    wave.sgpr[s++] = 0xfac | (4u << 12) | (4u << 15) | (1u << 19) |
                     (indexStride << 21) | (1u << 23);
  }
  if (kd.userSgprDispatchPtr())
    put64(dispatch.dispatchPacketAddress);
  if (kd.userSgprQueuePtr())
    put64(dispatch.queueAddress);
  if (kd.userSgprKernargSegmentPtr())
    put64(dispatch.kernargAddress);
  if (kd.userSgprDispatchId())
    put64(0);
  if (kd.userSgprFlatScratchInit())
    put64(Memory::kPrivateAperture);
  if (kd.userSgprPrivateSegmentSize())
    wave.sgpr[s++] = kernel.privateSegmentFixedSize;
  // Preloaded kernel arguments: KERNARG_PRELOAD_SPEC_LENGTH dwords of the
  // kernarg segment from dword KERNARG_PRELOAD_SPEC_OFFSET, in the user
  // SGPRs right after the enabled ones. Without preloading they are left
  // for the compatibility prologue to load, but still counted in
  // USER_SGPR_COUNT.
  if (config.preloadKernargs && kd.kernargPreloadLength()) {
    // (launch() checked that the dwords lie in the kernarg allocation.)
    const uint8_t *preload = dispatch.translate(
        dispatch.kernargAddress + 4 * kd.kernargPreloadOffset(),
        4 * kd.kernargPreloadLength());
    for (unsigned i = 0; i < kd.kernargPreloadLength(); ++i)
      wave.sgpr[s++] = support::endian::read32le(preload + 4 * i);
  }
  wave.pc = dispatch.program.getStartIndex(config.preloadKernargs);
  // (The user SGPR count was checked against USER_SGPR_COUNT at launch.)
  s = kd.userSgprCount();
  for (unsigned dim = 0; dim < 3; ++dim)
    if (kd.enableWorkgroupId(dim))
      wave.sgpr[s++] = wave.workgroup.id[dim];
  if (kd.enableWorkgroupInfo()) {
    unsigned wavesInGroup = static_cast<unsigned>(wave.workgroup.waves.size());
    wave.sgpr[s++] = (wave.id == 0 ? 1u << 31 : 0) | (wavesInGroup & 0x3f);
  }
  if (kd.enablePrivateSegment())
    wave.sgpr[s++] = 0; // scratch wave offset: each wave has its own memory

  // Work-item IDs: packed into v0 (X | Y << 10 | Z << 20) on chips with
  // packed IDs, else X, Y, Z in v0, v1, v2 as enabled.
  bool packed = dispatch.program.getChip().packedWorkItemIds;
  unsigned bx = config.block[0], by = config.block[1];
  uint64_t execMask = 0;
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    unsigned item = firstItem + lane;
    if (item >= totalItems)
      break;
    execMask |= uint64_t(1) << lane;
    unsigned x = item % bx, y = (item / bx) % by, z = item / (bx * by);
    if (packed) {
      wave.vreg(0)[lane] = x | (y << 10) | (z << 20);
    } else {
      wave.vreg(0)[lane] = x;
      if (kd.enableVgprWorkitemId() >= 1 && wave.numVgprs > 1)
        wave.vreg(1)[lane] = y;
      if (kd.enableVgprWorkitemId() >= 2 && wave.numVgprs > 2)
        wave.vreg(2)[lane] = z;
    }
  }
  wave.setExec(execMask);

  // MODE from COMPUTE_PGM_RSRC1.
  wave.mode = kd.floatRoundMode32() | (kd.floatRoundMode16_64() << 2) |
              (kd.floatDenormMode32() << 4) | (kd.floatDenormMode16_64() << 6) |
              (kd.dx10Clamp() ? mode::Dx10Clamp : 0) |
              (kd.ieeeMode() ? mode::Ieee : 0);
}

void WorkgroupRunner::run(Workgroup &wg, std::optional<uint64_t> seed,
                          uint64_t linear) {
  std::optional<std::mt19937_64> generator;
  if (seed) {
    std::seed_seq sequence{uint32_t(*seed), uint32_t(*seed >> 32),
                           uint32_t(linear), uint32_t(linear >> 32)};
    generator.emplace(sequence);
  }
  rng = generator ? &*generator : nullptr;
  run(wg);
  rng = nullptr;
}

void WorkgroupRunner::run(Workgroup &wg) {
  const Program &program = dispatch.program;
  const Kernel &kernel = program.getKernel();
  const LaunchConfig &config = dispatch.config;
  const std::vector<Inst> &insts = program.getInstructions();

  unsigned items = config.block[0] * config.block[1] * config.block[2];
  unsigned lanes = kernel.wavefrontSize;
  unsigned numWaves = (items + lanes - 1) / lanes;
  // Room for every VGPR and AGPR the kernel may name: 512 in the unified
  // file of gfx90a+, 256 + 256 separate files (AGPRs at 256) on gfx908.
  unsigned numVgprs = 512;
  for (unsigned w = 0; w < numWaves; ++w)
    wg.waves.push_back(std::make_unique<Wave>(dispatch, wg, w, numVgprs));
  const std::array<uint32_t, 3> &grid = config.grid;
  uint64_t linear = wg.id[0] + uint64_t(grid[0]) * (wg.id[1] + uint64_t(grid[1]) * wg.id[2]);
  timing::Recorder *recorder = dispatch.recorder;
  for (unsigned w = 0; w < numWaves; ++w) {
    Wave &wave = *wg.waves[w];
    if (recorder)
      wave.trace = recorder->beginWave(linear, wg.id, w);
    setUpWave(wave, w * lanes, items);
    wave.privateBytes = kernel.privateSegmentFixedSize;
    if (wave.privateBytes)
      wave.scratch.assign(size_t(wave.privateBytes) * lanes, 0);
  }

  LaunchResult &result = dispatch.result;
  unsigned next = 0, quantaSinceClock = 0;
  while (!dispatch.failed()) {
    // Pick the next ready wave.
    unsigned ready = 0, done = 0;
    for (auto &w : wg.waves) {
      ready += w->status == Wave::Status::Ready;
      done += w->status == Wave::Status::Done;
    }
    if (done == numWaves)
      break;
    if (ready == 0) {
      // Every live wave waits at the barrier: release them.
      ++wg.barrierEpoch;
      ++result.barriers;
      for (auto &w : wg.waves) {
        w->lgkmWaitsAtBarrier = w->lgkmWaits;
        if (w->status == Wave::Status::AtBarrier) {
          w->status = Wave::Status::Ready;
          w->epoch = wg.barrierEpoch;
        }
      }
      continue;
    }
    unsigned pick;
    uint32_t quantum = config.quantum;
    if (rng) {
      unsigned k = (*rng)() % ready;
      for (pick = 0; pick < numWaves; ++pick)
        if (wg.waves[pick]->status == Wave::Status::Ready && k-- == 0)
          break;
      quantum = 1 + (*rng)() % std::max<uint32_t>(config.quantum, 1);
    } else {
      pick = next;
      while (wg.waves[pick]->status != Wave::Status::Ready)
        pick = (pick + 1) % numWaves;
      next = (pick + 1) % numWaves;
    }
    Wave &wave = *wg.waves[pick];
    for (uint32_t n = 0; n < std::max<uint32_t>(quantum, 1); ++n) {
      if (wave.pc >= insts.size()) {
        wave.fail(insts.back(), "execution ran past the end of the kernel");
        break;
      }
      const Inst &inst = insts[wave.pc];
      wave.branched = false;
      inst.handler(wave, inst);
      wave.lgkmWaits += waitsForLgkm[&inst - insts.data()];
      if (wave.trace &&
          !recorder->commit(*wave.trace, linear,
                            static_cast<uint32_t>(&inst - insts.data()),
                            unsigned(llvm::popcount(wave.exec()))) &&
          !dispatch.failed())
        dispatch.error = formatv(
            "the timing model recorded more than {0} wave instructions; "
            "project large grids with a sample of their workgroups "
            "(crest-emu --timing-only) or check for a kernel that never ends",
            config.timing->maxRecords);
      ++result.waveInstructions;
      if (++wave.executed > config.maxWaveInstructions && !dispatch.failed())
        dispatch.error = formatv(
            "wave {0} of workgroup ({1}, {2}, {3}) exceeded {4} instructions "
            "at {5:x} (a kernel that never ends? raise the budget with "
            "--max-wave-instructions)",
            wave.id, wg.id[0], wg.id[1], wg.id[2], config.maxWaveInstructions,
            inst.address);
      // Every VALU encoding (VOP1/2/3/3P, SDWA, DPP) is a VALU instruction;
      // MFMAs count themselves.
      result.valuInstructions += inst.encoding != Encoding::Other;
      if (!wave.branched)
        ++wave.pc;
      if (wave.status != Wave::Status::Ready)
        break;
    }
    if (dispatch.getInstructionsSoFar() > config.maxInstructions &&
        !dispatch.failed())
      dispatch.error = formatv("the dispatch exceeded {0} wave instructions "
                               "(a kernel that never ends? raise the budget "
                               "with --max-instructions)",
                               config.maxInstructions);
    if (config.timeoutSeconds > 0 && ++quantaSinceClock >= 64) {
      quantaSinceClock = 0;
      if (std::chrono::steady_clock::now() > dispatch.deadline &&
          !dispatch.failed())
        dispatch.error = formatv("the dispatch ran longer than the {0} s "
                                 "timeout (--timeout)",
                                 config.timeoutSeconds);
    }
  }
}

namespace {
/// Merges one workgroup's counters and race reports into the dispatch's, in
/// workgroup order: the reports keep the first of each (kind, address,
/// otherAddress) up to LaunchResult::kMaxRaces, as one workgroup at a time
/// would.
void mergeWorkgroupResult(LaunchResult &total, LaunchResult &wg) {
  total.waveInstructions += wg.waveInstructions;
  total.valuInstructions += wg.valuInstructions;
  total.saluInstructions += wg.saluInstructions;
  total.mfmaInstructions += wg.mfmaInstructions;
  total.ldsInstructions += wg.ldsInstructions;
  total.vmemInstructions += wg.vmemInstructions;
  total.barriers += wg.barriers;
  total.bankConflictCycles += wg.bankConflictCycles;
  for (auto [address, cycles] : wg.bankConflictCyclesByAddress)
    total.bankConflictCyclesByAddress[address] += cycles;
  total.racesFound += wg.racesFound;
  for (RaceReport &race : wg.races) {
    if (total.races.size() >= LaunchResult::kMaxRaces)
      break;
    bool seen = llvm::any_of(total.races, [&](const RaceReport &other) {
      return other.kind == race.kind && other.address == race.address &&
             other.otherAddress == race.otherAddress;
    });
    if (!seen)
      total.races.push_back(std::move(race));
  }
}

/// What a workgroup leaves for the ordered merge besides its counters.
struct WorkgroupOutcome {
  uint64_t linear;
  LaunchResult result;
  std::string error;
};

/// Runs the dispatch's workgroups (those the timing model's sample executes,
/// when it is on) on config.threads workers, each with its own copy of
/// `dispatch`, and merges their results and first error (in grid order)
/// into `dispatch`.
void runWorkgroups(Dispatch &dispatch, uint64_t lds) {
  const LaunchConfig &config = dispatch.config;
  const std::array<uint32_t, 3> &grid = config.grid;
  uint64_t total = uint64_t(grid[0]) * grid[1] * grid[2];
  timing::Recorder *recorder = dispatch.recorder;
  // The timing model replays the workgroups in order: one worker.
  unsigned workers = recorder ? 1 : std::max(1u, config.threads);
  workers = unsigned(std::min<uint64_t>(workers, total));

  std::mutex atomics, outcomesLock;
  std::atomic<uint64_t> finishedInstructions{0}, next{0};
  std::atomic<bool> stop{false};
  std::vector<WorkgroupOutcome> outcomes;
  LaunchResult counters;
  auto work = [&] {
    Dispatch shard = dispatch;
    shard.atomics = &atomics;
    shard.finishedInstructions = &finishedInstructions;
    WorkgroupRunner runner(shard);
    LaunchResult mine;
    while (!stop.load(std::memory_order_relaxed)) {
      uint64_t linear = next.fetch_add(1);
      if (linear >= total)
        break;
      if (recorder && !recorder->getPlan().executes(linear))
        continue;
      uint32_t x = uint32_t(linear % grid[0]);
      uint32_t y = uint32_t(linear / grid[0] % grid[1]);
      uint32_t z = uint32_t(linear / (uint64_t(grid[0]) * grid[1]));
      Workgroup wg;
      wg.id = {x, y, z};
      wg.lds.assign(lds, 0);
      if (config.detectRaces)
        wg.initRaceDetector(lds);
      shard.result = LaunchResult();
      shard.error.clear();
      runner.run(wg, config.seed, linear);
      finishedInstructions.fetch_add(shard.result.waveInstructions,
                                     std::memory_order_relaxed);
      bool failed = shard.failed();
      if (failed || !shard.result.races.empty()) {
        std::lock_guard<std::mutex> guard(outcomesLock);
        outcomes.push_back({linear, std::move(shard.result), shard.error});
        // Workgroups before this one have all started and finish; none
        // after it starts.
        if (failed)
          stop = true;
        continue;
      }
      mergeWorkgroupResult(mine, shard.result);
    }
    std::lock_guard<std::mutex> guard(outcomesLock);
    mergeWorkgroupResult(counters, mine);
  };
  if (workers == 1) {
    work();
  } else {
    llvm::StdThreadPool pool(llvm::hardware_concurrency(workers));
    for (unsigned w = 0; w < workers; ++w)
      pool.async(work);
    pool.wait();
  }

  // Counters add up in any order; races and the error go in grid order.
  llvm::sort(outcomes, [](const WorkgroupOutcome &a, const WorkgroupOutcome &b) {
    return a.linear < b.linear;
  });
  LaunchResult &result = dispatch.result;
  mergeWorkgroupResult(result, counters);
  for (WorkgroupOutcome &outcome : outcomes) {
    mergeWorkgroupResult(result, outcome.result);
    if (!outcome.error.empty()) {
      dispatch.error = outcome.error;
      break;
    }
  }
}
} // namespace

unsigned emu::getHostThreads() {
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

Emulator::Emulator() = default;
Emulator::~Emulator() = default;
Emulator::Emulator(Emulator &&) = default;
Emulator &Emulator::operator=(Emulator &&) = default;

Expected<LaunchResult> Emulator::launch(const Program &program,
                                        ArrayRef<uint8_t> kernargs,
                                        const LaunchConfig &config) {
  auto start = std::chrono::steady_clock::now();
  const Kernel &kernel = program.getKernel();
  const ChipInfo &chip = program.getChip();
  auto error = [&](const Twine &message) {
    return createStringError(inconvertibleErrorCode(),
                             "launch of '" + kernel.name +
                                 "': " + message.str());
  };
  if (Error e = checkHsaGrid(config.grid, config.block))
    return error(toString(std::move(e)));
  // A kernel compiled for one workgroup size computes garbage (or leaves
  // outputs unwritten) with another: refuse the launch.
  if (kernel.reqdWorkgroupSize[0] && config.block != kernel.reqdWorkgroupSize)
    return error(formatv("block {0}x{1}x{2} differs from the kernel's "
                         "required workgroup size {3}x{4}x{5} "
                         "(.reqd_workgroup_size)",
                         config.block[0], config.block[1], config.block[2],
                         kernel.reqdWorkgroupSize[0],
                         kernel.reqdWorkgroupSize[1],
                         kernel.reqdWorkgroupSize[2]));
  uint64_t items =
      uint64_t(config.block[0]) * config.block[1] * config.block[2];
  if (items > kernel.maxFlatWorkgroupSize)
    return error(formatv("a block of {0} work-items exceeds the kernel's "
                         "maximum of {1}",
                         items, kernel.maxFlatWorkgroupSize));
  if (items > 1024)
    return error(formatv("a block of {0} work-items exceeds 1024", items));
  // Every wave executes at least one instruction: a grid of more waves than
  // the budget cannot finish (unless the timing model samples it).
  uint64_t waves = uint64_t(config.grid[0]) * config.grid[1] * config.grid[2] *
                   ((items + kernel.wavefrontSize - 1) / kernel.wavefrontSize);
  if (!(config.timing && config.timing->sampleOnly) &&
      waves > config.maxInstructions)
    return error(formatv("the grid's {0} waves exceed the dispatch's budget "
                         "of {1} wave instructions (--max-instructions)",
                         waves, config.maxInstructions));
  uint64_t lds =
      uint64_t(kernel.groupSegmentFixedSize) + config.dynamicLdsBytes;
  if (lds > chip.ldsBytesPerWorkgroup)
    return error(formatv("{0} bytes of LDS exceed the {1} {2} has", lds,
                         chip.ldsBytesPerWorkgroup, chip.name));
  if (kernel.wavefrontSize != 64 && kernel.wavefrontSize != 32)
    return error("unsupported wave size");

  // The user SGPRs the descriptor enables, preloaded kernel arguments
  // included (whether or not this dispatch preloads them), must fit in
  // USER_SGPR_COUNT.
  const KernelDescriptor &kd = kernel.descriptor;
  unsigned enabledUserSgprs = kd.getNumEnabledUserSgprs();
  unsigned preloadSgprs = kd.kernargPreloadLength();
  if (enabledUserSgprs + preloadSgprs > kd.userSgprCount())
    return error(formatv("the descriptor enables {0} user SGPRs{1} but "
                         "USER_SGPR_COUNT is {2}",
                         enabledUserSgprs,
                         preloadSgprs ? formatv(" and preloads {0} kernarg "
                                                "dwords after them",
                                                preloadSgprs)
                                            .str()
                                      : std::string(),
                         kd.userSgprCount()));

  Expected<std::vector<uint8_t>> segment =
      buildKernargs(kernel, kernargs, config);
  if (!segment)
    return segment.takeError();
  unsigned preloadEnd = kd.kernargPreloadOffset() + preloadSgprs;
  if (preloadSgprs && 4 * uint64_t(preloadEnd) > segment->size())
    return error(formatv("the kernel preloads kernarg dwords {0} to {1}, "
                         "past the {2}-byte kernarg segment",
                         kd.kernargPreloadOffset(), preloadEnd - 1,
                         segment->size()));

  Dispatch dispatch{memory, program, config, {}, {}, 0, 0, 0};
  if (config.timeoutSeconds > 0)
    dispatch.deadline =
        start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(config.timeoutSeconds));
  dispatch.kernargAddress = memory.allocate(segment->size(), "kernargs");
  cantFail(memory.write(dispatch.kernargAddress, *segment));
  dispatch.queueAddress = memory.allocate(256, "queue");
  {
    // hsa_kernel_dispatch_packet_t
    uint8_t packet[64] = {};
    using support::endian::write16le;
    using support::endian::write32le;
    using support::endian::write64le;
    write16le(packet + 2, 3); // setup: dimensions
    for (unsigned d = 0; d < 3; ++d) {
      write16le(packet + 4 + 2 * d, uint16_t(config.block[d]));
      write32le(packet + 12 + 4 * d, config.grid[d] * config.block[d]);
    }
    write32le(packet + 24, kernel.privateSegmentFixedSize);
    write32le(packet + 28, uint32_t(lds));
    write64le(packet + 40, dispatch.kernargAddress);
    dispatch.dispatchPacketAddress = memory.allocate(64, "dispatch packet");
    cantFail(memory.write(dispatch.dispatchPacketAddress, packet));
  }

  std::unique_ptr<timing::Recorder> recorder;
  if (config.timing) {
    if (!chip.timing)
      return error(formatv("the timing model has no parameters for {0}; it "
                           "covers {1}",
                           chip.name, getTimingChipNames()));
    if (!caches || caches->chip != &chip)
      caches = std::make_unique<timing::CacheState>(chip, *chip.timing);
    recorder = std::make_unique<timing::Recorder>(
        program, *chip.timing, *config.timing,
        timing::planGrid(program, config, *config.timing,
                         config.dynamicLdsBytes),
        *caches);
    dispatch.recorder = recorder.get();
    dispatch.lineShift = recorder->getLineShift();
  }

  runWorkgroups(dispatch, lds);
  memory.release(dispatch.kernargAddress);
  memory.release(dispatch.queueAddress);
  memory.release(dispatch.dispatchPacketAddress);
  if (dispatch.failed())
    return error(dispatch.error);
  if (recorder)
    dispatch.result.timing =
        std::make_shared<KernelTiming>(recorder->finish(chip));
  dispatch.result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return std::move(dispatch.result);
}
