//===- DeviceTest.cpp - Devices and tensor files
//---------------------------===//

#include "crest/runtime/Device.h"
#include "crest/runtime/OnnxTensor.h"
#include "crest/runtime/Runtime.h"

#include "gtest/gtest.h"

using namespace crest;
using namespace crest::rt;

namespace {

TEST(DeviceTest, EmuMemoryRoundTrip) {
  llvm::Expected<std::unique_ptr<Device>> device = createEmuDevice("gfx942");
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  EXPECT_EQ((*device)->getKind(), DeviceKind::Emu);
  EXPECT_EQ((*device)->getChip(), "gfx942");
  llvm::Expected<DevicePtr> p = (*device)->allocate(16, "t");
  ASSERT_TRUE(bool(p));
  std::vector<uint8_t> in = {1, 2,  3,  4,  5,  6,  7,  8,
                             9, 10, 11, 12, 13, 14, 15, 16};
  ASSERT_FALSE(bool((*device)->copyToDevice(*p, in)));
  ASSERT_FALSE(bool((*device)->fill(*p + 4, 4, 0xFF)));
  std::vector<uint8_t> out(16);
  ASSERT_FALSE(bool((*device)->copyFromDevice(out, *p)));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3, 4, 255, 255, 255, 255, 9, 10,
                                       11, 12, 13, 14, 15, 16}));
  // Out of bounds.
  llvm::Error e = (*device)->copyToDevice(*p + 8, in);
  EXPECT_TRUE(bool(e));
  llvm::consumeError(std::move(e));
  // A code object that is not one.
  std::vector<uint8_t> junk(64, 0x42);
  llvm::Expected<ModuleHandle> m = (*device)->loadCodeObject(junk, "junk");
  EXPECT_FALSE(bool(m));
  llvm::consumeError(m.takeError());
}

TEST(DeviceTest, EmuRejectsUnknownChip) {
  llvm::Expected<std::unique_ptr<Device>> device = createEmuDevice("gfx9999");
  ASSERT_FALSE(bool(device));
  EXPECT_EQ(llvm::toString(device.takeError()),
            "the emulator does not know chip 'gfx9999'");
}

TEST(DeviceTest, HipLibraryMissing) {
  HipOptions options;
  options.libraryPath = "/nonexistent/libamdhip64.so";
  llvm::Expected<std::unique_ptr<Device>> device =
      createHipDevice("gfx90a", 5, options);
  ASSERT_FALSE(bool(device));
  std::string message = llvm::toString(device.takeError());
  EXPECT_NE(message.find("the HIP runtime library is not installed"),
            std::string::npos)
      << message;

  // Auto falls back to the emulator and says why.
  std::string why;
  llvm::Expected<std::unique_ptr<Device>> fallback =
      createDevice(DeviceKind::Auto, "gfx942", 5, {}, options, &why);
  ASSERT_TRUE(bool(fallback)) << llvm::toString(fallback.takeError());
  EXPECT_EQ((*fallback)->getKind(), DeviceKind::Emu);
  EXPECT_EQ(why.rfind("auto: emu (HIP not usable: the HIP runtime library is "
                      "not installed",
                      0),
            0u)
      << why;
}

TEST(DeviceTest, EmuTimingOnlyWhereTheChipHasAModel) {
  EmuOptions options;
  llvm::Expected<std::unique_ptr<Device>> untimed =
      createEmuDevice("gfx942", options);
  ASSERT_TRUE(bool(untimed)) << llvm::toString(untimed.takeError());
  EXPECT_FALSE((*untimed)->isTimed());
  EXPECT_EQ((*untimed)->getTimingNote(), "");

  options.timing = emu::TimingOptions();
  llvm::Expected<std::unique_ptr<Device>> timed =
      createEmuDevice("gfx942", options);
  ASSERT_TRUE(bool(timed)) << llvm::toString(timed.takeError());
  EXPECT_TRUE((*timed)->isTimed());
  EXPECT_EQ((*timed)->getTimingNote(), "");
  // Turned off and on again.
  ASSERT_FALSE(bool((*timed)->setTiming(std::nullopt)));
  EXPECT_FALSE((*timed)->isTimed());
  ASSERT_FALSE(bool((*timed)->setTiming(emu::TimingOptions())));
  EXPECT_TRUE((*timed)->isTimed());

  // gfx908 runs on the emulator, but the timing model has no parameters
  // for it: the device works untimed and says why.
  llvm::Expected<std::unique_ptr<Device>> gfx908 =
      createEmuDevice("gfx908", options);
  ASSERT_TRUE(bool(gfx908)) << llvm::toString(gfx908.takeError());
  EXPECT_FALSE((*gfx908)->isTimed());
  EXPECT_EQ((*gfx908)->getTimingNote(),
            "the timing model has no parameters for gfx908 (it covers "
            "gfx90a, gfx942)");
}

TEST(DeviceTest, ModelledTimeOfARun) {
  RunStats stats;
  EXPECT_FALSE(stats.getModelledTime());
  for (double us : {3.5, 1.25}) {
    auto timing = std::make_shared<emu::KernelTiming>();
    timing->microseconds = us;
    timing->launchOverheadUs = 2;
    LaunchStats launch;
    launch.counters.emplace();
    launch.counters->timing = timing;
    EXPECT_EQ(launch.getTiming(), timing.get());
    stats.launches.push_back(std::move(launch));
  }
  std::optional<ModelledTime> time = stats.getModelledTime();
  ASSERT_TRUE(time);
  EXPECT_EQ(time->launches, 2u);
  EXPECT_DOUBLE_EQ(time->kernelMicroseconds, 4.75);
  EXPECT_DOUBLE_EQ(time->overheadMicroseconds, 4);
  EXPECT_DOUBLE_EQ(time->totalMicroseconds(), 8.75);
  // One launch without a projection: the run has no modelled time.
  stats.launches.emplace_back();
  EXPECT_EQ(stats.launches.back().getTiming(), nullptr);
  EXPECT_FALSE(stats.getModelledTime());
}

TEST(DeviceTest, ParseDeviceKind) {
  EXPECT_EQ(parseDeviceKind("emu"), DeviceKind::Emu);
  EXPECT_EQ(parseDeviceKind("hip"), DeviceKind::Hip);
  EXPECT_EQ(parseDeviceKind("auto"), DeviceKind::Auto);
  EXPECT_FALSE(parseDeviceKind("cuda"));
}

TEST(OnnxTensorTest, RoundTrip) {
  OnnxTensor t;
  t.name = "input_0";
  t.dataType = int32_t(OnnxDataType::Float16);
  t.dims = {2, 3};
  t.data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::vector<uint8_t> bytes = serializeOnnxTensor(t);
  llvm::Expected<OnnxTensor> back = parseOnnxTensor(bytes, "t.pb");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->name, "input_0");
  EXPECT_EQ(back->dataType, t.dataType);
  EXPECT_EQ(back->dims, t.dims);
  EXPECT_EQ(back->data, t.data);
}

TEST(OnnxTensorTest, TypedFields) {
  // dims: 2 (unpacked); data_type FLOAT; float_data packed [1.0, -2.0];
  // doc_string "d" (skipped).
  std::vector<uint8_t> bytes = {0x08, 0x02, 0x10, 0x01, 0x22, 0x08,
                                0x00, 0x00, 0x80, 0x3F, 0x00, 0x00,
                                0x00, 0xC0, 0x62, 0x01, 'd'};
  llvm::Expected<OnnxTensor> t = parseOnnxTensor(bytes, "t.pb");
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(t->data, (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F, 0x00, 0x00,
                                           0x00, 0xC0}));
  // int32_data for INT8: varint -1 (ten bytes) becomes 0xFF.
  std::vector<uint8_t> i8 = {0x08, 0x01, 0x10, 0x03, 0x28, 0xFF, 0xFF, 0xFF,
                             0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  llvm::Expected<OnnxTensor> t8 = parseOnnxTensor(i8, "i8.pb");
  ASSERT_TRUE(bool(t8)) << llvm::toString(t8.takeError());
  EXPECT_EQ(t8->data, (std::vector<uint8_t>{0xFF}));
}

TEST(OnnxTensorTest, Malformed) {
  auto message = [](std::vector<uint8_t> bytes) {
    llvm::Expected<OnnxTensor> t = parseOnnxTensor(bytes, "bad.pb");
    return t ? std::string("parsed") : llvm::toString(t.takeError());
  };
  // raw_data claims 100 bytes, has 2.
  EXPECT_EQ(message({0x10, 0x01, 0x4A, 0x64, 0x00, 0x00}),
            "bad.pb: not a valid ONNX TensorProto: truncated field 9 at "
            "byte 2");
  // Shape 2x2 with 4 bytes of raw FLOAT data.
  EXPECT_EQ(
      message({0x08, 0x02, 0x08, 0x02, 0x10, 0x01, 0x4A, 0x04, 0, 0, 0, 0}),
      "bad.pb: not a valid ONNX TensorProto: raw_data holds 4 bytes, "
      "the shape needs 16");
  EXPECT_EQ(message({0x08, 0x01}),
            "bad.pb: not a valid ONNX TensorProto: no data_type");
  EXPECT_EQ(message({0x10, 0x08}),
            "bad.pb: not a valid ONNX TensorProto: data type STRING is not "
            "supported");
  EXPECT_EQ(message({0x10, 0x01, 0x6A, 0x00}),
            "bad.pb: not a valid ONNX TensorProto: tensors with external "
            "data are not supported");
  EXPECT_EQ(message({0x7F}),
            "bad.pb: not a valid ONNX TensorProto: bad field 15 (wire type 7) "
            "at byte 0");
}

} // namespace
