// A reference that hangs, crashes, exits, floods or exhausts memory ends
// verify with one located error in bounded time, and this process survives
// (the reference runs in worker processes). Several workers give the same
// report as one, in case order; a case range verifies a slice.
#include <gtest/gtest.h>

#include <chrono>

#include "ir/builder.h"
#include "verify/python_reference.h"

namespace tc {
namespace {

#ifdef TC_HAVE_PYTHON

Program identity(int lo, int hi) {
  Builder b;
  auto a = b.input("a", Domain::int32(lo, hi));
  auto p = b.build(a + 0);
  EXPECT_TRUE(p);
  return *p;
}

struct Fault {
  const char* name;
  const char* source;
  const char* message;  ///< a substring of the error
  std::uint64_t memory_mib = 4096;
  double seconds = 0.5;  ///< the per-case budget (generous where the fault is not a hang)
};

class ReferenceFault : public ::testing::TestWithParam<Fault> {};

TEST_P(ReferenceFault, EndsVerifyWithOneLocatedError) {
  const Fault& f = GetParam();
  PythonReferenceOptions o;
  o.source = f.source;
  o.filename = "ref.py";
  o.max_seconds_per_case = f.seconds;
  o.max_memory_bytes = f.memory_mib << 20;
  const auto start = std::chrono::steady_clock::now();
  auto ref = make_python_reference(o);
  ASSERT_TRUE(ref) << ref.error().format();
  VerifyOptions vo;
  vo.threads = 2;
  auto r = verify(identity(0, 500), **ref, vo);
  ASSERT_FALSE(r) << f.name << " passed: " << report_to_json(*r).dump();
  const std::string text = r.error().format();
  EXPECT_NE(text.find(f.message), std::string::npos) << f.name << ": " << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << "one line: " << text;
  EXPECT_EQ(text.rfind("ref.py:", 0), 0u) << text;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << f.name;
}

INSTANTIATE_TEST_SUITE_P(
    Hostile, ReferenceFault,
    ::testing::Values(
        Fault{"one_line_loop", "def f(a):\n    while True: pass\n", "ran longer than 0.5 s on the case a="},
        Fault{"switch_interval", "import sys\nsys.setswitchinterval(1e6)\ndef f(a):\n    while True: pass\n",
              "ran longer than 0.5 s"},
        Fault{"c_level_loop", "def f(a):\n    return len(str(10 ** 10 ** 9)) if a == 3 else a\n",
              "ran longer than 0.5 s on the case a=3"},
        Fault{"os_exit", "import os\ndef f(a):\n    if a == 7:\n        os._exit(0)\n    return a\n",
              "exited with status 0 (did it call os._exit?) on the case a=7"},
        Fault{"os_abort", "import os\ndef f(a):\n    os.abort()\n", "was killed by signal 6"},
        Fault{"segfault", "import ctypes\ndef f(a):\n    return ctypes.string_at(0)\n", "was killed by signal 11"},
        Fault{"unbounded_allocation",
              "def f(a):\n    x = []\n    while True:\n        x.append(bytearray(1 << 20))\n",
              "ran out of its 128 MiB memory limit on the case a=0", 128, 10},
        Fault{"huge_message", "def f(a):\n    raise ValueError('x' * 100_000_000)\n",
              "raised an exception whose message is 100000000 characters long", 4096, 10},
        Fault{"huge_output", "def f(a):\n    n = 'x' * 150\n    return {n + str(i): i for i in range(2000)}\n",
              "produced too much output", 4096, 10}),
    [](const ::testing::TestParamInfo<Fault>& info) { return std::string(info.param.name); });

TEST(ReferenceFault, PrintingAndWritingToStdoutChangeNothing) {
  PythonReferenceOptions o;
  o.source = "import os, sys\ndef f(a):\n    print('noise' * 1000)\n    os.write(1, b'x' * 100000)\n"
             "    sys.__stdout__.write('more')\n    return a\n";
  o.filename = "ref.py";
  auto ref = make_python_reference(o);
  ASSERT_TRUE(ref) << ref.error().format();
  testing::internal::CaptureStdout();
  auto r = verify(identity(0, 200), **ref);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_TRUE(r->passed);
}

TEST(ReferenceWorkers, ManyWorkersGiveTheReportOfOne) {
  // The circuit disagrees with the reference on every multiple of 7: the
  // mismatches (first ten, in case order) and counts must not depend on how
  // the cases were shared out.
  Builder b;
  auto a = b.input("a", Domain::int32(-2000, 2000));
  auto p = b.build(a * 3);
  ASSERT_TRUE(p);
  const std::string source = "def f(a):\n    return a * 3 + (1 if a % 7 == 0 else 0)\n";
  std::string first;
  for (std::size_t threads : {1, 2, 3, 8}) {
    PythonReferenceOptions o;
    o.source = source;
    o.filename = "ref.py";
    auto ref = make_python_reference(o);
    ASSERT_TRUE(ref) << ref.error().format();
    VerifyOptions vo;
    vo.threads = threads;
    vo.block = 100;
    auto r = verify(*p, **ref, vo);
    ASSERT_TRUE(r) << r.error().format();
    EXPECT_EQ((*ref)->workers(), threads);
    EXPECT_EQ(r->cases, 4001u);
    EXPECT_EQ(r->mismatch_count, 571u);  // multiples of 7 in [-2000, 2000]
    std::string text = report_to_json(*r).dump();
    if (first.empty()) first = text;
    EXPECT_EQ(text, first) << threads << " workers";
  }
}

TEST(ReferenceWorkers, ACaseRangeVerifiesASlice) {
  Builder b;
  auto a = b.input("a", Domain::int32(0, 999));
  auto p = b.build(a + 0);
  ASSERT_TRUE(p);
  PythonReferenceOptions o;
  o.source = "def f(a):\n    return a + (a == 500)\n";
  auto ref = make_python_reference(o);
  ASSERT_TRUE(ref);
  VerifyOptions vo;
  vo.first_case = 100;
  vo.end_case = 400;
  auto low = verify(*p, **ref, vo);
  ASSERT_TRUE(low) << low.error().format();
  EXPECT_EQ(low->cases, 300u);
  EXPECT_EQ(low->planned_cases, 1000u);
  EXPECT_FALSE(low->exhaustive) << "a slice is not every case";
  EXPECT_TRUE(low->passed);
  vo.first_case = 400;
  vo.end_case = SIZE_MAX;
  auto high = verify(*p, **ref, vo);
  ASSERT_TRUE(high);
  EXPECT_EQ(high->cases, 600u);
  ASSERT_EQ(high->mismatch_count, 1u);
  EXPECT_EQ(high->mismatches[0].index, 500u);
}

#endif

}  // namespace
}  // namespace tc
