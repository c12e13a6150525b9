// `# tensorcode: input NAME=DOMAIN` directives: parsing, rewriting, and
// compiling with them.
#include <gtest/gtest.h>

#include "frontend_util.h"

namespace tc {
namespace {

TEST(Directives, ParseInFileOrder) {
  auto d = parse_input_directives(
      "#!/usr/bin/env python3\n# tensorcode: input a=int32:-128:127 flag=bool\n#tensorcode:input x=float64:-1:1\n"
      "# an ordinary comment mentioning tensorcode\ndef f(a, flag, x):\n    return a\n");
  ASSERT_TRUE(d.ok()) << d.error().format();
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ((*d)[0].first, "a");
  EXPECT_EQ((*d)[0].second, Domain::int32(-128, 127));
  EXPECT_EQ((*d)[1].second, Domain::boolean());
  EXPECT_EQ((*d)[2].first, "x");
  EXPECT_EQ((*d)[2].second, Domain::float64(-1, 1));
}

TEST(Directives, ErrorsAreLocated) {
  struct Case {
    const char* src;
    int line, column;
    const char* text;
  } cases[] = {
      {"# tensorcode: inptu a=bool\n", 1, 15, "unknown tensorcode directive"},
      {"\n# tensorcode: input a=int33\n", 2, 23, "input 'a'"},
      {"# tensorcode: input a\n", 1, 21, "must be NAME=DOMAIN"},
      {"# tensorcode: input a=bool a=bool\n", 1, 28, "given twice"},
      {"# tensorcode: input\n", 1, 20, "names no input"},
  };
  for (const Case& c : cases) {
    auto d = parse_input_directives(c.src, "m.py");
    ASSERT_FALSE(d.ok()) << c.src;
    EXPECT_EQ(d.error().loc, (SourceLoc{c.line, c.column})) << c.src << d.error().format();
    EXPECT_NE(d.error().message.find(c.text), std::string::npos) << d.error().message;
    EXPECT_EQ(d.error().file, "m.py");
  }
}

TEST(Directives, InsertAtTopOrAfterShebang) {
  std::vector<std::pair<std::string, Domain>> in = {{"a", Domain::int32(-128, 127)}, {"b", Domain::boolean()}};
  EXPECT_EQ(set_input_directives("def f(a, b):\n    return a\n", in),
            "# tensorcode: input a=int32:-128:127\n# tensorcode: input b=bool\ndef f(a, b):\n    return a\n");
  EXPECT_EQ(set_input_directives("#!/usr/bin/python3\n# -*- coding: utf-8 -*-\ndef f(a, b):\n    return a\n", in),
            "#!/usr/bin/python3\n# -*- coding: utf-8 -*-\n# tensorcode: input a=int32:-128:127\n"
            "# tensorcode: input b=bool\ndef f(a, b):\n    return a\n");
}

TEST(Directives, ReplaceInPlaceKeepingEverythingElse) {
  const std::string src =
      "# header\r\n# tensorcode: input a=int32:0:1\r\ndef f(a):\r\n    # tensorcode: input a=bool\r\n    return a\r\n";
  std::string out = set_input_directives(src, {{"a", Domain::float64(-2, 2)}});
  EXPECT_EQ(out, "# header\r\n# tensorcode: input a=float64:-2:2\r\ndef f(a):\r\n    return a\r\n");
  // Removing all directives.
  EXPECT_EQ(set_input_directives(src, {}), "# header\r\ndef f(a):\r\n    return a\r\n");
  // Round trip: what was written parses back.
  auto back = parse_input_directives(out);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].second, Domain::float64(-2, 2));
}

// Issue 15 point 5 changed this: core applies the directives by default, so
// the CLI, the IDE and the Python package read a file the same way.
TEST(Directives, CompileUsesThemUnlessTurnedOff) {
  const char* src = "# tensorcode: input a=int32:-128:127\ndef choose(a):\n    return 10 if a > 4 else 12\n";
  CompileOptions o;
  o.use_input_directives = false;
  auto plain = compile_python(src, o);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.error().message.find("no input domain"), std::string::npos);
  o.use_input_directives = true;
  EXPECT_TRUE(CompileOptions{}.use_input_directives);
  auto with = compile_python(src, o);
  ASSERT_TRUE(with.ok()) << with.error().format();
  EXPECT_EQ(with->program.nodes[0].domain, Domain::int32(-128, 127));
  // An explicit input wins over the directive.
  o.inputs = {{"a", Domain::int32(0, 9)}};
  auto explicit_ = compile_python(src, o);
  ASSERT_TRUE(explicit_.ok());
  EXPECT_EQ(explicit_->program.nodes[0].domain, Domain::int32(0, 9));
}

TEST(Directives, ExamplesCarryTheirDomains) {
  for (const char* name : {"choose", "piecewise", "gated", "bounded_search"}) {
    std::string path = std::string(TC_SOURCE_DIR) + "/resources/examples/" + name + ".py";
    std::string src = test::slurp(path);
    ASSERT_FALSE(src.empty()) << path;
    CompileOptions o;
    o.filename = path;
    o.use_input_directives = true;
    auto c = compile_python(src, o);
    EXPECT_TRUE(c.ok()) << c.error().format();
    if (c) EXPECT_TRUE(c->warnings.empty()) << c->warnings[0].format();
  }
}

TEST(CompileDirectives, ParseSetAndLeaveInputDirectivesAlone) {
  const std::string src =
      "# tensorcode: input a=int32:0:9\n# tensorcode: compile dtype=float32 max-iterations=4096\ndef f(a):\n    return a\n";
  auto inputs = parse_input_directives(src);
  ASSERT_TRUE(inputs.ok()) << inputs.error().format();  // a compile line is no unknown input directive
  EXPECT_EQ(inputs->size(), 1u);
  auto d = parse_compile_directives(src);
  ASSERT_TRUE(d.ok()) << d.error().format();
  EXPECT_EQ(d->dtype, Dtype::Float32);
  EXPECT_EQ(d->max_iterations, std::size_t{4096});
  EXPECT_FALSE(d->max_nodes);
  CompileDirectives more = *d;
  more.max_nodes = 200000;
  more.dtype.reset();
  const std::string out = set_compile_directives(src, more);
  EXPECT_EQ(out, "# tensorcode: input a=int32:0:9\n# tensorcode: compile max-iterations=4096 max-nodes=200000\n"
                 "def f(a):\n    return a\n");
  EXPECT_EQ(*parse_compile_directives(out), more);
  EXPECT_EQ(set_compile_directives(out, {}), "# tensorcode: input a=int32:0:9\ndef f(a):\n    return a\n");
  // Added to a file without one: at the top.
  EXPECT_EQ(set_compile_directives("def f(a):\n    return a\n", more),
            "# tensorcode: compile max-iterations=4096 max-nodes=200000\ndef f(a):\n    return a\n");
  CompileOptions o;
  apply_compile_directives(more, o);
  EXPECT_EQ(o.max_nodes, 200000u);
  EXPECT_EQ(o.max_iterations, 4096u);
}

TEST(CompileDirectives, ErrorsAreLocated) {
  auto bad_key = parse_compile_directives("\n# tensorcode: compile speed=11\n");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_EQ(bad_key.error().loc, (SourceLoc{2, 23}));  // the key's first column
  EXPECT_NE(bad_key.error().message.find("unknown compile directive key 'speed'"), std::string::npos);
  EXPECT_FALSE(parse_compile_directives("# tensorcode: compile dtype=int8\n").ok());
  EXPECT_FALSE(parse_compile_directives("# tensorcode: compile max-nodes=0\n").ok());
  EXPECT_FALSE(parse_compile_directives("# tensorcode: compile max-nodes=-3\n").ok());
  EXPECT_FALSE(parse_compile_directives("# tensorcode: compile max-nodes\n").ok());
}

// issue 37: a directive quoted in a docstring was obeyed (run gave
// 0.30000001192092896, float32, where CPython gives 0.30000000000000004).
// Only comments are directives: the lexer says which lines are comments.
TEST(CompileDirectives, ADirectiveInAStringIsText) {
  const std::string src =
      "def f(x):\n"
      "    \"\"\"Adds.\n"
      "    # tensorcode: compile dtype=float32 max-nodes=5\n"
      "    # tensorcode: input x=int32:0:3\n"
      "    \"\"\"\n"
      "    s = '''\n"
      "# tensorcode: compile max-iterations=7\n"
      "'''\n"
      "    return x + 0.2\n";
  auto d = parse_compile_directives(src);
  ASSERT_TRUE(d.ok()) << d.error().format();
  EXPECT_EQ(*d, CompileDirectives{});
  auto inputs = parse_input_directives(src);
  ASSERT_TRUE(inputs.ok()) << inputs.error().format();
  EXPECT_TRUE(inputs->empty());
  auto o = with_compile_directives(src, CompileOptions{});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->dtype, Dtype::Float64);
  EXPECT_EQ(o->max_nodes, CompileOptions{}.max_nodes);
  // Rewriting the directives leaves the strings alone and puts the new
  // lines at the top.
  EXPECT_EQ(set_input_directives(src, {{"x", Domain::float64(-1, 1)}}), "# tensorcode: input x=float64:-1:1\n" + src);
  EXPECT_EQ(set_compile_directives(src, {}), src);
  // A real comment beside them still counts, also an indented one.
  const std::string both = "# tensorcode: compile dtype=float32\n" + src + "    # tensorcode: input x=int32:0:3\n";
  EXPECT_EQ(parse_compile_directives(both)->dtype, Dtype::Float32);
  EXPECT_EQ(parse_input_directives(both)->size(), 1u);
  // Past a syntax error the lexer cannot tell: those lines are read as text
  // (the source does not compile; the IDE still shows its directives).
  const std::string broken = "def f(x):\n    return (x +\n# tensorcode: compile dtype=float32\n";
  EXPECT_EQ(parse_compile_directives(broken)->dtype, Dtype::Float32);
}

// issue 37: a key given twice took the last one silently.
TEST(CompileDirectives, AKeyGivenTwiceIsRefused) {
  auto twice = parse_compile_directives("# tensorcode: compile dtype=float32\n# tensorcode: compile  dtype=float64\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "compile directive key 'dtype' is given twice (also at line 1): keep one");
  EXPECT_EQ(twice.error().loc, (SourceLoc{2, 24}));
  auto same_line = parse_compile_directives("# tensorcode: compile max-nodes=10 max-nodes=10\n");
  ASSERT_FALSE(same_line.ok());
  EXPECT_EQ(same_line.error().loc, (SourceLoc{1, 36}));
  EXPECT_TRUE(parse_compile_directives("# tensorcode: compile dtype=float32\n# tensorcode: compile max-nodes=10\n").ok());
}

// issue 37: a source could raise its own budgets to 10^12 and run out of
// memory (1.9 GB, 14.6 s) instead of stopping at a budget error.
TEST(CompileDirectives, ASourceCannotRaiseItsBudgetsPastTheCeiling) {
  auto huge = parse_compile_directives("# tensorcode: compile max-iterations=1000000000000\n", "big.py");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message,
            "compile directive: max-iterations=1000000000000 is above the most a source file may ask for (1000000); "
            "give a larger budget to the compile itself instead (--max-iterations, max_iterations=)");
  EXPECT_EQ(huge.error().loc, (SourceLoc{1, 38}));
  EXPECT_EQ(huge.error().file, "big.py");
  EXPECT_FALSE(parse_compile_directives("# tensorcode: compile max-nodes=99999999999999999999999999\n").ok());
  EXPECT_EQ(parse_compile_directives("# tensorcode: compile max-nodes=1000000\n")->max_nodes, std::size_t{1000000});
  // The caller sets the ceiling ...
  DirectiveCeiling low;
  low.max_nodes = 10;
  EXPECT_FALSE(parse_compile_directives("# tensorcode: compile max-nodes=11\n", "<source>", low).ok());
  EXPECT_TRUE(parse_compile_directives("# tensorcode: compile max-nodes=10\n", "<source>", low).ok());
  // ... and a budget it gives explicitly wins without one.
  CompileDirectives given;
  given.max_iterations = 50;
  auto o = with_compile_directives("# tensorcode: compile max-iterations=1000000000000\n", CompileOptions{}, given);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->max_iterations, 50u);
  EXPECT_FALSE(with_compile_directives("# tensorcode: compile max-iterations=1000000000000\n", CompileOptions{}).ok());
}

}  // namespace
}  // namespace tc
