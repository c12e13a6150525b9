// The option table (options/option_table.h): its rows agree with the IR's
// enums and spellings, and each client's name follows from one row.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "options/option_table.h"

namespace tc::options {
namespace {

TEST(OptionTable, RowsAreInIdOrderWithDistinctNames) {
  std::set<std::string_view> names;
  std::size_t i = 0;
  for (const OptionSpec& spec : option_table()) {
    EXPECT_EQ(static_cast<std::size_t>(spec.id), i++) << spec.name;
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
    if (spec.kind == OptionKind::Count) EXPECT_LE(spec.lo, spec.hi) << spec.name;
    if (spec.kind == OptionKind::Choice) EXPECT_FALSE(spec.choices.empty()) << spec.name;
  }
}

TEST(OptionTable, EachClientsSpellingFollowsFromTheName) {
  const OptionSpec& nodes = option_spec(OptionId::MaxNodes);
  EXPECT_EQ(spelled(nodes, KeySpelling::Snake), "max_nodes");
  EXPECT_EQ(spelled(nodes, KeySpelling::Camel), "maxNodes");
  EXPECT_EQ(spelled(nodes, KeySpelling::Cli), "--max-nodes");
  const OptionSpec& directives = option_spec(OptionId::UseInputDirectives);
  EXPECT_EQ(spelled(directives, KeySpelling::Camel), "useInputDirectives");
  EXPECT_EQ(spelled(option_spec(OptionId::Dtype), KeySpelling::Cli), "--dtype");
}

/// Every word of a choice is one the IR reads back, the first is
/// CompileOptions' default, and every enum value has its word.
TEST(OptionTable, ChoicesAreTheIrsSpellingsDefaultFirst) {
  const CompileOptions defaults;
  const OptionSpec& sem = option_spec(OptionId::Semantics);
  ASSERT_EQ(sem.choices.size(), 3u);
  EXPECT_EQ(semantics_from(sem.choices[0]), defaults.semantics);
  for (auto s : {Semantics::Exact, Semantics::Relaxed, Semantics::Hybrid})
    EXPECT_NE(std::find(sem.choices.begin(), sem.choices.end(), to_string(s)), sem.choices.end()) << to_string(s);
  const OptionSpec& dt = option_spec(OptionId::Dtype);
  ASSERT_EQ(dt.choices.size(), 2u);
  EXPECT_EQ(dtype_from(dt.choices[0]), defaults.dtype);
  for (auto d : {Dtype::Float64, Dtype::Float32})
    EXPECT_NE(std::find(dt.choices.begin(), dt.choices.end(), to_string(d)), dt.choices.end()) << to_string(d);
  const OptionSpec& sur = option_spec(OptionId::Surrogate);
  ASSERT_EQ(sur.choices.size(), 1u);
  EXPECT_EQ(surrogate_from(sur.choices[0]), defaults.surrogate);
  EXPECT_EQ(choices_text(sem), "exact, relaxed or hybrid");
  EXPECT_EQ(choices_text(dt), "float64 or float32");
  EXPECT_EQ(choices_text(sur), "sigmoid");
  EXPECT_EQ(choice_words(dt), (std::vector<std::string>{"float64", "float32"}));
}

/// The node budget's ceiling keeps the per-argument budget (8 per node)
/// inside a std::size_t; the defaults are inside the ranges.
TEST(OptionTable, BudgetRangesHoldTheDefaultsAndCannotWrap) {
  const CompileOptions defaults;
  const OptionSpec& nodes = option_spec(OptionId::MaxNodes);
  const OptionSpec& iterations = option_spec(OptionId::MaxIterations);
  EXPECT_EQ(nodes.lo, 1u);
  EXPECT_EQ(iterations.lo, 1u);
  EXPECT_LE(nodes.hi * 8, static_cast<std::uint64_t>(static_cast<std::size_t>(-1)));
  EXPECT_EQ(nodes.hi, static_cast<std::uint64_t>(static_cast<std::size_t>(-1)) / 8) << "the largest that fits";
  EXPECT_GE(defaults.max_nodes, nodes.lo);
  EXPECT_LE(defaults.max_nodes, nodes.hi);
  EXPECT_GE(defaults.max_iterations, iterations.lo);
  EXPECT_EQ(range_text(nodes), "an integer from 1 to " + std::to_string(kMaxNodeBudget));
  EXPECT_TRUE(nodes.directive);
  EXPECT_TRUE(iterations.directive);
  EXPECT_TRUE(option_spec(OptionId::Dtype).directive);
  EXPECT_FALSE(option_spec(OptionId::Semantics).directive);
}

/// The plan is a row like the compile options (the CLI's --plan, Python's
/// plan=), given to a run: its default first, every EvalPlan named.
TEST(OptionTable, ThePlanIsARunOptionOfTheTable) {
  const OptionSpec& plan = option_spec(OptionId::Plan);
  EXPECT_EQ(plan.scope, OptionScope::Run);
  EXPECT_EQ(choice_words(plan), (std::vector<std::string>{"auto", "interpreter", "compiled"}));
  EXPECT_EQ(choices_text(plan), "auto, interpreter or compiled");
  EXPECT_EQ(spelled(plan, KeySpelling::Cli), "--plan");
  EXPECT_FALSE(plan.directive);
  for (const OptionSpec& spec : option_table())
    if (spec.id != OptionId::Plan) EXPECT_EQ(spec.scope, OptionScope::Compile) << spec.name;
}

}  // namespace
}  // namespace tc::options
