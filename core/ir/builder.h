#pragma once
/// C++ Builder mirroring the description's Python Builder. Values are
/// symbolic handles; arithmetic and ordered comparisons build nodes. A Value
/// cannot be used as a C++ bool (the conversion is deleted), so
/// `if (x > 4)` does not compile: use Builder::select.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

class Builder;

/// A node of a Builder under construction.
class Value {
 public:
  Value() = default;
  [[nodiscard]] NodeId id() const { return id_; }
  [[nodiscard]] Builder* builder() const { return b_; }
  [[nodiscard]] bool valid() const { return b_ != nullptr; }
  explicit operator bool() const = delete;  // symbolic values have no truth value

 private:
  friend class Builder;
  Value(Builder* b, NodeId id) : b_(b), id_(id) {}
  Builder* b_ = nullptr;
  NodeId id_ = -1;
};

/// A Value or a literal number (turned into a constant node).
class Arg {
 public:
  Arg(Value v) : v_(v) {}            // NOLINT: implicit by design
  Arg(double d) : v_(d) {}           // NOLINT
  Arg(int i) : v_(double(i)) {}      // NOLINT
  [[nodiscard]] const std::variant<Value, double>& get() const { return v_; }

 private:
  std::variant<Value, double> v_;
};

class Builder {
 public:
  explicit Builder(Semantics semantics = Semantics::Exact, Surrogate surrogate = Surrogate::Sigmoid,
                   double temperature = 1.0, Dtype dtype = Dtype::Float64);

  /// Input with a domain; differentiable defaults to true for floating domains.
  Value input(const std::string& name, Domain domain = Domain::float64(),
              std::optional<bool> differentiable = std::nullopt);
  Value parameter(const std::string& name, double initial);
  Value constant(double value);
  Value state(const std::string& name, double initial, Domain domain);
  void update(Value state, Arg next);

  Value select(Arg condition, Arg yes, Arg no);
  /// Any op of the table by artifact name with plain arguments ("eq", "mod", "relu", ...).
  Value op(std::string_view name, std::vector<Arg> args);
  /// The same with the typed op (no lookup by name: a typo does not compile).
  Value op(Op op, std::vector<Arg> args);
  Value op(std::string_view name, Arg a) { return op(name, std::vector<Arg>{a}); }
  Value op(std::string_view name, Arg a, Arg b) { return op(name, std::vector<Arg>{a, b}); }
  Value relu(Arg x) { return op(Op::Relu, std::vector<Arg>{x}); }
  Value sigmoid(Arg x) { return op(Op::Sigmoid, std::vector<Arg>{x}); }
  /// values[index]; index must be an integer in [0, n) at run time.
  Value gather(const std::vector<Arg>& values, Arg index);
  /// n selector wires eq(index, k) for k = 0..n-1.
  std::vector<Value> one_hot(Arg index, int n);
  /// Checked exactly-one selection: the value whose selector is 1.
  Value gather_one_hot(const std::vector<Arg>& selectors, const std::vector<Arg>& values);
  Value affine(const std::vector<Arg>& xs, const std::vector<double>& coefficients,
               std::optional<double> bias = std::nullopt);
  Value sparse_affine(const std::vector<Arg>& xs, const std::vector<std::int32_t>& indices,
                      const std::vector<double>& coefficients, std::optional<double> bias = std::nullopt);
  Value call(const std::string& binding, const std::vector<Arg>& args);
  /// A raise: fails every case that reaches it (through a select's branch),
  /// with `exception` ("ValueError: x must be positive") as its message.
  Value raise(const std::string& exception);
  /// Copies `program` in, wiring its inputs from `inputs` (every input must be
  /// given); its parameters and state are renamed PREFIX.NAME and its computing
  /// nodes keep the program's semantics, surrogate and temperature. Returns its
  /// outputs by name.
  std::map<std::string, Value> include(const Program& program, const std::map<std::string, Arg>& inputs,
                                       const std::string& prefix = "region");
  /// scan(body, init, sequence): carry = body(carry, item) for each item, expanded.
  Value scan(const std::function<Value(Builder&, Value carry, Value item)>& body, Arg init,
             const std::vector<Arg>& sequence);
  /// Parameters to turn into constants at build() (all when `names` is empty).
  void freeze(const std::vector<std::string>& names = {});

  /// Location stamped on nodes created from now on (the frontend uses this).
  void set_location(std::optional<SourceLoc> loc) { loc_ = loc; }
  /// Loop iteration path stamped on nodes created from now on (outermost first).
  void set_iteration(IterationPath path) { iteration_ = std::move(path); }
  /// Replaces the iteration path of an existing node (the frontend shares
  /// constants across iterations and keeps only the loops they all have in common).
  void set_iteration_of(Value v, IterationPath path);
  /// Attaches a checked domain to an existing computing node.
  void set_domain(Value v, Domain d);

  /// Finishes with one output `result`, or with named outputs in order.
  Result<Program> build(Arg result);
  Result<Program> build(const std::vector<std::pair<std::string, Arg>>& outputs);
  /// build() without its closing validate(), for a client that transforms
  /// the program and validates the result itself (the Python frontend prunes,
  /// then validates): one walk less over a large circuit.
  Result<Program> build_then_validate_later(const std::vector<std::pair<std::string, Arg>>& outputs);

  [[nodiscard]] std::size_t node_count() const { return prog_.nodes.size(); }
  [[nodiscard]] const Program& peek() const { return prog_; }
  /// The first error recorded so far (build() will return it), so clients
  /// such as the Python package can report a misuse where it happens.
  [[nodiscard]] const std::optional<Diagnostic>& error() const { return error_; }

 private:
  NodeId resolve(const Arg& a);
  Value add_node(Node n);
  Value binary(Op op, Arg a, Arg b);
  Result<Program> finish(const std::vector<std::pair<std::string, Arg>>& outputs, bool validate_now);
  void fail(std::string message);

  Program prog_;
  std::optional<SourceLoc> loc_;
  IterationPath iteration_;  ///< shared by every node it stamps
  std::optional<Diagnostic> error_;
  std::optional<std::vector<std::string>> freeze_;
  bool built_ = false;
};

Value operator+(Arg a, Arg b);
Value operator-(Arg a, Arg b);
Value operator*(Arg a, Arg b);
Value operator/(Arg a, Arg b);
Value operator-(Value a);
Value operator<(Arg a, Arg b);
Value operator<=(Arg a, Arg b);
Value operator>(Arg a, Arg b);
Value operator>=(Arg a, Arg b);

}  // namespace tc
