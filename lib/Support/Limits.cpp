//===- Limits.cpp - Checked sizes, bounded reads, nesting limits ----------===//

#include "crest/Support/Limits.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace llvm;

std::optional<int64_t> crest::checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (MulOverflow(a, b, result))
    return std::nullopt;
  return result;
}

std::optional<int64_t> crest::checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (AddOverflow(a, b, result))
    return std::nullopt;
  return result;
}

std::optional<int64_t> crest::checkedProduct(ArrayRef<int64_t> dims,
                                             int64_t limit) {
  int64_t product = 1;
  for (int64_t dim : dims) {
    if (dim < 0)
      return std::nullopt;
    std::optional<int64_t> next = checkedMul(product, dim);
    if (!next || *next > limit)
      return std::nullopt;
    product = *next;
  }
  return product;
}

std::optional<int64_t> crest::checkedCeilDiv(int64_t a, int64_t b) {
  if (b <= 0 || a < 0)
    return std::nullopt;
  return a / b + (a % b != 0);
}

Error crest::checkHsaGrid(const std::array<uint32_t, 3> &grid,
                          const std::array<uint32_t, 3> &block) {
  static const char kDims[] = "xyz";
  for (unsigned d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0)
      return createStringError(inconvertibleErrorCode(),
                               "grid and block sizes must be positive");
    uint64_t items = uint64_t(grid[d]) * block[d];
    if (items > UINT32_MAX)
      return createStringError(
          inconvertibleErrorCode(),
          formatv("grid {0} x block {1} = {2} work-items in {3} exceeds "
                  "HSA's limit of 2^32-1 per dimension",
                  grid[d], block[d], items, kDims[d])
              .str());
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Bounded file reading
//===----------------------------------------------------------------------===//

static Error fileError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           (Twine("cannot read '") + path + "': " + message)
                               .str());
}

Expected<std::unique_ptr<MemoryBuffer>>
crest::readBoundedFile(StringRef path, uint64_t maxBytes) {
  auto tooLarge = [&] {
    return fileError(path, formatv("larger than the {0}-byte limit on "
                                   "input files",
                                   maxBytes)
                               .str());
  };
  int fd = 0;
  bool isStdin = path == "-";
  if (!isStdin) {
    sys::fs::file_status status;
    if (std::error_code ec = sys::fs::status(path, status))
      return fileError(path, ec.message());
    if (status.type() == sys::fs::file_type::directory_file)
      return fileError(path, "is a directory");
    if (status.type() == sys::fs::file_type::regular_file) {
      if (status.getSize() > maxBytes)
        return tooLarge();
      ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
          path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!buffer)
        return fileError(path, buffer.getError().message());
      return std::move(*buffer);
    }
    // Devices (/dev/zero, /dev/urandom) never end: refuse them. Pipes are
    // read in pieces up to the cap.
    if (status.type() == sys::fs::file_type::character_file ||
        status.type() == sys::fs::file_type::block_file)
      return fileError(path, "is a device, not a file or pipe");
    Expected<sys::fs::file_t> opened =
        sys::fs::openNativeFileForRead(path);
    if (!opened)
      return fileError(path, toString(opened.takeError()));
    fd = *opened;
  }
  SmallVector<char, 0> bytes;
  char chunk[1 << 16];
  Error failure = Error::success();
  while (true) {
    ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      failure = fileError(path, std::strerror(errno));
      break;
    }
    if (got == 0)
      break;
    if (bytes.size() + uint64_t(got) > maxBytes) {
      failure = tooLarge();
      break;
    }
    bytes.append(chunk, chunk + got);
  }
  if (!isStdin)
    ::close(fd);
  if (failure)
    return std::move(failure);
  return MemoryBuffer::getMemBufferCopy(StringRef(bytes.data(), bytes.size()),
                                        isStdin ? "<stdin>" : path);
}

//===----------------------------------------------------------------------===//
// Nesting limits
//===----------------------------------------------------------------------===//

namespace {
/// Tracks line and column while scanning.
struct Position {
  unsigned line = 1, column = 1;
  void advance(char c) {
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
};
} // namespace

/// Moves `i` (at the opening quote of a string literal with backslash
/// escapes, the same in MLIR and JSON) to its closing quote; false when the
/// text ends first.
static bool skipString(StringRef text, size_t &i, Position &at) {
  size_t e = text.size();
  for (at.advance(text[i]), ++i; i < e && text[i] != '"';
       at.advance(text[i]), ++i)
    if (text[i] == '\\' && i + 1 < e) {
      at.advance(text[i]);
      ++i;
    }
  return i < e;
}

static Error nestingError(StringRef filename, const Position &at,
                          StringRef what, unsigned maxDepth) {
  return createStringError(
      inconvertibleErrorCode(),
      formatv("{0}:{1}:{2}: error: {3} nested deeper than {4} levels (Crest's "
              "limit on nesting)",
              filename, at.line, at.column, what, maxDepth)
          .str());
}

Error crest::checkMlirNesting(StringRef text, StringRef filename,
                              unsigned maxDepth) {
  // MLIR bytecode starts with "ML\xefR"; its reader is not recursive in the
  // same way and is not scanned.
  if (text.starts_with("ML\xef"
                       "R"))
    return Error::success();
  SmallVector<char> open;
  Position at;
  for (size_t i = 0, e = text.size(); i < e; at.advance(text[i]), ++i) {
    char c = text[i];
    if (c == '"') {
      if (!skipString(text, i, at))
        break;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i + 1 < e && text[i + 1] != '\n') {
        at.advance(text[i]);
        ++i;
      }
      continue;
    }
    switch (c) {
    case '(':
    case '[':
    case '{':
    case '<':
      open.push_back(c);
      if (open.size() > maxDepth)
        return nestingError(filename, at,
                            "brackets, braces, parentheses and angle "
                            "brackets are",
                            maxDepth);
      break;
    case '>':
      // `->` is an arrow; a `>` closes only an open `<`.
      if (!open.empty() && open.back() == '<' &&
          !(i > 0 && text[i - 1] == '-'))
        open.pop_back();
      break;
    case ')':
    case ']':
    case '}': {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      // Close the innermost matching opener (and any `<` left open inside
      // it, such as a comparison in custom syntax).
      auto it = std::find(open.rbegin(), open.rend(), opener);
      if (it != open.rend())
        open.resize(open.rend() - it - 1);
      break;
    }
    default:
      break;
    }
  }
  return Error::success();
}

Expected<json::Value> crest::parseJsonBounded(StringRef text,
                                              unsigned maxDepth) {
  unsigned depth = 0;
  Position at;
  for (size_t i = 0, e = text.size(); i < e; at.advance(text[i]), ++i) {
    char c = text[i];
    if (c == '"') {
      if (!skipString(text, i, at))
        break;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return createStringError(
            inconvertibleErrorCode(),
            formatv("[{0}:{1}, byte {2}]: arrays and objects nested deeper "
                    "than {3} levels (Crest's limit on nesting)",
                    at.line, at.column, i, maxDepth)
                .str());
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return json::parse(text);
}

//===----------------------------------------------------------------------===//
// Output errors
//===----------------------------------------------------------------------===//

int crest::finishStdout(StringRef tool, int exitCode) {
  raw_fd_ostream &out = outs();
  out.flush();
  if (!out.has_error())
    return exitCode;
  std::error_code ec = out.error();
  out.clear_error();
  errs() << tool << ": error: cannot write standard output: " << ec.message()
         << "\n";
  return 1;
}

Error crest::checkOutputStream(raw_fd_ostream &os, StringRef path) {
  // Flush, not close: the stream may be stdout ("-"), which must stay open.
  os.flush();
  if (!os.has_error())
    return Error::success();
  std::error_code ec = os.error();
  os.clear_error();
  std::string what =
      path == "-" ? std::string("standard output") : "'" + path.str() + "'";
  return createStringError(ec, "cannot write %s: %s", what.c_str(),
                           ec.message().c_str());
}
