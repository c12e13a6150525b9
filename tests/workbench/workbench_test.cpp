// core/workbench: verify, prove, diff and export over sessions, each the
// same as the core call on the session's program, with the session's
// bindings serving call nodes; and the CPython reference of a source
// program or of another file.
#include "workbench/workbench.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "diff/diff.h"
#include "ir/builder.h"
#include "workbench/export.h"

namespace tc {
namespace {

/// result = twice(a) + 1 over a small int32 domain; `twice` is a host function.
Program with_call() {
  Builder b;
  Value a = b.input("a", Domain::int32(-20, 20));
  Value y = b.call("twice", {a}) + 1.0;
  return b.build({{"result", y}}).value();
}

std::shared_ptr<const Bindings> twice_bindings() {
  auto bindings = std::make_shared<Bindings>();
  (*bindings)["twice"].forward = [](std::span<const double> args) { return 2.0 * args[0]; };
  return bindings;
}

std::unique_ptr<Reference> twice_plus_one() {
  return make_function_reference(
      [](const std::vector<double>& v) {
        Outcome o;
        o.outputs = {{"result", 2.0 * v[0] + 1.0}};
        return o;
      },
      "2a + 1");
}

TEST(Workbench, VerifyServesCallNodesWithTheSessionsBindings) {
  const ProgramSession session(with_call(), twice_bindings());
  auto reference = twice_plus_one();
  auto report = workbench::verify(session, *reference);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->passed);
  EXPECT_TRUE(report->exhaustive);
  EXPECT_EQ(report->cases, 41u);
  // The program alone, without the session, has nothing to call.
  auto bare = tc::verify(session.program(), *twice_plus_one());
  EXPECT_FALSE(bare.ok());
}

TEST(Workbench, VerifyKeepsBindingsTheCallerNames) {
  const ProgramSession session(with_call(), twice_bindings());
  Bindings thrice;
  thrice["twice"].forward = [](std::span<const double> args) { return 3.0 * args[0]; };
  VerifyOptions options;
  options.eval.bindings = &thrice;
  auto report = workbench::verify(session, *twice_plus_one(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_FALSE(report->passed) << "the caller's bindings, not the session's, ran";
  EXPECT_EQ(report->mismatch_count, 40u) << "every case but a = 0";
}

TEST(Workbench, VerifiedReplacementRunsTheOriginalWithItsSessionsBindings) {
  const ProgramSession original(with_call(), twice_bindings());
  Builder b;
  Value a = b.input("a", Domain::int32(-20, 20));
  const ProgramSession candidate(b.build({{"result", 2.0 * a + 1.0}}).value());
  auto verdict = workbench::verified_replacement(original, candidate);
  ASSERT_TRUE(verdict.ok()) << verdict.error().message;
  // The gate refuses a candidate with other structure only for state,
  // parameters or calls: this one has none, and agrees on all 41 cases.
  EXPECT_TRUE(verdict->accepted) << verdict->reason;
}

Program affine(double k) {
  Builder b;
  Value x = b.input("x", Domain::int32(0, 100));
  return b.build({{"y", x * k + 1.0}}).value();
}

TEST(Workbench, ProveAndDiffAreTheCoreCallsOnTheSessionsPrograms) {
  const ProgramSession a(affine(2.0)), same(affine(2.0)), other(affine(3.0));
  prove::ProveOptions options;
  options.timeout_s = 30;
  options.cvc5.clear();  // Z3 alone: the test is about the routing, not the second opinion
  auto equal = workbench::prove(a, &same, options);
  ASSERT_TRUE(equal.ok()) << equal.error().message;
  EXPECT_EQ(equal->verdict, prove::Verdict::Equivalent);
  auto different = workbench::prove(a, &other, options);
  ASSERT_TRUE(different.ok()) << different.error().message;
  EXPECT_EQ(different->verdict, prove::Verdict::Different);
  auto total = workbench::prove(a, nullptr, options);
  ASSERT_TRUE(total.ok()) << total.error().message;
  EXPECT_EQ(total->verdict, prove::Verdict::CannotFail);

  auto d = workbench::diff(a, other);
  auto direct = diff_programs(a.program(), other.program());
  ASSERT_TRUE(d.ok() && direct.ok());
  EXPECT_FALSE(d->same());
  EXPECT_EQ(d->same_structure(), direct->same_structure());
  EXPECT_TRUE(workbench::diff(a, same)->same());
}

TEST(Workbench, EmitIsTheTargetTableOnTheSessionsProgram) {
  const ProgramSession s(affine(2.0));
  for (const emit::TargetSpec& t : emit::targets()) {
    emit::TargetOptions options;
    options.spirv_text_without_tools = true;
    auto mine = workbench::emit(s, t.name, options);
    auto direct = emit::emit_target(s.program(), t.name, options);
    ASSERT_EQ(mine.ok(), direct.ok()) << t.name;
    if (mine.ok()) EXPECT_EQ(mine->bytes, direct->bytes) << t.name;
  }
  EXPECT_FALSE(workbench::emit(s, "no-such-target").ok());
}

TEST(Workbench, APythonReferenceNeedsASourceOrAFile) {
  workbench::SourceReference spec;
  auto none = workbench::python_reference(spec);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no source to verify against"), std::string::npos) << none.error().message;
  spec.reference_path = (std::filesystem::path(::testing::TempDir()) / "workbench-no-such-file.py").string();
  auto missing = workbench::python_reference(spec);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("workbench-no-such-file.py"), std::string::npos) << missing.error().message;
}

#ifdef TC_HAVE_PYTHON
TEST(Workbench, APythonReferenceIsTheOwnSourceOrTheFileNamed) {
  const std::string own = "def f(a):\n    return 2 * a + 1\n";
  workbench::SourceReference spec;
  spec.source = own;
  spec.filename = "own.py";
  spec.function = "f";
  auto reference = workbench::python_reference(spec);
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  const ProgramSession session(with_call(), twice_bindings());
  auto report = workbench::verify(session, **reference);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->passed);

  // Another file with two functions: the one named as the program's is taken.
  const auto path = std::filesystem::path(::testing::TempDir()) / "workbench_reference.py";
  {
    std::ofstream out(path);
    out << "def g(a):\n    return a\n\ndef f(a):\n    return 2 * a\n";
  }
  spec.reference_path = path.string();
  auto other = workbench::python_reference(spec);
  ASSERT_TRUE(other.ok()) << other.error().message;
  auto off = workbench::verify(session, **other);
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_FALSE(off->passed) << "f of the file (2a), not the own source (2a + 1)";
  EXPECT_EQ(off->mismatch_count, 41u);

  // A module that does not load is located in the reference's file.
  {
    std::ofstream out(path);
    out << "def f(a):\n    return (\n";
  }
  auto broken = workbench::python_reference(spec);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().file, path.string()) << broken.error().format();
  std::filesystem::remove(path);
}
#endif

}  // namespace
}  // namespace tc
