// The export target table (emit/targets.h): every row writes what its own
// emitter writes, byte for byte, so the CLI and the IDE that go through it
// export exactly what the emitters make; names, refusals and the C pair.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "codegen/c_emitter.h"
#include "emit/onnx_emitter.h"
#include "emit/spirv.h"
#include "emit/targets.h"
#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"
#include "support/examples.h"

namespace tc::emit {
namespace {

std::string text_of(const std::vector<std::uint8_t>& b) { return std::string(b.begin(), b.end()); }

TEST(EmitTargets, EveryRowWritesWhatItsEmitterWrites) {
  const Program p = examples::gated();
  std::set<std::string_view> names;
  for (const TargetSpec& t : targets()) {
    SCOPED_TRACE(std::string(t.name));
    EXPECT_TRUE(names.insert(t.name).second) << "a name appears twice";
    EXPECT_EQ(find_target(t.name), &t);
    if (t.id == TargetId::Spirv && !have_spirv_tools()) continue;
    auto out = emit_target(p, t.name);
    ASSERT_TRUE(out.ok()) << out.error().message;
    EXPECT_TRUE(out->header.empty());
    EXPECT_TRUE(out->header_path.empty());
    switch (t.id) {
      case TargetId::Wgsl:
        EXPECT_EQ(out->bytes, *emit_wgsl(p));
        EXPECT_FALSE(t.binary);
        break;
      case TargetId::Spirv: {
        auto words = wgsl_to_spirv(*emit_wgsl(p), "<generated wgsl>");
        ASSERT_TRUE(words.ok());
        EXPECT_EQ(out->bytes, std::string(reinterpret_cast<const char*>(words->data()), words->size() * 4));
        EXPECT_TRUE(t.binary);
        break;
      }
      case TargetId::Wasm:
        EXPECT_EQ(out->bytes, text_of(*emit_wasm(p)));
        EXPECT_TRUE(t.binary) << "a terminal is refused the module";
        break;
      case TargetId::C: {
        codegen::CExportOptions o;
        o.name = "tc_program";
        EXPECT_EQ(out->bytes, codegen::emit_c(p, o)->source);
        EXPECT_FALSE(t.binary);
        break;
      }
      case TargetId::Onnx:
        EXPECT_EQ(out->bytes, text_of(*emit_onnx(p)));
        EXPECT_TRUE(t.binary) << "a terminal is refused the model";
        break;
    }
  }
  EXPECT_EQ(names.size(), 5u);
  EXPECT_EQ(target_names_text(), "wgsl, spirv, wasm, c or onnx");
}

TEST(EmitTargets, SpirvTextIsTheAssembly) {
  const Program p = examples::gated();
  TargetOptions o;
  o.spirv_text = true;
  auto out = emit_target(p, "spirv", o);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->bytes, *wgsl_to_spirv_asm(*emit_wgsl(p), "<generated wgsl>"));
  EXPECT_NE(out->bytes.find("OpEntryPoint"), std::string::npos);
}

TEST(EmitTargets, CWithASourcePathWritesItsHeaderBeside) {
  const Program p = examples::gated();
  TargetOptions o;
  o.c_source_path = "out/rule-v2.c";
  auto out = emit_target(p, "c", o);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->header_path, "out/rule-v2.h");
  EXPECT_NE(out->bytes.find("#include \"rule-v2.h\""), std::string::npos);
  EXPECT_NE(out->header.find("rule_v2_"), std::string::npos) << "the prefix comes from the file's stem";
  o.c_name = "pricing";
  out = emit_target(p, "c", o);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->header.find("pricing_"), std::string::npos);
  EXPECT_EQ(*c_header_path("gated"), "gated.h");
  EXPECT_EQ(*c_header_path("dir.v1/gated"), "dir.v1/gated.h");
  auto bad = c_header_path("dir/gated.h");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "dir/gated.h: give the C source's name (FILE.c); its header FILE.h is written beside it");
}

TEST(EmitTargets, RefusalsAreClear) {
  const Program p = examples::gated();
  auto unknown = emit_target(p, "ptx");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unknown target 'ptx': expected wgsl, spirv, wasm, c or onnx");
  EXPECT_EQ(find_target("ptx"), nullptr);
  TargetOptions named;
  named.c_name = "x";
  auto misplaced = emit_target(p, "wgsl", named);
  ASSERT_FALSE(misplaced.ok());
  EXPECT_EQ(misplaced.error().message, "a C name applies to the c target only");
  // A backend's own refusal comes through unchanged.
  for (const char* t : {"c", "onnx"}) {
    auto stateful = emit_target(examples::counter(), t);
    ASSERT_FALSE(stateful.ok()) << t;
    EXPECT_NE(stateful.error().message.find("runs stateless programs only"), std::string::npos) << stateful.error().message;
  }
}

}  // namespace
}  // namespace tc::emit
