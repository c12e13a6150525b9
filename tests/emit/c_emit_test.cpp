// The C exporter (emit --target c): every corpus program and 250 random
// programs are emitted, compiled with the system's C compiler (cc, C99,
// -ffp-contract=off, warnings on) into one driver, run on cases that include
// rejected inputs and failing nodes, and compared with the CPU evaluator bit
// for bit: output values (the sign of zeros included), which cases fail, and
// the failing node. Without a C compiler the tests are SKIPPED.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/atomic_file.h"
#include "codegen/c_emitter.h"
#include "codegen/checked_plan.h"
#include "emit/export_programs.h"
#include "ir/artifact.h"
#include "support/examples.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

const char* c_compiler() {
  static std::string cc = [] {
    for (const char* c : {"cc", "gcc", "clang"})
      if (std::system((std::string("command -v ") + c + " >/dev/null 2>&1").c_str()) == 0) return std::string(c);
    return std::string();
  }();
  return cc.empty() ? nullptr : cc.c_str();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Emits, compiles and runs every check; compares with the CPU results.
void compare_with_cpu(const std::vector<testgen::ExportCheck>& checks, std::size_t min_programs) {
  if (!c_compiler()) GTEST_SKIP() << "no C compiler (cc, gcc or clang) on PATH: the C exports are not compiled";
  const fs::path dir = fs::temp_directory_path() / ("tc-c-export-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  std::string driver = "#include <stdio.h>\n#include <stdlib.h>\n";
  std::string table;
  std::vector<std::size_t> emitted;
  std::string files;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const auto& c = checks[i];
    ASSERT_TRUE(c.error.empty()) << c.name << ": the cpu evaluator refused: " << c.error;
    codegen::CExportOptions o;
    o.name = "p" + std::to_string(i);
    // Half the programs with a separate header, half self-contained.
    if (i % 2 == 0) o.header_file = o.name + ".h";
    auto code = codegen::emit_c(c.program, o);
    if (!code.ok()) {
      const std::string& m = code.error().message;
      ASSERT_TRUE(m.find("relaxed semantics") != std::string::npos) << c.name << ": " << m;
      continue;
    }
    ASSERT_TRUE(write_file_atomic((dir / (o.name + ".c")).string(), code->source).ok());
    if (!o.header_file.empty()) ASSERT_TRUE(write_file_atomic((dir / o.header_file).string(), code->header).ok());
    files += " " + o.name + ".c";
    driver += "long " + o.name + "_cases(long, const double *, double *, int *, long *);\n";
    table += "  {" + o.name + "_cases, " + std::to_string(c.columns.size()) + ", " +
             std::to_string(c.program.outputs.size()) + ", " + std::to_string(c.count) + "},\n";
    // Inputs row-major, as the generated _cases function reads them.
    std::vector<double> rows(c.count * c.columns.size());
    for (std::size_t k = 0; k < c.columns.size(); ++k)
      for (std::size_t r = 0; r < c.count; ++r) rows[r * c.columns.size() + k] = c.columns[k][r];
    ASSERT_TRUE(write_file_atomic((dir / ("in" + std::to_string(emitted.size()) + ".bin")).string(),
                                  std::string_view(reinterpret_cast<const char*>(rows.data()), rows.size() * 8))
                    .ok());
    emitted.push_back(i);
  }
  ASSERT_GE(emitted.size(), min_programs) << "too few programs emitted: a broken emitter cannot pass by emitting nothing";
  driver += "typedef long (*cases_fn)(long, const double *, double *, int *, long *);\n";
  driver += "static const struct { cases_fn fn; long k, m, n; } progs[] = {\n" + table + "};\n";
  driver += R"(int main(void) {
  unsigned i;
  for (i = 0; i < sizeof progs / sizeof progs[0]; ++i) {
    char name[64];
    long n = progs[i].n, k = progs[i].k, m = progs[i].m;
    double *in = calloc((size_t)(n * k + 1), sizeof(double)), *out = calloc((size_t)(n * m + 1), sizeof(double));
    int *err = calloc((size_t)n + 1, sizeof(int));
    long *node = calloc((size_t)n + 1, sizeof(long));
    FILE *f;
    sprintf(name, "in%u.bin", i);
    f = fopen(name, "rb");
    if (!f || fread(in, sizeof(double), (size_t)(n * k), f) != (size_t)(n * k)) return 2;
    fclose(f);
    progs[i].fn(n, in, out, err, node);
    sprintf(name, "out%u.bin", i);
    f = fopen(name, "wb");
    fwrite(out, sizeof(double), (size_t)(n * m), f);
    fwrite(err, sizeof(int), (size_t)n, f);
    fwrite(node, sizeof(long), (size_t)n, f);
    fclose(f);
    free(in); free(out); free(err); free(node);
  }
  return 0;
}
)";
  ASSERT_TRUE(write_file_atomic((dir / "driver.c").string(), driver).ok());
  const std::string build = "cd '" + dir.string() + "' && " + c_compiler() +
                            " -std=c99 -pedantic -Wall -Wextra -Werror -O1 -ffp-contract=off"
                            " -o driver driver.c" + files + " -lm > cc.log 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << "cc failed:\n" << slurp(dir / "cc.log").substr(0, 4000);
  const std::string warnings = slurp(dir / "cc.log");
  EXPECT_EQ(warnings.find("warning"), std::string::npos) << warnings.substr(0, 4000);
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && ./driver").c_str()), 0);

  std::size_t cases = 0, failed = 0, input_failures = 0, mismatches = 0;
  for (std::size_t e = 0; e < emitted.size(); ++e) {
    const auto& c = checks[emitted[e]];
    const std::size_t n = c.count, m = c.program.outputs.size();
    const std::string bytes = slurp(dir / ("out" + std::to_string(e) + ".bin"));
    ASSERT_EQ(bytes.size(), n * m * 8 + n * sizeof(int) + n * sizeof(long)) << c.name;
    const char* at = bytes.data();
    std::vector<double> out(n * m);
    std::vector<int> err(n);
    std::vector<long> node(n);
    std::memcpy(out.data(), at, n * m * 8);
    std::memcpy(err.data(), at + n * m * 8, n * sizeof(int));
    std::memcpy(node.data(), at + n * m * 8 + n * sizeof(int), n * sizeof(long));
    const auto inputs = c.program.nodes_of(Op::Input);
    for (std::size_t r = 0; r < n; ++r) {
      ++cases;
      const bool cpu_failed = c.cpu.failed[r] != 0;
      auto report = [&](const std::string& what) {
        if (++mismatches <= 20) ADD_FAILURE() << c.name << " case " << r << ": " << what;
      };
      if (cpu_failed != (err[r] != 0)) {
        report(std::string("cpu ") + (cpu_failed ? "failed at node " + std::to_string(c.cpu_node[r]) : "succeeded") +
               ", c returned " + std::to_string(err[r]) + " at node " + std::to_string(node[r]));
        continue;
      }
      if (cpu_failed) {
        ++failed;
        if (std::find(inputs.begin(), inputs.end(), static_cast<NodeId>(node[r])) != inputs.end()) ++input_failures;
        if (node[r] != c.cpu_node[r])
          report("failing node: cpu " + std::to_string(c.cpu_node[r]) + ", c " + std::to_string(node[r]));
        continue;
      }
      if (node[r] != -1) report("a successful case reports node " + std::to_string(node[r]));
      for (std::size_t o = 0; o < m; ++o) {
        const double a = c.cpu.outputs[o][r], b = out[r * m + o];
        if (std::memcmp(&a, &b, 8) != 0) {
          char buf[128];
          std::snprintf(buf, sizeof buf, "output %zu: cpu %a, c %a", o, a, b);
          report(buf);
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  // The cases exercise the checks, not only the arithmetic.
  EXPECT_GT(failed, 0u);
  EXPECT_GT(input_failures, 0u);
  EXPECT_LT(failed, cases);
  std::printf("c export: %zu programs, %zu cases (%zu failed, %zu of them at an input), %zu mismatches\n",
              emitted.size(), cases, failed, input_failures, mismatches);
  std::error_code ec;
  if (mismatches == 0 && !::testing::Test::HasFailure()) fs::remove_all(dir, ec);
}

TEST(CEmitter, CorpusAgreesWithCpuBitForBit) {
  auto checks = testgen::corpus_checks(Dtype::Float64);
  auto f32 = testgen::corpus_checks(Dtype::Float32);
  checks.insert(checks.end(), std::make_move_iterator(f32.begin()), std::make_move_iterator(f32.end()));
  compare_with_cpu(checks, 100);
}

TEST(CEmitter, RandomFloat64ProgramsAgreeWithCpuBitForBit) {
  compare_with_cpu(testgen::random_checks(Dtype::Float64, 200, 1), 200);
}

TEST(CEmitter, RandomFloat32ProgramsAgreeWithCpuBitForBit) {
  compare_with_cpu(testgen::random_checks(Dtype::Float32, 50, 5001), 50);
}

TEST(CEmitter, RefusesStateCallsAndRelaxedWithLocatedErrors) {
  auto state = codegen::emit_c(examples::counter());
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error().message, "the c backend runs stateless programs only; this program has state");

  Builder b;
  auto x = b.input("x", Domain::float64());
  auto c = b.call("square", {x});
  Program call = b.build(c).value();
  auto r = codegen::emit_c(call);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the c backend cannot run host calls: node 1 (call"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().node, NodeId{1});

  Program relaxed = examples::choose();
  relaxed.semantics = Semantics::Relaxed;
  auto rr = codegen::emit_c(relaxed);
  ASSERT_FALSE(rr.ok());
  EXPECT_NE(rr.error().message.find("uses relaxed semantics"), std::string::npos) << rr.error().message;
  ASSERT_TRUE(rr.error().node.has_value());
}

TEST(CEmitter, RefusesBadNamesAndBadParameterValues) {
  codegen::CExportOptions o;
  for (const char* bad : {"", "1x", "int", "__x", "_X", "a-b", "main"}) {
    o.name = bad;
    auto r = codegen::emit_c(examples::choose(), o);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("cannot name the C functions"), std::string::npos);
  }
  // issue 37: names <math.h> or the export itself declares gave C that did
  // not compile (int floor(double in_a, ...) against math.h's floor).
  for (const char* taken : {"floor", "exp", "sin", "NAN", "isfinite", "TC_OK", "floorf", "expl", "M_PI", "FP_NAN",
                            "y0", "tc_error_kind", "HUGE_VAL", "signbit"}) {
    o.name = taken;
    auto r = codegen::emit_c(examples::choose(), o);
    ASSERT_FALSE(r.ok()) << taken;
    EXPECT_EQ(r.error().message, "'" + std::string(taken) +
                                     "' cannot name the C functions: <math.h> or the export already uses that name, "
                                     "and the C would not compile: pick another (e.g. '" + taken + "_model')");
  }
  for (const char* fine : {"floor_model", "model", "tc_program", "expected", "sine", "nano"}) {
    o.name = fine;
    EXPECT_TRUE(codegen::emit_c(examples::choose(), o).ok()) << fine;
  }
  // The name a file gives: a taken stem gets the prefix.
  EXPECT_EQ(codegen::c_name_for_file("out/floor.c"), "tc_floor");
  EXPECT_EQ(codegen::c_name_for_file("NAN.c"), "tc_NAN");
  EXPECT_EQ(codegen::c_name_for_file("int.c"), "tc_int");
  EXPECT_EQ(codegen::c_name_for_file("gated.c"), "gated");
  // A parameter value outside its domain fails every case on the CPU: the
  // export is refused with the evaluator's words.
  Program g = examples::gated();
  for (auto& n : g.nodes)
    if (n.op == Op::Parameter) {
      n.domain = Domain::float64(0.0, 1.0);
      n.value = 2.0;
    }
  ASSERT_TRUE(validate(g).ok());
  auto r = codegen::emit_c(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "parameter 'weight': 2 is above the maximum 1") << r.error().message;
}

TEST(CEmitter, SourceIsSelfContainedC99WithoutContraction) {
  codegen::CExportOptions o;
  o.name = "choose";
  auto code = codegen::emit_c(examples::choose(), o);
  ASSERT_TRUE(code.ok()) << code.error().message;
  // The standard pragma for the compilers that know it; not for GCC, which
  // warns about it (docs/backends.md: -ffp-contract=off there).
  EXPECT_NE(code->source.find("#elif !defined(__GNUC__) || defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif"),
            std::string::npos);
  EXPECT_NE(code->source.find("int choose(double in_a, double *out_result, long *error_node)"), std::string::npos);
  EXPECT_NE(code->source.find("long choose_cases(long count"), std::string::npos);
  // Only <math.h>: no other include, and the header includes nothing.
  std::size_t includes = 0;
  for (std::size_t p = code->source.find("#include"); p != std::string::npos; p = code->source.find("#include", p + 1))
    ++includes;
  EXPECT_EQ(includes, 1u);
  EXPECT_NE(code->source.find("#include <math.h>"), std::string::npos);
  EXPECT_EQ(code->header.find("#include"), std::string::npos);
}

// issue 37: the header's name went through the string-literal escaper, so
// `-o modèle.c` wrote #include "mod\303\250le.h" and `what?.c` wrote
// "what\077.h" (an #include processes no escapes: no such file).
TEST(CEmitter, TheHeaderIsIncludedByItsOwnNameOrRefused) {
  codegen::CExportOptions o;
  o.name = "model";
  for (const std::string header : {"mod\xc3\xa8le.h", "what?.h", "a b.h", "x-y.h"}) {
    o.header_file = header;
    auto code = codegen::emit_c(examples::choose(), o);
    ASSERT_TRUE(code.ok()) << header << ": " << code.error().message;
    EXPECT_NE(code->source.find("#include \"" + header + "\"\n"), std::string::npos) << code->source.substr(0, 600);
  }
  for (const std::string header : {"a\"b.h", "a\\b.h", "a'b.h", "wh?" "?=t.h", "a\nb.h", "a/*b.h", "a//b.h"}) {
    o.header_file = header;
    auto code = codegen::emit_c(examples::choose(), o);
    ASSERT_FALSE(code.ok()) << header;
    EXPECT_NE(code.error().message.find("cannot be written in an #include"), std::string::npos)
        << code.error().message;
  }
}

// issue 37: every export failed `gcc -std=c99 -pedantic -Wall -Wextra
// -Werror` (GCC warns that it ignores #pragma STDC FP_CONTRACT). These are
// the flags users pass, without -ffp-contract=off or -Wno-unknown-pragmas;
// a source and the header it includes by a UTF-8 name, compiled as written.
TEST(CEmitter, TheExportCompilesWithPlainWarningFlagsAsAnError) {
  if (!c_compiler()) GTEST_SKIP() << "no C compiler (cc, gcc or clang) on PATH: the C exports are not compiled";
  const fs::path dir = fs::temp_directory_path() / ("tc-c-plain-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  codegen::CExportOptions o;
  o.name = codegen::c_name_for_file("floor.c");
  o.header_file = "mod\xc3\xa8le.h";
  auto code = codegen::emit_c(examples::gated(), o);
  ASSERT_TRUE(code.ok()) << code.error().message;
  ASSERT_TRUE(write_file_atomic((dir / "mod\xc3\xa8le.h").string(), code->header).ok());
  ASSERT_TRUE(write_file_atomic((dir / "mod\xc3\xa8le.c").string(), code->source).ok());
  const std::string build = "cd '" + dir.string() + "' && " + c_compiler() +
                            " -std=c99 -pedantic -Wall -Wextra -Werror -c mod\xc3\xa8le.c -o m.o > cc.log 2>&1";
  const int rc = std::system(build.c_str());
  const std::string log = slurp(dir / "cc.log");
  fs::remove_all(dir);
  EXPECT_EQ(rc, 0) << log.substr(0, 4000);
  EXPECT_EQ(log, "");
}

// A select whose condition is a comparison over whole vectors blends on the
// comparison's mask, not on its 1.0/+0.0 value tested against zero (the
// round trip cost GCC's combiner 8 of 10 s on an AVX-512 branchy loop); a
// condition that is not a comparison (an input) keeps the test. The values
// stay the evaluator's: the random-program tests above and the compiled
// plan's tests run both forms.
TEST(CEmitter, ASelectOnAComparisonBlendsOnItsMask) {
  Builder b;
  auto x = b.input("x", Domain::float64(-100, 100));
  auto flag = b.input("flag", Domain::boolean());
  auto y = b.select(b.op("gt", x, 1.0), x * 2.0, x - 3.0);
  auto z = b.select(flag, y, x);
  Program p = b.build(z).value();
  auto plan = codegen::make_checked_plan(p, "test");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  codegen::CKernelOptions o;
  const std::string src = codegen::emit_c_kernel(*plan, o);
  auto define_of = [&](NodeId id) {
    const std::string head = "#define TC_N" + std::to_string(id) + "(c) ";
    const std::size_t at = src.find(head);
    return at == std::string::npos ? std::string() : src.substr(at, src.find('\n', at) - at);
  };
  const std::string fused = define_of(static_cast<NodeId>(y.id()));
  EXPECT_NE(fused.find("TC_BLEND((v0_##c > TC_SPLAT("), std::string::npos) << fused;
  EXPECT_EQ(fused.find("!= TC_ZERO"), std::string::npos) << fused;
  const std::string kept = define_of(static_cast<NodeId>(z.id()));
  EXPECT_NE(kept.find("TC_BLEND(v1_##c != TC_ZERO"), std::string::npos) << kept;
}

}  // namespace
}  // namespace tc
