#pragma once
/// Where the tests find the checkout, their data and the built CLI.
///
/// These absolute paths live in one object (test_paths.cpp), not on every
/// test source's command line: a compiler cache keys an object on its
/// command line, so a path there would make every test object of one
/// checkout useless to another (CI's fresh clone, a developer's second
/// tree). With the paths here, only test_paths.cpp is compiled per checkout.
/// The names stay the macros the tests always used; each expands to a
/// `const char*`. (A namespace of its own at global scope: inside `tc`, a
/// `tc::testing` visible in every test would hide gtest's `::testing`.)
namespace tc_test_paths {
extern const char* const kTestData;  ///< tests/data
extern const char* const kSourceDir;  ///< the checkout's root
extern const char* const kCli;        ///< the built `tensorcode`
}  // namespace tc_test_paths

#define TC_TEST_DATA (::tc_test_paths::kTestData)
#define TC_SOURCE_DIR (::tc_test_paths::kSourceDir)
#define TC_CLI (::tc_test_paths::kCli)
