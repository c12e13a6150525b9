// Output files appear whole or not at all: written beside the target and
// renamed into place; a failed write leaves the directory as it was.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>

#include "base/atomic_file.h"

namespace tc {
namespace {

std::string make_dir() {
  char tmpl[] = "/tmp/tc_base_XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d ? d : "";
}

std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.insert(e->d_name);
    closedir(d);
  }
  return out;
}

TEST(AtomicFileBasics, WritesAndReplacesWholeFiles) {
  const std::string dir = make_dir();
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/out.json";
  ASSERT_TRUE(write_file_atomic(path, "first\n").ok());
  ASSERT_TRUE(write_file_atomic(path, "second\n").ok());
  auto back = read_file(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, "second\n");
  EXPECT_EQ(entries(dir), (std::set<std::string>{"out.json"})) << "no temporary file is left behind";
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST(AtomicFileBasics, FailureNamesThePathAndLeavesNothing) {
  const std::string dir = make_dir();
  ASSERT_FALSE(dir.empty());
  auto s = write_file_atomic(dir + "/missing/out.json", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(dir + "/missing/out.json"), std::string::npos) << s.error().message;
  EXPECT_TRUE(entries(dir).empty());
  rmdir(dir.c_str());
}

TEST(AtomicFileBasics, ReadRefusesDirectoriesAndOversizedFiles) {
  const std::string dir = make_dir();
  ASSERT_FALSE(dir.empty());
  auto d = read_file(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("directory"), std::string::npos) << d.error().message;
  const std::string path = dir + "/big.txt";
  ASSERT_TRUE(write_file_atomic(path, std::string(100, 'x')).ok());
  auto big = read_file(path, 10);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("limit"), std::string::npos) << big.error().message;
  EXPECT_TRUE(read_file(path, 100).ok());
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace tc
