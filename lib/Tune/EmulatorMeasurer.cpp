//===- EmulatorMeasurer.cpp - Tuning against the timing model -------------===//

#include "crest/Tune/EmulatorMeasurer.h"

#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/InitCrest.h"
#include "crest/Pipelines/Pipelines.h"
#include "crest/Serialize/Serialize.h"
#include "crest/emu/CodeObject.h"
#include "crest/emu/Emulator.h"
#include "crest/emu/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace crest;

static llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

EmulatorMeasurer::EmulatorMeasurer(EmulatorMeasurerOptions options)
    : options(std::move(options)), cache(this->options.cachePath) {}

EmulatorMeasurer::~EmulatorMeasurer() = default;

llvm::Error EmulatorMeasurer::checkTarget(TargetAttr target) {
  const ChipInfo *chip = target.getChipInfo();
  if (!chip)
    return makeError("unknown chip '" + target.getChip() + "'");
  if (chip->timing)
    return llvm::Error::success();
  SmallVector<StringRef> timed;
  for (const ChipInfo &other : getAllChips())
    if (other.timing)
      timed.push_back(other.name);
  return makeError(chip->name + " has no timing model (the emulator times " +
                   llvm::join(timed, ", ") + ")");
}

/// The op that becomes the kernel: `op`'s crest.kernel, or `op` itself.
static Operation *getKernelRoot(ContractionOpInterface op) {
  if (auto kernel = dyn_cast_or_null<KernelOp>(op->getParentOp()))
    return kernel;
  return op;
}

std::string EmulatorMeasurer::describeProblem(ContractionOpInterface op) {
  Operation *root = getKernelRoot(op);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto kernel = dyn_cast<KernelOp>(root)) {
    SmallVector<StringRef> names;
    for (Operation &inner : kernel.getBody().front())
      if (!isa<YieldOp>(inner))
        names.push_back(inner.getName().stripDialect());
    os << llvm::join(names, "+");
  } else {
    os << root->getName().stripDialect();
  }
  os << " (";
  llvm::interleaveComma(root->getOperandTypes(), os);
  os << ") -> (";
  llvm::interleaveComma(root->getResultTypes(), os);
  os << ")";
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute named : op->getAttrs())
    if (named.getName() != "config" &&
        !named.getName().getValue().starts_with("crest."))
      attrs.push_back(named);
  if (!attrs.empty())
    os << " " << DictionaryAttr::get(op->getContext(), attrs);
  return text;
}

/// `op`'s kernel alone, with `config`: a module holding one function that
/// takes the kernel's operands and returns its results, as text.
static std::string buildKernelModule(ContractionOpInterface op,
                                     ConfigAttr config, TargetAttr target) {
  MLIRContext *ctx = op->getContext();
  Operation *root = getKernelRoot(op);
  Location loc = root->getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(CrestDialect::getTargetAttrName(), target);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "tune",
      b.getFunctionType(root->getOperandTypes(), root->getResultTypes()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping mapping;
  mapping.map(root->getOperands(), entry->getArguments());
  Operation *clone = b.clone(*root, mapping);
  Operation *contraction = clone;
  if (auto kernel = dyn_cast<KernelOp>(clone))
    contraction = kernel.getContraction().getOperation();
  contraction->setAttr("config", config);
  contraction->removeAttr(CrestDialect::getTuningAttrName());
  func::ReturnOp::create(b, loc, clone->getResults());
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().assumeVerified());
  (void)ctx;
  return text;
}

/// Small non-zero values in `type`'s encoding, little-endian, one element
/// after the other; `elements` of them.
static std::vector<uint8_t> makeData(Type type, int64_t elements) {
  // Five values exact in every element type (fp8 included).
  static constexpr double kValues[] = {0.125, 0.25, 0.375, 0.5, 0.625};
  unsigned bytes = 1;
  SmallVector<uint64_t, 5> patterns;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    bytes = llvm::divideCeil(floatType.getWidth(), 8);
    for (double value : kValues) {
      llvm::APFloat f(value);
      bool lost;
      f.convert(floatType.getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      patterns.push_back(f.bitcastToAPInt().getZExtValue());
    }
  } else {
    unsigned width = type.getIntOrFloatBitWidth();
    bytes = std::max(1u, unsigned(llvm::divideCeil(width, 8)));
    for (uint64_t v = 1; v <= 5; ++v)
      patterns.push_back(width == 1 ? 1 : v);
  }
  std::vector<uint8_t> data(size_t(elements) * bytes);
  for (int64_t i = 0; i < elements; ++i) {
    uint64_t bits = patterns[i % patterns.size()];
    for (unsigned b = 0; b < bytes; ++b)
      data[size_t(i) * bytes + b] = uint8_t(bits >> (8 * b));
  }
  return data;
}

llvm::Expected<double> EmulatorMeasurer::simulate(StringRef moduleText,
                                                  TargetAttr target) {
  if (!context) {
    DialectRegistry registry;
    registerAllCrestDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->disableMultithreading();
    context->printOpOnDiagnostic(false);
  }
  // The compilation's diagnostics become the error.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      if (!diagnostics.empty())
        diagnostics += "; ";
      diagnostics += diag.str();
    }
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(moduleText, ParserConfig(context.get()));
  if (!module)
    return makeError("the kernel does not parse: " + diagnostics);

  std::string chip = target.getChip().str();
  unsigned waveSize = target.getEffectiveWaveSize();
  PassManager pm(context.get());
  CrestCodegenOptions codegen;
  codegen.chip = chip;
  codegen.waveSize = waveSize;
  codegen.indexBitwidth = options.indexBitwidth;
  codegen.codeObjectVersion = options.codeObjectVersion;
  buildCrestCodegenPipeline(pm, codegen);
  if (failed(pm.run(*module)))
    return makeError("the kernel does not compile: " + diagnostics);

  // The launch the host function makes, and the code object it runs.
  auto func = *module->getOps<func::FuncOp>().begin();
  LaunchAttr launch;
  func.walk([&](Operation *op) {
    if (LaunchAttr found = getLaunch(op))
      launch = found;
  });
  if (!launch)
    return makeError("no kernel was generated");
  SymbolRefAttr kernelRef = launch.getKernel();
  ArrayRef<int64_t> grid = launch.getGrid();
  ArrayRef<int64_t> block = launch.getBlock();
  auto gpuModule =
      module->lookupSymbol<gpu::GPUModuleOp>(kernelRef.getRootReference());
  if (!gpuModule)
    return makeError("no gpu.module @" +
                     kernelRef.getRootReference().getValue());
  SerializeOptions serialize;
  serialize.chip = chip;
  serialize.waveSize = waveSize;
  serialize.codeObjectVersion = options.codeObjectVersion;
  serialize.optLevel = options.optLevel;
  llvm::Expected<SerializedModule> serialized =
      serializeGpuModule(gpuModule, serialize, EmitCodeObject);
  // Linking reset every LLVM command-line option.
  if (options.restoreCommandLine)
    options.restoreCommandLine();
  if (!serialized)
    return makeError("the kernel does not serialize: " +
                     toString(serialized.takeError()));

  // The emulator, with one buffer per kernel argument: the function's
  // arguments, its results, then the launch's workspaces and semaphores
  // (zero, as the host planner leaves them).
  llvm::ArrayRef<uint8_t> elf(
      reinterpret_cast<const uint8_t *>(serialized->codeObject.data()),
      serialized->codeObject.size());
  llvm::Expected<emu::CodeObject> object =
      emu::CodeObject::load(elf, "tuned kernel");
  if (!object)
    return object.takeError();
  StringRef kernelName = kernelRef.getLeafReference().getValue();
  const emu::Kernel *kernel = object->findKernel(kernelName);
  if (!kernel)
    return makeError("the code object has no kernel " + kernelName);
  llvm::Expected<std::unique_ptr<emu::Program>> program =
      emu::Program::decode(*object, *kernel);
  if (!program)
    return program.takeError();
  emu::Emulator emulator;
  SmallVector<Type> bufferTypes(func.getArgumentTypes());
  llvm::append_range(bufferTypes, func.getResultTypes());
  llvm::append_range(bufferTypes, launch.getWorkspaceTypes());
  size_t firstSemaphore = bufferTypes.size();
  llvm::append_range(bufferTypes, launch.getSemaphoreTypes());
  std::vector<uint8_t> kernargs;
  for (auto [i, type] : llvm::enumerate(bufferTypes)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return makeError(llvm::formatv("kernel argument {0} is not a static "
                                     "tensor",
                                     i));
    std::vector<uint8_t> data =
        makeData(tensor.getElementType(), tensor.getNumElements());
    if (i >= firstSemaphore)
      std::fill(data.begin(), data.end(), 0);
    uint64_t address = emulator.getMemory().allocate(
        std::max<uint64_t>(data.size(), 1), "arg" + std::to_string(i));
    if (llvm::Error error = emulator.getMemory().write(address, data))
      return std::move(error);
    for (unsigned b = 0; b < 8; ++b)
      kernargs.push_back(uint8_t(address >> (8 * b)));
  }
  emu::LaunchConfig config;
  config.grid = {uint32_t(grid[0]), uint32_t(grid[1]), uint32_t(grid[2])};
  config.block = {uint32_t(block[0]), uint32_t(block[1]), uint32_t(block[2])};
  config.detectRaces = false;
  config.timing = emu::TimingOptions();
  config.timing->sampleOnly = true;
  llvm::Expected<emu::LaunchResult> result =
      emulator.launch(**program, kernargs, config);
  if (!result)
    return makeError("the emulator fails: " + toString(result.takeError()));
  if (!result->timing)
    return makeError("the emulator gave no timing");
  return result->timing->microseconds;
}

llvm::Expected<ConfigMeasurement>
EmulatorMeasurer::measure(ContractionOpInterface op, ConfigAttr config) {
  TargetAttr target = lookupTarget(op);
  if (!target)
    return makeError("no #crest.target");
  std::string configText;
  llvm::raw_string_ostream(configText) << config;
  TuneCacheKey key{target.getChip().str(), target.getEffectiveWaveSize(),
                   describeProblem(op), configText};
  if (std::optional<double> us = cache.lookup(key)) {
    ++cached;
    return ConfigMeasurement{*us, /*cached=*/true};
  }
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<double> us =
      simulate(buildKernelModule(op, config, target), target);
  seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!us)
    return us.takeError();
  ++simulated;
  cache.insert(key, *us);
  return ConfigMeasurement{*us, /*cached=*/false};
}
