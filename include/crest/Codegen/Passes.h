//===- Passes.h - Crest kernel codegen passes -------------------*- C++ -*-===//

#ifndef CREST_CODEGEN_PASSES_H
#define CREST_CODEGEN_PASSES_H

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace crest {

#define GEN_PASS_DECL
#include "crest/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "crest/Codegen/Passes.h.inc"

} // namespace crest

#endif // CREST_CODEGEN_PASSES_H
