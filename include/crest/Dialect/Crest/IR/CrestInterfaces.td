//===- CrestInterfaces.td - Crest op interfaces and traits -*- tablegen -*-===//

#ifndef CREST_DIALECT_CREST_IR_CRESTINTERFACES_TD
#define CREST_DIALECT_CREST_IR_CRESTINTERFACES_TD

include "mlir/IR/OpBase.td"

def Crest_ContractionOpInterface : OpInterface<"ContractionOpInterface"> {
  let cppNamespace = "::crest";
  let description = [{
    A crest operation that codegen tiles onto matrix instructions: it
    multiplies a left and a right operand under a `#crest.precision`, may
    request a `#crest.sync` and may carry an explicit `#crest.config`.
  }];
  let methods = [
    InterfaceMethod<"The left operand (A).", "::mlir::Value", "getLhs">,
    InterfaceMethod<"The right operand (B).", "::mlir::Value", "getRhs">,
    InterfaceMethod<"The precision attribute.", "::crest::PrecisionAttr",
                    "getPrecision">,
    InterfaceMethod<"The sync attribute, or null.", "::crest::SyncAttr",
                    "getSyncAttr", (ins), [{ return $_op.getSyncAttr(); }]>,
    InterfaceMethod<"The explicit configuration, or null.",
                    "::crest::ConfigAttr", "getConfigAttr", (ins),
                    [{ return $_op.getConfigAttr(); }]>,
    InterfaceMethod<[{
        The GEMM problem this contraction computes, as (batch, M, N, K) with
        batch = 1 for a single GEMM (a convolution as its implicit GEMM).
      }], "::llvm::SmallVector<int64_t, 4>", "getGemmShape">,
  ];
}

/// Elementwise operations (with NumPy broadcasting): these fuse into the
/// epilogue of a contraction inside a crest.kernel.
def Crest_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::crest::OpTrait";
}

#endif // CREST_DIALECT_CREST_IR_CRESTINTERFACES_TD
