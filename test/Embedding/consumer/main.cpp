//===- main.cpp - A program built against an installed Crest --------------===//
//
//   crest-consumer GRAPH.mlir [MODEL.crest]
//
// parses the crest graph GRAPH.mlir, runs two of Crest's graph passes on it
// and prints the result; then runs MODEL.crest, the package compiled from
// ../Inputs/layer.mlir (one f32 layer: y = relu(x * w + b)), on the
// emulator through crest_runtime.hpp (the C++ wrapper of the runtime's C
// API) and checks its output against the same layer computed here and
// against the runtime's host reference.
//
// CMakeLists.txt finds Crest with find_package(Crest); docs/Embedding.md
// walks through it.
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/Transforms/Passes.h"
#include "crest/Version.h"
#include "crest_runtime.hpp"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <vector>

/// The dialect and a pass pipeline: attach the target, fuse the epilogue.
static int runPasses(const char *graphPath) {
  mlir::DialectRegistry registry;
  registry.insert<crest::CrestDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  crest::registerCrestTransformsPasses();

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(graphPath, &context);
  if (!module)
    return 1;
  // The passes by their registered names, nested in the module's pass
  // manager (as in --pass-pipeline='builtin.module(...)').
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "crest-attach-target{chip=gfx942}, crest-fuse-epilogues", pm,
          llvm::errs())) ||
      mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  llvm::outs().flush();
  return 0;
}

static int fail(const char *what, const crest::Status &status) {
  std::fprintf(stderr, "crest-consumer: %s: %s\n", what,
               status.message.c_str());
  return 1;
}

/// The runtime: y = relu(x * w + b) on the emulator.
static int runPackage(const char *path) {
  constexpr int m = 16, k = 32, n = 16;
  std::vector<float> x(m * k), w(k * n), b(n), y(m * n);
  for (int i = 0; i < m * k; ++i)
    x[i] = float(i % 7 - 3) * 0.25f;
  for (int i = 0; i < k * n; ++i)
    w[i] = float(i % 5 - 2) * 0.5f;
  for (int i = 0; i < n; ++i)
    b[i] = float(i % 3 - 1);

  crest::Model model;
  if (crest::Status s = model.load(path); !s)
    return fail("loading the model", s);
  crest::Device device;
  if (crest::Status s = device.create(CREST_DEVICE_EMU, model.chip(),
                                      model.codeObjectVersion());
      !s)
    return fail("creating the device", s);
  crest::Session session;
  if (crest::Status s = session.create(device, model); !s)
    return fail("creating the session", s);
  if (crest::Status s = session.bindInput("x", CREST_F32, {m, k}, x.data(),
                                          x.size() * sizeof(float));
      !s)
    return fail("binding x", s);
  if (crest::Status s = session.bindInput("w", CREST_F32, {k, n}, w.data(),
                                          w.size() * sizeof(float));
      !s)
    return fail("binding w", s);
  if (crest::Status s = session.bindInput("b", CREST_F32, {n}, b.data(),
                                          b.size() * sizeof(float));
      !s)
    return fail("binding b", s);
  if (crest::Status s = session.run(); !s)
    return fail("running", s);
  if (crest::Status s =
          session.readOutput("y", y.data(), y.size() * sizeof(float));
      !s)
    return fail("reading y", s);

  double maxError = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = b[j];
      for (int l = 0; l < k; ++l)
        sum += double(x[i * k + l]) * double(w[l * n + j]);
      maxError = std::fmax(
          maxError, std::fabs(std::fmax(sum, 0.0) - double(y[i * n + j])));
    }
  }
  std::printf("device: %s\n", device.describe().c_str());
  std::printf("max abs error against the host loop: %g\n", maxError);
  std::string verifyReport;
  crest::Status verified = session.verify(&verifyReport);
  std::printf("%s", verifyReport.c_str());
  return maxError <= 1e-5 && verified ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: crest-consumer GRAPH.mlir [MODEL.crest]\n");
    return 1;
  }
  llvm::outs() << "built against Crest " << CREST_VERSION_STRING << "\n";
  if (int rc = runPasses(argv[1]))
    return rc;
  return argc > 2 ? runPackage(argv[2]) : 0;
}
