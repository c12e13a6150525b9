#pragma once
/// A program as SMT terms (docs/verification.md, "Proofs"): every node's
/// value in the FloatingPoint theory of the program's dtype (binary64, or
/// binary32 with the widened ops computed in binary64 and rounded, as the
/// evaluator does), and whether evaluating it fails under the contract's
/// checks (a non-finite result, a division by zero, a bad gather index or
/// one-hot selector, a value outside a node's domain, an input the dtype
/// cannot hold), with exact select failing only through the branch it takes.
///
/// Inputs are variables shared by name between the programs one Encoder
/// encodes, so two programs over the same inputs form a miter. Z3 keeps one
/// term per distinct expression, so a subcircuit both programs compute from
/// the same inputs is one term, encoded once, before the miter is built.
///
/// Refused, with a located error naming the node: host calls and state
/// (their values come from outside the circuit), sigmoid and the relaxed
/// comparisons and gather (they need exp, which the theory lacks).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "base/result.h"
#include "ir/program.h"

namespace tc::prove {

/// One input of the encoded programs.
struct InputVar {
  Domain domain;
  /// The solver's variable: a 32-bit vector for int32 and bool domains (the
  /// integer itself), binary32 for float32 domains (the value the input
  /// enters as), binary64 for float64 domains.
  z3::expr var;
  /// The input's value as binary64 (exact).
  z3::expr as_f64;
  /// The variable lies in the domain (and is finite).
  z3::expr in_domain;
};

/// What one program's terms say.
struct ProgramTerms {
  std::vector<std::string> output_names;  ///< Program::outputs order
  std::vector<z3::expr> outputs;          ///< each output's value as binary64 (meaningful where !fails)
  z3::expr fails;                         ///< the run raises (inputs in their domains)
  /// Per node (id order): the node's own value in the dtype's sort and
  /// whether evaluating it fails; empty terms for nodes no output needs.
  std::vector<z3::expr> value, fail;
};

class Encoder {
 public:
  explicit Encoder(z3::context& c);

  /// Encodes a validated program. Inputs met before (by name) are the same
  /// variables; the same name with another domain is an error.
  /// `merge`, when given, is called with each computed node's value term
  /// before its failure terms are built, and may replace it by a term that
  /// is proved equal wherever the node does not fail (prove.cpp's sweep of
  /// equal subcircuits). `values` holds the terms of the nodes before it.
  using Merge = std::function<void(NodeId, const std::vector<z3::expr>& values, z3::expr& value)>;
  Result<ProgramTerms> encode(const Program& program, const Merge& merge = {});

  [[nodiscard]] const std::map<std::string, InputVar, std::less<>>& inputs() const { return inputs_; }
  /// Every input lies in its domain.
  [[nodiscard]] z3::expr domains() const;

  /// Reads input values from a model: the double that `run --set` takes
  /// for each input (a float32 input's binary32 value, inside its domain).
  [[nodiscard]] std::map<std::string, double, std::less<>> values_in(const z3::model& m) const;
  /// The variables' names in the SMT-LIB text (inputs() order).
  [[nodiscard]] std::vector<std::string> variable_names() const;
  /// The same input values from another solver's values of the variables
  /// (by their SMT-LIB names; an integer variable's value is the integer);
  /// nullopt when one is missing.
  [[nodiscard]] std::optional<std::map<std::string, double, std::less<>>> values_from(
      const std::map<std::string, double>& by_variable) const;

 private:
  Result<InputVar*> input(const Node& n);
  z3::context& c_;
  std::map<std::string, InputVar, std::less<>> inputs_;
};

/// The constant `v` in binary64 or, when `f32`, binary32 (rounded first).
z3::expr fp_constant(z3::context& c, double v, bool f32);
/// The double a binary64 or binary32 numeral of a model stands for.
double fp_numeral_value(const z3::expr& numeral);

}  // namespace tc::prove
