// The WGSL and WebAssembly emitters: golden files, SPIR-V validation of every
// emitted shader (SPIRV-Tools), refusals, constant deduplication.
// Regenerate the goldens with TC_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/atomic_file.h"
#include "codegen/emit_plan.h"
#include "emit/program_gen.h"
#include "emit/onnx_emitter.h"
#include "emit/spirv.h"
#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"
#include "support/golden.h"
#include "ir/artifact.h"
#include "ir/builder.h"
#include "ir/math_functions.h"

namespace tc {
namespace {

const std::string kData = std::string(TC_TEST_DATA) + "/emit/";

bool update_goldens() { return tc::testing::update_golden(); }

/// Compares `text` with the golden file, or rewrites it when updating.
void expect_golden(const std::string& file, const std::string& text) {
  if (update_goldens()) {
    ASSERT_TRUE(write_file_atomic(kData + file, text).ok());
    GTEST_SKIP() << "rewrote golden " << file << " (TC_UPDATE_GOLDEN): nothing compared";
  }
  auto golden = read_file(kData + file);
  ASSERT_TRUE(golden.ok()) << "missing golden " << file << " (run with TC_UPDATE_GOLDEN=1)";
  EXPECT_EQ(*golden, text) << "golden " << file << " differs (run with TC_UPDATE_GOLDEN=1 if intended)";
}

// Without SPIRV-Tools in the build, the binary half below is not checked;
// WgslEmit.SpirvBinaryValidationRuns reports that as a skipped test.
void expect_valid_spirv(const std::string& wgsl, const std::string& what) {
  auto text = emit::wgsl_to_spirv_asm(wgsl, what);
  ASSERT_TRUE(text.ok()) << what << ": " << text.error().format();
  if (!emit::have_spirv_tools()) return;
  auto words = emit::wgsl_to_spirv(wgsl, what);
  ASSERT_TRUE(words.ok()) << what << ": " << words.error().format();
  EXPECT_EQ((*words)[0], 0x07230203u);
  EXPECT_TRUE(emit::validate_spirv(*words).ok());
}

Program random(std::uint64_t seed, bool sigmoid, bool ints) {
  testgen::GenOptions o;
  o.seed = seed;
  o.sigmoid_outputs = sigmoid;
  o.int_inputs = ints;
  o.nodes = 30;
  return testgen::random_program(o);
}

// The SPIR-V binary checks of expect_valid_spirv need SPIRV-Tools; a build
// without them shows this test as skipped instead of passing silently.
TEST(WgslEmitter, SpirvBinaryValidationRuns) {
  if (!emit::have_spirv_tools()) GTEST_SKIP() << "no SPIRV-Tools in this build: SPIR-V binaries are not validated";
  auto wgsl = emit::emit_wgsl(random(3, false, false));
  ASSERT_TRUE(wgsl.ok()) << wgsl.error().message;
  auto words = emit::wgsl_to_spirv(*wgsl, "random_float");
  ASSERT_TRUE(words.ok()) << words.error().format();
  EXPECT_TRUE(emit::validate_spirv(*words).ok());
}

// The generated artifacts double as the Node.js checks' programs.

TEST(WgslEmitter, GoldenRandomPrograms) {
  const struct { const char* name; std::uint64_t seed; bool sigmoid, ints; } cases[] = {
      {"random_float", 3, false, false}, {"random_int", 4, false, true}, {"random_sigmoid", 5, true, false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Program p = random(c.seed, c.sigmoid, c.ints);
    ASSERT_TRUE(validate(p).ok());
    expect_golden(std::string(c.name) + ".json", save_artifact(p));
    auto wgsl = emit::emit_wgsl(p);
    ASSERT_TRUE(wgsl.ok()) << wgsl.error().message;
    expect_golden(std::string(c.name) + ".wgsl", *wgsl);
    expect_valid_spirv(*wgsl, c.name);
  }
}

TEST(WgslEmitter, EveryCorpusProgramTranslatesToValidSpirvAndWasm) {
  auto corpus = testgen::load_corpus(std::string(TC_TEST_DATA) + "/corpus");
  ASSERT_FALSE(corpus.empty()) << "no programs under tests/data/corpus: a broken data path";
  std::size_t emitted = 0;
  for (const auto& e : corpus) {
    if (!e.error.empty()) continue;
    SCOPED_TRACE(e.file);
    auto wgsl = emit::emit_wgsl(e.program);
    if (!wgsl.ok()) continue;  // state or calls: refusals are tested below
    expect_valid_spirv(*wgsl, e.file);
    auto wasm = emit::emit_wasm(e.program);
    ASSERT_TRUE(wasm.ok());
    ASSERT_GE(wasm->size(), 8u);
    EXPECT_EQ(std::string(wasm->begin(), wasm->begin() + 4), std::string("\0asm", 4));
    ++emitted;
  }
  EXPECT_GT(emitted, corpus.size() / 2);
}

TEST(WgslEmitter, StagedShadersAreValidSpirv) {
  Program p = random(8, true, true);
  auto plan = codegen::make_plan(p, "wgsl");
  ASSERT_TRUE(plan.ok());
  auto stages = emit::emit_wgsl_stages(*plan, 7);
  ASSERT_GT(stages.size(), 4u);
  std::size_t forward = 0;
  for (const auto& st : stages) {
    forward += st.kind == emit::WgslStage::Forward;
    expect_valid_spirv(st.code, "stage");
  }
  EXPECT_EQ(forward * 2, stages.size());
  // Forward stages ascend, reverse stages descend.
  EXPECT_EQ(stages.front().lo, 0);
  EXPECT_EQ(stages.back().lo, 0);
}

TEST(WgslEmitter, ArithmeticIsDecoratedNoContraction) {
  Program p = random(3, false, false);
  auto wgsl = emit::emit_wgsl(p);
  ASSERT_TRUE(wgsl.ok());
  auto text = emit::wgsl_to_spirv_asm(*wgsl);
  ASSERT_TRUE(text.ok());
  std::set<std::string> arith, decorated;
  std::regex def("(%t[0-9]+) = Op(FAdd|FSub|FMul|FDiv|FNegate) ");
  std::regex dec("OpDecorate (%t[0-9]+) NoContraction");
  for (std::sregex_iterator it(text->begin(), text->end(), def), end; it != end; ++it) arith.insert((*it)[1]);
  for (std::sregex_iterator it(text->begin(), text->end(), dec), end; it != end; ++it) decorated.insert((*it)[1]);
  EXPECT_GT(arith.size(), 10u);
  EXPECT_EQ(arith, decorated);
}

Program tiny(double c1, double c2) {
  Program p;
  p.dtype = Dtype::Float32;
  Node x;
  x.op = Op::Input;
  x.name = "x";
  x.domain = Domain::float32(-1, 1);
  p.nodes.push_back(x);
  auto add = [&](Node n) {
    n.id = static_cast<NodeId>(p.nodes.size());
    p.nodes.push_back(n);
    return n.id;
  };
  Node k1;
  k1.op = Op::Constant;
  k1.value = c1;
  Node k2 = k1;
  k2.value = c2;
  const NodeId a = add(k1), b = add(k2);
  Node m;
  m.op = Op::Mul;
  m.args = {0, a};
  const NodeId mm = add(m);
  Node s;
  s.op = Op::Add;
  s.args = {mm, b};
  p.outputs.push_back({"result", add(s)});
  return p;
}

TEST(WgslEmitter, ConstantsAreDeduplicatedAndExact) {
  auto wgsl = emit::emit_wgsl(tiny(0.1, 0.1));
  ASSERT_TRUE(wgsl.ok());
  // 0.1 rounds to the float32 0x1.99999ap-4 and is declared once.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(*wgsl, m, std::regex("const (K[0-9]+): f32 = 0x1\\.99999ap-4f;"))) << *wgsl;
  const std::string k = m[1];
  std::size_t n = 0;
  for (std::size_t pos = 0; (pos = wgsl->find("0x1.99999ap-4f", pos)) != std::string::npos; ++pos) ++n;
  EXPECT_EQ(n, 1u);
  EXPECT_NE(wgsl->find("v0 * " + k + ";"), std::string::npos) << *wgsl;
  EXPECT_NE(wgsl->find("v3 + " + k + ";"), std::string::npos) << *wgsl;
}

TEST(WgslEmitter, RefusesStateCallsAndRelaxedSemantics) {
  Program stateful = tiny(1, 2);
  Node st;
  st.op = Op::State;
  st.name = "s";
  st.domain = Domain::float32();
  st.id = static_cast<NodeId>(stateful.nodes.size());
  stateful.nodes.push_back(st);
  stateful.updates.push_back({st.id, st.id});
  auto r1 = emit::emit_wgsl(stateful);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().message, "the wgsl backend runs stateless programs only; this program has state");

  Program call = tiny(1, 2);
  Node c;
  c.op = Op::Call;
  c.name = "host_fn";
  c.args = {0};
  c.id = static_cast<NodeId>(call.nodes.size());
  call.nodes.push_back(c);
  call.outputs.push_back({"other", c.id});
  auto r2 = emit::emit_wasm(call);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("cannot run host calls"), std::string::npos) << r2.error().message;
  EXPECT_NE(r2.error().message.find("host_fn"), std::string::npos);

  Program relaxed = tiny(1, 2);
  relaxed.semantics = Semantics::Relaxed;
  auto r3 = emit::emit_wgsl(relaxed);
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().message.find("relaxed semantics"), std::string::npos) << r3.error().message;
  EXPECT_NE(r3.error().message.find("node 4 (add)"), std::string::npos) << r3.error().message;
}

TEST(WgslEmitter, ErrorCodesDecodeToNodeMessages) {
  Program p = tiny(1, 2);
  const std::uint32_t code = codegen::encode_error(4, codegen::ErrorKind::NonFinite);
  EXPECT_EQ(codegen::error_node(code), 4);
  EXPECT_EQ(codegen::error_kind(code), codegen::ErrorKind::NonFinite);
  EXPECT_EQ(codegen::error_diagnostic(p, code).message, "node 4 (add): non-finite result");
  EXPECT_EQ(codegen::error_diagnostic(p, codegen::encode_error(3, codegen::ErrorKind::DivisionByZero)).message,
            "node 3 (mul): division by zero");
}

TEST(WgslEmitter, F32DomainBoundsAreTheClosestInsideFloats) {
  auto c = codegen::f32_check(Domain::int32());
  EXPECT_EQ(c.lo, -2147483648.0f);
  EXPECT_EQ(static_cast<double>(c.hi), 2147483520.0);  // largest float <= 2^31 - 1
  EXPECT_TRUE(c.integral);
  auto f = codegen::f32_check(Domain::float64(0.1, 0.2));
  EXPECT_GE(static_cast<double>(f.lo), 0.1);
  EXPECT_LT(static_cast<double>(std::nextafter(f.lo, -1.0f)), 0.1);
  EXPECT_LE(static_cast<double>(f.hi), 0.2);
  EXPECT_GT(static_cast<double>(std::nextafter(f.hi, 1.0f)), 0.2);
  EXPECT_TRUE(codegen::f32_check(Domain::float64(1e39, 1e40)).empty);
}

// Issue 13, defect 8: a constant or parameter outside its domain fails the
// cases where it is live (as on the CPU); its value is checked at emit time.
TEST(WgslEmitter, LeafOutsideItsDomainIsALiveError) {
  Builder b(Semantics::Exact);
  Value x = b.input("x", Domain::int32(-5, 5));
  Value w = b.parameter("w", 1);
  b.set_domain(w, Domain::int32(0, 1));
  Value k = b.constant(4);
  b.set_domain(k, Domain::int32(0, 1));
  Value ok_k = b.constant(1);
  b.set_domain(ok_k, Domain::int32(0, 1));
  auto p = b.build(b.select(x > 0, x * w + k, x + ok_k));
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto plan = codegen::make_plan(*p, "wgsl");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->leaf_error[static_cast<std::size_t>(k.id())], static_cast<std::uint8_t>(codegen::ErrorKind::Domain));
  EXPECT_EQ(plan->leaf_error[static_cast<std::size_t>(w.id())], 0);
  EXPECT_EQ(plan->leaf_error[static_cast<std::size_t>(ok_k.id())], 0);
  auto wgsl = emit::emit_wgsl(*p);
  ASSERT_TRUE(wgsl.ok());
  // The reverse pass raises the constant's domain error where it is live.
  const std::string code = std::to_string(codegen::encode_error(k.id(), codegen::ErrorKind::None)) + "u | " +
                           std::to_string(static_cast<std::uint32_t>(codegen::ErrorKind::Domain)) + "u";
  EXPECT_NE(wgsl->find(code), std::string::npos) << *wgsl;
  // A parameter given a value outside its domain is the same error.
  Program q = *p;
  q.nodes[static_cast<std::size_t>(w.id())].value = 100;
  auto plan_q = codegen::make_plan(q, "wgsl");
  ASSERT_TRUE(plan_q.ok());
  EXPECT_EQ(plan_q->leaf_error[static_cast<std::size_t>(w.id())], static_cast<std::uint8_t>(codegen::ErrorKind::Domain));
}

// The math module's functions (ir/math_functions.h): each spelt by its row
// in WGSL (valid SPIR-V through the GLSL.std.450 instructions), in
// WebAssembly (an import env.<name> after env.exp for each one the body
// calls, sqrt an instruction), and in ONNX, which refuses the float-only
// Tan and Atan by name.
TEST(WgslEmitter, MathFunctionsAreSpeltByTheirRows) {
  for (const math_fn::MathFunction& f : math_fn::kFunctions) {
    const std::string name(op_name(f.op));
    SCOPED_TRACE(name);
    Builder b(Semantics::Exact);
    Value x = b.input("x", Domain::float64(0.5, 4));
    auto p = b.build(b.op(f.op, {x}) + x);
    ASSERT_TRUE(p.ok()) << p.error().message;
    auto wgsl = emit::emit_wgsl(*p);
    ASSERT_TRUE(wgsl.ok()) << wgsl.error().message;
    EXPECT_NE(wgsl->find(std::string(f.wgsl.name) + "("), std::string::npos) << *wgsl;
    expect_valid_spirv(*wgsl, name);
    auto wasm = emit::emit_wasm(*p);
    ASSERT_TRUE(wasm.ok());
    const std::string bytes(wasm->begin(), wasm->end());
    if (f.js) {
      // The import's name, preceded by its length byte, after env.exp's.
      const std::string import = std::string(1, static_cast<char>(std::strlen(f.js))) + f.js;
      const std::size_t exp_at = bytes.find(std::string("\x03" "exp", 4));
      ASSERT_NE(exp_at, std::string::npos);
      if (name != "exp") EXPECT_NE(bytes.find(import, exp_at + 4), std::string::npos);
    }
    auto onnx = emit::emit_onnx(*p);
    if (f.onnx.name) {
      EXPECT_TRUE(onnx.ok()) << onnx.error().message;
    } else {
      ASSERT_FALSE(onnx.ok());
      EXPECT_NE(onnx.error().message.find("the onnx backend has no " + name), std::string::npos)
          << onnx.error().message;
    }
  }
}

TEST(WasmEmitter, ModuleLayoutFollowsTheAbi) {
  auto wasm = emit::emit_wasm(tiny(1, 2));
  ASSERT_TRUE(wasm.ok());
  const std::string bytes(wasm->begin(), wasm->end());
  EXPECT_EQ(bytes.substr(0, 8), std::string("\0asm\1\0\0\0", 8));
  for (const char* name : {"env", "exp", "memory", "run", "heap_base"})
    EXPECT_NE(bytes.find(name), std::string::npos) << name;
  // Section ids in order: type 1, import 2, function 3, memory 5, export 7, code 10.
  std::vector<int> ids;
  std::size_t pos = 8;
  while (pos < bytes.size()) {
    ids.push_back(static_cast<unsigned char>(bytes[pos]));
    std::uint64_t len = 0;
    int shift = 0;
    ++pos;
    while (true) {
      const auto b = static_cast<unsigned char>(bytes[pos++]);
      len |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    pos += len;
  }
  EXPECT_EQ(pos, bytes.size());
  EXPECT_EQ(ids, (std::vector<int>{1, 2, 3, 5, 7, 10}));
}

}  // namespace
}  // namespace tc
