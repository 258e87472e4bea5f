//===- Device.cpp - Device interface and selection ------------------------===//

#include "crest/runtime/Device.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace llvm;

namespace crest::rt {

char RaceError::ID = 0;

void RaceError::log(raw_ostream &os) const {
  os << "kernel '" << kernel << "': the LDS race detector found "
     << result.racesFound << " racy access"
     << (result.racesFound == 1 ? "" : "es");
  for (const emu::RaceReport &race : result.races)
    os << "\n  " << race.describe();
}

std::error_code RaceError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

StringRef getDeviceKindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Auto:
    return "auto";
  case DeviceKind::Hip:
    return "hip";
  case DeviceKind::Emu:
    return "emu";
  }
  return "?";
}

std::optional<DeviceKind> parseDeviceKind(StringRef name) {
  if (name == "auto")
    return DeviceKind::Auto;
  if (name == "hip")
    return DeviceKind::Hip;
  if (name == "emu")
    return DeviceKind::Emu;
  return std::nullopt;
}

Device::~Device() = default;

Error Device::fill(DevicePtr dst, uint64_t bytes, uint8_t value) {
  std::vector<uint8_t> pattern(bytes, value);
  return copyToDevice(dst, pattern);
}

Expected<std::vector<LaunchStats>>
Device::launchSequence(ArrayRef<LaunchRequest> launches, size_t &failed) {
  std::vector<LaunchStats> stats;
  for (size_t i = 0; i < launches.size(); ++i) {
    const LaunchRequest &l = launches[i];
    Expected<LaunchStats> s = launch(l.kernel, l.grid, l.block, l.args);
    if (!s) {
      failed = i;
      return s.takeError();
    }
    stats.push_back(std::move(*s));
  }
  return stats;
}

Error Device::setTiming(std::optional<emu::TimingOptions> options) {
  if (!options)
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      "the timing model runs on the emulator only, not on the " +
          getDeviceKindName(getKind()) + " device (" + describe() + ")");
}

Expected<std::unique_ptr<Device>> createDevice(DeviceKind kind, StringRef chip,
                                               unsigned codeObjectVersion,
                                               const EmuOptions &emuOptions,
                                               const HipOptions &hipOptions,
                                               std::string *why) {
  switch (kind) {
  case DeviceKind::Emu:
    if (why)
      *why = "emu (requested)";
    return createEmuDevice(chip, emuOptions);
  case DeviceKind::Hip:
    if (why)
      *why = "hip (requested)";
    return createHipDevice(chip, codeObjectVersion, hipOptions);
  case DeviceKind::Auto:
    break;
  }
  Expected<std::unique_ptr<Device>> hip =
      createHipDevice(chip, codeObjectVersion, hipOptions);
  if (hip) {
    if (why)
      *why = "auto: hip (" + (*hip)->describe() + ")";
    return hip;
  }
  std::string reason = toString(hip.takeError());
  if (why)
    *why = "auto: emu (HIP not usable: " + reason + ")";
  return createEmuDevice(chip, emuOptions);
}

} // namespace crest::rt
