// The kernel cache: digests are stable and sensitive to every key field;
// kernels and candidate records round-trip byte for byte and survive
// reopening; a bad file is moved aside and replaced with a warning; an
// unusable location is a clear error; SIGKILL loses no committed record; and
// concurrent processes share one file without failing.
#include "tune/cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "tune/runner.h"

namespace axon::tune {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// Sets an environment variable for one scope, and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_value_ = old != nullptr;
    if (had_value_) old_value_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_value_) {
      setenv(name_, old_value_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_value_ = false;
  std::string old_value_;
};

/// Runs SQL on a database file through SQLite directly, as a foreign program would.
void run_sql(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << message;
}

/// PRAGMA quick_check's verdict on the file, through SQLite directly.
std::string quick_check(const fs::path& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return "cannot open";
  }
  sqlite3_stmt* statement = nullptr;
  std::string verdict = "cannot prepare";
  if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &statement, nullptr) == SQLITE_OK) {
    verdict = sqlite3_step(statement) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))
                                                    : std::string("error: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return verdict;
}

CacheKey sample_key() {
  return {"def f(x): return x", "N=4", "cpu", std::string(64, '0'), "g++ (Debian 12.2.0-14) 12.2.0"};
}

/// Every byte value, NULs among them, and more NULs at both ends.
std::string binary_bytes() {
  std::string bytes(3, '\0');
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  return bytes + std::string(5, '\0');
}

CachedKernel sample_kernel(const std::string& tag) {
  CachedKernel kernel;
  kernel.files["kernel.h"] = "// " + tag + "\nint axon_kernel_packed(const float* const*, float* const*);\n";
  kernel.files["kernel.cpp"] = "// " + tag + "\n";
  kernel.files["kernel.so"] = binary_bytes() + tag;
  kernel.files["kernel.json"] = R"({"tag": ")" + tag + R"("})";
  kernel.files["report.md"] = "";
  kernel.candidate = "candidate " + tag;
  kernel.seconds = 1.25e-4;
  kernel.summary = R"({"candidates": 12, "valid": 9})";
  return kernel;
}

CandidateRecord record_for(uint32_t i) {
  CandidateRecord record;
  record.status = i % 4 == 0 ? "crashed" : "ok";
  record.valid = i % 4 != 0;
  record.seconds = static_cast<double>(i) * 1e-6;
  record.max_error = i % 3 == 0 ? std::numeric_limits<double>::quiet_NaN() : 0.5;
  record.detail = "detail " + std::to_string(i);
  return record;
}

void expect_same_record(const CandidateRecord& got, const CandidateRecord& want, const std::string& id) {
  EXPECT_EQ(got.status, want.status) << id;
  EXPECT_EQ(got.valid, want.valid) << id;
  EXPECT_EQ(got.seconds, want.seconds) << id;
  if (std::isnan(want.max_error)) {
    EXPECT_TRUE(std::isnan(got.max_error)) << id << ": " << got.max_error;
  } else {
    EXPECT_EQ(got.max_error, want.max_error) << id;
  }
  EXPECT_EQ(got.detail, want.detail) << id;
}

void expect_same_kernel(const std::optional<CachedKernel>& got, const CachedKernel& want) {
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->files, want.files);
  EXPECT_EQ(got->candidate, want.candidate);
  EXPECT_EQ(got->seconds, want.seconds);
  EXPECT_EQ(got->summary, want.summary);
}

// ---- Digests and the key ----------------------------------------------------------

TEST(CacheDigest, Sha256KnownAnswers) {
  struct Row {
    std::string text, digest;
  };
  std::vector<Row> rows = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      // Around the block and padding boundaries.
      {std::string(55, 'x'), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {std::string(56, 'x'), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {std::string(63, 'x'), "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {std::string(64, 'x'), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {std::string(65, 'x'), "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {std::string(119, 'x'), "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {std::string(120, 'x'), "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
      {std::string(1000000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const Row& row : rows) {
    std::string shown = row.text.size() <= 64 ? row.text : std::to_string(row.text.size()) + " bytes";
    EXPECT_EQ(text_digest(row.text), row.digest) << "text: " << shown;
  }
}

TEST(CacheDigest, FileDigestHashesTheBytes) {
  fs::path path = fs::temp_directory_path() / ("axon-cache-digest-" + std::to_string(getpid()));
  std::string all_values;
  for (int copy = 0; copy < 3; ++copy) {
    for (int i = 0; i < 256; ++i) all_values += static_cast<char>(i);
  }
  write_bytes(path, all_values);
  EXPECT_EQ(file_digest(path.string()), "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363");
  EXPECT_EQ(file_digest(path.string()), text_digest(all_values));
  fs::remove(path);
  try {
    file_digest(path.string());
    ADD_FAILURE() << "a missing file must be an error";
  } catch (const UserError& e) {
    EXPECT_TRUE(contains(e.what(), "cannot read '" + path.string() + "': No such file")) << e.what();
  }
}

TEST(CacheDigest, KeyDigestIsStable) {
  // The same on every run and machine: a change here orphans every cache.
  EXPECT_EQ(key_digest(sample_key()), "628c92f1284f7842e6a9daa25db7d8cd2317ae8157f851d7c7bb2b4b9147872c");
}

TEST(CacheDigest, EveryKeyFieldChangesTheDigest) {
  CacheKey base = sample_key();
  std::string base_digest = key_digest(base);
  std::vector<std::string CacheKey::*> fields = {&CacheKey::program, &CacheKey::sizes, &CacheKey::target,
                                                 &CacheKey::hw_digest, &CacheKey::compiler};
  std::vector<std::string> digests = {base_digest};
  for (auto field : fields) {
    CacheKey changed = base;
    changed.*field += " ";
    digests.push_back(key_digest(changed));
    EXPECT_NE(digests.back(), base_digest) << "field " << digests.size() - 1;
  }
  std::sort(digests.begin(), digests.end());
  EXPECT_EQ(std::unique(digests.begin(), digests.end()), digests.end()) << "two changes gave one digest";
}

TEST(CacheDigest, FieldBoundariesMatter) {
  CacheKey left = {"ab", "c", "", "", ""};
  CacheKey right = {"a", "bc", "", "", ""};
  EXPECT_NE(key_digest(left), key_digest(right));
  CacheKey shifted = {"", "", "", "", "abc"};
  EXPECT_NE(key_digest(left), key_digest(shifted));
}

TEST(CacheDefaultPath, PrefersXdgCacheHome) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/somewhere/cache");
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(default_cache_path(), "/somewhere/cache/axon/kernels.sqlite");
}

TEST(CacheDefaultPath, FallsBackToHome) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(default_cache_path(), "/home/someone/.cache/axon/kernels.sqlite");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/cache");  // the XDG spec says to ignore it
    EXPECT_EQ(default_cache_path(), "/home/someone/.cache/axon/kernels.sqlite");
  }
}

TEST(CacheDefaultPath, NeitherVariableIsAnError) {
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", nullptr);
  EXPECT_THROW(default_cache_path(), CacheError);
}

TEST(CacheCompilerVersion, FirstLineOfVersion) {
  std::string version = compiler_version("g++");
  EXPECT_FALSE(version.empty());
  EXPECT_FALSE(contains(version, "\n")) << version;
  EXPECT_TRUE(contains(version, "g++") || contains(version, "GCC")) << version;
  EXPECT_EQ(compiler_version("  g++ "), version) << "split on spaces like $AXON_CXX";
}

TEST(CacheCompilerVersion, MissingCompilerIsNamed) {
  std::string version = compiler_version("/nonexistent/axon-c++");
  EXPECT_TRUE(contains(version, "/nonexistent/axon-c++: cannot run")) << version;
}

TEST(CacheCompilerVersion, CommandComesFromAxonCxx) {
  {
    ScopedEnv cxx("AXON_CXX", nullptr);
    EXPECT_EQ(compiler_command(), "g++");
  }
  {
    ScopedEnv cxx("AXON_CXX", "   ");
    EXPECT_EQ(compiler_command(), "g++");
  }
  {
    ScopedEnv cxx("AXON_CXX", "ccache clang++");
    EXPECT_EQ(compiler_command(), "ccache clang++");
  }
}

// ---- The database -----------------------------------------------------------------

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "axon-cache-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(directory_, ignored);
  }

  std::string path_of(const std::string& name) const { return (directory_ / name).string(); }

  /// The files in the directory whose names start with `prefix`.
  std::vector<fs::path> files_starting_with(const std::string& prefix) const {
    std::vector<fs::path> found;
    for (const fs::directory_entry& entry : fs::directory_iterator(directory_)) {
      if (entry.path().filename().string().rfind(prefix, 0) == 0) found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  /// Opens `name`, which holds `original_bytes` of a bad file, and checks
  /// that it was moved aside untouched, with a warning that says `why`, and
  /// replaced by a working, empty cache.
  void expect_replaced(const std::string& name, const std::string& original_bytes, const std::string& why) {
    std::string path = path_of(name);
    Cache cache(path);
    std::vector<fs::path> aside = files_starting_with(name + ".corrupt-");
    ASSERT_EQ(aside.size(), 1u) << cache.warning();
    EXPECT_EQ(read_bytes(aside[0]), original_bytes) << "the bad file must be kept as it was";
    EXPECT_TRUE(contains(cache.warning(), "kernel cache '" + path + "' ")) << cache.warning();
    EXPECT_TRUE(contains(cache.warning(), why)) << cache.warning();
    EXPECT_TRUE(contains(cache.warning(), "moved it to '" + aside[0].string() + "' and started a new one"))
        << cache.warning();

    EXPECT_FALSE(cache.lookup(sample_key()).has_value());
    EXPECT_TRUE(cache.candidates(sample_key()).empty());
    cache.store(sample_key(), sample_kernel("new"));
    expect_same_kernel(cache.lookup(sample_key()), sample_kernel("new"));
    Cache again(path);
    EXPECT_EQ(again.warning(), "");
    EXPECT_TRUE(again.lookup(sample_key()).has_value());
  }

  fs::path directory_;
};

TEST_F(CacheTest, StoreAndLookupRoundTrip) {
  Cache cache(path_of("kernels.sqlite"));
  EXPECT_EQ(cache.warning(), "");
  EXPECT_EQ(cache.path(), path_of("kernels.sqlite"));
  CachedKernel kernel = sample_kernel("one");
  kernel.files["large.bin"] = std::string(size_t{3} << 20, '\0') + "end";
  kernel.summary = std::string("nul\0inside", 10);
  cache.store(sample_key(), kernel);
  std::optional<CachedKernel> found = cache.lookup(sample_key());
  expect_same_kernel(found, kernel);
  EXPECT_EQ(found->files.at("kernel.so").size(), binary_bytes().size() + 3);
  EXPECT_EQ(found->files.at("report.md"), "") << "an empty file is still a file";
  EXPECT_EQ(found->summary.size(), 10u);
}

TEST_F(CacheTest, UnknownKeyMisses) {
  Cache cache(path_of("kernels.sqlite"));
  EXPECT_FALSE(cache.lookup(sample_key()).has_value());
  cache.store(sample_key(), sample_kernel("one"));
  CacheKey other = sample_key();
  other.sizes = "N=5";
  EXPECT_FALSE(cache.lookup(other).has_value());
}

TEST_F(CacheTest, EachKeyFieldSelectsItsOwnEntry) {
  Cache cache(path_of("kernels.sqlite"));
  std::vector<std::string CacheKey::*> fields = {&CacheKey::program, &CacheKey::sizes, &CacheKey::target,
                                                 &CacheKey::hw_digest, &CacheKey::compiler};
  std::vector<CacheKey> keys = {sample_key()};
  for (auto field : fields) {
    CacheKey changed = sample_key();
    changed.*field += "'";
    keys.push_back(changed);
  }
  for (size_t i = 0; i < keys.size(); ++i) cache.store(keys[i], sample_kernel(std::to_string(i)));
  for (size_t i = 0; i < keys.size(); ++i) {
    SCOPED_TRACE("key " + std::to_string(i));
    expect_same_kernel(cache.lookup(keys[i]), sample_kernel(std::to_string(i)));
  }
}

TEST_F(CacheTest, StoreReplacesTheWholeEntry) {
  Cache cache(path_of("kernels.sqlite"));
  CachedKernel first = sample_kernel("first");
  first.files["only-in-first.txt"] = "stale";
  cache.store(sample_key(), first);
  CachedKernel second = sample_kernel("second");
  second.files.erase("kernel.json");
  second.seconds = std::numeric_limits<double>::infinity();
  cache.store(sample_key(), second);
  std::optional<CachedKernel> found = cache.lookup(sample_key());
  expect_same_kernel(found, second);
  EXPECT_EQ(found->files.count("only-in-first.txt"), 0u);
  EXPECT_EQ(found->files.count("kernel.json"), 0u);
}

TEST_F(CacheTest, ForgetRemovesKernelAndCandidates) {
  Cache cache(path_of("kernels.sqlite"));
  CacheKey other = sample_key();
  other.target = "trn1";
  for (const CacheKey& key : {sample_key(), other}) {
    cache.store(key, sample_kernel("x"));
    cache.record_candidate(key, "c1", record_for(1));
  }
  cache.forget(sample_key());
  EXPECT_FALSE(cache.lookup(sample_key()).has_value());
  EXPECT_TRUE(cache.candidates(sample_key()).empty());
  EXPECT_TRUE(cache.lookup(other).has_value());
  EXPECT_EQ(cache.candidates(other).size(), 1u);
}

TEST_F(CacheTest, CandidateRecordsRoundTrip) {
  Cache cache(path_of("kernels.sqlite"));
  CandidateRecord infinite = record_for(2);
  infinite.max_error = std::numeric_limits<double>::infinity();
  infinite.detail = std::string("log with\0a NUL", 14);
  cache.record_candidate(sample_key(), "a", record_for(3));
  cache.record_candidate(sample_key(), "b", record_for(4));
  cache.record_candidate(sample_key(), "c", infinite);
  cache.record_candidate(sample_key(), "b", record_for(5));  // replaces
  std::map<std::string, CandidateRecord> records = cache.candidates(sample_key());
  ASSERT_EQ(records.size(), 3u);
  expect_same_record(records.at("a"), record_for(3), "a");
  expect_same_record(records.at("b"), record_for(5), "b");
  expect_same_record(records.at("c"), infinite, "c");
  CacheKey other = sample_key();
  other.compiler = "clang";
  EXPECT_TRUE(cache.candidates(other).empty());
}

TEST_F(CacheTest, EverythingSurvivesReopening) {
  std::string path = path_of("deeper/still/kernels.sqlite");  // parents are created
  {
    Cache cache(path);
    cache.store(sample_key(), sample_kernel("kept"));
    for (uint32_t i = 0; i < 20; ++i) cache.record_candidate(sample_key(), std::to_string(i), record_for(i));
  }
  Cache cache(path);
  EXPECT_EQ(cache.warning(), "");
  expect_same_kernel(cache.lookup(sample_key()), sample_kernel("kept"));
  std::map<std::string, CandidateRecord> records = cache.candidates(sample_key());
  ASSERT_EQ(records.size(), 20u);
  for (uint32_t i = 0; i < 20; ++i) expect_same_record(records.at(std::to_string(i)), record_for(i), std::to_string(i));
  EXPECT_EQ(quick_check(path), "ok");
}

TEST_F(CacheTest, MovedCacheStillWorks) {
  Cache first(path_of("a.sqlite"));
  first.store(sample_key(), sample_kernel("moved"));
  Cache second = std::move(first);
  expect_same_kernel(second.lookup(sample_key()), sample_kernel("moved"));
}

TEST_F(CacheTest, RepeatedLookupIsFast) {
  std::string path = path_of("kernels.sqlite");
  {
    Cache cache(path);
    for (int i = 0; i < 40; ++i) {
      CacheKey key = sample_key();
      key.sizes = "N=" + std::to_string(i);
      CachedKernel kernel = sample_kernel(std::to_string(i));
      kernel.files["kernel.so"] = std::string(size_t{1} << 18, static_cast<char>(i));
      cache.store(key, kernel);
    }
  }
  auto start = std::chrono::steady_clock::now();
  Cache cache(path);
  CacheKey key = sample_key();
  key.sizes = "N=17";
  std::optional<CachedKernel> found = cache.lookup(key);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->files.at("kernel.so"), std::string(size_t{1} << 18, static_cast<char>(17)));
  EXPECT_LT(seconds, 0.5) << "opening (quick_check included) and one lookup of a 10 MB cache";
}

// ---- Bad files: moved aside, replaced, reported ------------------------------------

TEST_F(CacheTest, EmptyFileIsANewCache) {
  write_bytes(path_of("kernels.sqlite"), "");
  Cache cache(path_of("kernels.sqlite"));
  EXPECT_EQ(cache.warning(), "");
  EXPECT_TRUE(files_starting_with("kernels.sqlite.corrupt-").empty());
}

TEST_F(CacheTest, RandomBytesAreReplaced) {
  std::mt19937 generator(7);
  std::string bytes;
  for (int i = 0; i < 8192; ++i) bytes += static_cast<char>(generator());
  write_bytes(path_of("kernels.sqlite"), bytes);
  expect_replaced("kernels.sqlite", bytes, "is not a sound SQLite database (file is not a database)");
}

TEST_F(CacheTest, ForeignSchemaIsReplaced) {
  run_sql(path_of("kernels.sqlite"), "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');");
  expect_replaced("kernels.sqlite", read_bytes(path_of("kernels.sqlite")),
                  "is not an Axon kernel cache (application_id 0, user_version 0)");
}

TEST_F(CacheTest, ForeignUserVersionIsReplaced) {
  run_sql(path_of("kernels.sqlite"), "PRAGMA user_version = 3;");
  expect_replaced("kernels.sqlite", read_bytes(path_of("kernels.sqlite")),
                  "is not an Axon kernel cache (application_id 0, user_version 3)");
}

TEST_F(CacheTest, OtherSchemaVersionIsReplaced) {
  { Cache cache(path_of("kernels.sqlite")); }
  run_sql(path_of("kernels.sqlite"), "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99;");
  expect_replaced("kernels.sqlite", read_bytes(path_of("kernels.sqlite")),
                  "has schema version 99, and this Axon reads version 2");
}

TEST_F(CacheTest, MissingTablesAreReplaced) {
  { Cache cache(path_of("kernels.sqlite")); }
  run_sql(path_of("kernels.sqlite"), "PRAGMA journal_mode = DELETE; DROP TABLE candidates;");
  expect_replaced("kernels.sqlite", read_bytes(path_of("kernels.sqlite")), "lacks its tables");
}

/// A cache of a few MB, closed, so the file holds everything (no WAL).
std::string filled_cache(const std::string& path) {
  {
    Cache cache(path);
    for (int i = 0; i < 30; ++i) {
      CacheKey key = sample_key();
      key.sizes = "N=" + std::to_string(i);
      CachedKernel kernel = sample_kernel(std::to_string(i));
      kernel.files["kernel.so"] = std::string(100000, static_cast<char>('a' + i % 26));
      cache.store(key, kernel);
      cache.record_candidate(key, "c", record_for(static_cast<uint32_t>(i)));
    }
  }
  EXPECT_FALSE(fs::exists(path + "-wal")) << "closing the last connection checkpoints the WAL";
  return read_bytes(path);
}

TEST_F(CacheTest, TruncatedDatabaseIsReplaced) {
  std::string path = path_of("kernels.sqlite");
  std::string bytes = filled_cache(path);
  ASSERT_GT(bytes.size(), 1000000u);
  std::string truncated = bytes.substr(0, bytes.size() / 2);
  write_bytes(path, truncated);
  expect_replaced("kernels.sqlite", truncated, "");
}

TEST_F(CacheTest, OverwrittenPagesAreReplaced) {
  std::string path = path_of("kernels.sqlite");
  std::string bytes = filled_cache(path);
  std::mt19937 generator(11);
  // Garbage over pages 2 to 5, where the tables' roots are; the header survives.
  for (size_t i = 4096; i < 5 * 4096; ++i) bytes[i] = static_cast<char>(generator());
  write_bytes(path, bytes);
  expect_replaced("kernels.sqlite", bytes, "");
}

TEST_F(CacheTest, NewCacheInheritsNoJournalOfTheBadFile) {
  // SQLite may discard the bad file's WAL itself on closing it; what is left
  // goes aside with the file, never into the new cache.
  std::string path = path_of("kernels.sqlite");
  write_bytes(path, std::string(4096, 'x'));
  write_bytes(path + "-wal", "a write-ahead log of the bad file");
  write_bytes(path + "-journal", "a rollback journal of the bad file");
  write_bytes(path + "-shm", "its index");
  Cache cache(path);
  std::vector<fs::path> aside = files_starting_with("kernels.sqlite.corrupt-");
  ASSERT_FALSE(aside.empty()) << cache.warning();
  EXPECT_EQ(read_bytes(aside[0]), std::string(4096, 'x'));
  EXPECT_NE(read_bytes(path + "-wal"), "a write-ahead log of the bad file");
  EXPECT_FALSE(fs::exists(path + "-journal"));
  cache.store(sample_key(), sample_kernel("fresh"));
  expect_same_kernel(cache.lookup(sample_key()), sample_kernel("fresh"));
}

TEST_F(CacheTest, SecondBadFileGetsItsOwnName) {
  std::string path = path_of("kernels.sqlite");
  write_bytes(path, std::string(4096, 'x'));
  { Cache cache(path); }
  write_bytes(path, std::string(4096, 'y'));
  { Cache cache(path); }
  std::vector<fs::path> aside = files_starting_with("kernels.sqlite.corrupt-");
  ASSERT_EQ(aside.size(), 2u);
  std::vector<std::string> contents = {read_bytes(aside[0]), read_bytes(aside[1])};
  std::sort(contents.begin(), contents.end());
  EXPECT_EQ(contents[0], std::string(4096, 'x'));
  EXPECT_EQ(contents[1], std::string(4096, 'y'));
}

// ---- Unusable locations: a clear error that names the path --------------------------

void expect_open_error(const std::string& path, const std::string& part) {
  try {
    Cache cache(path);
    ADD_FAILURE() << "opening " << path << " must fail";
  } catch (const CacheError& e) {
    EXPECT_TRUE(contains(e.what(), path) || contains(e.what(), fs::path(path).parent_path().string())) << e.what();
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
    EXPECT_EQ(e.format(), std::string("axon: error: ") + e.what() + "\n");
  }
}

TEST_F(CacheTest, ParentThatIsAFileIsAnError) {
  write_bytes(path_of("plain-file"), "not a directory");
  std::string path = path_of("plain-file/axon/kernels.sqlite");
  expect_open_error(path, "cannot create the directory '" + path_of("plain-file/axon") + "' for the kernel cache '" +
                              path + "': Not a directory");
}

TEST_F(CacheTest, DirectoryInThePlaceOfTheFileIsAnError) {
  fs::create_directory(path_of("kernels.sqlite"));
  expect_open_error(path_of("kernels.sqlite"), "kernel cache '" + path_of("kernels.sqlite") + "': cannot open it: ");
  EXPECT_TRUE(fs::is_directory(path_of("kernels.sqlite"))) << "a location problem is not a bad file";
}

TEST_F(CacheTest, UnwritableDirectoryIsAnError) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  fs::create_directory(path_of("locked"));
  fs::permissions(path_of("locked"), fs::perms::owner_read | fs::perms::owner_exec);
  expect_open_error(path_of("locked/kernels.sqlite"), "cannot open it: Permission denied");
  fs::permissions(path_of("locked"), fs::perms::owner_all);
}

TEST_F(CacheTest, ReadOnlyFileIsAnError) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  { Cache cache(path_of("kernels.sqlite")); }
  fs::permissions(path_of("kernels.sqlite"), fs::perms::owner_read);
  expect_open_error(path_of("kernels.sqlite"), "cannot open it for writing: Permission denied");
}

TEST_F(CacheTest, EmptyPathIsAnError) {
  EXPECT_THROW(Cache(""), CacheError);
}

// ---- Processes: SIGKILL, and several at once -----------------------------------------

/// Reads whole uint32_t values from `fd` until it closes.
void read_reported(int fd, std::vector<uint32_t>& reported, size_t until_count) {
  uint32_t value = 0;
  size_t have = 0;
  while (reported.size() < until_count) {
    ssize_t n = read(fd, reinterpret_cast<char*>(&value) + have, sizeof value - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    have += static_cast<size_t>(n);
    if (have == sizeof value) {
      reported.push_back(value);
      have = 0;
    }
  }
}

TEST_F(CacheTest, KillNineLosesNoCommittedRecord) {
  std::string path = path_of("kernels.sqlite");
  CacheKey key = sample_key();
  std::vector<uint32_t> reported;
  for (uint32_t round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // records until killed, reporting each id once its commit has returned
      close(fds[0]);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(2);
      try {
        Cache cache(path);
        for (uint32_t i = round * 1000000;; ++i) {
          cache.record_candidate(key, std::to_string(i), record_for(i));
          if (i % 5 == 0) {  // big transactions too, so the kill may land inside one
            CachedKernel kernel = sample_kernel(std::to_string(i));
            kernel.files["kernel.so"] = std::string(size_t{1} << 18, static_cast<char>(i));
            CacheKey stored = key;
            stored.sizes = "N=" + std::to_string(i % 7);
            cache.store(stored, kernel);
          }
          if (write(fds[1], &i, sizeof i) != sizeof i) _exit(3);
        }
      } catch (...) {
        _exit(4);
      }
    }
    close(fds[1]);
    read_reported(fds[0], reported, reported.size() + 200 + round * 37);
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    read_reported(fds[0], reported, std::numeric_limits<size_t>::max());  // what it wrote before dying
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;

    Cache cache(path);
    EXPECT_EQ(cache.warning(), "");
    std::map<std::string, CandidateRecord> records = cache.candidates(key);
    for (uint32_t i : reported) {
      auto found = records.find(std::to_string(i));
      ASSERT_NE(found, records.end()) << "committed record " << i << " is lost";
      expect_same_record(found->second, record_for(i), std::to_string(i));
    }
    EXPECT_LE(records.size(), reported.size() + round + 1) << "only the record in flight may be there unreported";
    for (int n = 0; n < 7; ++n) {  // a stored kernel is whole or absent
      CacheKey stored = key;
      stored.sizes = "N=" + std::to_string(n);
      std::optional<CachedKernel> kernel = cache.lookup(stored);
      if (!kernel) continue;
      ASSERT_EQ(kernel->files.size(), 5u);
      EXPECT_EQ(kernel->files.at("kernel.so"), std::string(size_t{1} << 18, kernel->files.at("kernel.so")[0]));
    }
  }
  EXPECT_EQ(quick_check(path), "ok");
}

TEST_F(CacheTest, ConcurrentProcessesShareOneFile) {
  std::string path = path_of("shared/kernels.sqlite");  // none of them finds it there
  constexpr int kProcesses = 4;
  constexpr int kRecords = 60;
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(go[1]);
      char ignored;
      while (read(go[0], &ignored, 1) < 0 && errno == EINTR) {
      }
      try {
        Cache cache(path);
        CacheKey key = sample_key();
        key.target = "process " + std::to_string(p);
        for (int i = 0; i < kRecords; ++i) {
          cache.record_candidate(key, std::to_string(i), record_for(static_cast<uint32_t>(i)));
          if (i % 10 == 0) cache.store(key, sample_kernel(std::to_string(i)));
          cache.lookup(sample_key());
        }
        _exit(cache.warning().empty() ? 0 : 5);
      } catch (const std::exception& e) {
        fprintf(stderr, "process %d: %s\n", p, e.what());
        _exit(6);
      }
    }
    children.push_back(pid);
  }
  close(go[0]);
  close(go[1]);  // all start at once
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  Cache cache(path);
  EXPECT_EQ(cache.warning(), "");
  for (int p = 0; p < kProcesses; ++p) {
    CacheKey key = sample_key();
    key.target = "process " + std::to_string(p);
    EXPECT_EQ(cache.candidates(key).size(), static_cast<size_t>(kRecords)) << "process " << p;
    expect_same_kernel(cache.lookup(key), sample_kernel("50"));
  }
}

}  // namespace
}  // namespace axon::tune
