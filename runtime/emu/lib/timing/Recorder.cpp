//===- Recorder.cpp - What the functional core executed, for the model ----===//
//
// Each recorded wave keeps one Record per executed instruction. Memory
// lines are classified as the functional core executes them, in its order
// (workgroup after workgroup), by an L1 per compute unit, an L2 per XCD and
// the MALL, each a set-associative LRU cache of the chip's sizes; a line
// none of them holds comes from HBM. Stores write through the L1 to the L2.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "crest/emu/Program.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace llvm;
using namespace crest;
using namespace crest::emu;
using namespace crest::emu::timing;

//===----------------------------------------------------------------------===//
// CacheSim
//===----------------------------------------------------------------------===//

CacheSim::CacheSim(uint64_t bytes, unsigned lineBytes, unsigned ways)
    : ways(ways) {
  uint64_t lines = std::max<uint64_t>(bytes / std::max(lineBytes, 1u), ways);
  sets = std::max<uint64_t>(lines / ways, 1);
}

void CacheSim::clear() {
  tags.clear();
  stamps.clear();
  clock = 0;
}

bool CacheSim::access(uint64_t line) {
  if (tags.empty()) {
    tags.assign(sets * ways, 0);
    stamps.assign(sets * ways, 0);
  }
  // Spread consecutive lines over the sets.
  uint64_t set = (line ^ (line >> 17)) % sets;
  uint64_t *t = &tags[set * ways];
  uint64_t *s = &stamps[set * ways];
  ++clock;
  unsigned victim = 0;
  for (unsigned w = 0; w < ways; ++w) {
    if (t[w] == line + 1) {
      s[w] = clock;
      return true;
    }
    if (s[w] < s[victim])
      victim = w;
  }
  t[victim] = line + 1;
  s[victim] = clock;
  return false;
}

//===----------------------------------------------------------------------===//
// GridPlan
//===----------------------------------------------------------------------===//

bool GridPlan::traces(uint64_t linear) const {
  if (whole)
    return true;
  if (placement.cuOf(linear) != sampleCu)
    return false;
  // The k-th workgroup of the sampled CU.
  uint64_t k = (linear / placement.xcds) / placement.cusPerXcd();
  return k < sampleCount;
}

bool GridPlan::executes(uint64_t linear) const {
  if (!sampleOnly || whole)
    return true;
  // The sampled CU's XCD up to the sample's horizon, so that its L2 sees
  // the traffic of the CUs it shares data with.
  if (placement.xcdOf(linear) != placement.xcdOf(
                                     placement.workgroupOf(sampleCu, 0)))
    return false;
  uint64_t k = (linear / placement.xcds) / placement.cusPerXcd();
  return k < sampleCount;
}

//===----------------------------------------------------------------------===//
// Recorder
//===----------------------------------------------------------------------===//

CacheState::CacheState(const ChipInfo &chip, const TimingParams &params)
    : chip(&chip) {
  l1.reserve(params.computeUnits);
  for (unsigned c = 0; c < params.computeUnits; ++c)
    l1.emplace_back(params.l1Bytes, params.cacheLineBytes, params.l1Ways);
  for (unsigned x = 0; x < params.xcds; ++x)
    l2.emplace_back(params.l2BytesPerXcd, params.cacheLineBytes, params.l2Ways);
  if (params.mallBytes)
    mall = CacheSim(params.mallBytes, params.cacheLineBytes, params.mallWays);
}

void CacheState::beginLaunch() {
  for (CacheSim &c : l1)
    c.clear();
}

Recorder::Recorder(const Program &program, const TimingParams &params,
                   const TimingOptions &options, GridPlan plan,
                   CacheState &caches)
    : program(program), params(params), options(options),
      plan(std::move(plan)), caches(caches) {
  code = classifyProgram(program, program.getChip());
  lineShift = Log2_32(std::max(params.cacheLineBytes, 4u));
  // 8 bytes a workgroup; beyond 2^24 workgroups the emulation itself takes
  // hours, and the equal-work extrapolation stands.
  if (!this->plan.whole && !this->plan.sampleOnly &&
      this->plan.workgroups <= (uint64_t(1) << 24))
    workgroupInstructions.assign(this->plan.workgroups, 0);
  caches.beginLaunch();
}

Recorder::~Recorder() = default;

WaveTrace *Recorder::beginWave(uint64_t linear, std::array<uint32_t, 3> id,
                               unsigned wave) {
  if (!plan.traces(linear)) {
    scratch.records.clear();
    return &scratch;
  }
  if (workgroups.empty() || workgroups.back()->linear != linear) {
    auto wg = std::make_unique<WorkgroupTrace>();
    wg->linear = linear;
    wg->id = id;
    workgroups.push_back(std::move(wg));
  }
  WorkgroupTrace &wg = *workgroups.back();
  while (wg.waves.size() <= wave)
    wg.waves.push_back(std::make_unique<WaveTrace>());
  return wg.waves[wave].get();
}

void Recorder::classifyLines(WaveTrace &trace, uint64_t linear, bool store,
                             Record &record) {
  auto &lines = trace.pendingLines;
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  CacheSim &cuL1 = caches.l1[plan.placement.cuOf(linear)];
  CacheSim &xcdL2 = caches.l2[plan.placement.xcdOf(linear) % caches.l2.size()];
  CacheSim &mall = caches.mall;
  for (uint64_t line : lines) {
    Level level = Hbm;
    bool l1Hit = cuL1.access(line);
    if (l1Hit && !store)
      level = L1;
    else if (xcdL2.access(line))
      level = L2;
    else if (mall.enabled() && mall.access(line))
      level = Mall;
    uint16_t &n = record.lines[level];
    n = uint16_t(std::min<unsigned>(n + 1u, 0xffff));
  }
}

bool Recorder::commit(WaveTrace &trace, uint64_t linear, uint32_t pc,
                      unsigned activeLanes) {
  const StaticInst &si = code[pc];
  Record record;
  record.pc = pc;
  if (si.cls == InstClass::VmemLoad || si.cls == InstClass::VmemStore) {
    record.bytes = trace.pendingBytes;
    record.lanes = uint8_t(std::min(activeLanes, 255u));
    classifyLines(trace, linear, si.cls == InstClass::VmemStore, record);
  } else if (si.cls == InstClass::Lds) {
    record.bytes = trace.pendingBytes;
    record.conflictCycles =
        uint16_t(std::min<uint32_t>(trace.pendingConflict, 0xffff));
  }
  trace.pendingLines.clear();
  trace.pendingBytes = 0;
  trace.pendingConflict = 0;
  if (linear < workgroupInstructions.size())
    ++workgroupInstructions[linear];
  if (&trace == &scratch)
    return true;
  trace.records.push_back(record);
  return ++recorded <= options.maxRecords;
}
