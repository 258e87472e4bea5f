//===- OnnxTensor.cpp - ONNX TensorProto files
//-----------------------------===//
//
// A hand decoder of the protobuf wire format for onnx.TensorProto (field
// numbers from onnx.proto3): 1 dims (int64), 2 data_type (int32),
// 3 segment, 4 float_data, 5 int32_data, 6 string_data, 7 int64_data,
// 8 name, 9 raw_data, 10 double_data, 11 uint64_data, 12 doc_string,
// 13 external_data, 14 data_location, 16 metadata_props.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/OnnxTensor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "crest/Support/Limits.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace crest {

unsigned getOnnxDataTypeSize(int32_t type) {
  switch (OnnxDataType(type)) {
  case OnnxDataType::Float:
  case OnnxDataType::Int32:
  case OnnxDataType::Uint32:
    return 4;
  case OnnxDataType::Uint8:
  case OnnxDataType::Int8:
  case OnnxDataType::Bool:
  case OnnxDataType::Float8E4M3FN:
  case OnnxDataType::Float8E4M3FNUZ:
  case OnnxDataType::Float8E5M2:
  case OnnxDataType::Float8E5M2FNUZ:
    return 1;
  case OnnxDataType::Uint16:
  case OnnxDataType::Int16:
  case OnnxDataType::Float16:
  case OnnxDataType::BFloat16:
    return 2;
  case OnnxDataType::Int64:
  case OnnxDataType::Double:
  case OnnxDataType::Uint64:
    return 8;
  case OnnxDataType::String:
    return 0;
  }
  return 0;
}

std::string getOnnxDataTypeName(int32_t type) {
  switch (OnnxDataType(type)) {
  case OnnxDataType::Float:
    return "FLOAT";
  case OnnxDataType::Uint8:
    return "UINT8";
  case OnnxDataType::Int8:
    return "INT8";
  case OnnxDataType::Uint16:
    return "UINT16";
  case OnnxDataType::Int16:
    return "INT16";
  case OnnxDataType::Int32:
    return "INT32";
  case OnnxDataType::Int64:
    return "INT64";
  case OnnxDataType::String:
    return "STRING";
  case OnnxDataType::Bool:
    return "BOOL";
  case OnnxDataType::Float16:
    return "FLOAT16";
  case OnnxDataType::Double:
    return "DOUBLE";
  case OnnxDataType::Uint32:
    return "UINT32";
  case OnnxDataType::Uint64:
    return "UINT64";
  case OnnxDataType::BFloat16:
    return "BFLOAT16";
  case OnnxDataType::Float8E4M3FN:
    return "FLOAT8E4M3FN";
  case OnnxDataType::Float8E4M3FNUZ:
    return "FLOAT8E4M3FNUZ";
  case OnnxDataType::Float8E5M2:
    return "FLOAT8E5M2";
  case OnnxDataType::Float8E5M2FNUZ:
    return "FLOAT8E5M2FNUZ";
  }
  return "type " + std::to_string(type);
}

int64_t OnnxTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

namespace {

class Reader {
public:
  Reader(ArrayRef<uint8_t> bytes) : bytes(bytes) {}
  bool atEnd() const { return pos >= bytes.size(); }
  size_t position() const { return pos; }

  bool varint(uint64_t &value) {
    value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (pos >= bytes.size())
        return false;
      uint8_t b = bytes[pos++];
      value |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }
  bool fixed(unsigned size, uint64_t &value) {
    if (bytes.size() - pos < size)
      return false;
    value = 0;
    for (unsigned i = 0; i < size; ++i)
      value |= uint64_t(bytes[pos + i]) << (8 * i);
    pos += size;
    return true;
  }
  bool slice(ArrayRef<uint8_t> &out) {
    uint64_t length;
    if (!varint(length) || length > bytes.size() - pos)
      return false;
    out = bytes.slice(pos, length);
    pos += length;
    return true;
  }

private:
  ArrayRef<uint8_t> bytes;
  size_t pos = 0;
};

} // namespace

Expected<OnnxTensor> parseOnnxTensor(ArrayRef<uint8_t> bytes,
                                     StringRef fileName) {
  auto error = [&](const Twine &message) {
    return createStringError(
        inconvertibleErrorCode(),
        (fileName + ": not a valid ONNX TensorProto: " + message).str());
  };
  OnnxTensor tensor;
  bool haveType = false, haveRaw = false;
  // Typed values: floats/int32s widen to 64 bits here and narrow at the end.
  std::vector<uint64_t> typedValues;
  int typedField = 0;
  Reader reader(bytes);
  while (!reader.atEnd()) {
    size_t at = reader.position();
    uint64_t key;
    if (!reader.varint(key))
      return error(formatv("truncated field key at byte {0}", at));
    unsigned field = key >> 3, wire = key & 7;
    auto addTyped = [&](int which, uint64_t v) -> bool {
      if (typedField && typedField != which)
        return false;
      typedField = which;
      typedValues.push_back(v);
      return true;
    };
    // A repeated numeric field, packed (wire 2) or one element (wire 0/1/5).
    auto repeated = [&](int which, unsigned elementWire) -> Error {
      if (wire == 2) {
        ArrayRef<uint8_t> packed;
        if (!reader.slice(packed))
          return error(formatv("truncated field {0} at byte {1}", field, at));
        Reader inner(packed);
        while (!inner.atEnd()) {
          uint64_t v;
          bool ok = elementWire == 0   ? inner.varint(v)
                    : elementWire == 1 ? inner.fixed(8, v)
                                       : inner.fixed(4, v);
          if (!ok)
            return error(formatv("truncated packed field {0}", field));
          if (which == 1)
            tensor.dims.push_back(int64_t(v));
          else if (!addTyped(which, v))
            return error("more than one data field");
        }
        return Error::success();
      }
      if (wire != elementWire)
        return error(formatv("field {0} has wire type {1}", field, wire));
      uint64_t v;
      bool ok = wire == 0   ? reader.varint(v)
                : wire == 1 ? reader.fixed(8, v)
                            : reader.fixed(4, v);
      if (!ok)
        return error(formatv("truncated field {0} at byte {1}", field, at));
      if (which == 1)
        tensor.dims.push_back(int64_t(v));
      else if (!addTyped(which, v))
        return error("more than one data field");
      return Error::success();
    };
    switch (field) {
    case 1:
      if (Error e = repeated(1, 0))
        return std::move(e);
      continue;
    case 2: {
      uint64_t v;
      if (wire != 0 || !reader.varint(v))
        return error("bad data_type field");
      tensor.dataType = int32_t(v);
      haveType = true;
      continue;
    }
    case 4:
      if (Error e = repeated(4, 5))
        return std::move(e);
      continue;
    case 5:
    case 7:
    case 11:
      if (Error e = repeated(field, 0))
        return std::move(e);
      continue;
    case 10:
      if (Error e = repeated(10, 1))
        return std::move(e);
      continue;
    case 3:
      return error("segmented tensors are not supported");
    case 6:
      return error("string tensors are not supported");
    case 13:
      return error("tensors with external data are not supported");
    case 8:
    case 9: {
      ArrayRef<uint8_t> payload;
      if (wire != 2 || !reader.slice(payload))
        return error(formatv("truncated field {0} at byte {1}", field, at));
      if (field == 8)
        tensor.name.assign(payload.begin(), payload.end());
      else {
        tensor.data.assign(payload.begin(), payload.end());
        haveRaw = true;
      }
      continue;
    }
    case 14: {
      uint64_t v;
      if (wire != 0 || !reader.varint(v))
        return error("bad data_location field");
      if (v != 0)
        return error("tensors with external data are not supported");
      continue;
    }
    default: {
      // Skip unknown fields (doc_string, metadata_props, ...).
      uint64_t v;
      ArrayRef<uint8_t> skipped;
      bool ok = wire == 0   ? reader.varint(v)
                : wire == 1 ? reader.fixed(8, v)
                : wire == 5 ? reader.fixed(4, v)
                : wire == 2 ? reader.slice(skipped)
                            : false;
      if (!ok)
        return error(formatv("bad field {0} (wire type {1}) at byte {2}", field,
                             wire, at));
      continue;
    }
    }
  }
  if (!haveType)
    return error("no data_type");
  unsigned size = getOnnxDataTypeSize(tensor.dataType);
  if (!size)
    return error("data type " + getOnnxDataTypeName(tensor.dataType) +
                 " is not supported");
  int64_t count = 1;
  for (int64_t d : tensor.dims) {
    if (d < 0 || (d && count > (int64_t(1) << 40) / d))
      return error(formatv("bad dimension {0}", d));
    count *= d;
  }
  if (haveRaw && typedField)
    return error("both raw_data and a typed data field");
  if (haveRaw) {
    if (uint64_t(count) * size != tensor.data.size())
      return error(formatv("raw_data holds {0} bytes, the shape needs {1}",
                           tensor.data.size(), uint64_t(count) * size));
    return tensor;
  }
  if (typedValues.size() != uint64_t(count))
    return error(
        formatv("{0} values for {1} elements", typedValues.size(), count));
  // The typed field must be the one ONNX uses for the type.
  int want = 5;
  switch (OnnxDataType(tensor.dataType)) {
  case OnnxDataType::Float:
    want = 4;
    break;
  case OnnxDataType::Int64:
    want = 7;
    break;
  case OnnxDataType::Double:
    want = 10;
    break;
  case OnnxDataType::Uint32:
  case OnnxDataType::Uint64:
    want = 11;
    break;
  default:
    break;
  }
  if (count && typedField != want)
    return error(formatv("{0} data in field {1} (expected field {2})",
                         getOnnxDataTypeName(tensor.dataType), typedField,
                         want));
  tensor.data.resize(count * size);
  for (int64_t i = 0; i < count; ++i)
    for (unsigned b = 0; b < size; ++b)
      tensor.data[i * size + b] = uint8_t(typedValues[i] >> (8 * b));
  return tensor;
}

Expected<OnnxTensor> readOnnxTensorFile(StringRef path) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer =
      crest::readBoundedFile(path);
  if (!buffer)
    return buffer.takeError();
  ArrayRef<uint8_t> bytes = arrayRefFromStringRef((*buffer)->getBuffer());
  return parseOnnxTensor(bytes, path);
}

static void putVarint(std::vector<uint8_t> &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(uint8_t(v) | 0x80);
    v >>= 7;
  }
  out.push_back(uint8_t(v));
}

std::vector<uint8_t> serializeOnnxTensor(const OnnxTensor &tensor) {
  std::vector<uint8_t> out;
  for (int64_t d : tensor.dims) {
    putVarint(out, (1 << 3) | 0);
    putVarint(out, uint64_t(d));
  }
  putVarint(out, (2 << 3) | 0);
  putVarint(out, uint64_t(uint32_t(tensor.dataType)));
  if (!tensor.name.empty()) {
    putVarint(out, (8 << 3) | 2);
    putVarint(out, tensor.name.size());
    out.insert(out.end(), tensor.name.begin(), tensor.name.end());
  }
  putVarint(out, (9 << 3) | 2);
  putVarint(out, tensor.data.size());
  out.insert(out.end(), tensor.data.begin(), tensor.data.end());
  return out;
}

Error writeOnnxTensorFile(StringRef path, const OnnxTensor &tensor) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec,
                             "cannot write '" + path + "': " + ec.message());
  std::vector<uint8_t> bytes = serializeOnnxTensor(tensor);
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return checkOutputStream(os, path);
}

} // namespace crest
