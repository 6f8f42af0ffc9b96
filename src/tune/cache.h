// The kernel cache: a persistent SQLite database of the kernel each tuning
// search chose, and of every candidate it measured on the way, so a repeated
// `axon optimize` answers at once and an interrupted one resumes where it
// stopped.
//
// Durability and sharing. The database runs in WAL mode with
// synchronous=NORMAL: a commit has been written to the WAL file (the OS holds
// it) before it returns, so killing the process, even with SIGKILL, loses
// nothing committed; a power loss may lose the last commits, never the file's
// consistency. Each write is one transaction, taken with BEGIN IMMEDIATE and a
// busy timeout, so concurrent axon processes wait for each other instead of
// failing; readers never wait for a writer.
//
// Distrust. Opening runs PRAGMA quick_check and checks the schema's identity
// and version. A file that is not a database, fails the check or holds
// another schema is never read: it is moved aside to
// "<path>.corrupt-<UTC time>" (as SQLite left it, which may have discarded
// or applied its WAL), a fresh database takes its place, and warning() says
// so. The check reads every page: about 0.2 s for a 220 MB cache in the page
// cache, over a second from a cold disk. Content is keyed by a digest of the
// whole CacheKey, and a lookup also compares the stored key, field by field.
//
// A Cache is one connection: use it from one thread at a time, and not in a
// forked child (the child opens its own).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/diag.h"

namespace axon::tune {

class SqliteConnection;  // defined in cache.cpp

/// Everything a tuned kernel depends on. Two keys that differ in any field
/// name different entries.
struct CacheKey {
  std::string program;    // the canonical program text
  std::string sizes;      // the concrete sizes, canonically ordered, e.g. "M=64,N=128"
  std::string target;     // the target's name, e.g. "cpu"
  std::string hw_digest;  // file_digest() of the target's hardware description
  // compiler_version(compiler_command()) from tune/runner.h; a caller that
  // wants entries to lapse when Axon itself changes appends Axon's version.
  std::string compiler;
};

/// SHA-256 of `text`, as 64 lowercase hex digits.
std::string text_digest(std::string_view text);

/// SHA-256 of the file's bytes, as 64 lowercase hex digits. A file that
/// cannot be read is a UserError naming it.
std::string file_digest(const std::string& path);

/// The digest of the whole key: SHA-256 over its fields, each preceded by its
/// length, so no two keys share an encoding. Stable across runs and machines.
std::string key_digest(const CacheKey& key);

/// $XDG_CACHE_HOME/axon/kernels.sqlite when that variable is an absolute
/// path, else $HOME/.cache/axon/kernels.sqlite. A UserError when neither
/// variable is usable.
std::string default_cache_path();

/// The chosen kernel, as cached: its files and what the search learned.
struct CachedKernel {
  std::map<std::string, std::string> files;  // name -> bytes, e.g. "kernel.so"
  std::string candidate;                     // the chosen candidate's name
  double seconds = 0;                        // its median time
  std::string summary;                       // free-form, e.g. the search's report as JSON
};

/// One measured candidate. A NaN in `seconds` or `max_error` reads back as NaN.
struct CandidateRecord {
  std::string status;  // e.g. "ok", "compile error", "crashed"
  bool valid = false;  // it matched the reference
  double seconds = 0;  // median time
  double max_error = 0;
  std::string detail;  // why it is not valid, a log excerpt, ...
};

/// A cache that cannot be opened, read or written; the message names the
/// file. A UserError, so the command line reports it as an error in the
/// user's environment.
class CacheError : public UserError {
 public:
  explicit CacheError(const std::string& message) : UserError({}, message) {}
};

class Cache {
 public:
  /// Opens the database at `path`, creating it and its parent directories as
  /// needed; a bad file is moved aside and replaced (see warning()). Throws
  /// CacheError when the location cannot be used.
  explicit Cache(const std::string& path);
  ~Cache();
  Cache(Cache&&) noexcept;
  Cache& operator=(Cache&&) noexcept;

  const std::string& path() const { return path_; }

  /// Empty unless opening found a bad file (then what was wrong and where it
  /// was moved) or, after a lookup, that lookup found a damaged entry
  /// (replacing what was here): for the caller to show as a warning.
  const std::string& warning() const { return warning_; }

  /// The kernel stored under `key`, or nothing. Every file is checked
  /// against the digest stored with it: an entry with a damaged file is
  /// removed and reads as nothing, and warning() says so; otherwise
  /// warning() is left as it was.
  std::optional<CachedKernel> lookup(const CacheKey& key);

  /// Stores `kernel` under `key`, replacing what was there, files included,
  /// in one transaction.
  void store(const CacheKey& key, const CachedKernel& kernel);

  /// Records one candidate of the search for `key`, replacing an earlier
  /// record with the same id, and commits at once. `candidate_id` is the
  /// caller's stable name for the candidate, e.g. a digest of its plan.
  void record_candidate(const CacheKey& key, const std::string& candidate_id, const CandidateRecord& record);

  /// The candidates recorded for `key`, by id.
  std::map<std::string, CandidateRecord> candidates(const CacheKey& key);

  /// Removes the kernel and the candidate records of `key`, for a search
  /// that must start over.
  void forget(const CacheKey& key);

 private:
  std::string path_;
  std::string warning_;
  std::unique_ptr<SqliteConnection> connection_;
};

}  // namespace axon::tune
