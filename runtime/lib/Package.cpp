//===- Package.cpp - The .crest package: reading, writing, checking -------===//
//
// The container and the manifest are documented in Package.h and
// docs/Package.md. Every reader path goes through three layers, each of
// which only sees data the previous one checked:
//
//   1. the container (readPackage): header, section table, section bounds,
//      alignment, overlap, kinds and indices;
//   2. the manifest JSON (manifestFromJson): every key, type and range;
//   3. the consistency rules (validateManifest / validatePackage): every
//      cross-reference, every size (overflow-checked), buffer sharing and
//      the reference graph's order.
//
// Errors name the offending field by its JSON path ("launches[3].args[1]").
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Package.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "crest/Semantics/View.h"
#include "crest/Support/Limits.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace crest;
using namespace crest::pkg;

//===----------------------------------------------------------------------===//
// Element types and tensor types
//===----------------------------------------------------------------------===//

namespace {
struct ElementTypeInfo {
  ElementType type;
  const char *name;
  unsigned size;
  bool isFloat;
};
constexpr ElementTypeInfo kElementTypes[] = {
    {ElementType::F64, "f64", 8, true},
    {ElementType::F32, "f32", 4, true},
    {ElementType::F16, "f16", 2, true},
    {ElementType::BF16, "bf16", 2, true},
    {ElementType::F8E4M3FNUZ, "f8E4M3FNUZ", 1, true},
    {ElementType::F8E5M2FNUZ, "f8E5M2FNUZ", 1, true},
    {ElementType::F8E4M3FN, "f8E4M3FN", 1, true},
    {ElementType::F8E5M2, "f8E5M2", 1, true},
    {ElementType::I64, "i64", 8, false},
    {ElementType::I32, "i32", 4, false},
    {ElementType::I16, "i16", 2, false},
    {ElementType::I8, "i8", 1, false},
    {ElementType::U8, "ui8", 1, false},
    {ElementType::U16, "ui16", 2, false},
    {ElementType::U32, "ui32", 4, false},
    {ElementType::U64, "ui64", 8, false},
    {ElementType::I1, "i1", 1, false},
};

const ElementTypeInfo &getInfo(ElementType type) {
  for (const ElementTypeInfo &info : kElementTypes)
    if (info.type == type)
      return info;
  llvm_unreachable("unknown element type");
}
} // namespace

StringRef pkg::getElementTypeName(ElementType type) {
  return getInfo(type).name;
}

std::optional<ElementType> pkg::parseElementType(StringRef name) {
  for (const ElementTypeInfo &info : kElementTypes)
    if (name == info.name)
      return info.type;
  return std::nullopt;
}

unsigned pkg::getElementTypeSize(ElementType type) {
  return getInfo(type).size;
}

bool pkg::isFloatType(ElementType type) { return getInfo(type).isFloat; }

/// Overflow-checked arithmetic on unsigned 64-bit sizes.
static bool checkedAdd(uint64_t a, uint64_t b, uint64_t &result) {
  if (a > std::numeric_limits<uint64_t>::max() - b)
    return false;
  result = a + b;
  return true;
}

static bool checkedMul(uint64_t a, uint64_t b, uint64_t &result) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    return false;
  result = a * b;
  return true;
}

/// The byte size of `type`, or nullopt when a dimension is negative or the
/// element count exceeds Crest's tensor-size limit (kMaxTensorElements).
static std::optional<uint64_t> getCheckedByteSize(const TensorType &type) {
  constexpr uint64_t kLimit = std::numeric_limits<int64_t>::max();
  std::optional<int64_t> count =
      crest::checkedProduct(type.shape, crest::kMaxTensorElements);
  if (!count)
    return std::nullopt;
  uint64_t elements = uint64_t(*count);
  uint64_t bytes;
  if (!checkedMul(elements, getElementTypeSize(type.element), bytes) ||
      bytes > kLimit)
    return std::nullopt;
  return bytes;
}

int64_t TensorType::getNumElements() const {
  int64_t elements = 1;
  for (int64_t dim : shape)
    elements *= dim;
  return elements;
}

uint64_t TensorType::getByteSize() const {
  return uint64_t(getNumElements()) * getElementTypeSize(element);
}

std::string TensorType::describe() const {
  std::string text = getElementTypeName(element).str() + "[";
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (i)
      text += ", ";
    text += std::to_string(dim);
  }
  return text + "]";
}

std::optional<uint32_t> Package::findValue(StringRef name) const {
  for (auto [i, value] : llvm::enumerate(manifest.values))
    if (value.name == name)
      return uint32_t(i);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Manifest -> JSON
//===----------------------------------------------------------------------===//

static StringRef getValueKindName(ValueKind kind) {
  switch (kind) {
  case ValueKind::Input:
    return "input";
  case ValueKind::Weight:
    return "weight";
  case ValueKind::Intermediate:
    return "intermediate";
  case ValueKind::Workspace:
    return "workspace";
  case ValueKind::Output:
    return "output";
  case ValueKind::Reference:
    return "reference";
  }
  llvm_unreachable("unknown value kind");
}

static std::optional<ValueKind> parseValueKind(StringRef name) {
  for (ValueKind kind :
       {ValueKind::Input, ValueKind::Weight, ValueKind::Intermediate,
        ValueKind::Workspace, ValueKind::Output, ValueKind::Reference})
    if (getValueKindName(kind) == name)
      return kind;
  return std::nullopt;
}

template <typename T> static json::Array toArray(const T &range) {
  json::Array array;
  for (const auto &element : range)
    array.push_back(element);
  return array;
}

json::Value pkg::manifestToJson(const Manifest &manifest) {
  json::Array values;
  for (const Value &value : manifest.values) {
    json::Object object{{"name", value.name},
                        {"type", getElementTypeName(value.type.element)},
                        {"shape", toArray(value.type.shape)},
                        {"kind", getValueKindName(value.kind)}};
    if (value.buffer) {
      object["buffer"] = *value.buffer;
      object["buffer_offset"] = value.bufferOffset;
    }
    if (value.kind == ValueKind::Weight) {
      object["weight_offset"] = value.weightOffset;
      object["weight_size"] = value.weightSize;
    }
    values.push_back(std::move(object));
  }
  json::Array buffers;
  for (const Buffer &buffer : manifest.buffers)
    buffers.push_back(json::Object{{"size", buffer.size}});
  json::Array kernels;
  for (const Kernel &kernel : manifest.kernels) {
    const KernelInfo &info = kernel.info;
    json::Object infoJson{{"vgprs", info.vgprs},
                          {"agprs", info.agprs},
                          {"sgprs", info.sgprs},
                          {"vgpr_spills", info.vgprSpills},
                          {"sgpr_spills", info.sgprSpills},
                          {"lds_bytes", info.ldsBytes},
                          {"scratch_bytes", info.scratchBytes},
                          {"waves_per_simd", info.wavesPerSimd},
                          {"mfma_count", info.mfmaCount},
                          {"barrier_count", info.barrierCount}};
    if (info.modelledUs)
      infoJson["modelled_us"] = *info.modelledUs;
    kernels.push_back(json::Object{{"name", kernel.name},
                                   {"code_object", kernel.codeObject},
                                   {"op", kernel.op},
                                   {"info", std::move(infoJson)}});
  }
  json::Array launches;
  for (const Launch &launch : manifest.launches)
    launches.push_back(json::Object{{"kernel", launch.kernel},
                                    {"grid", toArray(launch.grid)},
                                    {"block", toArray(launch.block)},
                                    {"args", toArray(launch.args)}});
  json::Array graph;
  for (const Node &node : manifest.graph)
    graph.push_back(json::Object{{"op", node.op},
                                 {"inputs", toArray(node.inputs)},
                                 {"outputs", toArray(node.outputs)},
                                 {"attributes", json::Object(node.attributes)},
                                 {"location", node.location}});
  json::Object object{
      {"chip", manifest.chip},
      {"code_object_version", manifest.codeObjectVersion},
      {"wave_size", manifest.waveSize},
      {"graph_name", manifest.graphName},
      {"values", std::move(values)},
      {"inputs", toArray(manifest.inputs)},
      {"outputs", toArray(manifest.outputs)},
      {"buffers", std::move(buffers)},
      {"kernels", std::move(kernels)},
      {"launches", std::move(launches)},
      {"graph", std::move(graph)},
  };
  if (manifest.precisionPlan)
    object["precision_plan"] = *manifest.precisionPlan;
  return object;
}

//===----------------------------------------------------------------------===//
// JSON -> Manifest
//===----------------------------------------------------------------------===//

/// `value` as printf's %g writes it.
static std::string formatNumber(double value) {
  std::string text;
  raw_string_ostream(text) << format("%g", value);
  return text;
}

namespace {
/// Reads JSON into C++ values, remembering the first error with its path.
class JsonReader {
public:
  bool failed() const { return !error.empty(); }
  std::string takeError() { return std::move(error); }

  bool fail(const Twine &path, const Twine &message) {
    if (error.empty()) {
      std::string where = path.str();
      error = where.empty() ? message.str() : where + ": " + message.str();
    }
    return false;
  }

  /// An object with exactly the keys `required` plus any of `optional`.
  const json::Object *object(const json::Value &value, const Twine &path,
                             ArrayRef<StringRef> required,
                             ArrayRef<StringRef> optional = {}) {
    const json::Object *object = value.getAsObject();
    if (!object) {
      fail(path, "expected an object");
      return nullptr;
    }
    for (StringRef key : required)
      if (!object->get(key)) {
        fail(path, "missing key \"" + key + "\"");
        return nullptr;
      }
    // Sorted for a deterministic message.
    SmallVector<StringRef> keys;
    for (const auto &entry : *object)
      keys.push_back(entry.first);
    llvm::sort(keys);
    for (StringRef key : keys)
      if (!llvm::is_contained(required, key) &&
          !llvm::is_contained(optional, key)) {
        fail(path, "unknown key \"" + key + "\"");
        return nullptr;
      }
    return object;
  }

  const json::Array *array(const json::Value &value, const Twine &path) {
    const json::Array *array = value.getAsArray();
    if (!array)
      fail(path, "expected an array");
    return array;
  }

  bool string(const json::Value &value, const Twine &path, std::string &out) {
    std::optional<StringRef> string = value.getAsString();
    if (!string)
      return fail(path, "expected a string");
    out = string->str();
    return true;
  }

  /// An integer in [min, max].
  bool integer(const json::Value &value, const Twine &path, int64_t min,
               int64_t max, int64_t &out) {
    std::optional<int64_t> number = value.getAsInteger();
    if (!number) {
      // Integers above INT64_MAX parse as uint64.
      if (value.getAsUINT64())
        return fail(path, "value " + Twine(*value.getAsUINT64()) +
                              " out of range [" + Twine(min) + ", " +
                              Twine(max) + "]");
      return fail(path, "expected an integer");
    }
    if (*number < min || *number > max)
      return fail(path, "value " + Twine(*number) + " out of range [" +
                            Twine(min) + ", " + Twine(max) + "]");
    out = *number;
    return true;
  }

  bool u64(const json::Value &value, const Twine &path, uint64_t &out) {
    if (std::optional<uint64_t> number = value.getAsUINT64()) {
      out = *number;
      return true;
    }
    if (std::optional<int64_t> number = value.getAsInteger())
      return fail(path, "value " + Twine(*number) + " is negative");
    return fail(path, "expected a non-negative integer");
  }

  /// A finite number above zero.
  bool positiveNumber(const json::Value &value, const Twine &path,
                      double &out) {
    std::optional<double> number = value.getAsNumber();
    if (!number)
      return fail(path, "expected a number");
    if (!std::isfinite(*number) || *number <= 0)
      return fail(path, "value " + formatNumber(*number) +
                            " is not a positive number");
    out = *number;
    return true;
  }

  template <typename T>
  bool unsignedField(const json::Value &value, const Twine &path, T &out) {
    int64_t number;
    if (!integer(value, path, 0, int64_t(std::numeric_limits<T>::max()),
                 number))
      return false;
    out = T(number);
    return true;
  }

  template <typename T>
  bool unsignedArray(const json::Value &value, const Twine &path,
                     std::vector<T> &out) {
    const json::Array *elements = array(value, path);
    if (!elements)
      return false;
    for (auto [i, element] : llvm::enumerate(*elements)) {
      T number;
      if (!unsignedField(element, path + "[" + Twine(i) + "]", number))
        return false;
      out.push_back(number);
    }
    return true;
  }

  bool dim3(const json::Value &value, const Twine &path,
            std::array<uint32_t, 3> &out) {
    const json::Array *elements = array(value, path);
    if (!elements)
      return false;
    if (elements->size() != 3)
      return fail(path, "expected 3 integers, got " + Twine(elements->size()));
    for (unsigned i = 0; i < 3; ++i) {
      int64_t number;
      if (!integer((*elements)[i], path + "[" + Twine(i) + "]", 1,
                   std::numeric_limits<uint32_t>::max(), number))
        return false;
      out[i] = uint32_t(number);
    }
    return true;
  }

private:
  std::string error;
};
} // namespace

static bool readValue(JsonReader &reader, const json::Value &json,
                      const std::string &path, Value &value) {
  const json::Object *object = reader.object(
      json, path, {"name", "type", "shape", "kind"},
      {"buffer", "buffer_offset", "weight_offset", "weight_size"});
  if (!object)
    return false;
  if (!reader.string(*object->get("name"), path + ".name", value.name))
    return false;
  std::string typeName;
  if (!reader.string(*object->get("type"), path + ".type", typeName))
    return false;
  std::optional<ElementType> element = parseElementType(typeName);
  if (!element)
    return reader.fail(path + ".type",
                       "unknown element type \"" + typeName + "\"");
  value.type.element = *element;
  const json::Array *shape =
      reader.array(*object->get("shape"), path + ".shape");
  if (!shape)
    return false;
  if (shape->size() > kMaxRank)
    return reader.fail(path + ".shape", "rank " + Twine(shape->size()) +
                                            " exceeds the maximum " +
                                            Twine(kMaxRank));
  for (auto [i, dim] : llvm::enumerate(*shape)) {
    int64_t number;
    if (!reader.integer(dim, path + ".shape[" + Twine(i) + "]", 0,
                        std::numeric_limits<int64_t>::max(), number))
      return false;
    value.type.shape.push_back(number);
  }
  std::string kindName;
  if (!reader.string(*object->get("kind"), path + ".kind", kindName))
    return false;
  std::optional<ValueKind> kind = parseValueKind(kindName);
  if (!kind)
    return reader.fail(path + ".kind",
                       "unknown value kind \"" + kindName +
                           "\" (expected input, weight, intermediate, "
                           "output or reference)");
  value.kind = *kind;
  if (const json::Value *buffer = object->get("buffer")) {
    uint32_t id;
    if (!reader.unsignedField(*buffer, path + ".buffer", id))
      return false;
    value.buffer = id;
  }
  if (const json::Value *offset = object->get("buffer_offset")) {
    if (!value.buffer)
      return reader.fail(path + ".buffer_offset", "given without a buffer");
    if (!reader.u64(*offset, path + ".buffer_offset", value.bufferOffset))
      return false;
  }
  const json::Value *weightOffset = object->get("weight_offset");
  const json::Value *weightSize = object->get("weight_size");
  if (value.kind == ValueKind::Weight) {
    if (!weightOffset || !weightSize)
      return reader.fail(path, "a weight needs \"weight_offset\" and "
                               "\"weight_size\"");
    if (!reader.u64(*weightOffset, path + ".weight_offset",
                    value.weightOffset) ||
        !reader.u64(*weightSize, path + ".weight_size", value.weightSize))
      return false;
  } else if (weightOffset || weightSize) {
    return reader.fail(path, "only weights have \"weight_offset\" and "
                             "\"weight_size\"");
  }
  return true;
}

static bool readKernel(JsonReader &reader, const json::Value &json,
                       const std::string &path, Kernel &kernel) {
  const json::Object *object =
      reader.object(json, path, {"name", "code_object", "op", "info"});
  if (!object)
    return false;
  if (!reader.string(*object->get("name"), path + ".name", kernel.name) ||
      !reader.unsignedField(*object->get("code_object"), path + ".code_object",
                            kernel.codeObject) ||
      !reader.string(*object->get("op"), path + ".op", kernel.op))
    return false;
  std::string infoPath = path + ".info";
  const json::Object *info = reader.object(
      *object->get("info"), infoPath,
      {"vgprs", "agprs", "sgprs", "vgpr_spills", "sgpr_spills", "lds_bytes",
       "scratch_bytes", "waves_per_simd", "mfma_count", "barrier_count"},
      {"modelled_us"});
  if (!info)
    return false;
  KernelInfo &out = kernel.info;
  auto field = [&](StringRef key, auto &target) {
    return reader.unsignedField(*info->get(key), infoPath + "." + key, target);
  };
  if (const json::Value *modelled = info->get("modelled_us")) {
    double us;
    if (!reader.positiveNumber(*modelled, infoPath + ".modelled_us", us))
      return false;
    out.modelledUs = us;
  }
  return field("vgprs", out.vgprs) && field("agprs", out.agprs) &&
         field("sgprs", out.sgprs) && field("vgpr_spills", out.vgprSpills) &&
         field("sgpr_spills", out.sgprSpills) &&
         reader.u64(*info->get("lds_bytes"), infoPath + ".lds_bytes",
                    out.ldsBytes) &&
         reader.u64(*info->get("scratch_bytes"), infoPath + ".scratch_bytes",
                    out.scratchBytes) &&
         field("waves_per_simd", out.wavesPerSimd) &&
         field("mfma_count", out.mfmaCount) &&
         field("barrier_count", out.barrierCount);
}

static bool readNode(JsonReader &reader, const json::Value &json,
                     const std::string &path, Node &node) {
  const json::Object *object = reader.object(
      json, path, {"op", "inputs", "outputs", "attributes", "location"});
  if (!object)
    return false;
  if (!reader.string(*object->get("op"), path + ".op", node.op) ||
      !reader.unsignedArray(*object->get("inputs"), path + ".inputs",
                            node.inputs) ||
      !reader.unsignedArray(*object->get("outputs"), path + ".outputs",
                            node.outputs) ||
      !reader.string(*object->get("location"), path + ".location",
                     node.location))
    return false;
  const json::Object *attributes = object->get("attributes")->getAsObject();
  if (!attributes)
    return reader.fail(path + ".attributes", "expected an object");
  node.attributes = *attributes;
  return true;
}

/// Reads `key` of `object`, an array, with `read` per element.
template <typename T, typename ReadFn>
static bool readTable(JsonReader &reader, const json::Object &object,
                      StringRef key, std::vector<T> &out, ReadFn read) {
  const json::Array *elements = reader.array(*object.get(key), key);
  if (!elements)
    return false;
  out.resize(elements->size());
  for (auto [i, element] : llvm::enumerate(*elements))
    if (!read(reader, element, (key + "[" + Twine(i) + "]").str(), out[i]))
      return false;
  return true;
}

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static Error validateManifest(const Manifest &manifest,
                              std::optional<size_t> codeObjectCount,
                              std::optional<uint64_t> weightsSize);

/// Parses without the cross-reference checks.
static Expected<Manifest> parseManifest(const json::Value &json) {
  JsonReader reader;
  Manifest manifest;
  const json::Object *object = reader.object(
      json, "",
      {"chip", "code_object_version", "wave_size", "graph_name", "values",
       "inputs", "outputs", "buffers", "kernels", "launches", "graph"},
      {"precision_plan"});
  if (!object)
    return makeError(reader.takeError());
  if (const json::Value *plan = object->get("precision_plan")) {
    if (!plan->getAsObject())
      return makeError("precision_plan: expected an object");
    manifest.precisionPlan = *plan;
  }
  bool ok =
      reader.string(*object->get("chip"), "chip", manifest.chip) &&
      reader.unsignedField(*object->get("code_object_version"),
                           "code_object_version", manifest.codeObjectVersion) &&
      reader.unsignedField(*object->get("wave_size"), "wave_size",
                           manifest.waveSize) &&
      reader.string(*object->get("graph_name"), "graph_name",
                    manifest.graphName) &&
      readTable(reader, *object, "values", manifest.values, readValue) &&
      reader.unsignedArray(*object->get("inputs"), "inputs", manifest.inputs) &&
      reader.unsignedArray(*object->get("outputs"), "outputs",
                           manifest.outputs) &&
      readTable(reader, *object, "buffers", manifest.buffers,
                [](JsonReader &reader, const json::Value &json,
                   const std::string &path, Buffer &buffer) {
                  const json::Object *object =
                      reader.object(json, path, {"size"});
                  return object && reader.u64(*object->get("size"),
                                              path + ".size", buffer.size);
                }) &&
      readTable(reader, *object, "kernels", manifest.kernels, readKernel) &&
      readTable(
          reader, *object, "launches", manifest.launches,
          [](JsonReader &reader, const json::Value &json,
             const std::string &path, Launch &launch) {
            const json::Object *object =
                reader.object(json, path, {"kernel", "grid", "block", "args"});
            return object &&
                   reader.unsignedField(*object->get("kernel"),
                                        path + ".kernel", launch.kernel) &&
                   reader.dim3(*object->get("grid"), path + ".grid",
                               launch.grid) &&
                   reader.dim3(*object->get("block"), path + ".block",
                               launch.block) &&
                   reader.unsignedArray(*object->get("args"), path + ".args",
                                        launch.args);
          }) &&
      readTable(reader, *object, "graph", manifest.graph, readNode);
  if (!ok)
    return makeError(reader.takeError());
  return manifest;
}

Expected<Manifest> pkg::manifestFromJson(const json::Value &json) {
  Expected<Manifest> manifest = parseManifest(json);
  if (!manifest)
    return manifest.takeError();
  if (Error error = validateManifest(*manifest, std::nullopt, std::nullopt))
    return std::move(error);
  return manifest;
}

//===----------------------------------------------------------------------===//
// Consistency rules
//===----------------------------------------------------------------------===//

/// Maximum work-items per workgroup any AMD chip allows.
static constexpr uint64_t kMaxWorkgroupSize = 1024;

static std::string describeValue(const Manifest &manifest, uint32_t id) {
  return "value " + std::to_string(id) + " ('" + manifest.values[id].name +
         "')";
}

/// Checks a list of value ids: every id in range.
static Error checkValueIds(ArrayRef<uint32_t> ids, const Twine &path,
                           size_t valueCount) {
  for (auto [i, id] : llvm::enumerate(ids))
    if (id >= valueCount)
      return makeError(path + "[" + Twine(i) + "]: value " + Twine(id) +
                       " out of range (" + Twine(valueCount) + " values)");
  return Error::success();
}

static Error validateManifest(const Manifest &manifest,
                              std::optional<size_t> codeObjectCount,
                              std::optional<uint64_t> weightsSize) {
  if (manifest.chip.empty())
    return makeError("chip: empty");
  if (manifest.codeObjectVersion < 4 || manifest.codeObjectVersion > 6)
    return makeError("code_object_version: " +
                     Twine(manifest.codeObjectVersion) + " is not 4, 5 or 6");
  if (manifest.waveSize != 32 && manifest.waveSize != 64)
    return makeError("wave_size: " + Twine(manifest.waveSize) +
                     " is not 32 or 64");

  const size_t valueCount = manifest.values.size();
  const size_t bufferCount = manifest.buffers.size();

  for (auto [i, buffer] : llvm::enumerate(manifest.buffers))
    if (buffer.size == 0)
      return makeError("buffers[" + Twine(i) + "].size: must be positive");

  // Values: names, types, kinds, buffer and weight ranges.
  StringMap<uint32_t> names;
  std::vector<uint64_t> byteSizes(valueCount);
  for (auto [i, value] : llvm::enumerate(manifest.values)) {
    std::string path = "values[" + std::to_string(i) + "]";
    if (value.name.empty())
      return makeError(path + ".name: empty");
    auto [it, inserted] = names.try_emplace(value.name, uint32_t(i));
    if (!inserted)
      return makeError(path + ".name: '" + value.name +
                       "' is also the name of values[" + Twine(it->second) +
                       "]");
    if (value.type.shape.size() > kMaxRank)
      return makeError(path + ".shape: rank " + Twine(value.type.shape.size()) +
                       " exceeds the maximum " + Twine(kMaxRank));
    for (auto [d, dim] : llvm::enumerate(value.type.shape))
      if (dim < 0)
        return makeError(path + ".shape[" + Twine(d) + "]: negative (" +
                         Twine(dim) + ")");
    std::optional<uint64_t> bytes = getCheckedByteSize(value.type);
    if (!bytes)
      return makeError(path + ".shape: " + value.type.describe() +
                       " has more than " + Twine(crest::kMaxTensorElements) +
                       " elements (Crest's tensor-size limit)");
    byteSizes[i] = *bytes;

    if (value.kind == ValueKind::Reference) {
      if (value.buffer)
        return makeError(path + ".buffer: a reference value has no buffer");
    } else {
      if (!value.buffer)
        return makeError(
            path + ": a" + (value.kind == ValueKind::Input ? "n " : " ") +
            getValueKindName(value.kind) + " value needs a buffer");
      if (*value.buffer >= bufferCount)
        return makeError(path + ".buffer: buffer " + Twine(*value.buffer) +
                         " out of range (" + Twine(bufferCount) + " buffers)");
      uint64_t end;
      uint64_t bufferSize = manifest.buffers[*value.buffer].size;
      if (!checkedAdd(value.bufferOffset, *bytes, end) || end > bufferSize)
        return makeError(path + ": " + Twine(*bytes) + " bytes at offset " +
                         Twine(value.bufferOffset) + " do not fit buffer " +
                         Twine(*value.buffer) + " (" + Twine(bufferSize) +
                         " bytes)");
    }
    if (value.kind == ValueKind::Weight) {
      if (value.weightSize != *bytes)
        return makeError(path + ".weight_size: " + Twine(value.weightSize) +
                         " bytes, but " + value.type.describe() + " has " +
                         Twine(*bytes));
      uint64_t end;
      if (!checkedAdd(value.weightOffset, value.weightSize, end) ||
          (weightsSize && end > *weightsSize))
        return makeError(
            path + ": weight bytes [" + Twine(value.weightOffset) + ", +" +
            Twine(value.weightSize) + ") lie outside the weights section (" +
            (weightsSize ? Twine(*weightsSize) : Twine("?")) + " bytes)");
    } else if (value.weightOffset || value.weightSize) {
      return makeError(path + ": only weights have weight bytes");
    }
  }

  // Inputs and outputs: each Input (Output) value listed exactly once.
  auto checkBindings = [&](ArrayRef<uint32_t> ids, StringRef key,
                           ValueKind kind) -> Error {
    if (Error error = checkValueIds(ids, key, valueCount))
      return error;
    std::vector<bool> seen(valueCount);
    for (auto [i, id] : llvm::enumerate(ids)) {
      std::string path = (key + "[" + Twine(i) + "]").str();
      if (manifest.values[id].kind != kind)
        return makeError(path + ": " + describeValue(manifest, id) + " is " +
                         getValueKindName(manifest.values[id].kind) + ", not " +
                         getValueKindName(kind));
      if (seen[id])
        return makeError(path + ": " + describeValue(manifest, id) +
                         " is listed twice");
      seen[id] = true;
    }
    for (auto [id, value] : llvm::enumerate(manifest.values))
      if (value.kind == kind && !seen[id])
        return makeError("values[" + Twine(id) +
                         "]: " + getValueKindName(kind) + " '" + value.name +
                         "' is missing from \"" + key + "\"");
    return Error::success();
  };
  if (Error error = checkBindings(manifest.inputs, "inputs", ValueKind::Input))
    return error;
  if (Error error =
          checkBindings(manifest.outputs, "outputs", ValueKind::Output))
    return error;

  // Kernels.
  StringSet<> kernelNames;
  for (auto [i, kernel] : llvm::enumerate(manifest.kernels)) {
    std::string path = "kernels[" + std::to_string(i) + "]";
    if (kernel.name.empty())
      return makeError(path + ".name: empty");
    if (codeObjectCount && kernel.codeObject >= *codeObjectCount)
      return makeError(path + ".code_object: code object " +
                       Twine(kernel.codeObject) + " out of range (" +
                       Twine(*codeObjectCount) + " code objects)");
    std::string key = std::to_string(kernel.codeObject) + ":" + kernel.name;
    if (!kernelNames.insert(key).second)
      return makeError(path + ".name: kernel '" + kernel.name +
                       "' of code object " + Twine(kernel.codeObject) +
                       " is listed twice");
    if (std::optional<double> us = kernel.info.modelledUs;
        us && (!std::isfinite(*us) || *us <= 0))
      return makeError(path + ".info.modelled_us: " + formatNumber(*us) +
                       " is not a positive number of microseconds");
  }

  // Launches, and every device value's live range in launch order.
  constexpr size_t kNever = std::numeric_limits<size_t>::max();
  std::vector<size_t> firstUse(valueCount, kNever), lastUse(valueCount, 0);
  for (auto [i, launch] : llvm::enumerate(manifest.launches)) {
    std::string path = "launches[" + std::to_string(i) + "]";
    if (launch.kernel >= manifest.kernels.size())
      return makeError(path + ".kernel: kernel " + Twine(launch.kernel) +
                       " out of range (" + Twine(manifest.kernels.size()) +
                       " kernels)");
    uint64_t items = uint64_t(launch.block[0]) * launch.block[1];
    if (launch.block[0] == 0 || launch.block[1] == 0 || launch.block[2] == 0 ||
        !checkedMul(items, launch.block[2], items) || items > kMaxWorkgroupSize)
      return makeError(path + ".block: " + Twine(launch.block[0]) + "x" +
                       Twine(launch.block[1]) + "x" + Twine(launch.block[2]) +
                       " is not 1 to " + Twine(kMaxWorkgroupSize) +
                       " work-items");
    for (unsigned d = 0; d < 3; ++d)
      if (launch.grid[d] == 0)
        return makeError(path + ".grid[" + Twine(d) + "]: must be positive");
    if (Error e = crest::checkHsaGrid(launch.grid, launch.block))
      return makeError(path + ": " + toString(std::move(e)));
    if (Error error = checkValueIds(launch.args, path + ".args", valueCount))
      return error;
    for (auto [a, id] : llvm::enumerate(launch.args)) {
      if (!manifest.values[id].buffer)
        return makeError(path + ".args[" + Twine(a) + "]: " +
                         describeValue(manifest, id) + " has no buffer");
      firstUse[id] = std::min(firstUse[id], size_t(i));
      lastUse[id] = std::max(lastUse[id], size_t(i));
    }
  }

  // Aliases: the output of a `reshape` node with exactly its input's bytes
  // (same buffer, offset and size) shows the input's storage. An alias and
  // the value it shows are one storage class: they may share bytes, the
  // class is live from the first to the last launch naming any member, and
  // at most one member is an input, output or weight (which owns the
  // buffer).
  std::vector<uint32_t> aliasRoot(valueCount);
  for (uint32_t id = 0; id < valueCount; ++id)
    aliasRoot[id] = id;
  auto findRoot = [&](uint32_t id) {
    while (aliasRoot[id] != id)
      id = aliasRoot[id] = aliasRoot[aliasRoot[id]];
    return id;
  };
  // Windows likewise: the output of a `slice` node that is one contiguous
  // run of its input's elements (crest/Semantics/View.h), placed at that
  // run's bytes of the input's buffer.
  auto windowOffset = [&](const Node &node, const Value &in,
                          const Value &out) -> std::optional<uint64_t> {
    auto ints = [&](StringRef key) -> std::optional<std::vector<int64_t>> {
      std::vector<int64_t> values;
      const llvm::json::Value *attr = node.attributes.get(key);
      if (!attr)
        return values;
      const llvm::json::Array *array = attr->getAsArray();
      if (!array)
        return std::nullopt;
      for (const llvm::json::Value &v : *array) {
        std::optional<int64_t> i = v.getAsInteger();
        if (!i)
          return std::nullopt;
        values.push_back(*i);
      }
      return values;
    };
    std::optional<std::vector<int64_t>> offsets = ints("offsets");
    std::optional<std::vector<int64_t>> strides = ints("strides");
    if (!offsets || !strides || in.type.element != out.type.element)
      return std::nullopt;
    std::optional<int64_t> bytes = crest::getContiguousWindowByteOffset(
        in.type.shape, out.type.shape, *offsets, *strides,
        getElementTypeSize(in.type.element));
    if (!bytes)
      return std::nullopt;
    return uint64_t(*bytes);
  };
  for (const Node &node : manifest.graph) {
    if ((node.op != "reshape" && node.op != "slice") ||
        node.inputs.size() != 1 || node.outputs.size() != 1 ||
        node.inputs[0] >= valueCount || node.outputs[0] >= valueCount)
      continue;
    const Value &in = manifest.values[node.inputs[0]];
    const Value &out = manifest.values[node.outputs[0]];
    if (!in.buffer || !out.buffer || *in.buffer != *out.buffer)
      continue;
    bool shows = false;
    if (node.op == "reshape") {
      shows = in.bufferOffset == out.bufferOffset &&
              byteSizes[node.inputs[0]] == byteSizes[node.outputs[0]];
    } else if (std::optional<uint64_t> offset = windowOffset(node, in, out)) {
      uint64_t at;
      shows = checkedAdd(in.bufferOffset, *offset, at) &&
              out.bufferOffset == at;
    }
    if (shows)
      aliasRoot[findRoot(node.outputs[0])] = findRoot(node.inputs[0]);
  }
  std::vector<size_t> classFirst(valueCount, kNever), classLast(valueCount, 0);
  std::vector<int64_t> classOwner(valueCount, -1);
  for (uint32_t id = 0; id < valueCount; ++id) {
    uint32_t root = findRoot(id);
    classFirst[root] = std::min(classFirst[root], firstUse[id]);
    if (firstUse[id] != kNever)
      classLast[root] = std::max(classLast[root], lastUse[id]);
    const Value &value = manifest.values[id];
    if (value.kind == ValueKind::Intermediate ||
        value.kind == ValueKind::Workspace ||
        value.kind == ValueKind::Reference)
      continue;
    if (classOwner[root] >= 0)
      return makeError("values[" + Twine(id) + "]: '" + value.name + "' (" +
                       getValueKindName(value.kind) + ") is a reshape of '" +
                       manifest.values[classOwner[root]].name + "' (" +
                       getValueKindName(
                           manifest.values[classOwner[root]].kind) +
                       ") sharing its bytes; only one input, output or "
                       "weight may hold them");
    classOwner[root] = id;
  }

  // Buffer sharing: inputs, outputs and weights own their buffer (with
  // their aliases); two intermediates of different classes may share bytes
  // only if their live ranges (first to last launch that names the class)
  // are disjoint.
  std::vector<std::vector<uint32_t>> users(bufferCount);
  for (auto [id, value] : llvm::enumerate(manifest.values))
    if (value.buffer)
      users[*value.buffer].push_back(uint32_t(id));
  for (auto [b, ids] : llvm::enumerate(users)) {
    for (size_t x = 0; x < ids.size(); ++x) {
      for (size_t y = x + 1; y < ids.size(); ++y) {
        uint32_t rx = findRoot(ids[x]), ry = findRoot(ids[y]);
        if (rx == ry)
          continue; // the same bytes in two shapes
        const Value &first = manifest.values[ids[x]];
        const Value &second = manifest.values[ids[y]];
        bool shared = classOwner[rx] >= 0 || classOwner[ry] >= 0;
        if (shared)
          return makeError("values[" + Twine(ids[y]) + "].buffer: '" +
                           second.name + "' (" + getValueKindName(second.kind) +
                           ") shares buffer " + Twine(b) + " with '" +
                           first.name + "' (" + getValueKindName(first.kind) +
                           "); only intermediates share buffers");
        uint64_t firstEnd = first.bufferOffset + byteSizes[ids[x]];
        uint64_t secondEnd = second.bufferOffset + byteSizes[ids[y]];
        bool bytesOverlap =
            first.bufferOffset < secondEnd && second.bufferOffset < firstEnd;
        bool bothUsed = classFirst[rx] != kNever && classFirst[ry] != kNever;
        bool livesOverlap = bothUsed && classFirst[rx] <= classLast[ry] &&
                            classFirst[ry] <= classLast[rx];
        if (bytesOverlap && livesOverlap)
          return makeError("values[" + Twine(ids[y]) + "].buffer: '" +
                           second.name + "' and '" + first.name +
                           "' share bytes of buffer " + Twine(b) +
                           " but are both live at launch " +
                           Twine(std::max(classFirst[rx], classFirst[ry])));
      }
    }
  }

  // The reference graph: node inputs are inputs, weights or outputs of an
  // earlier node; every other value is the output of exactly one node.
  std::vector<int64_t> producer(valueCount, -1);
  for (auto [i, node] : llvm::enumerate(manifest.graph)) {
    std::string path = "graph[" + std::to_string(i) + "]";
    if (node.op.empty())
      return makeError(path + ".op: empty");
    if (Error error = checkValueIds(node.inputs, path + ".inputs", valueCount))
      return error;
    if (Error error =
            checkValueIds(node.outputs, path + ".outputs", valueCount))
      return error;
    for (auto [k, id] : llvm::enumerate(node.inputs)) {
      ValueKind kind = manifest.values[id].kind;
      if (kind != ValueKind::Input && kind != ValueKind::Weight &&
          producer[id] < 0)
        return makeError(path + ".inputs[" + Twine(k) +
                         "]: " + describeValue(manifest, id) +
                         " is not produced by an earlier node");
    }
    for (auto [k, id] : llvm::enumerate(node.outputs)) {
      ValueKind kind = manifest.values[id].kind;
      std::string at = path + ".outputs[" + std::to_string(k) + "]: ";
      if (kind == ValueKind::Input || kind == ValueKind::Weight)
        return makeError(at + describeValue(manifest, id) + " is " +
                         getValueKindName(kind) + " and cannot be produced");
      if (producer[id] >= 0)
        return makeError(at + describeValue(manifest, id) +
                         " is already produced by graph[" +
                         Twine(producer[id]) + "]");
      producer[id] = int64_t(i);
    }
  }
  for (auto [id, value] : llvm::enumerate(manifest.values))
    if (value.kind != ValueKind::Input && value.kind != ValueKind::Weight &&
        value.kind != ValueKind::Workspace && producer[id] < 0)
      return makeError("values[" + Twine(id) +
                       "]: " + getValueKindName(value.kind) + " '" +
                       value.name + "' is produced by no node of the graph");
  return Error::success();
}

static Error isCodeObject(StringRef bytes, size_t index) {
  if (bytes.size() < 4 || !bytes.starts_with("\x7f"
                                             "ELF"))
    return makeError("code object " + Twine(index) + ": not an ELF file");
  return Error::success();
}

Error pkg::validatePackage(const Package &package) {
  for (auto [i, code] : llvm::enumerate(package.codeObjects))
    if (Error error = isCodeObject(code, i))
      return error;
  if (Error error = validateManifest(
          package.manifest, package.codeObjects.size(), package.weights.size()))
    return makeError("manifest: " + toString(std::move(error)));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The container
//===----------------------------------------------------------------------===//

static constexpr uint64_t kHeaderSize = 32;
static constexpr uint64_t kSectionEntrySize = 24;

static void putU32(std::vector<uint8_t> &out, size_t at, uint32_t value) {
  for (unsigned i = 0; i < 4; ++i)
    out[at + i] = uint8_t(value >> (8 * i));
}

static void putU64(std::vector<uint8_t> &out, size_t at, uint64_t value) {
  for (unsigned i = 0; i < 8; ++i)
    out[at + i] = uint8_t(value >> (8 * i));
}

static uint32_t getU32(ArrayRef<uint8_t> in, size_t at) {
  uint32_t value = 0;
  for (unsigned i = 0; i < 4; ++i)
    value |= uint32_t(in[at + i]) << (8 * i);
  return value;
}

static uint64_t getU64(ArrayRef<uint8_t> in, size_t at) {
  uint64_t value = 0;
  for (unsigned i = 0; i < 8; ++i)
    value |= uint64_t(in[at + i]) << (8 * i);
  return value;
}

static uint64_t alignTo256(uint64_t offset) {
  return (offset + kSectionAlignment - 1) / kSectionAlignment *
         kSectionAlignment;
}

Expected<std::vector<uint8_t>> pkg::writePackage(const Package &package) {
  if (Error error = validatePackage(package))
    return std::move(error);
  std::string manifest;
  raw_string_ostream os(manifest);
  os << formatv("{0:2}", manifestToJson(package.manifest)) << "\n";
  os.flush();

  struct Section {
    SectionKind kind;
    uint32_t index;
    StringRef bytes;
  };
  SmallVector<Section> sections;
  sections.push_back({SectionKind::Manifest, 0, manifest});
  sections.push_back(
      {SectionKind::Weights, 0,
       StringRef(reinterpret_cast<const char *>(package.weights.data()),
                 package.weights.size())});
  for (auto [i, code] : llvm::enumerate(package.codeObjects))
    sections.push_back({SectionKind::CodeObject, uint32_t(i), code});
  if (sections.size() > kMaxSections)
    return makeError("too many code objects (" +
                     Twine(package.codeObjects.size()) + ")");

  uint64_t offset =
      alignTo256(kHeaderSize + sections.size() * kSectionEntrySize);
  SmallVector<uint64_t> offsets;
  for (const Section &section : sections) {
    offsets.push_back(offset);
    offset = alignTo256(offset + section.bytes.size());
  }
  // The file ends right after the last section (no trailing padding).
  uint64_t fileSize = offsets.back() + sections.back().bytes.size();
  std::vector<uint8_t> out(fileSize, 0);
  std::memcpy(out.data(), kPackageMagic, sizeof(kPackageMagic));
  putU32(out, 8, kPackageFormatVersion);
  putU32(out, 12, uint32_t(sections.size()));
  putU64(out, 16, fileSize);
  putU64(out, 24, 0);
  for (auto [i, section] : llvm::enumerate(sections)) {
    size_t entry = kHeaderSize + i * kSectionEntrySize;
    putU32(out, entry, uint32_t(section.kind));
    putU32(out, entry + 4, section.index);
    putU64(out, entry + 8, offsets[i]);
    putU64(out, entry + 16, section.bytes.size());
    if (!section.bytes.empty())
      std::memcpy(out.data() + offsets[i], section.bytes.data(),
                  section.bytes.size());
  }
  return out;
}

Error pkg::writePackageFile(StringRef path, const Package &package) {
  Expected<std::vector<uint8_t>> bytes = writePackage(package);
  if (!bytes)
    return makeError(path + ": " + toString(bytes.takeError()));
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError(path + ": " + ec.message());
  os.write(reinterpret_cast<const char *>(bytes->data()), bytes->size());
  return crest::checkOutputStream(os, path);
}

static StringRef getSectionKindName(uint32_t kind) {
  switch (kind) {
  case uint32_t(SectionKind::Manifest):
    return "manifest";
  case uint32_t(SectionKind::Weights):
    return "weights";
  case uint32_t(SectionKind::CodeObject):
    return "code object";
  default:
    return "unknown";
  }
}

/// Parses the container; `fail` is prefixed by the caller.
static Expected<Package> readContainer(ArrayRef<uint8_t> bytes) {
  const uint64_t size = bytes.size();
  if (size < kHeaderSize)
    return makeError("truncated: " + Twine(size) +
                     " bytes, shorter than the 32-byte header");
  if (std::memcmp(bytes.data(), kPackageMagic, sizeof(kPackageMagic)) != 0)
    return makeError("not a Crest package (bad magic)");
  uint32_t version = getU32(bytes, 8);
  if (version != kPackageFormatVersion)
    return makeError("format version " + Twine(version) +
                     " is not supported (this reader reads version " +
                     Twine(kPackageFormatVersion) + ")");
  uint32_t count = getU32(bytes, 12);
  uint64_t declaredSize = getU64(bytes, 16);
  if (declaredSize != size)
    return makeError("header: file size " + Twine(declaredSize) +
                     " does not match the real size " + Twine(size) +
                     (declaredSize > size ? " (truncated)" : ""));
  if (getU64(bytes, 24) != 0)
    return makeError("header: reserved field is not 0");
  if (count == 0 || count > kMaxSections)
    return makeError("header: section count " + Twine(count) +
                     " out of range [1, " + Twine(kMaxSections) + "]");
  uint64_t tableEnd = kHeaderSize + uint64_t(count) * kSectionEntrySize;
  if (tableEnd > size)
    return makeError("header: section table of " + Twine(count) +
                     " entries ends at " + Twine(tableEnd) +
                     ", past the end of the file (" + Twine(size) + " bytes)");

  struct Entry {
    uint32_t kind, index;
    uint64_t offset, size;
    size_t slot;
  };
  std::vector<Entry> entries;
  std::optional<size_t> manifestSlot, weightsSlot;
  std::vector<std::optional<size_t>> codeSlots;
  size_t codeCount = 0;
  for (uint32_t i = 0; i < count; ++i) {
    size_t at = kHeaderSize + i * kSectionEntrySize;
    Entry entry{getU32(bytes, at), getU32(bytes, at + 4), getU64(bytes, at + 8),
                getU64(bytes, at + 16), i};
    std::string path = "section " + std::to_string(i) + " (" +
                       getSectionKindName(entry.kind).str() + ")";
    if (entry.kind < uint32_t(SectionKind::Manifest) ||
        entry.kind > uint32_t(SectionKind::CodeObject))
      return makeError("section " + Twine(i) + ": unknown kind " +
                       Twine(entry.kind));
    if (entry.offset % kSectionAlignment)
      return makeError(path + ": offset " + Twine(entry.offset) +
                       " is not a multiple of " + Twine(kSectionAlignment));
    if (entry.offset < tableEnd)
      return makeError(path + ": offset " + Twine(entry.offset) +
                       " lies inside the header or section table");
    uint64_t end;
    if (!checkedAdd(entry.offset, entry.size, end) || end > size)
      return makeError(path + ": " + Twine(entry.size) + " bytes at offset " +
                       Twine(entry.offset) + " extend past the end of the " +
                       "file (" + Twine(size) + " bytes)");
    switch (SectionKind(entry.kind)) {
    case SectionKind::Manifest:
    case SectionKind::Weights: {
      std::optional<size_t> &slot =
          entry.kind == uint32_t(SectionKind::Manifest) ? manifestSlot
                                                        : weightsSlot;
      if (entry.index != 0)
        return makeError(path + ": index " + Twine(entry.index) + " is not 0");
      if (slot)
        return makeError(path + ": a second " + getSectionKindName(entry.kind) +
                         " section");
      slot = i;
      break;
    }
    case SectionKind::CodeObject:
      if (entry.index >= count)
        return makeError(path + ": index " + Twine(entry.index) +
                         " out of range (" + Twine(count) + " sections)");
      if (codeSlots.size() <= entry.index)
        codeSlots.resize(entry.index + 1);
      if (codeSlots[entry.index])
        return makeError(path + ": code object " + Twine(entry.index) +
                         " appears twice");
      codeSlots[entry.index] = i;
      ++codeCount;
      break;
    }
    entries.push_back(entry);
  }
  if (!manifestSlot)
    return makeError("no manifest section");
  if (!weightsSlot)
    return makeError("no weights section");
  if (codeCount != codeSlots.size())
    for (auto [index, slot] : llvm::enumerate(codeSlots))
      if (!slot)
        return makeError("code object " + Twine(index) +
                         " is missing (code objects must be numbered from "
                         "0 without gaps)");

  // Overlap: sort by offset; empty sections overlap nothing.
  std::vector<Entry> sorted = entries;
  llvm::sort(sorted, [](const Entry &a, const Entry &b) {
    return a.offset < b.offset || (a.offset == b.offset && a.slot < b.slot);
  });
  std::optional<Entry> previous;
  for (const Entry &entry : sorted) {
    if (entry.size == 0)
      continue;
    if (previous && entry.offset < previous->offset + previous->size)
      return makeError("section " + Twine(entry.slot) + " (" +
                       getSectionKindName(entry.kind) + ") overlaps section " +
                       Twine(previous->slot) + " (" +
                       getSectionKindName(previous->kind) + ")");
    previous = entry;
  }

  auto sectionBytes = [&](size_t slot) {
    const Entry &entry = entries[slot];
    return bytes.slice(entry.offset, entry.size);
  };
  Package package;
  ArrayRef<uint8_t> manifestBytes = sectionBytes(*manifestSlot);
  StringRef manifestText(reinterpret_cast<const char *>(manifestBytes.data()),
                         manifestBytes.size());
  Expected<json::Value> json = crest::parseJsonBounded(manifestText);
  if (!json)
    return makeError("manifest: invalid JSON: " + toString(json.takeError()));
  Expected<Manifest> manifest = parseManifest(*json);
  if (!manifest)
    return makeError("manifest: " + toString(manifest.takeError()));
  package.manifest = std::move(*manifest);
  ArrayRef<uint8_t> weights = sectionBytes(*weightsSlot);
  package.weights.assign(weights.begin(), weights.end());
  for (const std::optional<size_t> &slot : codeSlots) {
    ArrayRef<uint8_t> code = sectionBytes(*slot);
    package.codeObjects.emplace_back(
        reinterpret_cast<const char *>(code.data()), code.size());
  }
  if (Error error = validatePackage(package))
    return std::move(error);
  return package;
}

Expected<Package> pkg::readPackage(ArrayRef<uint8_t> bytes, StringRef name) {
  Expected<Package> package = readContainer(bytes);
  if (!package)
    return makeError(name + ": " + toString(package.takeError()));
  return package;
}

Expected<Package> pkg::readPackageFile(StringRef path) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer = crest::readBoundedFile(path);
  if (!buffer)
    return buffer.takeError();
  ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
      (*buffer)->getBufferSize());
  return readPackage(bytes, path);
}
