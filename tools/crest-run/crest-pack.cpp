//===- crest-pack.cpp - Assemble a .crest package from parts (testing) ----===//
//
// A test tool: builds a package from code objects and a JSON spec, so that
// the runtime can be tested on hand-made packages (and corrupted ones)
// independently of the compiler's planner.
//
//   crest-pack spec.json -o model.crest [--base-dir DIR]
//
// spec.json (paths relative to --base-dir, default the spec's folder):
//   {"chip": "gfx942", "graph_name": "mlp", "code_object_version": 5,
//    "code_objects": ["k.hsaco"],
//    "values": [{"name": "x", "kind": "input", "type": "f16",
//                "shape": [8, 256]},
//               {"name": "w", "kind": "weight", "type": "f16",
//                "shape": [256, 128], "npy": "w.npy"},
//               {"name": "h", "kind": "reference", ...}, ...],
//    "kernels": [{"name": "k", "code_object": 0, "op": "matmul+add"}],
//    "launches": [{"kernel": 0, "grid": [1, 2, 1], "block": [256, 1, 1],
//                  "args": ["x", "w", "y"]}],
//    "graph": [{"op": "matmul", "inputs": ["x", "w"], "outputs": ["h"],
//               "attributes": {...}}]}
// Every input, weight, intermediate and output value gets its own buffer
// (or "buffer": N to share one, with "offset"). The kernels' KernelInfo is
// read from the code object (registers, LDS, scratch from the metadata;
// MFMA and s_barrier counts from the decoded instructions; occupancy left
// 0).
//
//===----------------------------------------------------------------------===//

#include "crest/ToolVersion.h"
#include "crest/emu/CodeObject.h"
#include "crest/emu/Program.h"
#include "crest/runtime/Npy.h"
#include "crest/runtime/Package.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "crest/Support/Limits.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace crest;

static cl::opt<std::string> specPath(cl::Positional, cl::Required,
                                     cl::desc("<spec.json>"));
static cl::opt<std::string> outputPath("o", cl::Required,
                                       cl::desc("Output package"));
static cl::opt<std::string> baseDir("base-dir",
                                    cl::desc("Folder relative paths start "
                                             "from"));

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

static std::string resolve(StringRef path) {
  if (sys::path::is_absolute(path))
    return path.str();
  SmallString<256> full(baseDir.empty() ? sys::path::parent_path(specPath).str()
                                        : baseDir.getValue());
  sys::path::append(full, path);
  return std::string(full);
}

static Expected<pkg::Package> build(const json::Object &spec) {
  pkg::Package package;
  pkg::Manifest &m = package.manifest;
  m.chip = spec.getString("chip").value_or("gfx942").str();
  m.graphName = spec.getString("graph_name").value_or("main").str();
  m.codeObjectVersion = spec.getInteger("code_object_version").value_or(5);
  m.waveSize = spec.getInteger("wave_size").value_or(64);
  std::vector<std::unique_ptr<emu::CodeObject>> objects;
  if (const json::Array *cos = spec.getArray("code_objects"))
    for (const json::Value &v : *cos) {
      std::string path = resolve(v.getAsString().value_or(""));
      Expected<std::unique_ptr<MemoryBuffer>> buffer =
          crest::readBoundedFile(path);
      if (!buffer)
        return buffer.takeError();
      package.codeObjects.push_back((*buffer)->getBuffer().str());
      Expected<emu::CodeObject> co = emu::CodeObject::load(
          ArrayRef<uint8_t>(
              reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
              (*buffer)->getBufferSize()),
          path);
      if (!co)
        return co.takeError();
      objects.push_back(std::make_unique<emu::CodeObject>(std::move(*co)));
    }
  std::map<std::string, uint32_t> ids;
  const json::Array *values = spec.getArray("values");
  if (!values)
    return makeError("no 'values'");
  for (const json::Value &vv : *values) {
    const json::Object *o = vv.getAsObject();
    if (!o)
      return makeError("a value is not an object");
    pkg::Value v;
    v.name = o->getString("name").value_or("").str();
    StringRef kind = o->getString("kind").value_or("intermediate");
    v.kind = kind == "input"       ? pkg::ValueKind::Input
             : kind == "weight"    ? pkg::ValueKind::Weight
             : kind == "output"    ? pkg::ValueKind::Output
             : kind == "reference" ? pkg::ValueKind::Reference
                                   : pkg::ValueKind::Intermediate;
    std::optional<pkg::ElementType> type =
        pkg::parseElementType(o->getString("type").value_or("f32"));
    if (!type)
      return makeError("value '" + v.name + "': unknown type");
    v.type.element = *type;
    if (const json::Array *shape = o->getArray("shape"))
      for (const json::Value &d : *shape)
        v.type.shape.push_back(d.getAsInteger().value_or(0));
    if (v.kind != pkg::ValueKind::Reference) {
      if (std::optional<int64_t> b = o->getInteger("buffer")) {
        v.buffer = *b;
        v.bufferOffset = o->getInteger("offset").value_or(0);
        while (m.buffers.size() <= uint64_t(*b))
          m.buffers.push_back({0});
        m.buffers[*b].size =
            std::max(m.buffers[*b].size, v.bufferOffset + v.type.getByteSize());
      } else {
        v.buffer = m.buffers.size();
        m.buffers.push_back({v.type.getByteSize()});
      }
    }
    if (v.kind == pkg::ValueKind::Weight) {
      Expected<NpyArray> array =
          readNpyFile(resolve(o->getString("npy").value_or("")));
      if (!array)
        return array.takeError();
      // Align each weight to 256 bytes.
      package.weights.resize((package.weights.size() + 255) / 256 * 256);
      v.weightOffset = package.weights.size();
      v.weightSize = array->data.size();
      package.weights.insert(package.weights.end(), array->data.begin(),
                             array->data.end());
    }
    ids[v.name] = m.values.size();
    if (v.kind == pkg::ValueKind::Input)
      m.inputs.push_back(m.values.size());
    if (v.kind == pkg::ValueKind::Output)
      m.outputs.push_back(m.values.size());
    m.values.push_back(std::move(v));
  }
  auto idsOf = [&](const json::Array *names,
                   std::vector<uint32_t> &out) -> Error {
    if (!names)
      return Error::success();
    for (const json::Value &n : *names) {
      std::string name = n.getAsString().value_or("").str();
      if (!ids.count(name))
        return makeError("unknown value '" + name + "'");
      out.push_back(ids[name]);
    }
    return Error::success();
  };
  if (const json::Array *kernels = spec.getArray("kernels"))
    for (const json::Value &kv : *kernels) {
      const json::Object *o = kv.getAsObject();
      pkg::Kernel k;
      k.name = o->getString("name").value_or("").str();
      k.codeObject = o->getInteger("code_object").value_or(0);
      k.op = o->getString("op").value_or("").str();
      if (k.codeObject < objects.size())
        if (const emu::Kernel *ek = objects[k.codeObject]->findKernel(k.name)) {
          k.info.vgprs = ek->vgprCount;
          k.info.agprs = ek->agprCount;
          k.info.sgprs = ek->sgprCount;
          k.info.ldsBytes = ek->groupSegmentFixedSize;
          k.info.scratchBytes = ek->privateSegmentFixedSize;
          if (Expected<std::unique_ptr<emu::Program>> p =
                  emu::Program::decode(*objects[k.codeObject], *ek)) {
            for (const emu::Inst &inst : (*p)->getInstructions()) {
              StringRef name = inst.name;
              if (name.starts_with("V_MFMA") || name.starts_with("V_SMFMAC"))
                ++k.info.mfmaCount;
              if (name.starts_with("S_BARRIER"))
                ++k.info.barrierCount;
            }
          } else {
            consumeError(p.takeError());
          }
        }
      k.info.wavesPerSimd = o->getInteger("waves_per_simd").value_or(0);
      m.kernels.push_back(std::move(k));
    }
  if (const json::Array *launches = spec.getArray("launches"))
    for (const json::Value &lv : *launches) {
      const json::Object *o = lv.getAsObject();
      pkg::Launch l;
      l.kernel = o->getInteger("kernel").value_or(0);
      for (auto [key, dims] : {std::pair{"grid", &l.grid}, {"block", &l.block}})
        if (const json::Array *a = o->getArray(key))
          for (size_t i = 0; i < a->size() && i < 3; ++i)
            (*dims)[i] = (*a)[i].getAsInteger().value_or(1);
      if (Error e = idsOf(o->getArray("args"), l.args))
        return std::move(e);
      m.launches.push_back(std::move(l));
    }
  if (const json::Array *graph = spec.getArray("graph"))
    for (const json::Value &nv : *graph) {
      const json::Object *o = nv.getAsObject();
      pkg::Node n;
      n.op = o->getString("op").value_or("").str();
      if (Error e = idsOf(o->getArray("inputs"), n.inputs))
        return std::move(e);
      if (Error e = idsOf(o->getArray("outputs"), n.outputs))
        return std::move(e);
      if (const json::Object *attrs = o->getObject("attributes"))
        n.attributes = *attrs;
      n.location = o->getString("location").value_or("").str();
      m.graph.push_back(std::move(n));
    }
  return package;
}

static int run(int argc, char **argv) {
  InitLLVM init(argc, argv);
  crest::setToolVersionPrinter();
  cl::ParseCommandLineOptions(argc, argv,
                              "Assembles a .crest package (for tests)\n");
  auto fail = [](Error e) {
    WithColor::error(errs(), "crest-pack") << toString(std::move(e)) << "\n";
    return 1;
  };
  Expected<std::unique_ptr<MemoryBuffer>> text =
      crest::readBoundedFile(specPath);
  if (!text)
    return fail(text.takeError());
  Expected<json::Value> spec = crest::parseJsonBounded((*text)->getBuffer());
  if (!spec)
    return fail(makeError(specPath + ": invalid JSON: " +
                          toString(spec.takeError())));
  if (!spec->getAsObject())
    return fail(makeError("the spec is not a JSON object"));
  Expected<pkg::Package> package = build(*spec->getAsObject());
  if (!package)
    return fail(package.takeError());
  if (Error e = pkg::writePackageFile(outputPath, *package))
    return fail(std::move(e));
  return 0;
}

int main(int argc, char **argv) {
  // An output error (closed stdout, /dev/full) is a diagnostic, not
  // raw_fd_ostream's fatal error at exit.
  return crest::finishStdout("crest-pack", run(argc, argv));
}
