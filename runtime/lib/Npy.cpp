//===- Npy.cpp - NumPy .npy files
//-------------------------------------------===//
//
// Format: "\x93NUMPY", major and minor version bytes, a little-endian header
// length (2 bytes in version 1, 4 in versions 2 and 3), then a Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with
// spaces and a newline so that the data starts 64-byte aligned.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "crest/Support/Limits.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace crest;

namespace {
struct TypeInfo {
  NpyType type;
  const char *descr;
  unsigned size;
  const char *crestName;
  const char *numpyName;
};
constexpr TypeInfo kTypes[] = {
    {NpyType::F16, "<f2", 2, "f16", "float16"},
    {NpyType::F32, "<f4", 4, "f32", "float32"},
    {NpyType::F64, "<f8", 8, "f64", "float64"},
    {NpyType::I8, "|i1", 1, "i8", "int8"},
    {NpyType::I16, "<i2", 2, "i16", "int16"},
    {NpyType::I32, "<i4", 4, "i32", "int32"},
    {NpyType::I64, "<i8", 8, "i64", "int64"},
    {NpyType::U8, "|u1", 1, "u8", "uint8"},
    {NpyType::U16, "<u2", 2, "u16", "uint16"},
    {NpyType::U32, "<u4", 4, "u32", "uint32"},
    {NpyType::U64, "<u8", 8, "u64", "uint64"},
    {NpyType::Bool, "|b1", 1, "bool", "bool"},
};

const TypeInfo &info(NpyType type) {
  for (const TypeInfo &t : kTypes)
    if (t.type == type)
      return t;
  return kTypes[1];
}
} // namespace

StringRef crest::getNpyDescr(NpyType type) { return info(type).descr; }
unsigned crest::getNpyTypeSize(NpyType type) { return info(type).size; }

std::optional<NpyType> crest::parseNpyType(StringRef text) {
  for (const TypeInfo &t : kTypes) {
    StringRef descr(t.descr);
    // "=f4" and "<f4" mean the same on a little-endian host; single-byte
    // types may be written "|i1", "<i1" or "=i1".
    if (text == descr || text == t.crestName || text == t.numpyName ||
        ((text.starts_with("=") || text.starts_with("<") ||
          text.starts_with("|")) &&
         text.drop_front() == descr.drop_front()))
      return t.type;
  }
  return std::nullopt;
}

int64_t NpyArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string NpyArray::describe() const {
  std::string s = info(type).crestName;
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Finds the value text of `'key':` in the header dict.
static std::optional<StringRef> findValue(StringRef header, StringRef key) {
  for (char quote : {'\'', '"'}) {
    std::string pattern = std::string(1, quote) + key.str() + quote;
    size_t pos = header.find(pattern);
    if (pos == StringRef::npos)
      continue;
    StringRef rest = header.drop_front(pos + pattern.size()).ltrim();
    if (!rest.consume_front(":"))
      return std::nullopt;
    return rest.ltrim();
  }
  return std::nullopt;
}

Expected<NpyArray> crest::parseNpy(ArrayRef<uint8_t> bytes, StringRef name) {
  auto error = [&](const Twine &message) {
    return createStringError(inconvertibleErrorCode(),
                             (name + ": " + message).str());
  };
  StringRef data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  if (!data.starts_with("\x93NUMPY"))
    return error("not an .npy file (bad magic)");
  if (bytes.size() < 10)
    return error("truncated .npy header");
  unsigned major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (size_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return error("truncated .npy header");
    headerLength = bytes[8] | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return error(
        formatv("unsupported .npy format version {0}.{1}", major, bytes[7]));
  }
  if (headerLength > bytes.size() - headerStart)
    return error(formatv("the header claims {0} bytes but the file has {1}",
                         headerLength, bytes.size() - headerStart));
  StringRef header = data.substr(headerStart, headerLength).trim();
  if (!header.starts_with("{") || !header.ends_with("}"))
    return error("the header is not a dict: " + header);

  NpyArray array;
  std::optional<StringRef> descr = findValue(header, "descr");
  if (!descr || descr->empty() ||
      (descr->front() != '\'' && descr->front() != '"'))
    return error("the header has no 'descr' string");
  char quote = descr->front();
  size_t end = descr->find(quote, 1);
  if (end == StringRef::npos)
    return error("unterminated 'descr'");
  StringRef descrText = descr->substr(1, end - 1);
  std::optional<NpyType> type = parseNpyType(descrText);
  if (!type)
    return error("unsupported dtype '" + descrText +
                 "'; supported: f2, f4, f8, i1, i2, i4, i8, u1, u2, u4, u8, "
                 "b1 (little-endian)");
  array.type = *type;

  std::optional<StringRef> fortran = findValue(header, "fortran_order");
  if (!fortran)
    return error("the header has no 'fortran_order'");
  if (fortran->starts_with("True"))
    return error("Fortran-order arrays are not supported; save with C order");
  if (!fortran->starts_with("False"))
    return error("'fortran_order' is neither True nor False");

  std::optional<StringRef> shapeText = findValue(header, "shape");
  if (!shapeText || !shapeText->starts_with("("))
    return error("the header has no 'shape' tuple");
  size_t close = shapeText->find(')');
  if (close == StringRef::npos)
    return error("unterminated 'shape' tuple");
  SmallVector<StringRef> dims;
  shapeText->substr(1, close - 1).split(dims, ',', -1, /*KeepEmpty=*/false);
  uint64_t elements = 1;
  for (StringRef dim : dims) {
    dim = dim.trim();
    if (dim.empty())
      continue;
    int64_t value;
    if (dim.getAsInteger(10, value) || value < 0)
      return error("bad dimension '" + dim + "' in 'shape'");
    array.shape.push_back(value);
    if (value != 0 && elements > (uint64_t(1) << 40) / uint64_t(value))
      return error("the array is too large");
    elements *= uint64_t(value);
  }
  uint64_t expected = elements * getNpyTypeSize(array.type);
  size_t dataStart = headerStart + headerLength;
  uint64_t actual = bytes.size() - dataStart;
  if (actual < expected)
    return error(formatv("truncated data: {0} needs {1} bytes, the file has "
                         "{2}",
                         array.describe(), expected, actual));
  if (actual > expected)
    return error(formatv("{0} trailing bytes after the {1} data",
                         actual - expected, array.describe()));
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return array;
}

Expected<NpyArray> crest::readNpyFile(StringRef path) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer =
      crest::readBoundedFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseNpy(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(
                                        (*buffer)->getBufferStart()),
                                    (*buffer)->getBufferSize()),
                  path);
}

std::vector<uint8_t> crest::serializeNpy(const NpyArray &array) {
  std::string header = "{'descr': '" + getNpyDescr(array.type).str() +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t d : array.shape)
    header += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    header.erase(header.size() - 2);
  else if (array.shape.size() == 1)
    header.erase(header.size() - 1); // keep the 1-tuple comma: "(5,)"
  header += "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(uint8_t(header.size()));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Error crest::writeNpyFile(StringRef path, const NpyArray &array) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "%s: cannot write: %s", path.str().c_str(),
                             ec.message().c_str());
  std::vector<uint8_t> bytes = serializeNpy(array);
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return checkOutputStream(os, path);
}
