// Golden IR: selected corpus functions compile to exactly the circuit stored
// in tests/data/frontend/golden/NAME.txt (test::disassemble's text form,
// locations included). Run with TC_UPDATE_GOLDEN=1 to rewrite the files after
// an intended change, then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "frontend_util.h"
#include "support/golden.h"

namespace tc {
namespace {

const std::vector<std::string> kGolden = {
    "choose",           "arith_int",         "floordiv_mod_signs", "chained_compare",  "if_elif_else",
    "and_or_values",    "short_circuit_guard", "early_return_loop", "loop_break",       "loop_continue",
    "loop_else",        "list_dynamic_index", "nested_list_index", "return_tuple",     "tuple_unpacking",
    "relu_builtin",     "abs_builtin",       "min_max_many",       "power_int",        "augmented_assignment",
    "bool_inputs",      "float32_dtype",     "several_functions",  "not_operator",     "truthiness",
    "raise_guard",      "assert_checked",    "raise_in_loop",
};

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesStoredIr) {
  const std::string name = GetParam();
  test::CaseFile c = test::load_case(std::string(TC_TEST_DATA) + "/corpus/" + name + ".py");
  ASSERT_TRUE(c.problem.empty()) << c.problem;
  c.options.filename = name + ".py";
  auto r = compile_python(c.source, c.options);
  ASSERT_TRUE(r.ok()) << r.error().format();
  const std::string text = test::disassemble(r->program);
  const std::string golden_path = std::string(TC_TEST_DATA) + "/frontend/golden/" + name + ".txt";
  if (tc::testing::update_golden()) {
    std::ofstream(golden_path, std::ios::binary) << text;
    GTEST_SKIP() << "regenerated " << golden_path;
  }
  const std::string expected = test::slurp(golden_path);
  ASSERT_FALSE(expected.empty()) << golden_path << " is missing: run with TC_UPDATE_GOLDEN=1";
  EXPECT_EQ(text, expected) << "the IR of " << name << " changed; if intended, regenerate with TC_UPDATE_GOLDEN=1";
}

INSTANTIATE_TEST_SUITE_P(Corpus, Golden, ::testing::ValuesIn(kGolden),
                         [](const auto& info) { return info.param; });

// Every corpus function compiles, and every node carries the location of
// the source expression it came from (contract section 2).
class CorpusCompiles : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusCompiles, EveryNodeHasALocation) {
  test::CaseFile c = test::load_case(std::string(TC_TEST_DATA) + "/corpus/" + GetParam());
  ASSERT_TRUE(c.problem.empty()) << c.problem;
  auto r = compile_python(c.source, c.options);
  ASSERT_TRUE(r.ok()) << r.error().format();
  ASSERT_TRUE(validate(r->program).ok());
  int lines = 1;
  for (char ch : c.source) lines += ch == '\n';
  for (const Node& n : r->program.nodes) {
    ASSERT_TRUE(n.location.has_value()) << describe_node(r->program, n.id);
    EXPECT_GE(n.location->line, 1);
    EXPECT_LE(n.location->line, lines);
    EXPECT_GE(n.location->column, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(All, CorpusCompiles,
                         ::testing::ValuesIn(test::python_files(std::string(TC_TEST_DATA) + "/corpus")),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 3);
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(Corpus, HasAtLeastSixtyFunctions) {
  EXPECT_GE(test::python_files(std::string(TC_TEST_DATA) + "/corpus").size(), 60u);
}

}  // namespace
}  // namespace tc
