// The WGSL subset front end: anything outside the subset is refused with an
// error at LINE:COL (data-driven), and a hand-written program in the subset
// lowers to valid SPIR-V.
#include <gtest/gtest.h>

#include <random>

#include "emit/spirv.h"
#include "emit/wgsl_emitter.h"
#include "emit/program_gen.h"

namespace tc {
namespace {

const char* kHeader =
    "@group(0) @binding(0) var<storage, read> params: array<u32>;\n"
    "@group(0) @binding(2) var<storage, read_write> outputs: array<f32>;\n";

std::string shader(const std::string& body) {
  return std::string(kHeader) +
         "@compute @workgroup_size(64, 1, 1)\n"
         "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n" +
         body + "}\n";
}

struct Bad {
  std::string source;
  int line, column;
  std::string message;
};

TEST(WgslFrontend, RefusesWhatIsOutsideTheSubsetWithALocation) {
  const std::vector<Bad> cases = {
      {shader("  var x: f32 = 1.0f;\n"), 5, 3, "unsupported statement starting with 'var'"},
      {shader("  let x: f32 = 1.0f;\n  let x: f32 = 2.0f;\n"), 6, 3, "'x' is already declared"},
      {shader("  let x: f32 = 1.0f + 1u;\n"), 5, 21, "operands of '+' differ in type: f32 and u32"},
      {shader("  let x: f32 = asin(2.0f);\n"), 5, 16, "function 'asin' is not in the supported subset"},
      {shader("  let x: f32 = 1;\n"), 5, 16, "literal '1' needs a 'u' or 'f' suffix"},
      {shader("  let x: f32 = y;\n"), 5, 16, "unknown name 'y'"},
      {shader("  params[0u] = 1u;\n"), 5, 3, "buffer 'params' is read-only"},
      {shader("  outputs[0u] = 1u;\n"), 5, 3, "cannot store u32 into an array of f32"},
      {shader("  if (1.0f) { }\n"), 5, 3, "an if condition must be bool"},
      {shader("  if (true) { } else { }\n"), 5, 17, "'else' is not in the supported subset"},
      {shader("  let x: f32 = outputs[1.0f];\n"), 5, 23, "buffer index must be u32"},
      {shader("  let x: f32 = 1.0f # 2.0f;\n"), 5, 21, "unexpected character '#'"},
      {shader("  let x: vec4<f32> = 1.0f;\n"), 5, 10, "unsupported type 'vec4'"},
      {std::string(kHeader) + "fn main() {}\n", 3, 1, "expected 'const', '@group' or '@compute'"},
      {"@group(0) @binding(0) var<uniform> u: f32;\n", 1, 27, "only storage buffers are supported"},
      {std::string(kHeader), 3, 1, "the module has no '@compute' entry point"},
      {shader("  let x: f32 = " + std::string(400, '(') + "1.0f" + std::string(400, ')') + ";\n"), 5, 215,
       "expression nested too deeply"},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.message);
    auto r = emit::wgsl_to_spirv_asm(b.source, "shader.wgsl");
    ASSERT_FALSE(r.ok());
    ASSERT_TRUE(r.error().loc.has_value());
    EXPECT_EQ(r.error().loc->line, b.line) << r.error().format();
    EXPECT_EQ(r.error().loc->column, b.column) << r.error().format();
    EXPECT_NE(r.error().message.find(b.message), std::string::npos) << r.error().format();
    EXPECT_EQ(r.error().format().rfind("shader.wgsl:", 0), 0u) << r.error().format();
  }
}

TEST(WgslFrontend, HandWrittenSubsetProgramIsValidSpirv) {
  const std::string src = std::string(kHeader) +
                          "const HALF: f32 = 0x1p-1f;\n"
                          "@compute @workgroup_size(64, 1, 1)\n"
                          "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n"
                          "  let n: u32 = params[0u];\n"
                          "  if (gid.x < n) {\n"
                          "    let x: f32 = f32(gid.x) * HALF;\n"
                          "    let bad: bool = (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;\n"
                          "    outputs[gid.x] = select(floor(x) - -x, exp(-abs(x)), bad || !(x >= 0.0f));\n"
                          "  }\n"
                          "}\n";
  auto text = emit::wgsl_to_spirv_asm(src);
  ASSERT_TRUE(text.ok()) << text.error().format();
  EXPECT_NE(text->find("OpExtInst %f32 %glsl Exp"), std::string::npos);
  EXPECT_NE(text->find("OpSelectionMerge"), std::string::npos);
  if (!emit::have_spirv_tools()) GTEST_SKIP() << "no SPIRV-Tools in this build";
  auto words = emit::wgsl_to_spirv(src);
  ASSERT_TRUE(words.ok()) << words.error().message;
}

// Deterministic mutation smoke test: damaged emitter output (bytes deleted,
// duplicated or replaced) never crashes the front end; it either lowers or
// gives a located error.
TEST(WgslFrontend, MutatedShadersNeverCrash) {
  testgen::GenOptions o;
  o.seed = 6;
  o.nodes = 12;
  o.sigmoid_outputs = true;
  auto base = emit::emit_wgsl(testgen::random_program(o));
  ASSERT_TRUE(base.ok());
  std::mt19937_64 rng(42);
  const std::string alphabet = "(){}[]<>;:,=+-*/!&|.@ \n0123456789abcdefxpu_";
  int refused = 0, accepted = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    std::string s = *base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s.erase(pos, 1 + rng() % 8); break;
        case 1: s.insert(pos, s.substr(pos, 1 + rng() % 16)); break;
        default: s[pos] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    auto r = emit::wgsl_to_spirv_asm(s, "m.wgsl");
    if (r.ok()) {
      ++accepted;
      // What the front end accepts must assemble and validate.
      if (emit::have_spirv_tools()) {
        auto words = emit::wgsl_to_spirv(s, "m.wgsl");
        EXPECT_TRUE(words.ok()) << words.error().message << "\n" << s;
      }
    } else {
      ++refused;
      EXPECT_TRUE(r.error().loc.has_value()) << r.error().message;
    }
  }
  EXPECT_GT(refused, 500);
}

}  // namespace
}  // namespace tc
