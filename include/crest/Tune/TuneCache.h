//===- TuneCache.h - Modelled kernel times kept between builds --*- C++ -*-===//
//
// `crest-compile --tune` keeps every configuration it measured in a JSON
// file, so that compiling the same graph again replays nothing:
//
//   {"format": "crest-tune-cache", "version": 1,
//    "entries": [{"chip": "gfx942", "wave_size": 64,
//                 "problem": "matmul (tensor<256x256xf16>, ...) -> ...",
//                 "config": "#crest.config<...>", "us": 3.21}, ...]}
//
// An entry is keyed by the chip, the wave size, the problem (the kernel's
// ops, operand and result types and the contraction's attributes) and the
// configuration. A file that cannot be read or parsed, or has another
// format or version, is ignored with a warning and replaced on the next
// save. Saving merges the entries with those the file holds by then
// (another build may have added some) and replaces the file atomically.
// docs/Compiling.md ("Tuning") describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TUNE_TUNECACHE_H
#define CREST_TUNE_TUNECACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>

namespace crest {

struct TuneCacheKey {
  std::string chip;
  unsigned waveSize = 64;
  std::string problem;
  std::string config;
};

class TuneCache {
public:
  static constexpr unsigned kVersion = 1;

  /// A cache kept in `path`; an empty path keeps it in memory only.
  explicit TuneCache(std::string path = "") : path(std::move(path)) {}

  /// Reads the file. A missing file is an empty cache. Returns a warning
  /// when the file exists but is ignored (unreadable, not JSON, another
  /// format or version, a malformed entry).
  std::optional<std::string> load();

  /// Writes the entries (see the file comment); nothing when no entry was
  /// added since load() or without a path.
  llvm::Error save();

  std::optional<double> lookup(const TuneCacheKey &key) const;
  void insert(const TuneCacheKey &key, double microseconds);

  llvm::StringRef getPath() const { return path; }
  size_t size() const { return entries.size(); }

  /// The default file: $XDG_CACHE_HOME/crest/tune-v1.json, else
  /// ~/.cache/crest/tune-v1.json; empty when neither is known.
  static std::string getDefaultPath();

private:
  struct Entry {
    TuneCacheKey key;
    double microseconds;
  };
  /// Parses `text` into `out`; the error says what is wrong.
  static llvm::Error parse(llvm::StringRef text,
                           std::map<std::string, Entry> &out);
  static std::string join(const TuneCacheKey &key);

  std::string path;
  std::map<std::string, Entry> entries;
  bool dirty = false;
};

} // namespace crest

#endif // CREST_TUNE_TUNECACHE_H
