#include "tune/cache.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <new>
#include <system_error>
#include <thread>

namespace axon::tune {
namespace {

namespace fs = std::filesystem;

// The schema's identity: PRAGMA application_id marks the file as an Axon
// kernel cache ("AXKC"), PRAGMA user_version gives the schema's version.
constexpr int64_t kApplicationId = 0x41584b43;
// Version 2: kernel_files.digest; keys cover parameters and the whole source.
constexpr int64_t kSchemaVersion = 2;
// Writers hold the lock for one short transaction, so a long wait means
// something is wrong with the other process; until then, wait.
constexpr int kBusyTimeoutMs = 30000;
// Opening may replace a bad file; a new file that is bad too is not retried forever.
constexpr int kOpenAttempts = 3;
// Changing how a key is encoded must change this line, so no old digest matches.
constexpr std::string_view kKeyEncoding = "axon kernel cache key 2\n";

// NULL stands for NaN in REAL columns: SQLite stores a bound NaN as NULL anyway.
constexpr const char* kSchema = R"sql(
CREATE TABLE kernels (
  key TEXT PRIMARY KEY NOT NULL,  -- key_digest() of the fields that follow
  program TEXT NOT NULL,
  sizes TEXT NOT NULL,
  target TEXT NOT NULL,
  hw_digest TEXT NOT NULL,
  compiler TEXT NOT NULL,
  candidate TEXT NOT NULL,
  seconds REAL,
  summary TEXT NOT NULL,
  stored_at INTEGER NOT NULL      -- Unix time
);
CREATE TABLE kernel_files (
  key TEXT NOT NULL,
  name TEXT NOT NULL,
  bytes BLOB NOT NULL,
  digest TEXT NOT NULL,           -- text_digest(bytes), checked on every read
  PRIMARY KEY (key, name)
);
CREATE TABLE candidates (
  key TEXT NOT NULL,
  candidate TEXT NOT NULL,
  status TEXT NOT NULL,
  valid INTEGER NOT NULL,
  seconds REAL,
  max_error REAL,
  detail TEXT NOT NULL,
  recorded_at INTEGER NOT NULL,   -- Unix time
  PRIMARY KEY (key, candidate)
);
)sql";
constexpr std::array<const char*, 3> kTables = {"kernels", "kernel_files", "candidates"};

// ---- SHA-256 (FIPS 180-4) -----------------------------------------------------

constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

class Sha256 {
 public:
  void update(const void* data, size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    total_bytes_ += size;
    while (size > 0) {
      size_t take = std::min(size, block_.size() - filled_);
      std::memcpy(block_.data() + filled_, bytes, take);
      filled_ += take;
      bytes += take;
      size -= take;
      if (filled_ == block_.size()) {
        compress();
        filled_ = 0;
      }
    }
  }
  void update(std::string_view text) { update(text.data(), text.size()); }

  /// Pads the message, and gives the digest as lowercase hex. Call once, last.
  std::string finish() {
    uint64_t bits = total_bytes_ * 8;
    const uint8_t marker = 0x80, zero = 0;
    update(&marker, 1);
    while (filled_ != block_.size() - sizeof bits) update(&zero, 1);
    std::array<uint8_t, sizeof bits> length;
    for (size_t i = 0; i < length.size(); ++i) length[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    update(length.data(), length.size());
    constexpr std::string_view kDigits = "0123456789abcdef";
    std::string hex;
    for (uint32_t word : state_) {
      for (int shift = 28; shift >= 0; shift -= 4) hex += kDigits[(word >> shift) & 0xf];
    }
    return hex;
  }

 private:
  static uint32_t rotate_right(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  void compress() {
    std::array<uint32_t, 64> schedule;
    for (size_t i = 0; i < 16; ++i) {
      schedule[i] = uint32_t{block_[4 * i]} << 24 | uint32_t{block_[4 * i + 1]} << 16 |
                    uint32_t{block_[4 * i + 2]} << 8 | uint32_t{block_[4 * i + 3]};
    }
    for (size_t i = 16; i < 64; ++i) {
      uint32_t s0 = rotate_right(schedule[i - 15], 7) ^ rotate_right(schedule[i - 15], 18) ^ (schedule[i - 15] >> 3);
      uint32_t s1 = rotate_right(schedule[i - 2], 17) ^ rotate_right(schedule[i - 2], 19) ^ (schedule[i - 2] >> 10);
      schedule[i] = schedule[i - 16] + s0 + schedule[i - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, h] = state_;
    for (size_t i = 0; i < 64; ++i) {
      uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
      uint32_t choose = (e & f) ^ (~e & g);
      uint32_t t1 = h + sum1 + choose + kRoundConstants[i] + schedule[i];
      uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
      uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + sum0 + majority;
    }
    std::array<uint32_t, 8> next = {a, b, c, d, e, f, g, h};
    for (size_t i = 0; i < state_.size(); ++i) state_[i] += next[i];
  }

  std::array<uint32_t, 8> state_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<uint8_t, 64> block_{};
  size_t filled_ = 0;
  uint64_t total_bytes_ = 0;
};

// ---- Small helpers --------------------------------------------------------------

std::string errno_text(int error) {
  return std::generic_category().message(error);
}

std::string in_quotes(const std::string& path) {
  return "'" + path + "'";
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

/// The current UTC time as 20240131T235959Z: sortable, and safe in a file name.
std::string utc_stamp() {
  std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &parts);
  return text;
}

/// Which file `path` names now, so a file replaced behind our back is noticed.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileIdentity& other) const {
    return exists == other.exists && device == other.device && inode == other.inode;
  }
};

FileIdentity identity_of(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return {};
  return {true, info.st_dev, info.st_ino};
}

/// Why this process cannot read and write the file at `path`, or create it,
/// in the system's words; empty when it seems able to. (SQLite's own errno
/// is that of its last attempt, a read-only open, which misleads.)
std::string access_problem(const std::string& path) {
  std::string target = path;
  int mode = R_OK | W_OK;
  if (access(path.c_str(), F_OK) != 0) {
    fs::path parent = fs::path(path).parent_path();
    target = parent.empty() ? "." : parent.string();
    mode = W_OK | X_OK;
  }
  if (access(target.c_str(), mode) == 0) return "";
  int error = errno;
  return errno_text(error) + (target == path ? "" : " (in " + in_quotes(target) + ")");
}

void make_parent_directories(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code error;
  fs::create_directories(parent, error);
  if (error) {
    throw CacheError("cannot create the directory " + in_quotes(parent.string()) + " for the kernel cache " +
                     in_quotes(path) + ": " + error.message());
  }
}

/// Renames `from` to `to` if `from` exists; false when it does not.
bool rename_if_present(const std::string& from, const std::string& to, const std::string& cache_path) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return true;
  int error = errno;
  if (error == ENOENT) return false;
  throw CacheError("cannot move the bad kernel cache " + in_quotes(cache_path) + " aside to " + in_quotes(to) + ": " +
                   errno_text(error));
}

/// Moves the database at `path` aside, with the journal that belongs to it,
/// so that a new database never replays the old one's journal. Returns the
/// new name.
std::string move_aside(const std::string& path) {
  std::string stamp = utc_stamp();
  std::string aside = path + ".corrupt-" + stamp;
  for (int n = 2; identity_of(aside).exists; ++n) aside = path + ".corrupt-" + stamp + "-" + std::to_string(n);
  rename_if_present(path, aside, path);
  for (const char* suffix : {"-wal", "-journal"}) rename_if_present(path + suffix, aside + suffix, path);
  // The shared-memory index only describes the WAL; SQLite rebuilds it.
  if (unlink((path + "-shm").c_str()) != 0 && errno != ENOENT) {
    int error = errno;
    throw CacheError("cannot remove " + in_quotes(path + "-shm") + " of the bad kernel cache: " + errno_text(error));
  }
  return aside;
}

// ---- SQLite, wrapped ----------------------------------------------------------------

/// A failed SQLite call. It keeps the result code, so that opening can tell
/// a bad file from a location that cannot be used.
class SqliteError : public CacheError {
 public:
  SqliteError(int code, const std::string& message, const std::string& reason)
      : CacheError(message), code_(code), reason_(reason) {}
  /// The file holds something that is not a sound database.
  bool bad_file() const {
    int primary = code_ & 0xff;
    return primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT;
  }
  /// Another connection holds a lock this one needs.
  bool busy() const {
    int primary = code_ & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
  }
  /// SQLite's own words, e.g. "file is not a database".
  const std::string& reason() const { return reason_; }

 private:
  int code_;
  std::string reason_;
};

}  // namespace

class SqliteConnection {
 public:
  explicit SqliteConnection(const std::string& path) : path_(path) {
    int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    try {
      if ((rc & 0xff) == SQLITE_CANTOPEN) {
        if (std::string why = access_problem(path); !why.empty()) {
          throw CacheError("kernel cache " + in_quotes(path) + ": cannot open it: " + why);
        }
      }
      check(rc, "cannot open it");
      // Read-write falls back to read-only when the file is write-protected.
      if (sqlite3_db_readonly(db_, "main") == 1) {
        std::string why = access_problem(path);
        throw CacheError("kernel cache " + in_quotes(path) + ": cannot open it for writing" +
                         (why.empty() ? "" : ": " + why));
      }
      check(sqlite3_busy_timeout(db_, kBusyTimeoutMs), "setting the busy timeout");
    } catch (...) {
      sqlite3_close(db_);  // allocated even when opening fails; null is harmless
      throw;
    }
  }
  // Every statement is finalized by then (they are scoped), so closing cannot fail on them.
  ~SqliteConnection() { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  sqlite3* get() const { return db_; }

  SqliteError failure(int rc, const std::string& what) const {
    std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    int primary = rc & 0xff;
    int system_error = db_ != nullptr ? sqlite3_system_errno(db_) : 0;
    if ((primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR) && system_error != 0) {
      reason += " (" + errno_text(system_error) + ")";
    }
    return SqliteError(rc, "kernel cache " + in_quotes(path_) + ": " + what + ": " + reason, reason);
  }
  void check(int rc, const std::string& what) const {
    if (rc != SQLITE_OK) throw failure(rc, what);
  }
  /// Runs statements that return no rows.
  void execute(const char* sql) {
    check(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), first_line(sql + std::strspn(sql, "\n")));
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

namespace {

class Statement {
 public:
  Statement(SqliteConnection& connection, const char* sql) : connection_(connection), sql_(sql) {
    connection.check(sqlite3_prepare_v2(connection.get(), sql, -1, &statement_, nullptr), sql_);
  }
  // Finalizing repeats the last step's error, which step() has reported.
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters count from 1. SQLITE_TRANSIENT: SQLite copies the bytes.
  Statement& bind_text(int index, std::string_view text) {
    return checked(sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  Statement& bind_blob(int index, std::string_view bytes) {
    // data() is never null, so an empty string is an empty blob, not NULL.
    return checked(sqlite3_bind_blob64(statement_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
  }
  Statement& bind_real(int index, double value) {
    return checked(std::isnan(value) ? sqlite3_bind_null(statement_, index)
                                     : sqlite3_bind_double(statement_, index, value));
  }
  Statement& bind_integer(int index, int64_t value) { return checked(sqlite3_bind_int64(statement_, index, value)); }

  /// True when a row is ready, false when the statement has finished.
  bool step() {
    int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw connection_.failure(rc, sql_);
  }
  /// Steps a statement that returns exactly one row.
  Statement& single_row() {
    if (!step()) throw connection_.failure(SQLITE_ERROR, std::string(sql_) + ": returned no row");
    return *this;
  }

  // Columns count from 0.
  std::string bytes(int column) {
    const void* data = sqlite3_column_blob(statement_, column);
    auto size = static_cast<size_t>(sqlite3_column_bytes(statement_, column));
    if (data == nullptr) {
      if (sqlite3_column_type(statement_, column) != SQLITE_NULL && sqlite3_errcode(connection_.get()) == SQLITE_NOMEM)
        throw std::bad_alloc();
      return std::string();
    }
    return std::string(static_cast<const char*>(data), size);
  }
  double real(int column) {
    if (sqlite3_column_type(statement_, column) == SQLITE_NULL) return std::numeric_limits<double>::quiet_NaN();
    return sqlite3_column_double(statement_, column);
  }
  int64_t integer(int column) { return sqlite3_column_int64(statement_, column); }

 private:
  Statement& checked(int rc) {
    connection_.check(rc, std::string("binding a parameter of ") + sql_);
    return *this;
  }

  SqliteConnection& connection_;
  const char* sql_;
  sqlite3_stmt* statement_ = nullptr;
};

/// BEGIN ... COMMIT, rolled back unless committed. A write transaction takes
/// the write lock at once (BEGIN IMMEDIATE): a read that later turned into a
/// write could fail as busy without waiting.
class Transaction {
 public:
  enum class Kind { Read, Write };
  Transaction(SqliteConnection& connection, Kind kind) : connection_(connection) {
    connection.execute(kind == Kind::Write ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  // A failed rollback means SQLite has already ended the transaction itself.
  ~Transaction() {
    if (open_) sqlite3_exec(connection_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    connection_.execute("COMMIT");
    open_ = false;
  }

 private:
  SqliteConnection& connection_;
  bool open_ = true;
};

// ---- Opening ------------------------------------------------------------------------

int64_t pragma_integer(SqliteConnection& connection, const char* sql) {
  return Statement(connection, sql).single_row().integer(0);
}

/// Whether the database is an empty one, a sound Axon kernel cache of this
/// schema version (nothing), or something else (why).
struct Classification {
  bool empty = false;
  std::optional<std::string> problem;
};

Classification classify(SqliteConnection& connection) {
  int64_t application = pragma_integer(connection, "PRAGMA application_id");
  int64_t version = pragma_integer(connection, "PRAGMA user_version");
  int64_t objects = pragma_integer(connection, "SELECT count(*) FROM sqlite_schema");
  Classification result;
  if (application == 0 && version == 0 && objects == 0) {
    result.empty = true;
  } else if (application != kApplicationId) {
    result.problem = "is not an Axon kernel cache (application_id " + std::to_string(application) + ", user_version " +
                     std::to_string(version) + ")";
  } else if (version != kSchemaVersion) {
    result.problem = "has schema version " + std::to_string(version) + ", and this Axon reads version " +
                     std::to_string(kSchemaVersion);
  } else {
    Statement tables(connection, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN (?1, ?2, ?3)");
    for (size_t i = 0; i < kTables.size(); ++i) tables.bind_text(static_cast<int>(i) + 1, kTables[i]);
    if (tables.single_row().integer(0) != static_cast<int64_t>(kTables.size())) result.problem = "lacks its tables";
  }
  return result;
}

/// Why the file is not a sound kernel cache, or nothing. Only reads.
std::optional<std::string> inspect(SqliteConnection& connection) {
  try {
    Statement check(connection, "PRAGMA quick_check");
    std::string verdict = check.single_row().bytes(0);
    if (verdict != "ok") return "fails its integrity check (" + first_line(verdict) + ")";
    return classify(connection).problem;
  } catch (const SqliteError& error) {
    if (!error.bad_file()) throw;
    return "is not a sound SQLite database (" + error.reason() + ")";
  }
}

/// Makes the database Axon's, unless another process has done so meanwhile.
/// Why it cannot be, or nothing.
std::optional<std::string> create_schema(SqliteConnection& connection) {
  Transaction transaction(connection, Transaction::Kind::Write);
  Classification found = classify(connection);
  if (found.problem) return found.problem;
  if (found.empty) {
    connection.execute(kSchema);
    // Pragmas take no parameters.
    std::string identity = "PRAGMA application_id = " + std::to_string(kApplicationId) +
                           "; PRAGMA user_version = " + std::to_string(kSchemaVersion);
    connection.execute(identity.c_str());
  }
  transaction.commit();
  return std::nullopt;
}

/// Switches the database to WAL mode, which persists in the file. The switch
/// needs the file to itself, and while another connection is using it SQLite
/// answers busy at once instead of waiting; so wait here, as long as the busy
/// timeout.
void use_wal(SqliteConnection& connection, const std::string& path) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (std::chrono::milliseconds pause(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
    try {
      std::string mode = Statement(connection, "PRAGMA journal_mode = WAL").single_row().bytes(0);
      if (mode == "wal") return;
      throw CacheError("kernel cache " + in_quotes(path) + ": cannot use WAL mode (journal_mode stays '" + mode + "')");
    } catch (const SqliteError& error) {
      if (!error.busy() || Clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

/// Opens `path` and readies it for use; `problem` says why the file must be
/// replaced instead (and then the connection is of no use).
std::unique_ptr<SqliteConnection> open_checked(const std::string& path, std::optional<std::string>& problem) {
  auto connection = std::make_unique<SqliteConnection>(path);
  problem = inspect(*connection);
  if (problem) return connection;
  // Only now, so that a file that is not ours is left as it was.
  use_wal(*connection, path);
  // With WAL, NORMAL loses no commit when the process dies; see cache.h.
  connection->execute("PRAGMA synchronous = NORMAL");
  problem = create_schema(*connection);
  return connection;
}

void bind_key_fields(Statement& statement, const CacheKey& key, int first) {
  statement.bind_text(first, key.program)
      .bind_text(first + 1, key.sizes)
      .bind_text(first + 2, key.target)
      .bind_text(first + 3, key.hw_digest)
      .bind_text(first + 4, key.compiler);
}

}  // namespace

// ---- Digests ------------------------------------------------------------------------

std::string text_digest(std::string_view text) {
  Sha256 hash;
  hash.update(text);
  return hash.finish();
}

std::string file_digest(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    throw UserError({}, "cannot read " + in_quotes(path) + ": " + errno_text(error));
  }
  Sha256 hash;
  std::array<char, 1 << 16> chunk;
  for (;;) {
    ssize_t n = read(fd, chunk.data(), chunk.size());
    if (n > 0) {
      hash.update(chunk.data(), static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      int error = errno;
      close(fd);
      throw UserError({}, "cannot read " + in_quotes(path) + ": " + errno_text(error));
    }
  }
  close(fd);
  return hash.finish();
}

std::string key_digest(const CacheKey& key) {
  Sha256 hash;
  hash.update(kKeyEncoding);
  for (const std::string* field : {&key.program, &key.sizes, &key.target, &key.hw_digest, &key.compiler}) {
    hash.update(std::to_string(field->size()) + ":");
    hash.update(*field);
    hash.update("\n");
  }
  return hash.finish();
}

std::string default_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG spec says a relative path there is to be ignored.
  if (xdg != nullptr && xdg[0] == '/') return (fs::path(xdg) / "axon" / "kernels.sqlite").string();
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return (fs::path(home) / ".cache" / "axon" / "kernels.sqlite").string();
  throw CacheError("no place for the kernel cache: neither XDG_CACHE_HOME nor HOME is set");
}

// ---- The cache ----------------------------------------------------------------------

Cache::Cache(const std::string& path) : path_(path) {
  if (path.empty()) throw CacheError("the kernel cache's path is empty");
  make_parent_directories(path);
  for (int attempt = 1;; ++attempt) {
    FileIdentity before = identity_of(path);
    std::optional<std::string> problem;
    connection_ = open_checked(path, problem);
    if (!problem) return;
    connection_.reset();
    if (attempt == kOpenAttempts) throw CacheError("kernel cache " + in_quotes(path) + " " + *problem);
    // Another process may have replaced the bad file already; then look again.
    if (!(identity_of(path) == before)) continue;
    std::string aside = move_aside(path);
    if (!warning_.empty()) warning_ += "\n";
    warning_ += "kernel cache " + in_quotes(path) + " " + *problem + "; moved it to " + in_quotes(aside) +
                " and started a new one";
  }
}

Cache::~Cache() = default;
Cache::Cache(Cache&&) noexcept = default;
Cache& Cache::operator=(Cache&&) noexcept = default;

std::optional<CachedKernel> Cache::lookup(const CacheKey& key) {
  std::string digest = key_digest(key);
  // One snapshot, so a concurrent store is seen whole or not at all.
  Transaction transaction(*connection_, Transaction::Kind::Read);
  Statement entry(*connection_,
                  "SELECT candidate, seconds, summary FROM kernels WHERE key = ?1 AND program = ?2 AND sizes = ?3 "
                  "AND target = ?4 AND hw_digest = ?5 AND compiler = ?6");
  entry.bind_text(1, digest);
  bind_key_fields(entry, key, 2);
  if (!entry.step()) return std::nullopt;
  CachedKernel kernel;
  kernel.candidate = entry.bytes(0);
  kernel.seconds = entry.real(1);
  kernel.summary = entry.bytes(2);

  Statement files(*connection_, "SELECT name, bytes, digest FROM kernel_files WHERE key = ?1");
  files.bind_text(1, digest);
  std::string damaged;
  while (files.step()) {
    std::string name = files.bytes(0), bytes = files.bytes(1);
    if (text_digest(bytes) != files.bytes(2)) damaged += (damaged.empty() ? "" : ", ") + name;
    kernel.files.emplace(std::move(name), std::move(bytes));
  }
  transaction.commit();
  if (!damaged.empty()) {
    // Never handed out: the entry goes, and the caller searches again.
    forget(key);
    warning_ = "kernel cache " + in_quotes(path_) + ": the stored " + damaged +
               " of this kernel did not match its digest; removed the entry";
    return std::nullopt;
  }
  return kernel;
}

void Cache::store(const CacheKey& key, const CachedKernel& kernel) {
  std::string digest = key_digest(key);
  Transaction transaction(*connection_, Transaction::Kind::Write);
  Statement entry(*connection_,
                  "INSERT OR REPLACE INTO kernels (key, program, sizes, target, hw_digest, compiler, candidate, "
                  "seconds, summary, stored_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  entry.bind_text(1, digest);
  bind_key_fields(entry, key, 2);
  entry.bind_text(7, kernel.candidate)
      .bind_real(8, kernel.seconds)
      .bind_text(9, kernel.summary)
      .bind_integer(10, std::time(nullptr));
  entry.step();

  Statement old_files(*connection_, "DELETE FROM kernel_files WHERE key = ?1");
  old_files.bind_text(1, digest).step();
  for (const auto& [name, bytes] : kernel.files) {
    Statement file(*connection_, "INSERT INTO kernel_files (key, name, bytes, digest) VALUES (?1, ?2, ?3, ?4)");
    file.bind_text(1, digest).bind_text(2, name).bind_blob(3, bytes).bind_text(4, text_digest(bytes)).step();
  }
  transaction.commit();
}

void Cache::record_candidate(const CacheKey& key, const std::string& candidate_id, const CandidateRecord& record) {
  // One statement outside a transaction commits by itself.
  Statement insert(*connection_,
                   "INSERT OR REPLACE INTO candidates (key, candidate, status, valid, seconds, max_error, detail, "
                   "recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  insert.bind_text(1, key_digest(key))
      .bind_text(2, candidate_id)
      .bind_text(3, record.status)
      .bind_integer(4, record.valid ? 1 : 0)
      .bind_real(5, record.seconds)
      .bind_real(6, record.max_error)
      .bind_text(7, record.detail)
      .bind_integer(8, std::time(nullptr));
  insert.step();
}

std::map<std::string, CandidateRecord> Cache::candidates(const CacheKey& key) {
  Statement select(*connection_,
                   "SELECT candidate, status, valid, seconds, max_error, detail FROM candidates WHERE key = ?1");
  select.bind_text(1, key_digest(key));
  std::map<std::string, CandidateRecord> records;
  while (select.step()) {
    CandidateRecord& record = records[select.bytes(0)];
    record.status = select.bytes(1);
    record.valid = select.integer(2) != 0;
    record.seconds = select.real(3);
    record.max_error = select.real(4);
    record.detail = select.bytes(5);
  }
  return records;
}

void Cache::forget(const CacheKey& key) {
  std::string digest = key_digest(key);
  Transaction transaction(*connection_, Transaction::Kind::Write);
  for (const char* sql : {"DELETE FROM kernels WHERE key = ?1", "DELETE FROM kernel_files WHERE key = ?1",
                          "DELETE FROM candidates WHERE key = ?1"}) {
    Statement(*connection_, sql).bind_text(1, digest).step();
  }
  transaction.commit();
}

}  // namespace axon::tune
