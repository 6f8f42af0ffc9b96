#include "support/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/build_id.h"

namespace axon {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("axon_files_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream t;
    t << in.rdbuf();
    return t.str();
  }
  // Names in dir_ other than `except`, e.g. a temporary file left behind.
  std::vector<std::string> entries() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

bool is_char_device(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST_F(FilesTest, WritesAndReplacesARegularFile) {
  write_file((dir_ / "a").string(), "one");
  write_file((dir_ / "a").string(), "two");
  EXPECT_EQ(read(dir_ / "a"), "two");
  EXPECT_EQ(entries(), std::vector<std::string>{"a"});
}

TEST_F(FilesTest, DevFullIsAnErrorAndStaysADevice) {
  ASSERT_TRUE(is_char_device("/dev/full"));
  try {
    write_file("/dev/full", std::string(100000, 'x'));
    FAIL() << "no error writing /dev/full";
  } catch (const FileError& e) {
    EXPECT_EQ(e.path(), "/dev/full");
    EXPECT_NE(std::string(e.what()).find("/dev/full: cannot write (write): No space left on device"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(is_char_device("/dev/full"));
  write_file("/dev/null", "fine");
  EXPECT_TRUE(is_char_device("/dev/null"));
}

TEST_F(FilesTest, AFileSetIsAllOrNone) {
  write_file((dir_ / "old").string(), "old");
  FileSet files;
  files.add((dir_ / "new").string(), "new");
  files.add((dir_ / "old").string(), "replaced");
  files.add("/dev/full", "x");
  EXPECT_THROW(files.commit(), FileError);
  EXPECT_EQ(entries(), std::vector<std::string>{"old"});  // nothing new, no temporary files
  EXPECT_EQ(read(dir_ / "old"), "old");
}

TEST_F(FilesTest, AFileSetDroppedUncommittedLeavesNothing) {
  {
    FileSet files;
    files.add((dir_ / "a").string(), "a");
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(FilesTest, ADirectoryIsNotAFile) {
  EXPECT_THROW(write_file(dir_.string(), "x"), FileError);
}

TEST_F(FilesTest, AStagedFolderReplacesTheOldOneWhole) {
  fs::path out = dir_ / "out";
  fs::create_directories(out);
  write_file((out / "kernel.json").string(), "old");
  write_file((out / "kernel.so").string(), "old");
  {
    StagedFolder staged(out.string(), {"kernel.json", "kernel.so"});
    write_file(staged.path() + "/kernel.json", "new");
    EXPECT_EQ(read(out / "kernel.json"), "old");  // not before commit
    staged.commit();
  }
  EXPECT_EQ(read(out / "kernel.json"), "new");
  EXPECT_FALSE(fs::exists(out / "kernel.so"));  // the old folder went as a whole
  EXPECT_EQ(entries(), std::vector<std::string>{"out"});
}

TEST_F(FilesTest, AStagedFolderDroppedLeavesTheOldOne) {
  fs::path out = dir_ / "out";
  fs::create_directories(out);
  write_file((out / "kernel.json").string(), "old");
  {
    StagedFolder staged(out.string() + "/", {"kernel.json"});
    write_file(staged.path() + "/kernel.json", "new");
  }
  EXPECT_EQ(read(out / "kernel.json"), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"out"});
}

TEST_F(FilesTest, AStagedFolderRefusesForeignFilesAndFiles) {
  fs::path out = dir_ / "out";
  fs::create_directories(out);
  write_file((out / "notes.txt").string(), "mine");
  EXPECT_THROW(StagedFolder(out.string(), {"kernel.json"}), FileError);
  write_file((dir_ / "file").string(), "x");
  EXPECT_THROW(StagedFolder((dir_ / "file").string(), {"kernel.json"}), FileError);
  EXPECT_EQ(read(out / "notes.txt"), "mine");
}

TEST_F(FilesTest, AStagedFolderRemovesWhatADeadProcessLeft) {
  // A pid that cannot be running: larger than any pid_max.
  fs::create_directories(dir_ / ".out.axon-partial-99999999");
  StagedFolder staged((dir_ / "out").string(), {});
  staged.commit();
  EXPECT_EQ(entries(), std::vector<std::string>{"out"});
}

TEST(BuildId, TheExecutableHasAnIdentity) {
  const std::string& id = executable_identity();
  EXPECT_TRUE(id.rfind("build-id ", 0) == 0 || id.rfind("content ", 0) == 0) << id;
  EXPECT_EQ(&id, &executable_identity());
}

}  // namespace
}  // namespace axon
