#pragma once
/// A structural diff of two circuits (`tensorcode diff A B`, the Python
/// package's tensorcode.program.diff): which node of A is which node of B,
/// what changed on the matched ones, which nodes only one side has, which
/// inputs, parameters and state differ, and, on given cases, which outputs
/// compute different values.
///
/// The match is deterministic (it depends on the two programs only, never on
/// hash order or addresses) and linear in the circuit size: every pass walks
/// the nodes once and looks candidates up in hash maps, trying a bounded
/// number of them per node. docs/diff.md describes the passes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

/// Which node of A is which node of B: a_to_b[a] is the partner of A's node
/// a (-1 when B has none: removed), b_to_a the converse (-1: added).
struct NodeMatch {
  std::vector<NodeId> a_to_b;
  std::vector<NodeId> b_to_a;
};

/// Pairs the nodes of two programs (both validated). In order: inputs,
/// parameters and state by op and name; identical nodes bottom-up (same op
/// and fields, arguments paired, constants by value); nodes at the same
/// source position and loop iteration with the same op; the nodes of
/// outputs of one name; nodes at the same position with any op; nodes of one
/// op sharing a paired argument; and, for nodes without positions, the node
/// of the same op where the neighbours' pairing puts it. A pair made by
/// position, name, sharing or neighbours also pairs its unpaired arguments of
/// one op, top-down. docs/diff.md explains each.
NodeMatch match_circuits(const Program& a, const Program& b);

/// What differs on a matched pair of nodes (a bit set).
enum NodeField : unsigned {
  kFieldOp = 1u << 0,
  kFieldName = 1u << 1,
  kFieldValue = 1u << 2,           ///< constant, parameter value or state initial value (bitwise)
  kFieldDomain = 1u << 3,
  kFieldArgs = 1u << 4,            ///< arity, or an argument that is not the partner of the other's
  kFieldCoefficients = 1u << 5,    ///< affine coefficients, indices or bias
  kFieldPolicy = 1u << 6,          ///< the node's semantics, surrogate or temperature override
  kFieldDifferentiable = 1u << 7,
  kFieldUpdate = 1u << 8,          ///< a state node's next value is not the partner of the other's
};
/// The fields' spellings in bit order ("op", "name", ...), for JSON and text.
std::vector<std::string_view> node_field_names(unsigned fields);

enum class ItemStatus : std::uint8_t { Same, Changed, Added, Removed };
std::string_view to_string(ItemStatus s);  ///< same, changed, added, removed

struct ChangedNode {
  NodeId a = 0;
  NodeId b = 0;
  unsigned fields = 0;
};

/// An input, parameter or state node of either side that differs (a
/// renamed one is one changed item, paired through its users).
struct LeafItem {
  Op op = Op::Input;
  ItemStatus status = ItemStatus::Same;
  std::optional<NodeId> a, b;
  unsigned fields = 0;
};

/// One case on which an output differs: a value or an evaluation error per side.
struct CaseDifference {
  std::size_t index = 0;
  std::optional<double> a, b;
  std::string a_error, b_error;  ///< the error message where that side failed
};

/// One output name of either side.
struct OutputItem {
  std::string name;
  ItemStatus status = ItemStatus::Same;
  std::optional<NodeId> a, b;   ///< the output nodes
  bool same_circuit = false;    ///< every node it depends on is paired and unchanged
  // On the cases, when some were given and both sides have the output:
  std::size_t cases = 0;
  std::size_t differing = 0;   ///< cases where one side fails or the values differ bitwise
  std::vector<CaseDifference> examples;  ///< the first differing cases, ascending
};

/// A root field of the program (semantics, dtype, surrogate, temperature).
struct ProgramField {
  std::string field;
  std::string a, b;
};

/// Cases for the output comparison: named input columns of equal length.
/// An input only one program has is read by that program alone; every
/// input of either program must have a column.
struct DiffCases {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;  ///< [name][case]
  std::size_t count = 0;
};

/// Appends one case (its NAME -> value pairs). The first case fixes the
/// names; a later one with other names is an error naming the name.
Status add_diff_case(DiffCases& cases, const std::vector<std::pair<std::string, double>>& values);

struct DiffOptions {
  const DiffCases* cases = nullptr;  ///< compare the outputs on these (null: structure only)
  std::size_t max_examples = 10;     ///< differing cases kept per output
  unsigned threads = 1;              ///< evaluator workers (0: every core); results never depend on it
};

struct Diff {
  NodeMatch match;
  std::size_t unchanged = 0;
  std::vector<ChangedNode> changed;  ///< ascending B id
  std::vector<NodeId> added;         ///< B ids, ascending
  std::vector<NodeId> removed;       ///< A ids, ascending
  std::vector<ProgramField> program;
  std::vector<LeafItem> leaves;      ///< differing inputs, parameters and state (A order, then added in B order)
  std::vector<OutputItem> outputs;   ///< A's order, then outputs only B has in B's order
  bool compared_values = false;      ///< cases were given

  /// Nothing structural differs (location changes alone do not count).
  [[nodiscard]] bool same_structure() const;
  /// No compared output differs on any case (true when no cases were given).
  [[nodiscard]] bool same_values() const;
  [[nodiscard]] bool same() const { return same_structure() && same_values(); }
};

/// Diffs two validated programs. Errors: a case column missing for an input
/// of either program, a name neither has, a program that cannot be
/// evaluated (a call node without a binding) when cases are given.
Result<Diff> diff_programs(const Program& a, const Program& b, const DiffOptions& options = {});

}  // namespace tc
