//===- TuneCache.cpp - Modelled kernel times kept between builds ----------===//

#include "crest/Tune/TuneCache.h"

#include "crest/Support/Limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;
using namespace crest;

static constexpr StringLiteral kFormat = "crest-tune-cache";

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

std::string TuneCache::join(const TuneCacheKey &key) {
  // The fields cannot hold a NUL, so this is unambiguous.
  return key.chip + '\0' + std::to_string(key.waveSize) + '\0' + key.problem +
         '\0' + key.config;
}

std::string TuneCache::getDefaultPath() {
  SmallString<256> dir;
  if (!sys::path::cache_directory(dir))
    return "";
  sys::path::append(dir, "crest", "tune-v" + Twine(kVersion) + ".json");
  return std::string(dir);
}

Error TuneCache::parse(StringRef text, std::map<std::string, Entry> &out) {
  // A cache file is read back by every build: a deeply nested one must be
  // an error, not a stack overflow in the recursive parser.
  Expected<json::Value> json = parseJsonBounded(text);
  if (!json)
    return makeError("not JSON: " + toString(json.takeError()));
  const json::Object *root = json->getAsObject();
  if (!root)
    return makeError("expected a JSON object");
  std::optional<StringRef> format = root->getString("format");
  if (!format || *format != kFormat)
    return makeError("\"format\" is not \"" + kFormat + "\"");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version)
    return makeError("no integer \"version\"");
  if (*version != kVersion)
    return makeError(formatv("version {0}; this compiler reads version {1}",
                             *version, kVersion));
  const json::Array *list = root->getArray("entries");
  if (!list)
    return makeError("no \"entries\" array");
  for (auto [i, value] : llvm::enumerate(*list)) {
    std::string where = formatv("entries[{0}]", i);
    const json::Object *object = value.getAsObject();
    if (!object)
      return makeError(where + ": expected an object");
    Entry entry;
    std::optional<StringRef> chip = object->getString("chip");
    std::optional<int64_t> waveSize = object->getInteger("wave_size");
    std::optional<StringRef> problem = object->getString("problem");
    std::optional<StringRef> config = object->getString("config");
    std::optional<double> us = object->getNumber("us");
    if (!chip || !waveSize || !problem || !config || !us)
      return makeError(where + ": expected {\"chip\", \"wave_size\", "
                               "\"problem\", \"config\", \"us\"}");
    if (*waveSize != 32 && *waveSize != 64)
      return makeError(where + ": wave_size must be 32 or 64");
    if (!std::isfinite(*us) || *us <= 0)
      return makeError(where + ": \"us\" must be a positive number");
    entry.key = {chip->str(), unsigned(*waveSize), problem->str(),
                 config->str()};
    entry.microseconds = *us;
    out[join(entry.key)] = std::move(entry);
  }
  return Error::success();
}

std::optional<std::string> TuneCache::load() {
  entries.clear();
  dirty = false;
  if (path.empty() || !sys::fs::exists(path))
    return std::nullopt;
  Expected<std::unique_ptr<MemoryBuffer>> file = readBoundedFile(path);
  if (!file)
    return "ignoring the tuning cache '" + path +
           "': " + toString(file.takeError());
  std::map<std::string, Entry> read;
  if (Error error = parse((*file)->getBuffer(), read))
    return "ignoring the tuning cache '" + path +
           "': " + toString(std::move(error)) + "; it will be rewritten";
  entries = std::move(read);
  return std::nullopt;
}

std::optional<double> TuneCache::lookup(const TuneCacheKey &key) const {
  auto it = entries.find(join(key));
  if (it == entries.end())
    return std::nullopt;
  return it->second.microseconds;
}

void TuneCache::insert(const TuneCacheKey &key, double microseconds) {
  entries[join(key)] = {key, microseconds};
  dirty = true;
}

Error TuneCache::save() {
  if (path.empty() || !dirty)
    return Error::success();
  // Keep what other builds added since load(); this build's entries win.
  Expected<std::unique_ptr<MemoryBuffer>> file = readBoundedFile(path);
  if (file) {
    std::map<std::string, Entry> current;
    if (Error error = parse((*file)->getBuffer(), current))
      consumeError(std::move(error)); // load() warned; it is replaced
    else
      entries.insert(current.begin(), current.end());
  } else {
    consumeError(file.takeError()); // none yet, or load() warned
  }
  StringRef dir = sys::path::parent_path(path);
  if (!dir.empty())
    if (std::error_code ec = sys::fs::create_directories(dir))
      return makeError("cannot create '" + dir + "': " + ec.message());
  json::Array list;
  for (const auto &[_, entry] : entries)
    list.push_back(json::Object{{"chip", entry.key.chip},
                                {"wave_size", entry.key.waveSize},
                                {"problem", entry.key.problem},
                                {"config", entry.key.config},
                                {"us", entry.microseconds}});
  json::Value root = json::Object{
      {"format", kFormat}, {"version", kVersion}, {"entries", std::move(list)}};
  // Written to a temporary file and renamed over `path`.
  if (Error error = writeToOutput(path, [&](raw_ostream &os) {
        os << formatv("{0:2}", root) << "\n";
        return Error::success();
      }))
    return makeError("cannot write the tuning cache: " +
                     toString(std::move(error))); // it names the file
  dirty = false;
  return Error::success();
}
