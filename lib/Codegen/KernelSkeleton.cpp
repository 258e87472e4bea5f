//===- KernelSkeleton.cpp - The shape every Crest GPU kernel shares -------===//

#include "KernelSkeleton.h"

#include "ElementwiseEmitter.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

MemRefType codegen::getGlobalMemRefType(RankedTensorType type) {
  auto global = gpu::AddressSpaceAttr::get(type.getContext(),
                                           gpu::AddressSpace::Global);
  // Unsigned data is held as signless integers (ElementwiseEmitter.h).
  Type element = signless(type.getElementType());
  if (type.getNumElements() == 0 && type.getRank() > 1)
    return MemRefType::get({0}, element, MemRefLayoutAttrInterface(), global);
  return MemRefType::get(type.getShape(), element, MemRefLayoutAttrInterface(),
                         global);
}

MemRefType codegen::getWorkgroupMemRefType(ArrayRef<int64_t> shape,
                                           Type elt) {
  auto workgroup = gpu::AddressSpaceAttr::get(elt.getContext(),
                                              gpu::AddressSpace::Workgroup);
  return MemRefType::get(shape, signless(elt), MemRefLayoutAttrInterface(),
                         workgroup);
}

static gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  if (auto existing = dyn_cast_or_null<gpu::GPUModuleOp>(
          SymbolTable::lookupSymbolIn(module, kKernelModuleName)))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
}

KernelModule::KernelModule(ModuleOp module)
    : kernels(getOrCreateKernelModule(module)), symbols(kernels) {}

gpu::GPUFuncOp KernelModule::createKernel(Operation *anchor, StringRef kind,
                                          const KernelSignature &signature,
                                          std::array<int64_t, 3> grid,
                                          std::array<int64_t, 3> block) {
  MLIRContext *ctx = anchor->getContext();
  SmallVector<Type> argTypes;
  for (ArrayRef<RankedTensorType> group :
       {ArrayRef(signature.inputs), ArrayRef(signature.results),
        ArrayRef(signature.workspace), ArrayRef(signature.semaphores)})
    for (RankedTensorType type : group)
      argTypes.push_back(getGlobalMemRefType(type));

  std::string prefix = "kernel";
  if (auto parent = anchor->getParentOfType<FunctionOpInterface>())
    prefix = parent.getName().str();
  if (!kind.empty())
    prefix += "_" + kind.str();
  std::string name;
  do {
    name = prefix + "_" + std::to_string(counter++);
  } while (symbols.lookup(name));

  OpBuilder outer = OpBuilder::atBlockEnd(kernels.getBody());
  auto func = gpu::GPUFuncOp::create(outer, anchor->getLoc(), name,
                                     FunctionType::get(ctx, argTypes, {}),
                                     signature.workgroupBuffers, TypeRange{});
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), outer.getUnitAttr());
  func.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(
      ctx, {int32_t(block[0]), int32_t(block[1]), int32_t(block[2])}));
  symbols.insert(func);
  OpBuilder body = OpBuilder::atBlockBegin(&func.getBody().front());
  gpu::ReturnOp::create(body, anchor->getLoc());

  setLaunch(anchor,
            SymbolRefAttr::get(ctx, kKernelModuleName,
                               {FlatSymbolRefAttr::get(ctx, name)}),
            grid, block, signature.workspace, signature.semaphores);
  return func;
}
