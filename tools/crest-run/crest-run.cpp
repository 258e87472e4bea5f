//===- crest-run.cpp - Run a compiled .crest package ----------------------===//
//
//   crest-run model.crest --input x.npy [--input name=w.pb ...] \
//     --output y.npy [--device auto|hip|emu] [--verify] [--benchmark N] \
//     [--report] [--describe] [--emu-seed N] [--emu-quantum N] \
//     [--timing[=pc|off]] [--clock-mhz MHz] [--trace FILE.json] \
//     [--runs N] [--no-hip-graph]
//
// Inputs bind to the graph's inputs by position, or by name with NAME=PATH;
// .npy and ONNX TensorProto (.pb) files are accepted, and outputs are
// written in the format their extension names. Exit codes: 0 success,
// 1 an error (bad package, bad input, device failure), 2 LDS races found by
// the emulator, 3 outputs beyond the reference tolerance (--verify).
//
// On the emulator, the timing model (docs/Timing.md) projects each launch's
// time on the package's chip: --timing prints it per kernel and for the
// model, --trace writes the launches as a Perfetto timeline, and --report
// and --benchmark report modelled time (the timing model is on by default
// for them; --timing=off turns it off). Chips the model has no parameters
// for run untimed, with a note.
//
// On the HIP device a run's launches are captured into a HIP graph and
// replayed (docs/Hip.md, "Graphs"); --no-hip-graph launches them one by one,
// and --runs N runs N times so that the outputs are a replay's.
//
//===----------------------------------------------------------------------===//

#include "crest/ToolVersion.h"
#include "crest/runtime/Reference.h"
#include "crest/runtime/Runtime.h"

#include "crest/Support/Limits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace crest;
using namespace crest::rt;

static cl::OptionCategory category("crest-run options");
static cl::opt<std::string> packagePath(cl::Positional, cl::Required,
                                        cl::desc("<model.crest>"),
                                        cl::cat(category));
static cl::list<std::string>
    inputOpts("input",
              cl::desc("An input file (.npy or ONNX .pb), in the graph's "
                       "input order, or NAME=PATH"),
              cl::cat(category));
static cl::list<std::string>
    outputOpts("output",
               cl::desc("Where to write an output (.npy, or .pb for an ONNX "
                        "TensorProto), in the graph's output order, or "
                        "NAME=PATH"),
               cl::cat(category));
static cl::opt<std::string>
    deviceOpt("device", cl::init("auto"),
              cl::desc("auto (default: hip when a GPU of the package's chip "
                       "is usable, else emu), hip or emu"),
              cl::cat(category));
static cl::opt<int> hipDevice("hip-device", cl::init(0),
                              cl::desc("HIP device index"), cl::cat(category));
static cl::opt<uint64_t> emuSeed("emu-seed", cl::init(0),
                                 cl::desc("Emulator: random wave order and "
                                          "quanta from this seed (0: "
                                          "round-robin)"),
                                 cl::cat(category));
static cl::opt<unsigned> emuThreads(
    "emu-threads", cl::init(0),
    cl::desc("Emulator: host threads that run a launch's workgroups "
             "(default 0: all cores; the results do not depend on it)"),
    cl::cat(category));
static cl::opt<unsigned> emuQuantum("emu-quantum", cl::init(64),
                                    cl::desc("Emulator: instructions a wave "
                                             "runs before the next one"),
                                    cl::cat(category));
static cl::opt<uint64_t> maxInstructions(
    "max-instructions",
    cl::init(emu::LaunchConfig::kDefaultMaxInstructions),
    cl::desc("Emulator: wave instructions a dispatch may execute (default "
             "2^28)"),
    cl::cat(category));
static cl::opt<uint64_t> maxWaveInstructions(
    "max-wave-instructions",
    cl::init(emu::LaunchConfig::kDefaultMaxWaveInstructions),
    cl::desc("Emulator: instructions one wave may execute (default 2^20)"),
    cl::cat(category));
static cl::opt<double> timeoutSeconds(
    "timeout", cl::init(0),
    cl::desc("Emulator: host seconds a dispatch may run (default 0: no "
             "timeout)"),
    cl::cat(category));
static cl::opt<uint64_t> emuMemoryLimit(
    "emu-memory-limit", cl::init(0),
    cl::desc("Emulator: device memory in bytes (default 0: half of the "
             "host's memory)"),
    cl::cat(category));
static cl::opt<bool> noRaceCheck("no-race-check",
                                 cl::desc("Emulator: do not run the LDS race "
                                          "detector"),
                                 cl::cat(category));
static cl::opt<bool> timingOnly(
    "timing-only",
    cl::desc("Emulator, with the timing model: execute only the workgroups "
             "the model replays, for projecting large graphs quickly; the "
             "outputs are not computed (no --output, --verify, --benchmark "
             "or --runs)"),
    cl::cat(category));
static cl::opt<bool> verify("verify",
                            cl::desc("Compare the outputs with the host "
                                     "reference evaluator (exit 3 beyond "
                                     "tolerance)"),
                            cl::cat(category));
static cl::opt<std::string> referenceDir(
    "reference-dir",
    cl::desc("With --verify, also write each output's reference values (in "
             "the output's element type) to DIR/<name>.npy"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> noHipGraph(
    "no-hip-graph",
    cl::desc("HIP device: launch the kernels one by one instead of capturing "
             "them into a HIP graph and replaying it (docs/Hip.md)"),
    cl::cat(category));
static cl::opt<unsigned> runs(
    "runs", cl::init(1),
    cl::desc("Run the package N times (default 1) and write, report and "
             "verify the last run's outputs (on the HIP device, runs after "
             "the first replay the HIP graph)"),
    cl::cat(category));
static cl::opt<unsigned> benchmark("benchmark", cl::init(0),
                                   cl::desc("Run N more times and print the "
                                            "median and spread"),
                                   cl::cat(category));
static cl::opt<bool> report("report",
                            cl::desc("Print per-kernel resources and "
                                     "measurements"),
                            cl::cat(category));
enum class TimingMode { Default, Off, Summary, Pc };
static cl::opt<TimingMode> timingMode(
    "timing",
    cl::desc("Emulator: project each launch's time with the timing model and "
             "print it per kernel and for the model (on by default, without "
             "the printout, for --report and --benchmark)"),
    cl::ValueOptional, cl::init(TimingMode::Default),
    cl::values(clEnumValN(TimingMode::Summary, "", "per-kernel summary"),
               clEnumValN(TimingMode::Summary, "summary", "per-kernel summary"),
               clEnumValN(TimingMode::Pc, "pc",
                          "summary and per-instruction hotspots"),
               clEnumValN(TimingMode::Off, "off",
                          "no timing model (also for --report and "
                          "--benchmark)")),
    cl::cat(category));
static cl::opt<double> clockMhz("clock-mhz", cl::init(0),
                                cl::desc("Emulator: effective clock of the "
                                         "timing model (default: the chip "
                                         "table's)"),
                                cl::cat(category));
static cl::opt<std::string> tracePath(
    "trace",
    cl::desc("Emulator: write the modelled launches, one after the other, "
             "and each kernel's compute-unit timeline as a Chrome/Perfetto "
             "JSON trace (runs the timing model)"),
    cl::value_desc("FILE.json"), cl::cat(category));
static cl::opt<bool> describe("describe",
                              cl::desc("Print the manifest summary (and exit "
                                       "unless inputs are given)"),
                              cl::cat(category));

static int fail(Error error) {
  int code = 1;
  handleAllErrors(
      std::move(error),
      [&](const RaceError &race) {
        WithColor::error(errs(), "crest-run");
        race.log(errs());
        errs() << "\n";
        code = 2;
      },
      [&](const ErrorInfoBase &e) {
        WithColor::error(errs(), "crest-run") << e.message() << "\n";
      });
  return code;
}

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

/// Matches NAME=PATH / PATH options to the ids in `ids` (inputs or
/// outputs): named ones by name, the others in order.
static Expected<std::vector<std::string>>
assignPaths(const pkg::Manifest &m, ArrayRef<uint32_t> ids,
            ArrayRef<std::string> options, StringRef what) {
  std::vector<std::string> paths(ids.size());
  std::vector<std::string> positional;
  for (const std::string &opt : options) {
    auto [nameRef, path] = StringRef(opt).split('=');
    StringRef name = nameRef;
    if (path.empty()) {
      positional.push_back(opt);
      continue;
    }
    auto it = llvm::find_if(
        ids, [&](uint32_t id) { return m.values[id].name == name; });
    if (it == ids.end()) {
      SmallVector<std::string> names;
      for (uint32_t id : ids)
        names.push_back("'" + m.values[id].name + "'");
      return makeError("--" + what + " " + opt + ": the graph has no " + what +
                       " named '" + name + "'; its " + what + "s are " +
                       join(names, ", "));
    }
    size_t index = it - ids.begin();
    if (!paths[index].empty())
      return makeError("--" + what + " given twice for '" + name + "'");
    paths[index] = path.str();
  }
  size_t next = 0;
  for (const std::string &path : positional) {
    while (next < ids.size() && !paths[next].empty())
      ++next;
    if (next == ids.size())
      return makeError(formatv("too many --{0} files: the graph has {1} "
                               "{0}{2}",
                               what, ids.size(), ids.size() == 1 ? "" : "s"));
    paths[next++] = path;
  }
  return paths;
}

static double median(ArrayRef<double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Writes the --trace file.
static Error writeTrace(const pkg::Manifest &m, const RunStats &stats) {
  std::error_code ec;
  raw_fd_ostream file(tracePath, ec);
  if (ec)
    return makeError("cannot write '" + tracePath + "': " + ec.message());
  writeRunTrace(file, m, stats);
  return crest::checkOutputStream(file, tracePath);
}

/// Prints the --benchmark lines: on the emulator the modelled time (when the
/// launches carry it) and the host wall time of the emulation, on a GPU the
/// HIP event time.
static void printBenchmark(raw_ostream &os, const Device &device,
                           ArrayRef<double> seconds,
                           ArrayRef<double> modelledUs) {
  size_t runs = seconds.size();
  if (!modelledUs.empty()) {
    double lo = *std::min_element(modelledUs.begin(), modelledUs.end());
    double hi = *std::max_element(modelledUs.begin(), modelledUs.end());
    os << formatv("benchmark: {0} runs, modelled median {1:f2} us (kernels "
                  "and launch overheads on {2}; ",
                  runs, median(modelledUs), device.getChip());
    if (lo == hi)
      os << formatv("the same in all {0} runs: the timing model is "
                    "deterministic)\n",
                    runs);
    else
      os << formatv("min {0:f2} us, max {1:f2} us)\n", lo, hi);
  }
  double med = median(seconds);
  double lo = *std::min_element(seconds.begin(), seconds.end());
  double hi = *std::max_element(seconds.begin(), seconds.end());
  os << formatv("benchmark: {0} runs, median {1:f3} ms, min {2:f3} ms, "
                "max {3:f3} ms, spread {4:f1}% ({5})\n",
                runs, med * 1e3, lo * 1e3, hi * 1e3,
                med > 0 ? (hi - lo) / med * 100 : 0.0,
                device.getKind() == DeviceKind::Emu
                    ? "host wall time of the emulation"
                    : "HIP event time");
}

static double kernelSeconds(const RunStats &stats) {
  double total = 0;
  for (const LaunchStats &s : stats.launches)
    total += s.seconds;
  return total;
}

static int run(int argc, char **argv) {
  InitLLVM init(argc, argv);
  crest::setToolVersionPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "Runs a compiled .crest package on a HIP GPU "
                              "or Crest's emulator\n");

  Expected<pkg::Package> package = pkg::readPackageFile(packagePath);
  if (!package)
    return fail(package.takeError());
  const pkg::Manifest &m = package->manifest;
  if (describe) {
    printManifestSummary(outs(), m);
    if (inputOpts.empty())
      return 0;
  }

  // Inputs: read and check them before touching a device.
  Expected<std::vector<std::string>> inputPaths =
      assignPaths(m, m.inputs, inputOpts, "input");
  if (!inputPaths)
    return fail(inputPaths.takeError());
  SmallVector<std::string> missing;
  for (size_t i = 0; i < m.inputs.size(); ++i)
    if ((*inputPaths)[i].empty())
      missing.push_back("'" + m.values[m.inputs[i]].name + "' (" +
                        m.values[m.inputs[i]].type.describe() + ")");
  if (!missing.empty())
    return fail(makeError(
        "missing input" + Twine(missing.size() == 1 ? "" : "s") + ": " +
        join(missing, ", ") + "; give one --input per graph input"));
  Expected<std::vector<std::string>> outputPaths =
      assignPaths(m, m.outputs, outputOpts, "output");
  if (!outputPaths)
    return fail(outputPaths.takeError());

  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const pkg::Value &v = m.values[m.inputs[i]];
    Expected<HostTensor> t = readTensorFile((*inputPaths)[i], v.type.element);
    if (!t)
      return fail(
          makeError("input '" + v.name + "': " + toString(t.takeError())));
    if (!(t->type == v.type))
      return fail(makeError(
          "input '" + v.name + "' (" + (*inputPaths)[i] + "): wrong " +
          (t->type.element != v.type.element ? "element type" : "shape") +
          ": expected " + v.type.describe() + ", given " + t->type.describe()));
    inputs.push_back(std::move(*t));
  }

  std::optional<DeviceKind> kind = parseDeviceKind(deviceOpt);
  if (!kind)
    return fail(
        makeError("--device=" + deviceOpt + ": expected auto, hip or emu"));
  EmuOptions emuOptions;
  emuOptions.detectRaces = !noRaceCheck;
  emuOptions.quantum = emuQuantum;
  if (emuThreads)
    emuOptions.threads = emuThreads;
  if (maxInstructions == 0 || maxWaveInstructions == 0 || timeoutSeconds < 0)
    return fail(makeError("--max-instructions and --max-wave-instructions "
                          "must be positive, --timeout not negative"));
  emuOptions.maxInstructions = maxInstructions;
  emuOptions.maxWaveInstructions = maxWaveInstructions;
  emuOptions.timeoutSeconds = timeoutSeconds;
  if (emuMemoryLimit)
    emuOptions.memoryLimit = emuMemoryLimit;
  if (emuSeed)
    emuOptions.seed = emuSeed;
  // The timing model: asked for, or on by default where time is reported.
  bool timingAsked = timingMode == TimingMode::Summary ||
                     timingMode == TimingMode::Pc || !tracePath.empty();
  if (timingMode == TimingMode::Off && !tracePath.empty())
    return fail(makeError("--trace needs the timing model: drop --timing=off"));
  bool timed = timingAsked ||
               (timingMode == TimingMode::Default && (report || benchmark));
  if (clockMhz.getNumOccurrences() && !timed)
    return fail(makeError("--clock-mhz needs the timing model: add --timing, "
                          "--trace, --report or --benchmark"));
  if (clockMhz.getNumOccurrences() && !(clockMhz > 0))
    return fail(makeError("--clock-mhz must be positive"));
  if (timingOnly) {
    if (!timed || timingMode == TimingMode::Off)
      return fail(makeError("--timing-only needs the timing model: add "
                            "--timing or --report"));
    if (verify || benchmark || runs > 1 || outputOpts.getNumOccurrences())
      return fail(makeError("--timing-only computes no outputs: drop "
                            "--output, --verify, --benchmark and --runs"));
  }
  if (timed) {
    emu::TimingOptions timing;
    timing.sampleOnly = timingOnly;
    timing.perPc = timingMode == TimingMode::Pc;
    timing.timeline = !tracePath.empty();
    timing.clockMhz = clockMhz;
    emuOptions.timing = timing;
  }
  HipOptions hipOptions;
  hipOptions.deviceIndex = hipDevice;
  hipOptions.useGraphs = !noHipGraph;
  if (runs == 0)
    return fail(makeError("--runs must be at least 1"));
  std::string why;
  Expected<std::unique_ptr<Device>> device = createDevice(
      *kind, m.chip, m.codeObjectVersion, emuOptions, hipOptions, &why);
  if (!device)
    return fail(device.takeError());
  errs() << "crest-run: " << why << ": " << (*device)->describe() << "\n";
  if (timingOnly && (*device)->getKind() != DeviceKind::Emu)
    return fail(makeError("--timing-only is the emulator's timing model: "
                          "use --device=emu"));
  if (timed && (*device)->getKind() == DeviceKind::Emu && !(*device)->isTimed())
    WithColor::note(errs(), "crest-run")
        << (*device)->getTimingNote() << ": the launches run without "
        << "modelled time\n";
  else if (timingAsked && (*device)->getKind() == DeviceKind::Hip)
    WithColor::note(errs(), "crest-run")
        << "the timing model runs on the emulator only: on the GPU, --report "
           "and --benchmark give HIP event times; use --device=emu for "
           "modelled time\n";

  Expected<std::unique_ptr<Session>> session =
      Session::create(**device, std::move(*package));
  if (!session)
    return fail(session.takeError());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Error e = (*session)->bindInput(unsigned(i), inputs[i]))
      return fail(std::move(e));

  Expected<RunStats> stats = (*session)->run();
  for (unsigned i = 1; i < runs && stats; ++i)
    stats = (*session)->run();
  if (!stats)
    return fail(stats.takeError());
  if (!stats->launchNote.empty())
    WithColor::note(errs(), "crest-run")
        << (runs > 1 ? formatv("run {0}: ", unsigned(runs)).str() : "")
        << stats->launchNote << "\n";

  const pkg::Manifest &manifest = (*session)->getManifest();
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < manifest.outputs.size(); ++i) {
    Expected<HostTensor> t = (*session)->getOutput(unsigned(i));
    if (!t)
      return fail(t.takeError());
    const std::string &path = (*outputPaths)[i];
    if (!path.empty())
      if (Error e = writeTensorFile(path, *t,
                                    manifest.values[manifest.outputs[i]].name))
        return fail(std::move(e));
    outputs.push_back(std::move(*t));
  }

  if (report)
    printRunReport(outs(), manifest, *stats);
  if (timingMode == TimingMode::Summary || timingMode == TimingMode::Pc)
    printRunTiming(outs(), manifest, *stats, timingMode == TimingMode::Pc);
  if (!tracePath.empty() && (*device)->isTimed()) {
    if (Error e = writeTrace(manifest, *stats))
      return fail(std::move(e));
    errs() << formatv("crest-run: wrote {0}: {1} launch{2} on one timeline\n",
                      tracePath, stats->launches.size(),
                      stats->launches.size() == 1 ? "" : "es");
  } else if (!tracePath.empty()) {
    WithColor::note(errs(), "crest-run")
        << "no modelled time, so no trace written to '" << tracePath << "'\n";
  }

  int exitCode = 0;
  if (!referenceDir.empty() && !verify)
    return fail(makeError("--reference-dir needs --verify"));
  if (verify) {
    Expected<std::vector<RefTensor>> ref =
        evaluateReference((*session)->getPackage(), inputs);
    if (!ref)
      return fail(ref.takeError());
    for (size_t i = 0; i < manifest.outputs.size(); ++i) {
      uint32_t id = manifest.outputs[i];
      Comparison c =
          compareTensor(manifest.values[id].name, (*ref)[id], outputs[i]);
      printComparison(outs(), c);
      if (!c.passed())
        exitCode = 3;
      if (!referenceDir.empty()) {
        std::string path =
            (referenceDir + "/" + manifest.values[id].name + ".npy");
        if (Error e = writeTensorFile(path, encodeReference((*ref)[id]),
                                      manifest.values[id].name))
          return fail(std::move(e));
      }
    }
    outs() << (exitCode ? "verify: FAIL\n" : "verify: PASS\n");
  }

  if (benchmark) {
    std::vector<double> times, modelled;
    for (unsigned i = 0; i < benchmark; ++i) {
      Expected<RunStats> s = (*session)->run();
      if (!s)
        return fail(s.takeError());
      times.push_back(kernelSeconds(*s));
      if (std::optional<ModelledTime> t = s->getModelledTime())
        modelled.push_back(t->totalMicroseconds());
    }
    if (modelled.size() != times.size())
      modelled.clear();
    printBenchmark(outs(), **device, times, modelled);
  }
  outs().flush();
  return exitCode;
}

int main(int argc, char **argv) {
  // An output error (closed stdout, /dev/full) is a diagnostic, not
  // raw_fd_ostream's fatal error at exit.
  return crest::finishStdout("crest-run", run(argc, argv));
}
