//===- CrestOps.h - Operations of the crest dialect -------------*- C++ -*-===//

#ifndef CREST_DIALECT_CREST_IR_CRESTOPS_H
#define CREST_DIALECT_CREST_IR_CRESTOPS_H

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "crest/Dialect/Crest/IR/CrestOps.h.inc"

#endif // CREST_DIALECT_CREST_IR_CRESTOPS_H
