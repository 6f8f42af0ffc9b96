#include "support/files.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "support/diag.h"

namespace axon {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& step, int err) {
  throw FileError(path, path + ": cannot write" + (step.empty() ? "" : " (" + step + ")") + ": " + std::strerror(err));
}

// Writes all of `bytes` to `fd`; false with errno set when a write fails.
bool write_all(int fd, std::string_view bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// Closes `fd` and throws for `step`'s errno `err`, after `cleanup`.
[[noreturn]] void abandon(int fd, const std::string& path, const char* step, int err, const std::string& remove = {}) {
  ::close(fd);
  if (!remove.empty()) ::unlink(remove.c_str());
  fail(path, step, err);
}

// In place, for what must not be replaced: /dev/full reports ENOSPC here.
void write_in_place(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, "", errno);
  if (!write_all(fd, bytes)) abandon(fd, path, "write", errno);
  // fsync of a device or pipe may be unsupported; that is not a lost write.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) abandon(fd, path, "fsync", errno);
  if (::close(fd) != 0) fail(path, "close", errno);
}

}  // namespace

FileSet::~FileSet() {
  discard();
}

void FileSet::discard() {
  for (const Staged& s : staged_)
    if (!s.in_place) ::unlink(s.temp.c_str());
  staged_.clear();
}

void FileSet::add(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw FileError(path, path + ": cannot write: Is a directory");
    staged_.push_back({path, "", std::string(bytes), true});
    return;
  }
  static std::atomic<unsigned> counter{0};
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = (dir /
            ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
               .string();
    // O_EXCL against collisions; mode 0666 so the umask applies as for any new file.
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) fail(path, "", errno);
  }
  if (fd < 0) throw FileError(path, path + ": cannot write: no unused temporary file name in " + dir.string());
  if (!write_all(fd, bytes)) abandon(fd, path, "write", errno, temp);
  // Without fsync a crash after the rename can leave an empty file under the final name.
  if (::fsync(fd) != 0) abandon(fd, path, "fsync", errno, temp);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    fail(path, "close", err);
  }
  staged_.push_back({path, temp, "", false});
}

void FileSet::commit() {
  try {
    for (Staged& s : staged_)
      if (s.in_place) write_in_place(s.path, s.in_place_bytes);
    for (Staged& s : staged_)
      if (!s.in_place && ::rename(s.temp.c_str(), s.path.c_str()) != 0) fail(s.path, "rename", errno);
  } catch (...) {
    discard();
    throw;
  }
  staged_.clear();
}

void write_file(const std::string& path, std::string_view bytes) {
  FileSet files;
  files.add(path, bytes);
  files.commit();
}

}  // namespace axon

namespace axon {
namespace {

namespace fs = std::filesystem;

// A folder NAME may be replaced only when it holds nothing but `own` names.
void check_replaceable(const fs::path& target, const std::string& shown, const std::vector<std::string>& own) {
  std::error_code ec;
  fs::file_status st = fs::status(target, ec);
  if (ec || !fs::exists(st)) return;
  if (!fs::is_directory(st)) throw FileError(shown, "'" + shown + "' exists and is not a folder");
  for (const fs::directory_entry& e : fs::directory_iterator(target, ec)) {
    std::string name = e.path().filename().string();
    bool known = false;
    for (const std::string& n : own) known = known || n == name;
    if (!known)
      throw FileError(shown, "'" + shown + "' holds '" + name +
                                 "', which axon did not write; choose a new or empty folder (axon "
                                 "replaces the whole folder)");
  }
  if (ec) throw FileError(shown, "cannot read '" + shown + "': " + ec.message());
}

// Removes siblings ".NAME.axon-partial-PID[-N]" whose process is gone.
void remove_stale(const fs::path& target) {
  std::error_code ec;
  const std::string prefix = "." + target.filename().string() + ".axon-partial-";
  fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  for (const fs::directory_entry& e : fs::directory_iterator(parent, ec)) {
    std::string name = e.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
}

void sync_folder(const fs::path& folder) {
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Moves `from` to `to`: an exchange when `to` exists, then the old contents
// (now at `from`) are removed.
void replace_folder(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  if (fs::exists(to, ec)) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(from, ec);
    } else {
      // A file system without the exchange: two renames, the old kept aside
      // until the new one is in place.
      fs::path aside = from.string() + "-old";
      fs::remove_all(aside, ec);
      if (::rename(to.c_str(), aside.c_str()) != 0) fail(to.string(), "rename", errno);
      if (::rename(from.c_str(), to.c_str()) != 0) {
        int err = errno;
        ::rename(aside.c_str(), to.c_str());
        fail(to.string(), "rename", err);
      }
      fs::remove_all(aside, ec);
    }
  } else if (::rename(from.c_str(), to.c_str()) != 0) {
    fail(to.string(), "rename", errno);
  }
  sync_folder(to.parent_path());
}

}  // namespace

StagedFolder::StagedFolder(const std::string& path, const std::vector<std::string>& own_names) : own_names_(own_names) {
  std::error_code ec;
  if (path.empty()) throw FileError(path, "an empty output folder name");
  // Absolute and without "." or "..": "-o ." and "-o out/" name real folders.
  fs::path target = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) throw FileError(path, "cannot use '" + path + "' as an output folder: " + ec.message());
  while (!target.has_filename() && target.has_parent_path() && target != target.parent_path())
    target = target.parent_path();
  if (target == target.root_path()) throw FileError(path, "cannot use '" + path + "' as an output folder");
  shown_ = path;
  target_ = target.string();
  check_replaceable(target, shown_, own_names_);
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw FileError(path, "cannot create '" + target.parent_path().string() + "': " + ec.message());
  remove_stale(target);
  fs::path parent = target.parent_path();
  std::string base = "." + target.filename().string() + ".axon-partial-" + std::to_string(::getpid());
  for (int n = 0;; ++n) {
    fs::path staging = parent / (n == 0 ? base : base + "-" + std::to_string(n));
    if (::mkdir(staging.c_str(), 0777) == 0) {
      staging_ = staging.string();
      break;
    }
    if (errno != EEXIST || n > 100) fail(path, "mkdir " + staging.filename().string(), errno);
  }
}

StagedFolder::~StagedFolder() {
  if (done_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void StagedFolder::commit() {
  check_replaceable(target_, shown_, own_names_);  // again: another process may have written there meanwhile
  replace_folder(staging_, target_);
  done_ = true;
}

void StagedFolder::commit_to(const std::string& other) {
  check_replaceable(other, other, own_names_);
  replace_folder(staging_, other);
  done_ = true;
}

void write_user_file(const std::string& path, std::string_view bytes) {
  try {
    write_file(path, bytes);
  } catch (const FileError& e) {
    throw UserError({}, e.what());
  }
}

}  // namespace axon
