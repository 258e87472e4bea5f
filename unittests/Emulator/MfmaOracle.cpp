//===- MfmaOracle.cpp - MFMA layouts from the calculator data -------------===//

#include "MfmaOracle.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <memory>
#include <mutex>

#ifndef CREST_SHARED_DIR
#define CREST_SHARED_DIR ""
#endif
#ifndef CREST_MFMA_LAYOUTS_DIR
#define CREST_MFMA_LAYOUTS_DIR ""
#endif

using namespace crest;
using namespace crest::emu::test;
using llvm::StringRef;

std::string crest::emu::test::getOracleJsonPath(const ChipInfo &chip) {
  llvm::SmallString<256> path(CREST_MFMA_LAYOUTS_DIR);
  llvm::sys::path::append(path,
                          llvm::StringRef(chip.architecture).lower() + ".json");
  return std::string(path);
}

static bool parseMatrix(const llvm::json::Object *object, OracleMatrix &out,
                        std::string &why) {
  if (!object) {
    why = "missing matrix";
    return false;
  }
  const llvm::json::Array *shape = object->getArray("shape");
  const llvm::json::Array *entries = object->getArray("entries");
  std::optional<int64_t> bits = object->getInteger("element_bits");
  std::optional<int64_t> vgprs = object->getInteger("vgprs_used");
  if (!shape || shape->size() != 3 || !entries || !bits || !vgprs) {
    why = "matrix lacks shape, entries, element_bits or vgprs_used";
    return false;
  }
  out.blocks = unsigned(*(*shape)[0].getAsInteger());
  out.rows = unsigned(*(*shape)[1].getAsInteger());
  out.cols = unsigned(*(*shape)[2].getAsInteger());
  out.elementBits = unsigned(*bits);
  out.vgprsUsed = unsigned(*vgprs);
  for (const llvm::json::Value &block : *entries)
    for (const llvm::json::Value &row : *block.getAsArray())
      for (const llvm::json::Value &cell : *row.getAsArray()) {
        const llvm::json::Array *slot = cell.getAsArray();
        if (!slot || slot->size() != 4 || !(*slot)[3].getAsArray() ||
            (*slot)[3].getAsArray()->size() != 1) {
          why = "malformed entry (expected [vgpr, lo, hi, [lane]])";
          return false;
        }
        out.slots.push_back(
            {unsigned(*(*slot)[0].getAsInteger()),
             unsigned(*(*slot)[1].getAsInteger()),
             unsigned(*(*slot)[2].getAsInteger()),
             unsigned(*(*(*slot)[3].getAsArray())[0].getAsInteger())});
      }
  if (out.slots.size() != size_t(out.blocks) * out.rows * out.cols) {
    why = "entry count does not match the shape";
    return false;
  }
  return true;
}

static std::unique_ptr<OracleFile> parseOracle(const std::string &path,
                                               std::string &why) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    why = path + ": " + buffer.getError().message();
    return nullptr;
  }
  llvm::Expected<llvm::json::Value> root =
      llvm::json::parse((*buffer)->getBuffer());
  if (!root) {
    why = path + ": " + llvm::toString(root.takeError());
    return nullptr;
  }
  auto file = std::make_unique<OracleFile>();
  file->path = path;
  const llvm::json::Object *top = root->getAsObject();
  const llvm::json::Object *insts =
      top ? top->getObject("instructions") : nullptr;
  const llvm::json::Object *blgp =
      top ? top->getObject("blgp_source_lane") : nullptr;
  if (!insts || !blgp) {
    why = path + ": no 'instructions' or 'blgp_source_lane'";
    return nullptr;
  }
  for (unsigned pattern = 0; pattern < 8; ++pattern) {
    const llvm::json::Array *lanes = blgp->getArray(std::to_string(pattern));
    if (!lanes || lanes->size() != 64) {
      why = path + ": malformed blgp_source_lane";
      return nullptr;
    }
    for (unsigned lane = 0; lane < 64; ++lane)
      file->blgpSourceLane[pattern][lane] =
          unsigned(*(*lanes)[lane].getAsInteger());
  }
  for (const auto &[name, value] : *insts) {
    const llvm::json::Object *inst = value.getAsObject();
    const llvm::json::Object *props =
        inst ? inst->getObject("properties") : nullptr;
    const llvm::json::Object *layouts =
        inst ? inst->getObject("layouts") : nullptr;
    const llvm::json::Object *wave64 =
        layouts ? layouts->getObject("wave64") : nullptr;
    // v_smfmac_*: not emulated (the carried data has no sparse layouts).
    if (props && props->getBoolean("sparse").value_or(false))
      continue;
    if (!props || !wave64) {
      why = path + ": " + name.str() + " lacks properties or wave64 layouts";
      return nullptr;
    }
    OracleInstruction out;
    out.m = unsigned(props->getInteger("m").value_or(0));
    out.n = unsigned(props->getInteger("n").value_or(0));
    out.k = unsigned(props->getInteger("k").value_or(0));
    out.blocks = unsigned(props->getInteger("blocks").value_or(0));
    out.inType = props->getString("in_type").value_or("").str();
    out.inTypeB = props->getString("in_type_src1").value_or(out.inType).str();
    out.outType = props->getString("out_type").value_or("").str();
    out.blgp = props->getBoolean("blgp").value_or(false);
    out.cbszAbid = props->getBoolean("cbsz_abid").value_or(false);
    out.sparse = false;
    std::string matrixWhy;
    // C equals D ("C_equals_D"); the carried subset keeps D only.
    const llvm::json::Object *c = wave64->getObject("C");
    if (!c && wave64->getBoolean("C_equals_D").value_or(false))
      c = wave64->getObject("D");
    if (!parseMatrix(wave64->getObject("A"), out.a, matrixWhy) ||
        !parseMatrix(wave64->getObject("B"), out.b, matrixWhy) ||
        !parseMatrix(c, out.c, matrixWhy) ||
        !parseMatrix(wave64->getObject("D"), out.d, matrixWhy)) {
      why = path + ": " + name.str() + ": " + matrixWhy;
      return nullptr;
    }
    file->instructions[name.str()] = std::move(out);
  }
  return file;
}

const OracleFile *crest::emu::test::loadOracle(const ChipInfo &chip,
                                               std::string &why) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<OracleFile>> files;
  static std::map<std::string, std::string> failures;
  std::lock_guard<std::mutex> lock(mutex);
  std::string path = getOracleJsonPath(chip);
  if (auto it = files.find(path); it != files.end())
    return it->second.get();
  if (auto it = failures.find(path); it != failures.end()) {
    why = it->second;
    return nullptr;
  }
  if (!llvm::sys::fs::exists(path)) {
    why = "calculator data not found: " + path;
  } else if (std::unique_ptr<OracleFile> file = parseOracle(path, why)) {
    return (files[path] = std::move(file)).get();
  }
  failures[path] = why;
  return nullptr;
}
