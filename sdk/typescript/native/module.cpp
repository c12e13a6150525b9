// Embind bindings of the engine for the TypeScript package: the module's
// free functions and the registration of its three classes (program.h,
// runtime.h, builder.h; shared parts in common.h). The classes are thin:
// they hold core objects and translate between JavaScript values and the
// core's types. Nothing is computed here that the core computes.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <string>

#include "builder.h"
#include "common.h"
#include "ir/domain.h"
#include "ir/op.h"
#include "program.h"
#include "runtime.h"

namespace tc::wasm {
namespace {

val parse_domain_js(const std::string& text) {
  auto d = parse_domain(text);
  if (!d) return error_value("domain", d.error());
  return ok_value(domain_value(*d));
}

/// Bytes the allocator holds for live objects, and the heap's size: what the
/// tests watch to find objects that are never freed.
val heap_stats_js() {
  const struct mallinfo m = mallinfo();
  val o = val::object();
  o.set("used", static_cast<double>(m.uordblks));
  o.set("size", static_cast<double>(emscripten_get_heap_size()));
  return o;
}

val op_names_js() {
  val a = val::array();
  for (int i = 0; i < kOpCount; ++i) a.call<void>("push", std::string(op_name(static_cast<Op>(i))));
  return a;
}

}  // namespace
}  // namespace tc::wasm

EMSCRIPTEN_BINDINGS(tensorcode) {
  using namespace emscripten;
  using namespace tc::wasm;
  function("parseDomain", &guarded<&parse_domain_js>::call);
  function("opNames", &guarded<&op_names_js>::call);
  function("heapStats", &heap_stats_js);
  class_<CoreProgram>("CoreProgram")
      .constructor<>()
      .function("load", &guarded<&CoreProgram::load>::call)
      .function("compile", &guarded<&CoreProgram::compile>::call)
      .function("toJSON", &guarded<&CoreProgram::to_json>::call)
      .function("bindFrom", &guarded<&CoreProgram::bind_from>::call)
      .function("hasBindings", &guarded<&CoreProgram::has_bindings>::call)
      .function("info", &guarded<&CoreProgram::info>::call)
      .function("planStatus", &guarded<&CoreProgram::plan_status>::call)
      .function("run", &guarded<&CoreProgram::run>::call)
      .function("runValues", &guarded<&CoreProgram::run_values>::call)
      .function("fastAddress", &guarded<&CoreProgram::fast_address>::call)
      .function("runFast", &guarded<&CoreProgram::run_fast>::call)
      .function("fastError", &guarded<&CoreProgram::fast_error>::call)
      .function("gradientsFast", &guarded<&CoreProgram::gradients_fast>::call)
      .function("fastGradientNames", &guarded<&CoreProgram::fast_gradient_names>::call)
      .function("runBatch", &guarded<&CoreProgram::run_batch>::call)
      .function("gradients", &guarded<&CoreProgram::gradients>::call)
      .function("optimizeInto", &guarded<&CoreProgram::optimize_into>::call)
      .function("freezeInto", &guarded<&CoreProgram::freeze_into>::call)
      .function("schedule", &guarded<&CoreProgram::schedule>::call)
      .function("analyze", &guarded<&CoreProgram::analyze>::call)
      .function("emitWasm", &guarded<&CoreProgram::emit_wasm>::call)
      .function("emitWgsl", &guarded<&CoreProgram::emit_wgsl>::call)
      .function("emitOnnx", &guarded<&CoreProgram::emit_onnx>::call)
      .function("emitC", &guarded<&CoreProgram::emit_c>::call);
  class_<CoreRuntime>("CoreRuntime")
      .constructor<>()
      .function("create", &guarded<&CoreRuntime::create>::call)
      .function("restore", &guarded<&CoreRuntime::restore>::call)
      .function("dispatch", &guarded<&CoreRuntime::dispatch>::call)
      .function("step", &guarded<&CoreRuntime::step>::call)
      .function("replay", &guarded<&CoreRuntime::replay>::call)
      .function("snapshot", &guarded<&CoreRuntime::snapshot>::call)
      .function("state", &guarded<&CoreRuntime::state>::call)
      .function("steps", &guarded<&CoreRuntime::steps>::call)
      .function("maxSteps", &guarded<&CoreRuntime::max_steps>::call)
      .function("programInto", &guarded<&CoreRuntime::program_into>::call);
  class_<CoreBuilder>("CoreBuilder")
      .constructor<>()
      .function("init", &guarded<&CoreBuilder::init>::call)
      .function("input", &guarded<&CoreBuilder::input>::call)
      .function("parameter", &guarded<&CoreBuilder::parameter>::call)
      .function("constant", &guarded<&CoreBuilder::constant>::call)
      .function("state", &guarded<&CoreBuilder::state>::call)
      .function("update", &guarded<&CoreBuilder::update>::call)
      .function("select", &guarded<&CoreBuilder::select>::call)
      .function("op", &guarded<&CoreBuilder::op>::call)
      .function("gather", &guarded<&CoreBuilder::gather>::call)
      .function("oneHot", &guarded<&CoreBuilder::one_hot>::call)
      .function("gatherOneHot", &guarded<&CoreBuilder::gather_one_hot>::call)
      .function("affine", &guarded<&CoreBuilder::affine>::call)
      .function("sparseAffine", &guarded<&CoreBuilder::sparse_affine>::call)
      .function("call", &guarded<&CoreBuilder::call>::call)
      .function("include", &guarded<&CoreBuilder::include>::call)
      .function("scan", &guarded<&CoreBuilder::scan>::call)
      .function("freeze", &guarded<&CoreBuilder::freeze>::call)
      .function("buildInto", &guarded<&CoreBuilder::build_into>::call);
}
