// core's option layer for the bindings (options/binding_options.h): the
// values each binding may pass, the defaults it keeps, and the words of every
// refusal, which python/ and sdk/typescript/ tests quote.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "options/binding_options.h"

namespace tc::options {
namespace {

using nlohmann::json;

struct Refusal {
  const char* bag;  // JSON text
  KeySpelling spelling;
  const char* message;
};

class CompileOptionRefusals : public ::testing::TestWithParam<Refusal> {};

TEST_P(CompileOptionRefusals, NameTheOptionAndWhatItTakes) {
  const Refusal& r = GetParam();
  auto o = compile_options(json::parse(r.bag), r.spelling, HintSpelling::Python);
  ASSERT_FALSE(o) << r.bag;
  EXPECT_EQ(o.error().message, r.message);
}

INSTANTIATE_TEST_SUITE_P(
    Data, CompileOptionRefusals,
    ::testing::Values(
        Refusal{R"({"dtype": "float16"})", KeySpelling::Snake, "dtype must be float64 or float32, got 'float16'"},
        Refusal{R"({"dtype": 3})", KeySpelling::Camel, "dtype must be float64 or float32, got number"},
        Refusal{R"({"semantics": "fuzzy"})", KeySpelling::Snake, "semantics must be exact, relaxed or hybrid, got 'fuzzy'"},
        Refusal{R"({"semantics": true})", KeySpelling::Snake, "semantics must be exact, relaxed or hybrid, got boolean"},
        Refusal{R"({"surrogate": "tanh"})", KeySpelling::Snake, "surrogate must be sigmoid, got 'tanh'"},
        Refusal{R"({"temperature": 0})", KeySpelling::Snake, "temperature must be finite and greater than 0, got 0"},
        Refusal{R"({"temperature": "1"})", KeySpelling::Snake, "temperature must be finite and greater than 0, got '1'"},
        Refusal{R"({"function": 5})", KeySpelling::Camel, "function must be a string, got number"},
        Refusal{R"({"filename": [1]})", KeySpelling::Camel, "filename must be a string, got array"},
        Refusal{R"({"maxIterations": 1.5})", KeySpelling::Camel,
                "maxIterations must be an integer from 1 to 18446744073709551615, got 1.5"},
        Refusal{R"({"max_iterations": -3})", KeySpelling::Snake,
                "max_iterations must be an integer from 1 to 18446744073709551615, got -3"},
        // max_iterations=0 is refused as the CLI and the compile directive refuse it (issue 37 item 3).
        Refusal{R"({"max_iterations": 0})", KeySpelling::Snake,
                "max_iterations must be an integer from 1 to 18446744073709551615, got 0"},
        Refusal{R"({"max_nodes": 0})", KeySpelling::Snake,
                "max_nodes must be an integer from 1 to 2305843009213693951, got 0"},
        // From 2^61 the argument budget (8 per node) wrapped (issue 37 item 3).
        Refusal{R"({"max_nodes": 2305843009213693952})", KeySpelling::Snake,
                "max_nodes must be an integer from 1 to 2305843009213693951, got 2305843009213693952"},
        Refusal{R"({"max_nodes": 18446744073709551615})", KeySpelling::Snake,
                "max_nodes must be an integer from 1 to 2305843009213693951, got 18446744073709551615"},
        Refusal{R"({"max_nodes": true})", KeySpelling::Snake,
                "max_nodes must be an integer from 1 to 2305843009213693951, got boolean"},
        Refusal{R"({"max_nodes": 1.5})", KeySpelling::Snake,
                "max_nodes must be an integer from 1 to 2305843009213693951, got 1.5"},
        Refusal{R"({"max_nodes": "100"})", KeySpelling::Cli,
                "--max-nodes must be an integer from 1 to 2305843009213693951, got string"},
        Refusal{R"({"maxNodes": "10"})", KeySpelling::Camel,
                "maxNodes must be an integer from 1 to 2305843009213693951, got string"},
        Refusal{R"({"useInputDirectives": "yes"})", KeySpelling::Camel, "useInputDirectives must be true or false, got string"},
        Refusal{R"({"inputs": {"a": 3}})", KeySpelling::Snake, "input 'a': the domain must be a string such as 'int32:-128:127'"},
        Refusal{R"({"inputs": [1]})", KeySpelling::Snake, "inputs must be an object naming a domain per input, got array"},
        Refusal{R"([1, 2])", KeySpelling::Snake, "compile options must be an object, got array"}));

TEST(CompileOptions, LeftOutOrNullKeysKeepTheDefaults) {
  const CompileOptions defaults;
  for (const char* text : {"{}", "null", R"({"dtype": null, "max_nodes": null})"}) {
    auto o = compile_options(json::parse(text), KeySpelling::Snake, HintSpelling::Cli);
    ASSERT_TRUE(o) << text;
    EXPECT_EQ(o->dtype, defaults.dtype);
    EXPECT_EQ(o->semantics, defaults.semantics);
    EXPECT_EQ(o->max_iterations, defaults.max_iterations);
    EXPECT_EQ(o->max_nodes, defaults.max_nodes);
    EXPECT_EQ(o->filename, defaults.filename);
    EXPECT_TRUE(o->use_input_directives);
  }
}

TEST(CompileOptions, EverySpellingReachesItsField) {
  auto snake = compile_options(json::parse(R"({"filename": "f.py", "function": "g", "dtype": "float32",
      "semantics": "hybrid", "temperature": 0.25, "max_iterations": 7, "max_nodes": 9,
      "use_input_directives": false, "inputs": {"a": "int32:0:3", "b": "float64"}})"),
                               KeySpelling::Snake, HintSpelling::Python);
  ASSERT_TRUE(snake) << snake.error().message;
  EXPECT_EQ(snake->filename, "f.py");
  EXPECT_EQ(snake->function, "g");
  EXPECT_EQ(snake->dtype, Dtype::Float32);
  EXPECT_EQ(snake->semantics, Semantics::Hybrid);
  EXPECT_EQ(snake->temperature, 0.25);
  EXPECT_EQ(snake->max_iterations, 7u);
  EXPECT_EQ(snake->max_nodes, 9u);
  EXPECT_FALSE(snake->use_input_directives);
  EXPECT_EQ(snake->hints, HintSpelling::Python);
  ASSERT_EQ(snake->inputs.size(), 2u);
  EXPECT_EQ(snake->inputs[0].first, "a");
  EXPECT_EQ(snake->inputs[0].second.to_string(), parse_domain("int32:0:3")->to_string());

  auto camel = compile_options(json::parse(R"({"maxIterations": 3, "maxNodes": 4, "useInputDirectives": false,
      "max_iterations": 99})"),
                               KeySpelling::Camel, HintSpelling::Cli);
  ASSERT_TRUE(camel);
  EXPECT_EQ(camel->max_iterations, 3u) << "the other language's spelling is not read";
  EXPECT_EQ(camel->max_nodes, 4u);
  EXPECT_FALSE(camel->use_input_directives);
}

TEST(CompileOptions, ACountWrittenAsAWholeFloatIsTaken) {
  auto o = compile_options(json::parse(R"({"max_iterations": 2048.0})"), KeySpelling::Snake, HintSpelling::Cli);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->max_iterations, 2048u);
}

TEST(CompileRequest, GivenSettingsBeatTheFilesDirectiveWhichBeatsTheDefaults) {
  const std::string source = "# tensorcode: compile dtype=float32 max-iterations=4096 max-nodes=500\ndef f(a):\n    return a\n";
  auto none = compile_request(json::object(), KeySpelling::Snake, HintSpelling::Python);
  ASSERT_TRUE(none);
  auto file = none->for_source(source);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->dtype, Dtype::Float32);
  EXPECT_EQ(file->max_iterations, 4096u);
  EXPECT_EQ(file->max_nodes, 500u);
  EXPECT_EQ(file->hints, HintSpelling::Python);

  auto some = compile_request(json::parse(R"({"maxNodes": 9, "dtype": "float64", "semantics": "relaxed"})"),
                              KeySpelling::Camel, HintSpelling::TypeScript);
  ASSERT_TRUE(some);
  EXPECT_EQ(some->given.max_nodes, std::optional<std::size_t>(9));
  EXPECT_EQ(some->given.dtype, std::optional<Dtype>(Dtype::Float64));
  EXPECT_FALSE(some->given.max_iterations);
  auto mixed = some->for_source(source);
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->dtype, Dtype::Float64) << "a given dtype wins over the file's";
  EXPECT_EQ(mixed->max_nodes, 9u);
  EXPECT_EQ(mixed->max_iterations, 4096u) << "one not given comes from the file";
  EXPECT_EQ(mixed->semantics, Semantics::Relaxed);

  auto bad = none->for_source("\n# tensorcode: compile speed=11\ndef f(a):\n    return a\n");
  ASSERT_FALSE(bad);
  ASSERT_TRUE(bad.error().loc);
  EXPECT_EQ(bad.error().loc->line, 2);
}

TEST(BuilderSettings, SameRulesAsCompile) {
  auto b = builder_settings(json::parse(R"({"semantics": "relaxed", "temperature": 2, "dtype": "float32"})"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->semantics, Semantics::Relaxed);
  EXPECT_EQ(b->temperature, 2.0);
  EXPECT_EQ(b->dtype, Dtype::Float32);
  auto bad = builder_settings(json::parse(R"({"semantics": "fuzzy"})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "semantics must be exact, relaxed or hybrid, got 'fuzzy'");
}

TEST(RunOptions, ThePlanIsReadFromTheTableAndRefusedByACompile) {
  EXPECT_EQ(*plan(json("auto")), EvalPlan::Auto);
  EXPECT_EQ(*plan(json("interpreter")), EvalPlan::Interpreter);
  EXPECT_EQ(*plan(json("compiled")), EvalPlan::Compiled);
  EXPECT_EQ(plan(json("fast")).error().message, "plan must be auto, interpreter or compiled, got 'fast'");
  EXPECT_EQ(plan(json(1)).error().message, "plan must be auto, interpreter or compiled, got number");
  auto compile = compile_options(json{{"plan", "compiled"}}, KeySpelling::Snake, HintSpelling::Python);
  ASSERT_FALSE(compile.ok());
  EXPECT_EQ(compile.error().message, "plan is an option of a run (run, run_batch), not of a compile");
}

TEST(TypeName, AsJavaScriptNamesThem) {
  EXPECT_EQ(type_name(json(1)), "number");
  EXPECT_EQ(type_name(json(1.5)), "number");
  EXPECT_EQ(type_name(json("x")), "string");
  EXPECT_EQ(type_name(json(true)), "boolean");
  EXPECT_EQ(type_name(json(nullptr)), "null");
  EXPECT_EQ(type_name(json::array()), "array");
  EXPECT_EQ(type_name(json::object()), "object");
}

}  // namespace
}  // namespace tc::options
