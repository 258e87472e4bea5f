//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0-3.0, C order, little-
// endian numeric dtypes). Every field is validated: a truncated file, a
// header that does not parse, a Fortran-order array or a data size that
// does not match the shape is an error naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_NPY_H
#define CREST_RUNTIME_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crest {

/// Element types an .npy file may hold.
enum class NpyType : uint8_t {
  F16,
  F32,
  F64,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  Bool,
};

/// The NumPy dtype string ("<f4", "|u1", ...).
llvm::StringRef getNpyDescr(NpyType type);
/// Bytes per element.
unsigned getNpyTypeSize(NpyType type);
/// Parses a dtype given as NumPy spells it ("<f4", "float32") or as Crest
/// spells element types ("f32", "f16", "i32", "u8", ...).
std::optional<NpyType> parseNpyType(llvm::StringRef text);

struct NpyArray {
  NpyType type = NpyType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; ///< Row-major (C order), little-endian.

  int64_t getNumElements() const;
  uint64_t getByteSize() const { return data.size(); }
  /// "f32[8, 256]"
  std::string describe() const;
};

/// Parses the bytes of an .npy file; `name` appears in error messages.
llvm::Expected<NpyArray> parseNpy(llvm::ArrayRef<uint8_t> bytes,
                                  llvm::StringRef name);
llvm::Expected<NpyArray> readNpyFile(llvm::StringRef path);
/// Serializes `array` as an .npy file (format version 1.0).
std::vector<uint8_t> serializeNpy(const NpyArray &array);
llvm::Error writeNpyFile(llvm::StringRef path, const NpyArray &array);

} // namespace crest

#endif // CREST_RUNTIME_NPY_H
