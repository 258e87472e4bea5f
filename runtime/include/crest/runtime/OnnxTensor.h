//===- OnnxTensor.h - ONNX TensorProto files ---------------------*- C++
//-*-===//
//
// Reads and writes serialized onnx.TensorProto messages (the input_N.pb /
// output_N.pb files of ONNX's backend tests). The protobuf wire format is
// decoded by hand rather than through libonnx + libprotobuf: the message is
// small (dims, data_type, name and one data field), a hand decoder keeps the
// runtime and its C API free of a protobuf dependency, and it checks every
// length against the bytes that are there, so a truncated or hostile file is
// an error naming the file, never a crash. Supported: dims, data_type, name,
// raw_data, and the typed fields float_data, int32_data (for the types ONNX
// stores there: int8/16, uint8/16, bool, float16, bfloat16, float8),
// int64_data, double_data, uint64_data, packed or not. Strings, segments and
// external data are rejected with a message.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_ONNXTENSOR_H
#define CREST_RUNTIME_ONNXTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crest {

/// TensorProto.DataType values.
enum class OnnxDataType : int32_t {
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  BFloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
};

/// Bytes per element of `type`, or 0 for types the runtime does not handle.
unsigned getOnnxDataTypeSize(int32_t type);
/// "FLOAT", "FLOAT16", ... ("type 42" for unknown values).
std::string getOnnxDataTypeName(int32_t type);

struct OnnxTensor {
  std::string name;
  int32_t dataType = int32_t(OnnxDataType::Float);
  std::vector<int64_t> dims;
  /// The elements, little-endian, row-major, as raw_data holds them.
  std::vector<uint8_t> data;

  int64_t getNumElements() const;
};

llvm::Expected<OnnxTensor> parseOnnxTensor(llvm::ArrayRef<uint8_t> bytes,
                                           llvm::StringRef fileName);
llvm::Expected<OnnxTensor> readOnnxTensorFile(llvm::StringRef path);
/// Serializes with dims, data_type, name (if not empty) and raw_data.
std::vector<uint8_t> serializeOnnxTensor(const OnnxTensor &tensor);
llvm::Error writeOnnxTensorFile(llvm::StringRef path, const OnnxTensor &tensor);

} // namespace crest

#endif // CREST_RUNTIME_ONNXTENSOR_H
