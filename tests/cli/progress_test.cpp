// The terminal progress line: silent for quick runs and non-terminals,
// drawn and erased otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "terminal_progress.h"

namespace tc {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  int c;
  while ((c = std::fgetc(f)) != EOF) s += static_cast<char>(c);
  return s;
}

TEST(TerminalProgress, SilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_TRUE(f);
  {
    TerminalProgress p("verify", f, false, std::chrono::milliseconds(0));
    p.update(5, 10, "cases");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(TerminalProgress, SilentDuringTheQuietPeriod) {
  std::FILE* f = std::tmpfile();
  ASSERT_TRUE(f);
  {
    TerminalProgress p("verify", f, true, std::chrono::hours(1));
    p.update(5, 10, "cases");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(TerminalProgress, DrawsAndErasesTheLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_TRUE(f);
  {
    TerminalProgress p("verify", f, true, std::chrono::milliseconds(0));
    p.update(40960, 100000, "cases");
    p.update(100000, 100000, "cases");  // the last update is always drawn
  }
  EXPECT_EQ(contents(f),
            "\rverify: 40960/100000 cases (40%)\033[K\rverify: 100000/100000 cases (100%)\033[K\r\033[K");
  std::fclose(f);
}

}  // namespace
}  // namespace tc
