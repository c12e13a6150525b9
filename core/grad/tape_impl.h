#pragma once
// Private to core/grad: the gradient tape's prepared form and buffers, shared
// by tape.cpp (preparing, public entry points), tape_forward.cpp (the
// poison-tracking forward pass) and tape_vjp.cpp (derivative rules).
//
// The forward pass evaluates every node of the cone in id order, but a
// failure does not stop it: the node is marked "poisoned" with the id of the
// node that failed. A node's poison is the earliest (smallest id) failure
// among the arguments it actually needs (exact/hybrid select: its condition,
// then only the chosen branch; a failed condition needs neither branch), or
// its own failure when they are all defined. That is exactly the failure the
// evaluator reports: the earliest failing node among those a lazy evaluation
// of the output visits. Meanwhile the unchosen branches keep their values (or
// their own poison) for the hybrid derivative rules, which need them.
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "grad/gradients.h"
#include "grad/surrogate.h"
#include "ir/op_semantics.h"

namespace tc {

namespace tape_detail {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline std::string num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// Compact per-node record: what the two passes read in their inner loops.
struct TNode {
  Op op = Op::Constant;
  Semantics sem = Semantics::Exact;
  bool carries = false;  ///< a derivative can reach here from a reported leaf
  bool checked_domain = false;
  std::int32_t first = 0;  ///< into Impl::args
  std::int32_t count = 0;
  double temperature = 1.0;
  const SurrogatePolicy* policy = nullptr;
};

/// What op_semantics.h's kernels read of a tape node besides its argument
/// values: the count, the surrogate, the linear terms and the rounding.
/// The per-case tape's view (tape_forward.cpp) and the batched tape's lane
/// view (batch_fast.cpp) add x(k), the value of argument k.
struct TapeNodeFacts {
  const TNode& n;
  const Node& node;
  bool f32;
  std::size_t count() const { return static_cast<std::size_t>(n.count); }
  double temperature() const { return n.temperature; }
  double greater(double a, double b, double t) const { return n.policy->greater(a, b, t); }
  double equal(double a, double b, double t) const { return n.policy->equal(a, b, t); }
  // Stored coefficients are constants: binary32 under float32, like the evaluator.
  std::string_view name() const { return node.name; }  // a raise's exception
  std::size_t terms() const { return node.linear().coefficients.size(); }
  double coef(std::size_t j) const { return round(node.linear().coefficients[j]); }
  std::size_t term_arg(std::size_t j) const { return static_cast<std::size_t>(node.linear().indices[j]); }
  bool has_bias() const { return node.linear().bias.has_value(); }
  double bias() const { return round(*node.linear().bias); }
  double round(double r) const { return sem::round_to(r, f32); }
};

/// The relaxed gather's derivative rule at one case, shared by the per-case
/// rule (tape_vjp.cpp) and the block kernels' lanes (batch_fast.cpp), so the
/// two cannot round differently. Writes w(k), the normalised weight of value
/// k: bump(index - k) as the forward weighs it (the surrogate's equal),
/// over their sum in argument order, as sem::gather_relaxed adds them.
template <class W>
inline void gather_normalised_weights(std::size_t values, double index, const SurrogatePolicy& s, double t, W&& w) {
  for (std::size_t k = 0; k < values; ++k) w(k) = s.equal(index, static_cast<double>(k), t);
  double den = 0.0;
  for (std::size_t k = 0; k < values; ++k) den = den + w(k);
  for (std::size_t k = 0; k < values; ++k) w(k) /= den;
}
/// d/dindex of sum_k w_k v_k with w_k = bump_k / sum_j bump_j, from the
/// normalised weights: dw_k = w_k (l_k - sum_j w_j l_j), l_k = d log bump_k
/// / d index. value(k) is value k (argument k + 1).
template <class W, class X>
inline double gather_index_slope(std::size_t values, double index, const SurrogatePolicy& s, double t, W&& w,
                                 X&& value) {
  double dl_mean = 0.0;
  for (std::size_t k = 0; k < values; ++k)
    dl_mean += w(k) * s.log_bump_slope((index - static_cast<double>(k)) / t) / t;
  double dindex = 0.0;
  for (std::size_t k = 0; k < values; ++k) {
    const double l = s.log_bump_slope((index - static_cast<double>(k)) / t) / t;
    dindex += w(k) * (l - dl_mean) * value(k);
  }
  return dindex;
}

}  // namespace tape_detail

struct GradientTape::Impl {
  using TNode = tape_detail::TNode;
  Program program;
  GradOptions options;
  bool f32 = false;
  std::vector<TNode> nodes;
  std::vector<NodeId> args;
  std::vector<NodeId> order;  ///< the outputs' cone, ascending
  std::vector<std::string> out_names;
  std::vector<NodeId> out_ids;
  std::vector<GradLeaf> leaves;
  std::vector<const Binding*> binding_of;
  std::map<std::string, NodeId, std::less<>> inputs, params, states;

  // Per-run buffers, sized once.
  std::vector<double> adj, scratch;
  // The value and failure tables of one case. They point into own_val and
  // own_fail, or into a row of a batch record (batch_tape.cpp), so a batched
  // forward writes each case's tables where its reverse pass reads them.
  std::vector<double> own_val;
  std::vector<std::int32_t> own_fail;
  double* val = nullptr;
  std::int32_t* fail = nullptr;  ///< 0: defined; else 1 + id of the node that failed
  std::vector<std::uint8_t> reached;
  std::vector<std::string> why;  ///< failure message of a node that failed itself
  bool ready = false;            ///< the buffers hold a successful forward pass
  bool forwarded = false;        ///< the value tables hold a forward pass, maybe a failing one

  void use_own_tables() {
    val = own_val.data();
    fail = own_fail.data();
  }
  void use_tables(double* values, std::int32_t* failures) {
    val = values;
    fail = failures;
  }

  NodeId arg(const TNode& n, int k) const { return args[static_cast<std::size_t>(n.first + k)]; }
  double v(const TNode& n, int k) const { return val[static_cast<std::size_t>(arg(n, k))]; }
  std::int32_t p(const TNode& n, int k) const { return fail[static_cast<std::size_t>(arg(n, k))]; }

  Diagnostic node_error(NodeId id, const std::string& what) const {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    return make_error(describe_node(program, id) + ": " + what, n.location, id);
  }
  Diagnostic poison_error(std::int32_t poison) const { return node_error(poison - 1, why[static_cast<std::size_t>(poison - 1)]); }

  Status load_leaves(const Env& env);
  /// Pieces of load_leaves: one input's check and value; parameters and
  /// state (from env or their stored values) after the inputs.
  Status load_input(NodeId id, double x);
  Status load_fixed(const Env& env);
  Diagnostic leaf_error(NodeId id, const char* what, const std::string& reason) const;
  void forward_pass();
  void compute(NodeId id);
  Status backward_pass(std::span<const double> seeds);
  /// backward_pass, then d(loss)/d(leaf) per reported leaf into `gradients`
  /// (a non-finite one is an error naming the leaf).
  Status reverse_pass(std::span<const double> seeds, std::span<double> gradients);
  /// reverse_pass's error for leaf k's non-finite gradient g.
  Diagnostic nonfinite_gradient(std::size_t k, double g) const;
  /// The same error when the case's own seeds are to blame: a nan or
  /// infinite incoming gradient (seed) spreads to every leaf it reaches, so
  /// the message names that output's seed, not an input or parameter.
  /// `seed(o)` is output o's seed of the case.
  template <class Seed>
  Diagnostic nonfinite_result(std::size_t k, double g, Seed&& seed) const {
    for (std::size_t o = 0; o < out_ids.size(); ++o)
      if (const double s = seed(o); !std::isfinite(s)) return nonfinite_seed(o, s);
    return nonfinite_gradient(k, g);
  }
  Diagnostic nonfinite_seed(std::size_t o, double s) const;
  Status vjp(NodeId id, double g);
  void push(NodeId a, double contribution) {
    const auto i = static_cast<std::size_t>(a);
    if (!nodes[i].carries) return;
    reached[i] = 1;
    adj[i] += contribution;
  }
  Status needs_defined(NodeId decision, NodeId value) const;
};

}  // namespace tc
