//===- Session.cpp - Running a .crest package -----------------------------===//

#include "crest/runtime/Runtime.h"

#include "crest/runtime/Npy.h"
#include "crest/runtime/OnnxTensor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "crest/Support/Limits.h"

#include "llvm/Support/MemoryBuffer.h"

#include <chrono>

using namespace llvm;
using crest::pkg::ElementType;

namespace crest::rt {

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

//===----------------------------------------------------------------------===//
// Tensor files
//===----------------------------------------------------------------------===//

/// The package type an npy dtype holds, given what is expected.
static std::optional<ElementType>
fromNpyType(NpyType type, std::optional<ElementType> expected) {
  switch (type) {
  case NpyType::F16:
    return ElementType::F16;
  case NpyType::F32:
    return ElementType::F32;
  case NpyType::F64:
    return ElementType::F64;
  case NpyType::I8:
    return ElementType::I8;
  case NpyType::I16:
    return ElementType::I16;
  case NpyType::I32:
    return ElementType::I32;
  case NpyType::I64:
    return ElementType::I64;
  case NpyType::Bool:
    return ElementType::I1;
  case NpyType::U8:
    if (expected && getElementTypeSize(*expected) == 1 &&
        isFloatType(*expected))
      return *expected; // fp8 bit patterns
    return ElementType::U8;
  case NpyType::U16:
    if (expected == ElementType::BF16)
      return ElementType::BF16; // bf16 bit patterns
    return ElementType::U16;
  case NpyType::U32:
    return ElementType::U32;
  case NpyType::U64:
    return ElementType::U64;
  }
  return std::nullopt;
}

static std::optional<NpyType> toNpyType(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return NpyType::F64;
  case ElementType::F32:
    return NpyType::F32;
  case ElementType::F16:
    return NpyType::F16;
  case ElementType::BF16:
    return NpyType::U16;
  case ElementType::F8E4M3FNUZ:
  case ElementType::F8E5M2FNUZ:
  case ElementType::F8E4M3FN:
  case ElementType::F8E5M2:
  case ElementType::U8:
    return NpyType::U8;
  case ElementType::U16:
    return NpyType::U16;
  case ElementType::U32:
    return NpyType::U32;
  case ElementType::U64:
    return NpyType::U64;
  case ElementType::I64:
    return NpyType::I64;
  case ElementType::I32:
    return NpyType::I32;
  case ElementType::I16:
    return NpyType::I16;
  case ElementType::I8:
    return NpyType::I8;
  case ElementType::I1:
    return NpyType::Bool;
  }
  return std::nullopt;
}

static std::optional<ElementType> fromOnnxType(int32_t type) {
  switch (OnnxDataType(type)) {
  case OnnxDataType::Float:
    return ElementType::F32;
  case OnnxDataType::Float16:
    return ElementType::F16;
  case OnnxDataType::BFloat16:
    return ElementType::BF16;
  case OnnxDataType::Double:
    return ElementType::F64;
  case OnnxDataType::Uint8:
    return ElementType::U8;
  case OnnxDataType::Uint16:
    return ElementType::U16;
  case OnnxDataType::Uint32:
    return ElementType::U32;
  case OnnxDataType::Uint64:
    return ElementType::U64;
  case OnnxDataType::Int8:
    return ElementType::I8;
  case OnnxDataType::Int16:
    return ElementType::I16;
  case OnnxDataType::Int32:
    return ElementType::I32;
  case OnnxDataType::Int64:
    return ElementType::I64;
  case OnnxDataType::Bool:
    return ElementType::I1;
  case OnnxDataType::Float8E4M3FN:
    return ElementType::F8E4M3FN;
  case OnnxDataType::Float8E4M3FNUZ:
    return ElementType::F8E4M3FNUZ;
  case OnnxDataType::Float8E5M2:
    return ElementType::F8E5M2;
  case OnnxDataType::Float8E5M2FNUZ:
    return ElementType::F8E5M2FNUZ;
  default:
    return std::nullopt;
  }
}

static int32_t toOnnxType(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return int32_t(OnnxDataType::Double);
  case ElementType::F32:
    return int32_t(OnnxDataType::Float);
  case ElementType::F16:
    return int32_t(OnnxDataType::Float16);
  case ElementType::BF16:
    return int32_t(OnnxDataType::BFloat16);
  case ElementType::F8E4M3FNUZ:
    return int32_t(OnnxDataType::Float8E4M3FNUZ);
  case ElementType::F8E5M2FNUZ:
    return int32_t(OnnxDataType::Float8E5M2FNUZ);
  case ElementType::F8E4M3FN:
    return int32_t(OnnxDataType::Float8E4M3FN);
  case ElementType::F8E5M2:
    return int32_t(OnnxDataType::Float8E5M2);
  case ElementType::I64:
    return int32_t(OnnxDataType::Int64);
  case ElementType::I32:
    return int32_t(OnnxDataType::Int32);
  case ElementType::I16:
    return int32_t(OnnxDataType::Int16);
  case ElementType::I8:
    return int32_t(OnnxDataType::Int8);
  case ElementType::U8:
    return int32_t(OnnxDataType::Uint8);
  case ElementType::U16:
    return int32_t(OnnxDataType::Uint16);
  case ElementType::U32:
    return int32_t(OnnxDataType::Uint32);
  case ElementType::U64:
    return int32_t(OnnxDataType::Uint64);
  case ElementType::I1:
    return int32_t(OnnxDataType::Bool);
  }
  return 0;
}

Expected<HostTensor> readTensorFile(StringRef path,
                                    std::optional<ElementType> expected) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer =
      crest::readBoundedFile(path);
  if (!buffer)
    return buffer.takeError();
  ArrayRef<uint8_t> bytes = arrayRefFromStringRef((*buffer)->getBuffer());
  HostTensor tensor;
  bool isNpy =
      bytes.size() >= 6 && bytes[0] == 0x93 &&
      StringRef(reinterpret_cast<const char *>(bytes.data()) + 1, 5) == "NUMPY";
  if (isNpy || (!path.ends_with(".pb") && path.ends_with(".npy"))) {
    Expected<NpyArray> array = parseNpy(bytes, path);
    if (!array)
      return array.takeError();
    std::optional<ElementType> type = fromNpyType(array->type, expected);
    if (!type)
      return makeError(path + ": NumPy dtype '" + getNpyDescr(array->type) +
                       "' has no Crest element type");
    tensor.type.element = *type;
    tensor.type.shape = array->shape;
    tensor.data = std::move(array->data);
    return tensor;
  }
  if (!path.ends_with(".pb"))
    return makeError(path + ": neither an .npy file nor an ONNX TensorProto "
                            "(.pb)");
  Expected<OnnxTensor> proto = parseOnnxTensor(bytes, path);
  if (!proto)
    return proto.takeError();
  std::optional<ElementType> type = fromOnnxType(proto->dataType);
  // ONNX's own test data stores bfloat16 tensors as UINT16 bit patterns:
  // read them as bf16 where bf16 is expected, as for uint16 .npy files.
  if (proto->dataType == int32_t(OnnxDataType::Uint16) &&
      expected == ElementType::BF16)
    type = ElementType::BF16;
  if (!type)
    return makeError(path + ": ONNX data type " +
                     getOnnxDataTypeName(proto->dataType) +
                     " has no Crest element type");
  tensor.type.element = *type;
  tensor.type.shape = proto->dims;
  tensor.data = std::move(proto->data);
  return tensor;
}

Error writeTensorFile(StringRef path, const HostTensor &tensor,
                      StringRef name) {
  if (path.ends_with(".pb")) {
    OnnxTensor proto;
    proto.name = name.str();
    proto.dataType = toOnnxType(tensor.type.element);
    proto.dims = tensor.type.shape;
    proto.data = tensor.data;
    return writeOnnxTensorFile(path, proto);
  }
  NpyArray array;
  array.type = *toNpyType(tensor.type.element);
  array.shape = tensor.type.shape;
  array.data = tensor.data;
  return writeNpyFile(path, array);
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

Session::~Session() {
  for (DevicePtr p : buffers)
    device.release(p);
}

Expected<std::unique_ptr<Session>> Session::create(Device &device,
                                                   pkg::Package package) {
  if (Error e = pkg::validatePackage(package))
    return std::move(e);
  const pkg::Manifest &m = package.manifest;
  if (m.chip != device.getChip())
    return makeError("the package is compiled for " + m.chip +
                     " but the device runs " + device.getChip());
  std::unique_ptr<Session> session(new Session(device, std::move(package)));
  if (Error e = session->init())
    return std::move(e);
  return std::move(session);
}

Error Session::init() {
  const pkg::Manifest &m = package.manifest;
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    // Name the buffer after the values it holds, for the emulator's
    // out-of-bounds messages.
    SmallVector<std::string> names;
    for (const pkg::Value &v : m.values)
      if (v.buffer && *v.buffer == i)
        names.push_back(v.name);
    Expected<DevicePtr> p = device.allocate(
        m.buffers[i].size,
        formatv("buffer {0} ({1})", i, join(names, ", ")).str());
    if (!p)
      return p.takeError();
    buffers.push_back(*p);
  }
  // Weights, once.
  for (const pkg::Value &v : m.values) {
    if (v.kind != pkg::ValueKind::Weight)
      continue;
    ArrayRef<uint8_t> bytes(package.weights);
    if (Error e =
            device.copyToDevice(buffers[*v.buffer] + v.bufferOffset,
                                bytes.slice(v.weightOffset, v.weightSize)))
      return e;
  }
  std::vector<ModuleHandle> modules;
  for (size_t i = 0; i < package.codeObjects.size(); ++i) {
    const std::string &elf = package.codeObjects[i];
    Expected<ModuleHandle> module = device.loadCodeObject(
        ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(elf.data()),
                          elf.size()),
        formatv("code object {0}", i).str());
    if (!module)
      return module.takeError();
    modules.push_back(*module);
  }
  for (const pkg::Kernel &k : m.kernels) {
    Expected<KernelHandle> kernel =
        device.getKernel(modules[k.codeObject], k.name);
    if (!kernel)
      return kernel.takeError();
    kernels.push_back(*kernel);
  }
  bound.assign(m.inputs.size(), false);
  return Error::success();
}

Error Session::bindInput(StringRef name, const HostTensor &tensor) {
  const pkg::Manifest &m = package.manifest;
  for (size_t i = 0; i < m.inputs.size(); ++i)
    if (m.values[m.inputs[i]].name == name)
      return bindInput(unsigned(i), tensor);
  SmallVector<std::string> names;
  for (uint32_t id : m.inputs)
    names.push_back("'" + m.values[id].name + "'");
  return makeError("the graph has no input named '" + name +
                   "'; its inputs are " + join(names, ", "));
}

Error Session::bindInput(unsigned index, const HostTensor &tensor) {
  const pkg::Manifest &m = package.manifest;
  if (index >= m.inputs.size())
    return makeError(formatv("input #{0} does not exist: the graph has {1} "
                             "input{2}",
                             index, m.inputs.size(),
                             m.inputs.size() == 1 ? "" : "s"));
  const pkg::Value &v = m.values[m.inputs[index]];
  if (!(tensor.type == v.type)) {
    StringRef what =
        tensor.type.element != v.type.element ? "element type" : "shape";
    return makeError("input '" + v.name + "': wrong " + what + ": expected " +
                     v.type.describe() + ", given " + tensor.type.describe());
  }
  if (tensor.data.size() != v.type.getByteSize())
    return makeError(formatv("input '{0}': {1} bytes given, {2} expected",
                             v.name, tensor.data.size(), v.type.getByteSize()));
  if (Error e =
          device.copyToDevice(buffers[*v.buffer] + v.bufferOffset, tensor.data))
    return e;
  bound[index] = true;
  return Error::success();
}

Expected<RunStats> Session::run() {
  const pkg::Manifest &m = package.manifest;
  SmallVector<std::string> missing;
  for (size_t i = 0; i < m.inputs.size(); ++i)
    if (!bound[i])
      missing.push_back("'" + m.values[m.inputs[i]].name + "' (" +
                        m.values[m.inputs[i]].type.describe() + ")");
  if (!missing.empty())
    return makeError("missing input" + Twine(missing.size() == 1 ? "" : "s") +
                     ": " + join(missing, ", "));
  // Poison what the kernels write: outputs and intermediates, but not the
  // aliases (reshapes without a kernel) of an input or a weight, which
  // share its buffer (docs/Package.md).
  std::vector<bool> holdsData(m.buffers.size());
  for (const pkg::Value &v : m.values)
    if (v.kind == pkg::ValueKind::Input || v.kind == pkg::ValueKind::Weight)
      holdsData[*v.buffer] = true;
  for (const pkg::Value &v : m.values)
    if ((v.kind == pkg::ValueKind::Output ||
         v.kind == pkg::ValueKind::Intermediate ||
         v.kind == pkg::ValueKind::Workspace) &&
        !holdsData[*v.buffer])
      if (Error e = device.fill(buffers[*v.buffer] + v.bufferOffset,
                                v.type.getByteSize(), kPoisonByte))
        return std::move(e);
  RunStats stats;
  stats.timingNote = device.getTimingNote();
  auto start = std::chrono::steady_clock::now();
  std::vector<LaunchRequest> requests;
  for (const pkg::Launch &launch : m.launches) {
    LaunchRequest &r = requests.emplace_back();
    r.kernel = kernels[launch.kernel];
    r.grid = launch.grid;
    r.block = launch.block;
    for (uint32_t id : launch.args) {
      const pkg::Value &v = m.values[id];
      r.args.push_back(buffers[*v.buffer] + v.bufferOffset);
    }
  }
  size_t failed = requests.size();
  Expected<std::vector<LaunchStats>> result =
      device.launchSequence(requests, failed);
  if (!result) {
    Error e = result.takeError();
    if (e.isA<RaceError>() || failed >= m.launches.size())
      return std::move(e);
    return makeError(formatv("launch {0} (kernel '{1}'): {2}", failed,
                             m.kernels[m.launches[failed].kernel].name,
                             toString(std::move(e))));
  }
  stats.launches = std::move(*result);
  stats.launchNote = device.getLaunchNote();
  if (Error e = device.synchronize())
    return std::move(e);
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  haveRun = true;
  return stats;
}

std::optional<ModelledTime> RunStats::getModelledTime() const {
  if (launches.empty())
    return std::nullopt;
  ModelledTime time;
  for (const LaunchStats &launch : launches) {
    const emu::KernelTiming *timing = launch.getTiming();
    if (!timing)
      return std::nullopt;
    time.kernelMicroseconds += timing->microseconds;
    time.overheadMicroseconds += timing->launchOverheadUs;
    ++time.launches;
  }
  return time;
}

Expected<HostTensor> Session::readValue(uint32_t valueId) {
  const pkg::Manifest &m = package.manifest;
  if (valueId >= m.values.size())
    return makeError(formatv("no value {0}", valueId));
  const pkg::Value &v = m.values[valueId];
  if (!v.buffer)
    return makeError("value '" + v.name +
                     "' exists only in the reference graph");
  HostTensor tensor;
  tensor.type = v.type;
  tensor.data.resize(v.type.getByteSize());
  if (Error e = device.copyFromDevice(tensor.data,
                                      buffers[*v.buffer] + v.bufferOffset))
    return std::move(e);
  return tensor;
}

Expected<HostTensor> Session::getOutput(StringRef name) {
  const pkg::Manifest &m = package.manifest;
  for (size_t i = 0; i < m.outputs.size(); ++i)
    if (m.values[m.outputs[i]].name == name)
      return getOutput(unsigned(i));
  SmallVector<std::string> names;
  for (uint32_t id : m.outputs)
    names.push_back("'" + m.values[id].name + "'");
  return makeError("the graph has no output named '" + name +
                   "'; its outputs are " + join(names, ", "));
}

Expected<HostTensor> Session::getOutput(unsigned index) {
  const pkg::Manifest &m = package.manifest;
  if (index >= m.outputs.size())
    return makeError(formatv("output #{0} does not exist: the graph has {1} "
                             "output{2}",
                             index, m.outputs.size(),
                             m.outputs.size() == 1 ? "" : "s"));
  if (!haveRun)
    return makeError("no output yet: the session has not run");
  return readValue(m.outputs[index]);
}

} // namespace crest::rt
