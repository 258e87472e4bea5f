//===- crest_runtime.hpp - C++ RAII wrapper of the C API ---------*- C++
//-*-===//
//
// Owning wrappers of crest_runtime.h's handles. No exceptions: every call
// that can fail returns a crest::Status (false on failure, with the
// message), so the header works in -fno-exceptions code too.
//
//   crest::Model model;
//   if (crest::Status s = model.load("model.crest"); !s) { print(s.message); }
//   crest::Device device;
//   device.create(CREST_DEVICE_AUTO, model.chip(), model.codeObjectVersion());
//   crest::Session session;
//   session.create(device, model);
//   session.bindInput("x", CREST_F16, {8, 256}, data, bytes);
//   session.run();
//   session.readOutput("y", out, outBytes);
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_HPP
#define CREST_RUNTIME_HPP

#include "crest_runtime.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace crest {

/// The result of a call: CREST_OK, or a status with its message.
struct Status {
  crest_status code = CREST_OK;
  std::string message;

  static Status from(crest_status code) {
    return code == CREST_OK ? Status{} : Status{code, crest_last_error()};
  }
  explicit operator bool() const { return code == CREST_OK; }
};

/// A move-only owner of one C handle.
template <typename T, void (*Destroy)(T *)> class Handle {
public:
  Handle() = default;
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  Handle(Handle &&other) noexcept : ptr(std::exchange(other.ptr, nullptr)) {}
  Handle &operator=(Handle &&other) noexcept {
    reset(std::exchange(other.ptr, nullptr));
    return *this;
  }
  ~Handle() { reset(); }
  T *get() const { return ptr; }
  explicit operator bool() const { return ptr != nullptr; }

protected:
  void reset(T *p = nullptr) {
    if (ptr)
      Destroy(ptr);
    ptr = p;
  }
  T *ptr = nullptr;
};

class Model : public Handle<crest_model, crest_model_destroy> {
public:
  Status load(const std::string &path) {
    crest_model *m = nullptr;
    Status s = Status::from(crest_model_load_file(path.c_str(), &m));
    reset(m);
    return s;
  }
  Status load(const void *data, size_t size) {
    crest_model *m = nullptr;
    Status s = Status::from(crest_model_load_memory(data, size, &m));
    reset(m);
    return s;
  }
  std::string chip() const { return crest_model_chip(ptr); }
  unsigned codeObjectVersion() const {
    return crest_model_code_object_version(ptr);
  }
  size_t numInputs() const { return crest_model_num_inputs(ptr); }
  size_t numOutputs() const { return crest_model_num_outputs(ptr); }
};

class Device : public Handle<crest_device, crest_device_destroy> {
public:
  Status create(crest_device_kind kind, const std::string &chip,
                unsigned codeObjectVersion,
                const crest_emu_options *emu = nullptr) {
    crest_device *d = nullptr;
    Status s = Status::from(
        crest_device_create(kind, chip.c_str(), codeObjectVersion, emu, &d));
    reset(d);
    return s;
  }
  std::string describe() const { return crest_device_describe(ptr); }
  Status setTiming(bool enabled) {
    return Status::from(crest_device_set_timing(ptr, enabled ? 1 : 0));
  }
};

class Session : public Handle<crest_session, crest_session_destroy> {
public:
  Status create(Device &device, const Model &model) {
    crest_session *s = nullptr;
    Status status =
        Status::from(crest_session_create(device.get(), model.get(), &s));
    reset(s);
    return status;
  }
  Status bindInput(const std::string &name, crest_dtype dtype,
                   std::initializer_list<int64_t> shape, const void *data,
                   size_t bytes) {
    std::vector<int64_t> dims(shape);
    return Status::from(crest_session_bind_input(
        ptr, name.c_str(), dtype, dims.data(), dims.size(), data, bytes));
  }
  Status run() { return Status::from(crest_session_run(ptr)); }
  Status readOutput(const std::string &name, void *data, size_t bytes) {
    return Status::from(
        crest_session_read_output(ptr, name.c_str(), data, bytes));
  }
  Status verify(std::string *report = nullptr) {
    const char *text = nullptr;
    Status s = Status::from(crest_session_verify(ptr, &text));
    if (report && text)
      *report = text;
    return s;
  }
  std::string report() { return crest_session_report(ptr); }
  double lastRunSeconds() const { return crest_session_last_run_seconds(ptr); }
  /// Negative when the last run has no modelled time.
  double lastRunModelledUs() const {
    return crest_session_last_run_modelled_us(ptr);
  }
};

} // namespace crest

#endif // CREST_RUNTIME_HPP
