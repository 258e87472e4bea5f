//===- Machine.h - Emulator state shared by the handlers --------*- C++ -*-===//
//
// The state of a dispatch, its workgroups and their waves, and the helpers
// every instruction handler uses to read and write operands. Handlers live
// in ops/*.cpp, one file per instruction family, and register themselves by
// opcode name in HandlerRegistry.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_MACHINE_H
#define CREST_EMU_LIB_MACHINE_H

#include "crest/emu/Emulator.h"
#include "crest/emu/Program.h"
#include "timing/Model.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <chrono>
#include <cstring>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace crest::emu {

class Workgroup;
struct Dispatch;

//===----------------------------------------------------------------------===//
// Handler registry
//===----------------------------------------------------------------------===//

/// Opcode-name to handler table, built once. Keys are MC opcode names
/// without the target suffix ("V_ADD_F32_e64", "S_LOAD_DWORDX2_IMM").
class HandlerRegistry {
public:
  static const HandlerRegistry &get();

  /// The handler for `key`, or null; `storedKey` receives the registry's
  /// copy of the key.
  Handler lookup(llvm::StringRef key, const char **storedKey) const;

  void add(llvm::StringRef key, Handler handler);
  /// Registers `handler` for a VALU opcode in every encoding LLVM names it
  /// with: `base`, `base_e32`, `base_e64`, `base_sdwa`, `base_dpp`.
  void addVALU(llvm::StringRef base, Handler handler);

  llvm::StringMap<Handler> handlers;
};

/// The registry key of an MC opcode name: the name without LLVM's target
/// and encoding-generation suffixes ("V_MFMA_F32_32X32X8F16_gfx940_acd" ->
/// "V_MFMA_F32_32X32X8F16"), exactly as the decoder looks handlers up.
llvm::StringRef getHandlerKey(llvm::StringRef mcOpcodeName);

// One registration function per family (ops/*.cpp).
void registerControlHandlers(HandlerRegistry &registry);
void registerSALUHandlers(HandlerRegistry &registry);
void registerSMEMHandlers(HandlerRegistry &registry);
void registerVALUHandlers(HandlerRegistry &registry);
void registerVMEMHandlers(HandlerRegistry &registry);
void registerDSHandlers(HandlerRegistry &registry);
void registerMFMAHandlers(HandlerRegistry &registry);

//===----------------------------------------------------------------------===//
// Waves
//===----------------------------------------------------------------------===//

/// MODE register fields (hardware layout of HW_REG_MODE on gfx9).
namespace mode {
constexpr uint32_t RoundMask = 0xf;         ///< [3:0] fp round modes
constexpr uint32_t DenormShift = 4;         ///< [7:4] fp denorm modes
constexpr uint32_t Denorm32Mask = 0x3 << 4; ///< f32: 0 flush, 3 keep
constexpr uint32_t Denorm16_64Mask = 0x3 << 6;
constexpr uint32_t Dx10Clamp = 1u << 8;
constexpr uint32_t Ieee = 1u << 9;
} // namespace mode

class Wave {
public:
  enum class Status : uint8_t { Ready, AtBarrier, Done };

  Wave(Dispatch &dispatch, Workgroup &workgroup, unsigned id,
       unsigned numVgprs);

  // -- Identity ------------------------------------------------------------
  Dispatch &dispatch;
  Workgroup &workgroup;
  const Program &program;
  unsigned id;    ///< Wave index inside the workgroup.
  unsigned lanes; ///< 32 or 64.

  // -- Architectural state ---------------------------------------------------
  uint32_t sgpr[sreg::Count] = {};
  bool scc = false;
  uint32_t mode = 0;
  /// VGPRs (and AGPRs, in the unified file), register-major: the 64 lane
  /// values of register r start at r * 64.
  std::vector<uint32_t> vgpr;
  unsigned numVgprs;
  /// Private (scratch) memory: `privateBytes` per lane, lane-major.
  std::vector<uint8_t> scratch;
  uint32_t privateBytes = 0;

  // -- Control ---------------------------------------------------------------
  uint32_t pc = 0;       ///< Index of the next instruction.
  uint64_t executed = 0; ///< Instructions this wave has executed.
  bool branched = false; ///< Set by handlers that changed `pc`.
  Status status = Status::Ready;
  /// Barrier generation the wave last passed (for the race detector).
  uint32_t epoch = 0;
  /// `s_waitcnt lgkmcnt(0)` instructions executed, and their number when the
  /// wave last left a barrier (the race detector's "LDS write not waited
  /// for before s_barrier" check).
  uint32_t lgkmWaits = 0;
  uint32_t lgkmWaitsAtBarrier = 0;
  /// Where the timing model records this wave (null when it is off).
  timing::WaveTrace *trace = nullptr;

  uint64_t exec() const {
    uint64_t e = sgpr[sreg::ExecLo] | (uint64_t(sgpr[sreg::ExecHi]) << 32);
    return lanes == 64 ? e : (e & 0xffffffffull);
  }
  void setExec(uint64_t e) {
    sgpr[sreg::ExecLo] = uint32_t(e);
    sgpr[sreg::ExecHi] = uint32_t(e >> 32);
  }
  uint64_t vcc() const {
    return sgpr[sreg::VccLo] | (uint64_t(sgpr[sreg::VccHi]) << 32);
  }
  void setVcc(uint64_t v) {
    sgpr[sreg::VccLo] = uint32_t(v);
    sgpr[sreg::VccHi] = uint32_t(v >> 32);
  }
  bool laneActive(unsigned lane) const { return (exec() >> lane) & 1; }

  uint32_t *vreg(unsigned index) { return &vgpr[size_t(index) * 64]; }
  const uint32_t *vreg(unsigned index) const {
    return &vgpr[size_t(index) * 64];
  }

  /// Jumps to instruction `index`.
  void jump(int32_t index) {
    pc = static_cast<uint32_t>(index);
    branched = true;
  }

  // -- Scalar operands
  // ---------------------------------------------------------
  uint32_t readScalar32(const Operand &op) const;
  uint64_t readScalar64(const Operand &op) const;
  /// Reads `op.dwords` registers (or an immediate) into `out`.
  void readScalarN(const Operand &op, uint32_t *out) const;
  void writeScalar32(const Operand &op, uint32_t value);
  void writeScalar64(const Operand &op, uint64_t value);
  void writeScalarN(const Operand &op, const uint32_t *values, unsigned n);

  // -- Vector operands (per lane) --------------------------------------------
  /// Value of a VALU source for `lane`: a VGPR, an SGPR (the same for every
  /// lane), or an immediate.
  uint32_t readLane32(const Operand &op, unsigned lane) const {
    if (op.kind == OperandKind::Vector)
      return vgpr[size_t(op.index) * 64 + lane];
    return readScalar32(op);
  }
  uint64_t readLane64(const Operand &op, unsigned lane) const {
    if (op.kind == OperandKind::Vector)
      return vgpr[size_t(op.index) * 64 + lane] |
             (uint64_t(vgpr[size_t(op.index + 1) * 64 + lane]) << 32);
    return readScalar64(op);
  }
  void writeLane32(const Operand &op, unsigned lane, uint32_t value) {
    vgpr[size_t(op.index) * 64 + lane] = value;
  }
  void writeLane64(const Operand &op, unsigned lane, uint64_t value) {
    vgpr[size_t(op.index) * 64 + lane] = uint32_t(value);
    vgpr[size_t(op.index + 1) * 64 + lane] = uint32_t(value >> 32);
  }

  /// Host pointer to `size` bytes of global memory at `address`; on an
  /// access outside every allocation, fails the wave (naming the lane, the
  /// address and the nearest allocation) and returns null.
  uint8_t *global(const Inst &inst, uint64_t address, uint32_t size,
                  unsigned lane);

  /// Stops the dispatch with an error about `inst`.
  void fail(const Inst &inst, const llvm::Twine &message);
};

//===----------------------------------------------------------------------===//
// Workgroups
//===----------------------------------------------------------------------===//

/// The kinds of LDS access the race detector tells apart. DS atomics are
/// ordered among themselves, so two atomics never race.
enum class LdsAccess : uint8_t { Read, Write, Atomic };

/// Race-detector state of LDS bytes: the last write of the current (or
/// previous) barrier epoch and the last two distinct reading waves of the
/// current one. Kept per 4-byte granule while all four bytes agree, else
/// per byte (Workgroup::ldsByteShadow).
struct LdsShadow {
  static constexpr uint16_t kNoWave = 0xffff;
  uint16_t writer = kNoWave; ///< Last writing wave, in `writeEpoch`.
  uint16_t reader = kNoWave; ///< Last reading wave, in `readEpoch`.
  /// Another wave that read in `readEpoch` (kNoWave if only `reader` did).
  uint16_t otherReader = kNoWave;
  bool writeAtomic = false; ///< The last write was a DS atomic.
  uint32_t writeEpoch = 0;
  uint32_t writePc = 0; ///< Instruction index of that write.
  /// The writer's Wave::lgkmWaits when it wrote.
  uint32_t writeWaits = 0;
  uint32_t readEpoch = 0;
  uint32_t readPc = 0, otherReadPc = 0;

  bool operator==(const LdsShadow &o) const {
    return writer == o.writer && reader == o.reader &&
           otherReader == o.otherReader && writeAtomic == o.writeAtomic &&
           writeEpoch == o.writeEpoch && writePc == o.writePc &&
           writeWaits == o.writeWaits && readEpoch == o.readEpoch &&
           readPc == o.readPc && otherReadPc == o.otherReadPc;
  }
};

class Workgroup {
public:
  std::array<uint32_t, 3> id = {};
  std::vector<uint8_t> lds;
  /// Race-detector state per 4-byte granule; empty when races are not
  /// checked. A granule whose bytes disagree is "split": its state lives in
  /// `ldsByteShadow` (allocated on the first split).
  std::vector<LdsShadow> ldsShadow;
  std::vector<uint8_t> ldsSplit;
  std::vector<LdsShadow> ldsByteShadow;
  std::vector<std::unique_ptr<Wave>> waves;
  /// Incremented each time every live wave has reached the barrier.
  uint32_t barrierEpoch = 0;

  /// Records an LDS access by `wave` for the race detector and the bank
  /// model; returns false (after failing the wave) if [offset, offset+size)
  /// is outside the LDS allocation.
  bool checkLdsAccess(Wave &wave, const Inst &inst, uint64_t offset,
                      uint32_t size, bool isWrite);
  bool checkLdsAccess(Wave &wave, const Inst &inst, uint64_t offset,
                      uint32_t size, LdsAccess access);
  /// Sets up the race detector's shadow for `bytes` bytes of LDS.
  void initRaceDetector(size_t bytes);
};

//===----------------------------------------------------------------------===//
// Dispatches
//===----------------------------------------------------------------------===//

struct Dispatch {
  Memory &memory;
  const Program &program;
  const LaunchConfig &config;
  LaunchResult result;
  std::string error; ///< Set on the first failure; stops the dispatch.
  uint64_t kernargAddress = 0;
  uint64_t dispatchPacketAddress = 0;
  uint64_t queueAddress = 0;
  /// The timing model's recorder (null when timing is off).
  timing::Recorder *recorder = nullptr;
  unsigned lineShift = 7;
  /// When LaunchConfig::timeoutSeconds is set, the host time the dispatch
  /// must end by.
  std::chrono::steady_clock::time_point deadline;
  /// Shared by the dispatch's workers (Emulator::launch gives each its own
  /// Dispatch, whose `result` and `error` cover the workgroup it runs):
  /// the lock that makes each global atomic instruction one indivisible
  /// step, and the wave instructions of the workgroups already finished.
  std::mutex *atomics = nullptr;
  std::atomic<uint64_t> *finishedInstructions = nullptr;
  /// The worker's one-entry cache of Memory::find.
  uint64_t cachedBase = 0, cachedSize = 0;
  uint8_t *cachedData = nullptr;

  bool failed() const { return !error.empty(); }
  /// Memory::translate through this worker's cache.
  uint8_t *translate(uint64_t address, uint64_t size);
  /// Wave instructions of the dispatch so far, as far as this worker knows.
  uint64_t getInstructionsSoFar() const {
    return finishedInstructions->load(std::memory_order_relaxed) +
           result.waveInstructions;
  }
  /// Counts `bytes` racy LDS bytes (the first is `ldsByte`) and keeps one
  /// report per (kind, pc, otherPc).
  void reportRace(RaceReport::Kind kind, const Wave &wave, uint32_t pc,
                  unsigned otherWave, uint32_t otherPc, uint32_t ldsByte,
                  uint32_t bytes = 1);
};

//===----------------------------------------------------------------------===//
// Bit helpers
//===----------------------------------------------------------------------===//

inline float asFloat(uint32_t bits) { return llvm::bit_cast<float>(bits); }
inline uint32_t asBits(float value) { return llvm::bit_cast<uint32_t>(value); }
inline double asDouble(uint64_t bits) { return llvm::bit_cast<double>(bits); }
inline uint64_t asBits(double value) { return llvm::bit_cast<uint64_t>(value); }

/// Sign-extends the low `bits` bits of `value`.
inline int64_t signExtend(uint64_t value, unsigned bits) {
  uint64_t m = uint64_t(1) << (bits - 1);
  value &= (bits == 64) ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1);
  return static_cast<int64_t>((value ^ m) - m);
}

} // namespace crest::emu

#endif // CREST_EMU_LIB_MACHINE_H
