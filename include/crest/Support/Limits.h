//===- Limits.h - Checked sizes, bounded reads, nesting limits --*- C++ -*-===//
//
// The input-hardening helpers every Crest tool and library shares (no MLIR
// dependency), one per rule (docs/Reliability.md):
//
// - checked arithmetic for shapes, strides and byte sizes;
// - a bounded file reader that refuses unbounded inputs (/dev/zero, pipes
//   that never end) and files past a size cap;
// - one nesting limit for every recursive parser Crest drives: a pre-scan of
//   MLIR text (brackets, braces, parentheses, angle brackets) before MLIR's
//   recursive-descent parser sees it, and a depth-checked JSON parse.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_SUPPORT_LIMITS_H
#define CREST_SUPPORT_LIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace crest {

//===----------------------------------------------------------------------===//
// Checked arithmetic
//===----------------------------------------------------------------------===//

/// a * b, or nullopt on signed 64-bit overflow.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
/// a + b, or nullopt on signed 64-bit overflow.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
/// The product of `dims` (the element count of a shape), or nullopt when a
/// dimension is negative or the product overflows int64 or exceeds `limit`.
std::optional<int64_t> checkedProduct(llvm::ArrayRef<int64_t> dims,
                                      int64_t limit = INT64_MAX);
/// ceil(a / b) for a >= 0, or nullopt when b <= 0 (a zero or negative
/// stride) or a < 0.
std::optional<int64_t> checkedCeilDiv(int64_t a, int64_t b);

/// The largest tensor, in elements, Crest imports, compiles or packages:
/// 2^31 (8 GiB of f32). A kernel with one work-item per element then still
/// fits HSA's 32-bit grid size, and no byte size overflows.
constexpr int64_t kMaxTensorElements = int64_t(1) << 31;

/// HSA's launch limits: every grid and block dimension positive and, per
/// dimension, grid x block work-items (the AQL packet's grid size) within
/// 32 bits. The message names the dimension and the sizes.
llvm::Error checkHsaGrid(const std::array<uint32_t, 3> &grid,
                         const std::array<uint32_t, 3> &block);

//===----------------------------------------------------------------------===//
// Bounded file reading
//===----------------------------------------------------------------------===//

/// The default cap of readBoundedFile: 4 GiB.
constexpr uint64_t kDefaultMaxFileBytes = uint64_t(4) << 30;

/// Reads `path` ("-" is stdin) whole, refusing files larger than `maxBytes`,
/// devices (/dev/zero, /dev/urandom: they never end) and pipes that do not
/// end within `maxBytes`. The error is one line naming the path.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readBoundedFile(llvm::StringRef path,
                uint64_t maxBytes = kDefaultMaxFileBytes);

//===----------------------------------------------------------------------===//
// Nesting limits
//===----------------------------------------------------------------------===//

/// The deepest nesting of brackets Crest's parsers accept: far more than
/// any real model or package needs, far less than what overflows the stack
/// of a recursive-descent parser on an 8 MiB main thread.
constexpr unsigned kMaxNestingDepth = 256;

/// Scans MLIR text (skipping string literals and `//` comments) and fails
/// with `file:line:col: error: ...` at the first `(`, `[`, `{` or `<` that
/// is nested deeper than `maxDepth`. MLIR bytecode is not scanned.
llvm::Error checkMlirNesting(llvm::StringRef text, llvm::StringRef filename,
                             unsigned maxDepth = kMaxNestingDepth);

/// llvm::json::parse after checking that no array or object is nested
/// deeper than `maxDepth` (llvm::json's parser recurses per level); the
/// error says at which line and column.
llvm::Expected<llvm::json::Value>
parseJsonBounded(llvm::StringRef text,
                 unsigned maxDepth = kMaxNestingDepth);

//===----------------------------------------------------------------------===//
// Output errors
//===----------------------------------------------------------------------===//

/// Flushes standard output and, if writing it failed (a closed stdout,
/// /dev/full), prints `tool: error: cannot write standard output: ...` and
/// returns 1 (else `exitCode`). Every tool returns through it, so that an
/// output error is a diagnostic instead of raw_fd_ostream's `LLVM ERROR`.
int finishStdout(llvm::StringRef tool, int exitCode);

/// The error of a file output stream after flushing it, one line naming the
/// path ("cannot write 'out.npy': No space left on device"), or success.
llvm::Error checkOutputStream(llvm::raw_fd_ostream &os, llvm::StringRef path);

} // namespace crest

#endif // CREST_SUPPORT_LIMITS_H
