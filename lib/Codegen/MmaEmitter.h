//===- MmaEmitter.h - One matrix instruction family, for kernel builders --===//
//
// What a kernel builder needs to know of a matrix instruction family: which
// rows, columns and K indices a lane holds in the A and B fragments and in
// the accumulator, the fragment types, and the instruction itself. The GEMM
// and convolution kernels (LowerToGPU.cpp) ask these questions only through
// this interface, so a second family (RDNA WMMA) or a fused attention
// kernel adds an implementation file and a case in createMmaEmitter, not
// branches in the kernel code.
//
// Implementations read the lane layouts of crest/Target/MmaLayout.h (the one
// description, shared with the emulator and checked against AMD's
// calculator data); they hold no layout arithmetic of their own.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_CODEGEN_MMAEMITTER_H
#define CREST_LIB_CODEGEN_MMAEMITTER_H

#include "crest/Target/ChipTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"

#include <memory>

namespace crest::codegen {

/// The two multiplicands of a matrix instruction: A (M x K) and B (K x N).
enum class MmaOperand { A, B };

/// Emits one matrix instruction family's fragments and instructions. All
/// indices are relative to one instruction tile (M x N x K); `lane` is the
/// lane within the wave (an index value).
class MmaEmitter {
public:
  virtual ~MmaEmitter();

  const MmaInstruction &getInstruction() const { return inst; }
  int64_t getM() const { return inst.m; }
  int64_t getN() const { return inst.n; }
  int64_t getK() const { return inst.k; }

  /// Elements of A (or B) one lane holds per instruction: consecutive K
  /// indices of one row of A (one column of B).
  virtual int64_t getOperandElementsPerLane(MmaOperand operand) const = 0;
  /// Accumulator elements one lane holds.
  virtual int64_t getAccElementsPerLane() const = 0;

  /// The lane's A (or B) fragment type: a vector of
  /// getOperandElementsPerLane() elements, or the scalar when there is one.
  mlir::Type getOperandType(MmaOperand operand, mlir::Type elt) const;
  /// The lane's accumulator type: a vector of getAccElementsPerLane().
  mlir::VectorType getAccType(mlir::Type accElt) const;

  /// The row of A (or column of B) whose elements `lane` holds.
  virtual mlir::Value getOperandIndex(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value lane,
                                      MmaOperand operand) const = 0;
  /// The lane's K group g: it holds K indices [g * E, (g + 1) * E) of its
  /// row (column), E = getOperandElementsPerLane(). A and B lanes with the
  /// same group hold the same K indices, so a kernel may permute K within
  /// its own loads as long as it does so for both operands alike.
  virtual mlir::Value getOperandKGroup(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value lane,
                                       MmaOperand operand) const = 0;
  /// getOperandKGroup() * getOperandElementsPerLane().
  mlir::Value getOperandFirstK(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value lane, MmaOperand operand) const;

  /// The column of every accumulator element `lane` holds.
  virtual mlir::Value getAccColumn(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value lane) const = 0;
  /// The row of accumulator element `element` of `lane`.
  virtual mlir::Value getAccRow(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value lane, int64_t element) const = 0;

  /// acc + a * b, one instruction; `a` and `b` of getOperandType(), `acc`
  /// of getAccType().
  virtual mlir::Value emitMma(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value a, mlir::Value bv,
                              mlir::Value acc) const = 0;

protected:
  explicit MmaEmitter(const MmaInstruction &inst) : inst(inst) {}

  const MmaInstruction &inst;
};

/// The emitter of `inst` for waves of `waveSize` lanes, or an error (through
/// `emitError`) naming what codegen does not support. `reducedPrecision`
/// multiplies f32 operands as xf32 (the instruction's reduced-precision
/// form).
mlir::FailureOr<std::unique_ptr<MmaEmitter>>
createMmaEmitter(const MmaInstruction &inst, unsigned waveSize,
                 bool reducedPrecision,
                 llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The CDNA MFMA family (MfmaEmitter.cpp): single-block forms with M = N in
/// wave64.
mlir::FailureOr<std::unique_ptr<MmaEmitter>>
createMfmaEmitter(const MmaInstruction &inst, unsigned waveSize,
                  bool reducedPrecision,
                  llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace crest::codegen

#endif // CREST_LIB_CODEGEN_MMAEMITTER_H
