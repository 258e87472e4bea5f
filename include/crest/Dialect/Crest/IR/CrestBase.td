//===- CrestBase.td - Crest dialect definition -------------*- tablegen -*-===//
//
// The `crest` dialect: tensor operations with precision and synchronization
// attributes, lowered by Crest onto AMD matrix cores.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_DIALECT_CREST_IR_CRESTBASE_TD
#define CREST_DIALECT_CREST_IR_CRESTBASE_TD

include "mlir/IR/OpBase.td"

def Crest_Dialect : Dialect {
  let name = "crest";
  let cppNamespace = "::crest";
  let summary = "Tensor operations with precision and sync attributes for AMD matrix cores";
  let description = [{
    The `crest` dialect describes the compute of an inference graph as
    operations on statically shaped tensors. Every contraction
    (`crest.matmul`, `crest.batch_matmul`, `crest.conv2d`) states its
    **precision** — the element types the matrix cores read, accumulate in
    and write — with `#crest.precision`, and may state how the waves of a
    workgroup share data with `#crest.sync`. A module names the chip it is
    compiled for with a `crest.target = #crest.target<chip = "...">`
    attribute; when it does, every contraction's precision is checked against
    the matrix instructions that chip actually has (the chip table), and an
    explicit `#crest.config` against its LDS and register budgets.

    `crest.kernel` groups the operations that become exactly one GPU kernel:
    a contraction with its fused elementwise epilogue, or a standalone
    elementwise or reduction group.
  }];
  let useDefaultAttributePrinterParser = 1;
  // Folded elementwise ops become arith.constant.
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Name of the module attribute that holds the `#crest.target`.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("crest.target");
    }
    /// Name of the `#crest.launch` attribute codegen puts on each host op
    /// it generated a kernel for (see getLaunch and setLaunch).
    static constexpr ::llvm::StringLiteral getLaunchAttrName() {
      return ::llvm::StringLiteral("crest.launch");
    }
    /// Name of the attribute `crest-select-config{tune}` puts on a
    /// contraction it tuned: the candidates it measured under the timing
    /// model and the one it chose (crest/Dialect/Crest/IR/Tuning.h).
    static constexpr ::llvm::StringLiteral getTuningAttrName() {
      return ::llvm::StringLiteral("crest.tuning");
    }
  }];
}

class Crest_Op<string mnemonic, list<Trait> traits = []>
    : Op<Crest_Dialect, mnemonic, traits>;

#endif // CREST_DIALECT_CREST_IR_CRESTBASE_TD
