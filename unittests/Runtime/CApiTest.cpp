//===- CApiTest.cpp - The C API through its C++ wrapper
//--------------------===//

#include "crest_runtime.hpp"

#include "gtest/gtest.h"

#include <cstring>

namespace {

TEST(CApiTest, VersionAndTypes) {
  EXPECT_EQ(crest_api_version() >> 16,
            unsigned(CREST_RUNTIME_API_VERSION_MAJOR));
  EXPECT_EQ(crest_dtype_size(CREST_BF16), 2u);
  EXPECT_EQ(crest_dtype_size(CREST_F8E4M3FNUZ), 1u);
  EXPECT_STREQ(crest_dtype_name(CREST_F32), "f32");
  // The values of 1.1 keep their numbers; 1.2 appends the unsigned types.
  EXPECT_EQ(int(CREST_I1), 13);
  EXPECT_STREQ(crest_dtype_name(CREST_I1), "i1");
  EXPECT_STREQ(crest_dtype_name(CREST_U16), "ui16");
  EXPECT_EQ(crest_dtype_size(CREST_U32), 4u);
  EXPECT_EQ(crest_dtype_size(CREST_U64), 8u);
  EXPECT_EQ(crest_dtype_size(crest_dtype(int(CREST_U64) + 1)), 0u);
  EXPECT_STREQ(crest_status_name(CREST_ERROR_RACE), "CREST_ERROR_RACE");
}

TEST(CApiTest, ErrorsCarryMessages) {
  crest::Model model;
  const char junk[] = "CRESTPKG but not really";
  crest::Status s = model.load(junk, sizeof(junk));
  EXPECT_EQ(s.code, CREST_ERROR_INVALID_PACKAGE);
  EXPECT_FALSE(s.message.empty());
  EXPECT_FALSE(bool(model));

  s = model.load("/nonexistent/model.crest");
  EXPECT_EQ(s.code, CREST_ERROR_INVALID_PACKAGE);
  EXPECT_NE(s.message.find("/nonexistent/model.crest"), std::string::npos)
      << s.message;

  crest::Device device;
  s = device.create(CREST_DEVICE_EMU, "gfx9999", 5);
  EXPECT_EQ(s.code, CREST_ERROR_DEVICE);
  EXPECT_EQ(s.message, "the emulator does not know chip 'gfx9999'");

  ASSERT_TRUE(bool(device.create(CREST_DEVICE_EMU, "gfx942", 5)));
  EXPECT_EQ(crest_device_get_kind(device.get()), CREST_DEVICE_EMU);
  EXPECT_EQ(device.describe(), "emulator (gfx942, races checked, quantum 64)");

  crest_session *session = nullptr;
  EXPECT_EQ(crest_session_create(device.get(), nullptr, &session),
            CREST_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(session, nullptr);

  // The timing model (since 1.1): switchable on the emulator; no session,
  // no modelled time.
  EXPECT_GE(crest_api_version() & 0xFFFF, 1u);
  EXPECT_TRUE(bool(device.setTiming(false)));
  EXPECT_TRUE(bool(device.setTiming(true)));
  EXPECT_EQ(crest_device_set_timing(nullptr, 1), CREST_ERROR_INVALID_ARGUMENT);
  EXPECT_LT(crest_session_last_run_modelled_us(nullptr), 0);
}

} // namespace
