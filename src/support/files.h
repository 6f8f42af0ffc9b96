// Writing files so that nothing is reported written that was not: every
// write, fsync and close is checked, and files are replaced whole or not at
// all.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace axon {

/// A file that could not be written; what() starts with its name and says
/// why ("y.npy: cannot write (write): No space left on device"). Callers that
/// know where the path came from rethrow it as a UserError there.
class FileError : public std::runtime_error {
 public:
  FileError(std::string path, const std::string& message) : std::runtime_error(message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }  // the file that was not written

 private:
  std::string path_;
};

/// Several files written all or none. add() writes a regular (or new) file's
/// bytes to a hidden sibling and fsyncs it; commit() first writes in place
/// the paths that exist and are not regular files (a device such as
/// /dev/null or /dev/full, a FIFO, a terminal: never replaced), then renames
/// every sibling over its path. Any failure is a FileError, and then no
/// sibling is left and no regular file was touched (but for a rename that
/// fails after others succeeded: only when the folder itself went away). A
/// FileSet destroyed without commit() removes its siblings.
class FileSet {
 public:
  FileSet() = default;
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  ~FileSet();

  void add(const std::string& path, std::string_view bytes);
  void commit();

 private:
  struct Staged {
    std::string path, temp, in_place_bytes;
    bool in_place = false;
  };
  std::vector<Staged> staged_;
  void discard();
};

/// One file, as a FileSet of one.
void write_file(const std::string& path, std::string_view bytes);

/// write_file, with a failure reported as a UserError: where axon writes
/// what the user asked for, a full disk or an unwritable folder is the
/// user's environment, not a bug.
void write_user_file(const std::string& path, std::string_view bytes);

}  // namespace axon

namespace axon {

/// An output folder replaced whole: everything is written into a hidden
/// sibling ".NAME.axon-partial-PID" (path()), and commit() puts it in place
/// of NAME in one rename (an atomic exchange when NAME exists, whose old
/// contents are then removed), so NAME is always all of one run or of the
/// one before. Destroyed without commit(), the sibling is removed; a sibling
/// left by a killed process is removed by the next StagedFolder of NAME.
///
/// NAME may be absent, an empty folder, or a folder whose entries are all
/// named in `own_names` (what an earlier run wrote); a folder holding
/// anything else, or a file, is refused with a FileError before anything is
/// written, so no user's file is ever replaced. NAME is made absolute with
/// links resolved: a link to a folder stands for the folder it names, and
/// "." for the current folder.
class StagedFolder {
 public:
  StagedFolder(const std::string& path, const std::vector<std::string>& own_names);
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;
  ~StagedFolder();

  const std::string& path() const { return staging_; }   // where to write
  const std::string& target() const { return target_; }  // NAME, absolute, links resolved

  /// Puts the staged folder in place of NAME; a FileError when that fails
  /// (then NAME is as it was).
  void commit();
  /// Puts the staged folder at `other` instead (replacing a folder there
  /// that holds only own_names), e.g. the report of a search that failed.
  void commit_to(const std::string& other);

 private:
  std::string shown_, target_, staging_;
  std::vector<std::string> own_names_;
  bool done_ = false;
};

}  // namespace axon
