//===- CApi.cpp - The C API (crest_runtime.h) -----------------------------===//

#include "crest_runtime.h"

#include "crest/runtime/Reference.h"
#include "crest/runtime/Runtime.h"

#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>

using namespace llvm;
using namespace crest;
using namespace crest::rt;

struct crest_device {
  std::unique_ptr<Device> device;
  std::string description;
};
struct crest_model {
  pkg::Package package;
};
struct crest_session {
  std::unique_ptr<Session> session;
  std::vector<HostTensor> inputs; // for crest_session_verify
  std::optional<RunStats> lastRun;
  std::string text;
};

static thread_local std::string lastError;

static crest_status fail(crest_status status, const std::string &message) {
  lastError = message;
  return status;
}
static crest_status fail(crest_status status, Error error) {
  return fail(status, toString(std::move(error)));
}

extern "C" {

uint32_t crest_api_version(void) {
  return (CREST_RUNTIME_API_VERSION_MAJOR << 16) |
         CREST_RUNTIME_API_VERSION_MINOR;
}

const char *crest_last_error(void) { return lastError.c_str(); }

const char *crest_status_name(crest_status status) {
  switch (status) {
  case CREST_OK:
    return "CREST_OK";
  case CREST_ERROR_INVALID_ARGUMENT:
    return "CREST_ERROR_INVALID_ARGUMENT";
  case CREST_ERROR_IO:
    return "CREST_ERROR_IO";
  case CREST_ERROR_INVALID_PACKAGE:
    return "CREST_ERROR_INVALID_PACKAGE";
  case CREST_ERROR_DEVICE:
    return "CREST_ERROR_DEVICE";
  case CREST_ERROR_INPUT:
    return "CREST_ERROR_INPUT";
  case CREST_ERROR_LAUNCH:
    return "CREST_ERROR_LAUNCH";
  case CREST_ERROR_RACE:
    return "CREST_ERROR_RACE";
  case CREST_ERROR_VERIFY:
    return "CREST_ERROR_VERIFY";
  }
  return "CREST_ERROR_UNKNOWN";
}

// crest_dtype is pkg::ElementType, value for value.
static_assert(unsigned(CREST_I1) == unsigned(pkg::ElementType::I1));
static_assert(unsigned(CREST_U64) == unsigned(pkg::ElementType::U64));

static bool validDtype(crest_dtype dtype) {
  return unsigned(dtype) <= unsigned(CREST_U64);
}

size_t crest_dtype_size(crest_dtype dtype) {
  return validDtype(dtype) ? pkg::getElementTypeSize(pkg::ElementType(dtype))
                           : 0;
}

const char *crest_dtype_name(crest_dtype dtype) {
  return validDtype(dtype)
             ? pkg::getElementTypeName(pkg::ElementType(dtype)).data()
             : "?";
}

crest_emu_options crest_emu_options_default(void) {
  crest_emu_options o;
  o.detect_races = 1;
  o.quantum = 64;
  o.has_seed = 0;
  o.seed = 0;
  return o;
}

crest_status crest_device_create(crest_device_kind kind, const char *chip,
                                 unsigned codeObjectVersion,
                                 const crest_emu_options *emu,
                                 crest_device **out) {
  if (!out || !chip)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null chip or result pointer");
  *out = nullptr;
  if (unsigned(kind) > unsigned(CREST_DEVICE_EMU))
    return fail(CREST_ERROR_INVALID_ARGUMENT, "unknown device kind");
  EmuOptions options;
  options.timing = emu::TimingOptions();
  if (emu) {
    options.detectRaces = emu->detect_races != 0;
    options.quantum = emu->quantum;
    if (emu->has_seed)
      options.seed = emu->seed;
  }
  std::string why;
  DeviceKind k = kind == CREST_DEVICE_HIP   ? DeviceKind::Hip
                 : kind == CREST_DEVICE_EMU ? DeviceKind::Emu
                                            : DeviceKind::Auto;
  Expected<std::unique_ptr<Device>> device =
      createDevice(k, chip, codeObjectVersion, options, {}, &why);
  if (!device)
    return fail(CREST_ERROR_DEVICE, device.takeError());
  auto *result = new crest_device;
  result->description = (*device)->describe();
  if (k == DeviceKind::Auto)
    result->description += " [" + why + "]";
  result->device = std::move(*device);
  *out = result;
  return CREST_OK;
}

void crest_device_destroy(crest_device *device) { delete device; }

crest_device_kind crest_device_get_kind(const crest_device *device) {
  return device && device->device->getKind() == DeviceKind::Hip
             ? CREST_DEVICE_HIP
             : CREST_DEVICE_EMU;
}

const char *crest_device_describe(const crest_device *device) {
  return device ? device->description.c_str() : "";
}

crest_status crest_device_set_timing(crest_device *device, int enabled) {
  if (!device)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null device");
  std::optional<emu::TimingOptions> options;
  if (enabled)
    options = emu::TimingOptions();
  if (Error e = device->device->setTiming(options))
    return fail(CREST_ERROR_DEVICE, std::move(e));
  return CREST_OK;
}

static crest_status finishLoad(Expected<pkg::Package> package,
                               crest_model **out) {
  if (!package)
    return fail(CREST_ERROR_INVALID_PACKAGE, package.takeError());
  *out = new crest_model{std::move(*package)};
  return CREST_OK;
}

crest_status crest_model_load_file(const char *path, crest_model **out) {
  if (!path || !out)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null path or result pointer");
  *out = nullptr;
  return finishLoad(pkg::readPackageFile(path), out);
}

crest_status crest_model_load_memory(const void *data, size_t size,
                                     crest_model **out) {
  if ((!data && size) || !out)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null data or result pointer");
  *out = nullptr;
  return finishLoad(
      pkg::readPackage(
          ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), size),
          "<memory>"),
      out);
}

void crest_model_destroy(crest_model *model) { delete model; }

const char *crest_model_chip(const crest_model *model) {
  return model ? model->package.manifest.chip.c_str() : "";
}

unsigned crest_model_code_object_version(const crest_model *model) {
  return model ? model->package.manifest.codeObjectVersion : 0;
}

size_t crest_model_num_inputs(const crest_model *model) {
  return model ? model->package.manifest.inputs.size() : 0;
}

size_t crest_model_num_outputs(const crest_model *model) {
  return model ? model->package.manifest.outputs.size() : 0;
}

static crest_status describeValue(const crest_model *model, bool input,
                                  size_t index, const char **name,
                                  crest_dtype *dtype, size_t *rank,
                                  int64_t *shape) {
  if (!model)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null model");
  const pkg::Manifest &m = model->package.manifest;
  const std::vector<uint32_t> &ids = input ? m.inputs : m.outputs;
  if (index >= ids.size())
    return fail(CREST_ERROR_INVALID_ARGUMENT, (input ? "input #" : "output #") +
                                                  std::to_string(index) +
                                                  " does not exist");
  const pkg::Value &v = m.values[ids[index]];
  if (name)
    *name = v.name.c_str();
  if (dtype)
    *dtype = crest_dtype(v.type.element);
  if (rank)
    *rank = v.type.shape.size();
  if (shape)
    for (size_t i = 0; i < v.type.shape.size(); ++i)
      shape[i] = v.type.shape[i];
  return CREST_OK;
}

crest_status crest_model_input(const crest_model *model, size_t index,
                               const char **name, crest_dtype *dtype,
                               size_t *rank, int64_t *shape) {
  return describeValue(model, true, index, name, dtype, rank, shape);
}

crest_status crest_model_output(const crest_model *model, size_t index,
                                const char **name, crest_dtype *dtype,
                                size_t *rank, int64_t *shape) {
  return describeValue(model, false, index, name, dtype, rank, shape);
}

crest_status crest_session_create(crest_device *device,
                                  const crest_model *model,
                                  crest_session **out) {
  if (!device || !model || !out)
    return fail(CREST_ERROR_INVALID_ARGUMENT,
                "null device, model or result pointer");
  *out = nullptr;
  Expected<std::unique_ptr<Session>> session =
      Session::create(*device->device, model->package);
  if (!session)
    return fail(CREST_ERROR_DEVICE, session.takeError());
  auto *result = new crest_session;
  result->inputs.resize((*session)->getManifest().inputs.size());
  result->session = std::move(*session);
  *out = result;
  return CREST_OK;
}

void crest_session_destroy(crest_session *session) { delete session; }

crest_status crest_session_bind_input(crest_session *session, const char *name,
                                      crest_dtype dtype, const int64_t *shape,
                                      size_t rank, const void *data,
                                      size_t bytes) {
  if (!session || !name || (!shape && rank) || (!data && bytes))
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null argument");
  if (!validDtype(dtype))
    return fail(CREST_ERROR_INPUT,
                std::string("input '") + name + "': unknown dtype");
  if (rank > pkg::kMaxRank)
    return fail(CREST_ERROR_INPUT,
                std::string("input '") + name + "': rank too large");
  HostTensor tensor;
  tensor.type.element = pkg::ElementType(dtype);
  tensor.type.shape.assign(shape, shape + rank);
  const uint8_t *p = static_cast<const uint8_t *>(data);
  tensor.data.assign(p, p + bytes);
  if (Error e = session->session->bindInput(name, tensor))
    return fail(CREST_ERROR_INPUT, std::move(e));
  const pkg::Manifest &m = session->session->getManifest();
  for (size_t i = 0; i < m.inputs.size(); ++i)
    if (m.values[m.inputs[i]].name == name)
      session->inputs[i] = std::move(tensor);
  return CREST_OK;
}

crest_status crest_session_run(crest_session *session) {
  if (!session)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null session");
  Expected<RunStats> stats = session->session->run();
  if (!stats) {
    Error e = stats.takeError();
    crest_status status =
        e.isA<RaceError>() ? CREST_ERROR_RACE : CREST_ERROR_LAUNCH;
    return fail(status, std::move(e));
  }
  session->lastRun = std::move(*stats);
  return CREST_OK;
}

crest_status crest_session_read_output(crest_session *session, const char *name,
                                       void *data, size_t bytes) {
  if (!session || !name || (!data && bytes))
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null argument");
  Expected<HostTensor> tensor = session->session->getOutput(name);
  if (!tensor)
    return fail(CREST_ERROR_INVALID_ARGUMENT, tensor.takeError());
  if (tensor->data.size() != bytes)
    return fail(CREST_ERROR_INVALID_ARGUMENT,
                std::string("output '") + name + "' has " +
                    std::to_string(tensor->data.size()) + " bytes, " +
                    std::to_string(bytes) + " requested");
  std::memcpy(data, tensor->data.data(), bytes);
  return CREST_OK;
}

double crest_session_last_run_seconds(const crest_session *session) {
  return session && session->lastRun ? session->lastRun->seconds : 0;
}

double crest_session_last_run_modelled_us(const crest_session *session) {
  if (!session || !session->lastRun)
    return -1;
  std::optional<ModelledTime> time = session->lastRun->getModelledTime();
  return time ? time->totalMicroseconds() : -1;
}

crest_status crest_session_verify(crest_session *session, const char **report) {
  if (!session)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "null session");
  if (!session->lastRun)
    return fail(CREST_ERROR_INVALID_ARGUMENT, "the session has not run");
  const pkg::Package &package = session->session->getPackage();
  Expected<std::vector<RefTensor>> ref =
      evaluateReference(package, session->inputs);
  if (!ref)
    return fail(CREST_ERROR_VERIFY, ref.takeError());
  session->text.clear();
  raw_string_ostream os(session->text);
  bool ok = true;
  for (uint32_t id : package.manifest.outputs) {
    Expected<HostTensor> got = session->session->readValue(id);
    if (!got)
      return fail(CREST_ERROR_DEVICE, got.takeError());
    Comparison c =
        compareTensor(package.manifest.values[id].name, (*ref)[id], *got);
    printComparison(os, c);
    ok &= c.passed();
  }
  if (report)
    *report = session->text.c_str();
  return ok ? CREST_OK
            : fail(CREST_ERROR_VERIFY,
                   "outputs beyond tolerance:\n" + session->text);
}

const char *crest_session_report(crest_session *session) {
  if (!session)
    return "";
  session->text.clear();
  raw_string_ostream os(session->text);
  if (!session->lastRun)
    os << "the session has not run\n";
  else
    printRunReport(os, session->session->getManifest(), *session->lastRun);
  return session->text.c_str();
}

} // extern "C"
