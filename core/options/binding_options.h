#pragma once
/// The options the language bindings take (python/src, sdk/typescript/native),
/// read from JSON values: each binding turns its keyword arguments or its
/// options object into one, and both then check them with the same rules and
/// report a wrong value in the same words. The words follow the TypeScript
/// SDK's, the stricter of the two before this layer existed: "NAME must be
/// ..., got TYPE" for a value of the wrong type and "..., got 'TEXT'" for a
/// string that names nothing.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "eval/evaluator.h"
#include "frontend/compile.h"
#include "ir/domain.h"
#include "options/option_table.h"

namespace tc::options {

/// "number", "string", "boolean", "null", "object" or "array": a value's
/// type as JavaScript's typeof would name it (arrays and null apart).
std::string type_name(const nlohmann::json& v);

Result<Semantics> semantics(const nlohmann::json& v);
Result<Dtype> dtype(const nlohmann::json& v);
Result<Surrogate> surrogate(const nlohmann::json& v);
/// The plan of a run (the table's Run-scope row): auto, interpreter or compiled.
Result<EvalPlan> plan(const nlohmann::json& v);
/// A relaxation temperature: a finite number greater than 0.
Result<double> temperature(const nlohmann::json& v);
Result<std::string> text(const nlohmann::json& v, std::string_view name);
/// true or false only: no truthiness of other values.
Result<bool> flag(const nlohmann::json& v, std::string_view name);
/// An integer in [lo, hi] (a number with no fraction; a string is refused).
Result<std::uint64_t> count(const nlohmann::json& v, std::string_view name, std::uint64_t lo, std::uint64_t hi);
/// A Count option of the table (max_nodes, max_iterations) in its range,
/// named as `spelling` spells it.
Result<std::uint64_t> count(const nlohmann::json& v, const OptionSpec& spec, KeySpelling spelling);
/// An input's domain, spelled as the CLI and directives spell it
/// ("int32:-128:127", "float64", "bool").
Result<Domain> domain(const nlohmann::json& v, std::string_view input);

/// CompileOptions from an object with any of the table's options: filename,
/// function, inputs ({name: domain text}), dtype, semantics, surrogate,
/// temperature, max_iterations, max_nodes, use_input_directives (camelCase
/// with KeySpelling::Camel). Keys left out keep CompileOptions' defaults; null
/// counts as left out. `hints` names how advice in compile errors is spelled.
Result<CompileOptions> compile_options(const nlohmann::json& bag, KeySpelling spelling, HintSpelling hints);

/// What a client asked to compile with: the options, and which of the
/// settings a `# tensorcode: compile` directive may also set were given.
struct CompileRequest {
  CompileOptions options;
  CompileDirectives given;  ///< the directive-settable options the caller gave
  /// The options for `source`: what was given, else the source's compile
  /// directive, else the default. Every client reads a file this way. A
  /// malformed directive is an error with its line and column.
  [[nodiscard]] Result<CompileOptions> for_source(std::string_view source) const;
};
/// compile_options(bag, ...) with the given directive-settable keys noted.
/// Bag keys are snake_case for KeySpelling::Cli too (messages say --max-nodes).
Result<CompileRequest> compile_request(const nlohmann::json& bag, KeySpelling spelling, HintSpelling hints);
/// One option of the table read from `v` (given, not null) into `request`:
/// what compile_request does per key, for a client that converts each value
/// itself. An error names the option as `spelling` spells it.
Status read_option(const OptionSpec& spec, const nlohmann::json& v, KeySpelling spelling, CompileRequest& request);

/// The settings of a Builder: semantics, surrogate, temperature, dtype.
struct BuilderSettings {
  Semantics semantics = Semantics::Exact;
  Surrogate surrogate = Surrogate::Sigmoid;
  double temperature = 1.0;
  Dtype dtype = Dtype::Float64;
};
Result<BuilderSettings> builder_settings(const nlohmann::json& bag);

}  // namespace tc::options
