//===- Package.h - The .crest package: a compiled model ---------*- C++ -*-===//
//
// A .crest file is everything a runtime needs to run one compiled graph:
// the manifest (tensors, buffers, kernels, launches, the reference graph),
// the HSA code objects and the weights. docs/Package.md documents the
// layout; this header is its C++ form.
//
// Container (all integers little-endian):
//
//   offset 0   char[8]  magic "CRESTPKG"
//          8   u32      format version (kPackageFormatVersion)
//         12   u32      section count S (1 <= S <= kMaxSections)
//         16   u64      file size in bytes (must equal the real size)
//         24   u64      reserved, 0
//         32   S x { u32 kind, u32 index, u64 offset, u64 size }
//
// Sections start at offsets aligned to kSectionAlignment, lie inside the
// file and do not overlap. There is exactly one Manifest section (UTF-8
// JSON), one Weights section (possibly empty) and one CodeObject section
// per code object, numbered by `index` from 0 without gaps.
//
// The manifest's JSON mirrors `Manifest` below field by field (see
// docs/Package.md). Every id is an index into its table; the reader checks
// every reference, every size (with overflow checks) and every shape, so a
// consumer of a successfully read Package can index without further checks.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_PACKAGE_H
#define CREST_RUNTIME_PACKAGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crest::pkg {

constexpr char kPackageMagic[8] = {'C', 'R', 'E', 'S', 'T', 'P', 'K', 'G'};
constexpr uint32_t kPackageFormatVersion = 1;
constexpr uint32_t kMaxSections = 4096;
constexpr uint64_t kSectionAlignment = 256;
/// Largest tensor rank the manifest accepts.
constexpr unsigned kMaxRank = 8;

enum class SectionKind : uint32_t { Manifest = 1, Weights = 2, CodeObject = 3 };

/// Element types of package tensors. The manifest spells them as Crest's
/// MLIR types are spelled ("f32", "bf16", "f8E4M3FNUZ", "i8", "i1", ...).
enum class ElementType : uint8_t {
  F64,
  F32,
  F16,
  BF16,
  F8E4M3FNUZ,
  F8E5M2FNUZ,
  F8E4M3FN,
  F8E5M2,
  I64,
  I32,
  I16,
  I8,
  U8, ///< spelled "ui8", as MLIR spells it
  I1, ///< one byte per element (0 or 1), like NumPy's bool
  // Added later; the order is the C API's crest_dtype (crest_runtime.h).
  U16,
  U32,
  U64,
};

llvm::StringRef getElementTypeName(ElementType type);
std::optional<ElementType> parseElementType(llvm::StringRef name);
unsigned getElementTypeSize(ElementType type);
bool isFloatType(ElementType type);

struct TensorType {
  ElementType element = ElementType::F32;
  std::vector<int64_t> shape;

  int64_t getNumElements() const;
  uint64_t getByteSize() const;
  /// "f32[8, 256]"
  std::string describe() const;
  bool operator==(const TensorType &other) const {
    return element == other.element && shape == other.shape;
  }
};

/// Where a value's bytes live on the device.
enum class ValueKind : uint8_t {
  Input,        ///< a graph input, bound by the caller
  Weight,       ///< bytes in the Weights section, uploaded once
  Intermediate, ///< written by one launch, read by later ones
  /// A launch's scratch memory (#crest.launch workspace): no graph node
  /// produces it and its contents are undefined when the launch starts.
  Workspace,
  Output,       ///< a graph output, read back by the caller
  Reference,    ///< only in the reference graph (fused away on the device)
};

/// One tensor of the graph.
struct Value {
  std::string name; ///< unique; inputs and outputs are bound by name
  TensorType type;
  ValueKind kind = ValueKind::Intermediate;
  /// The buffer holding the value; none for Reference values.
  std::optional<uint32_t> buffer;
  /// Byte offset of the value inside its buffer.
  uint64_t bufferOffset = 0;
  /// Weights only: the bytes, as an offset/size into the Weights section.
  uint64_t weightOffset = 0, weightSize = 0;
};

/// A device allocation. Intermediates whose lifetimes do not overlap share
/// a buffer (liveness-planned reuse); inputs, outputs and weights each have
/// their own.
struct Buffer {
  uint64_t size = 0; ///< bytes, > 0
};

/// What the compiler measured for one kernel (crest-compile --report).
struct KernelInfo {
  unsigned vgprs = 0, agprs = 0, sgprs = 0;
  unsigned vgprSpills = 0, sgprSpills = 0;
  uint64_t ldsBytes = 0, scratchBytes = 0;
  unsigned wavesPerSimd = 0; ///< occupancy
  unsigned mfmaCount = 0;    ///< static matrix instructions
  unsigned barrierCount = 0; ///< static s_barrier instructions
  /// The kernel's time under the emulator's timing model, in microseconds
  /// without launch overhead, when the compiler measured it
  /// (crest-compile --tune); positive and finite.
  std::optional<double> modelledUs;
};

struct Kernel {
  std::string name;     ///< the symbol in the code object (".kd" not included)
  uint32_t codeObject;  ///< index of its CodeObject section
  std::string op;       ///< what it computes, e.g. "matmul+add+relu"
  KernelInfo info;
};

/// One dispatch. The kernel's explicit arguments are one global pointer per
/// entry of `args` (8 bytes each, in order): the address of the value.
struct Launch {
  uint32_t kernel;
  std::array<uint32_t, 3> grid = {1, 1, 1};  ///< workgroups
  std::array<uint32_t, 3> block = {1, 1, 1}; ///< work-items per workgroup
  std::vector<uint32_t> args;                ///< value ids
};

/// One op of the reference graph: the graph as written, before fusion, in
/// the crest dialect's terms. The host reference evaluator (crest-run
/// --verify) runs these nodes.
struct Node {
  /// The crest op's name without the dialect prefix: "matmul",
  /// "batch_matmul", "conv2d", "add", "relu", "cast", "softmax", ...
  std::string op;
  std::vector<uint32_t> inputs;  ///< value ids
  std::vector<uint32_t> outputs; ///< value ids
  /// The op's attributes, as crest prints them converted to JSON:
  /// integers, floats, booleans, strings and arrays of them. Contractions
  /// carry "precision": {"lhs": "f16", "rhs": "f16", "acc": "f32", "out":
  /// "f32"} and their own attributes (e.g. "transpose_rhs": true).
  llvm::json::Object attributes;
  std::string location; ///< "file:line:col" of the op, for messages
};

struct Manifest {
  std::string chip;             ///< "gfx942"
  unsigned codeObjectVersion = 5;
  unsigned waveSize = 64;
  std::string graphName;        ///< the func.func's name
  std::vector<Value> values;
  std::vector<uint32_t> inputs;  ///< value ids, in the function's order
  std::vector<uint32_t> outputs; ///< value ids, in the function's order
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Launch> launches; ///< in execution order
  std::vector<Node> graph;      ///< in a topological order
  /// The precision plan the compiler applied (crest/Precision/
  /// PrecisionPlan.h, docs/Precision.md), if it planned one.
  std::optional<llvm::json::Value> precisionPlan;
};

struct Package {
  Manifest manifest;
  std::vector<std::string> codeObjects; ///< ELF bytes, by section index
  std::vector<uint8_t> weights;         ///< the Weights section

  /// The value named `name`, if any.
  std::optional<uint32_t> findValue(llvm::StringRef name) const;
};

/// The manifest as JSON and back. fromJson validates every field and every
/// cross-reference; errors name the offending field ("launches[3].args[1]:
/// value 17 out of range (12 values)").
llvm::json::Value manifestToJson(const Manifest &manifest);
llvm::Expected<Manifest> manifestFromJson(const llvm::json::Value &json);

/// Checks the consistency rules above on an in-memory package (used by the
/// writer before writing, and by the reader after parsing).
llvm::Error validatePackage(const Package &package);

/// Serializes a package to the container format. Fails if the package does
/// not validate.
llvm::Expected<std::vector<uint8_t>> writePackage(const Package &package);
llvm::Error writePackageFile(llvm::StringRef path, const Package &package);

/// Parses and validates a package; `name` appears in error messages.
llvm::Expected<Package> readPackage(llvm::ArrayRef<uint8_t> bytes,
                                    llvm::StringRef name);
llvm::Expected<Package> readPackageFile(llvm::StringRef path);

} // namespace crest::pkg

#endif // CREST_RUNTIME_PACKAGE_H
