// match_circuits: pairs the nodes of two circuits in a fixed sequence of
// linear passes (see diff.h and docs/diff.md).
//
// Every index below is built once from A's own fields (never from the
// pairing so far), so building it costs one walk. A group lists its nodes in
// ascending id order and keeps a cursor past its leading paired entries; a
// lookup skips those for good and then looks at a bounded number more, so a
// whole pass is linear in the nodes (and arguments) whatever the groups
// hold. Nothing depends on hash order: groups are only looked up, and each
// holds ids in id order, so the result depends on the programs alone.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "diff/diff.h"
#include "diff/node_fields.h"

namespace tc {
namespace {

constexpr int kTries = 8;   // unpaired candidates offered per lookup beyond the skipped ones
constexpr std::uint32_t kScan = 64;  // ids looked at per lookup beyond the skipped ones
constexpr int kRounds = 4;  // rounds of the last two passes, while they still pair nodes

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64's finaliser over the running hash and the next word.
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t hash_text(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a: the same on every platform and run
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

std::uint64_t hash_optional(std::uint64_t h, const std::optional<double>& v) {
  return v ? mix(mix(h, 1), bits(*v)) : mix(h, 0);
}

/// The node's own fields: everything the diff compares except arguments,
/// location and iteration.
std::uint64_t attribute_hash(const Node& n) {
  std::uint64_t h = mix(0x7463646966660001ULL, static_cast<std::uint64_t>(n.op));
  const OpInfo& info = op_info(n.op);
  if (info.has(kNamed)) h = mix(h, hash_text(n.name));
  if (info.has(kHasValue)) h = mix(h, bits(n.value));
  if (n.domain) {
    h = mix(h, static_cast<std::uint64_t>(n.domain->type) + 1);
    h = hash_optional(hash_optional(h, n.domain->min), n.domain->max);
  }
  h = mix(h, n.differentiable ? 1 : 0);
  h = mix(h, n.semantics ? static_cast<std::uint64_t>(*n.semantics) + 1 : 0);
  h = mix(h, n.surrogate ? static_cast<std::uint64_t>(*n.surrogate) + 1 : 0);
  h = hash_optional(h, n.temperature);
  if (info.has(kHasCoefficients)) {
    const LinearTerms& t = n.linear();
    for (double c : t.coefficients) h = mix(h, bits(c));
    h = mix(h, t.coefficients.size());
    for (std::int32_t i : t.indices) h = mix(h, static_cast<std::uint32_t>(i));
    h = hash_optional(h, t.bias);
  }
  return h;
}

/// Where the node came from: its source position and loop iteration.
std::uint64_t iteration_hash(const Node& n) {
  std::uint64_t h = 0x6974657200000001ULL;
  for (const LoopStep& s : n.iteration) h = mix(mix(h, hash_text(s.variable)), static_cast<std::uint64_t>(s.value));
  return mix(h, n.iteration.size());
}

std::uint64_t source_hash(const Node& n, std::uint64_t iteration) {
  std::uint64_t h = mix(0x736f757263650001ULL, iteration);
  if (n.location) h = mix(mix(h, static_cast<std::uint32_t>(n.location->line)), static_cast<std::uint32_t>(n.location->column));
  return h;
}

bool located(const Node& n) { return n.location && n.location->valid(); }

bool same_source(const Node& x, const Node& y) { return x.location == y.location && x.iteration == y.iteration; }

/// Node ids grouped by a 64-bit key, built in one walk: keys and ids are
/// staged in ascending id order, then an open-addressing table gives each
/// distinct key a group and a counting sort lays the groups out in one
/// array, ids ascending within each. Two flat arrays instead of a vector per
/// key: at 100k nodes the allocator, not the matching, was the cost.
class FlatIndex {
 public:
  void add(std::uint64_t key, NodeId id) {
    staged_keys_.push_back(key);
    staged_ids_.push_back(id);
  }

  void build() {
    const std::size_t n = staged_keys_.size();
    std::size_t size = 16;
    while (size < 2 * n) size *= 2;
    mask_ = size - 1;
    slot_key_.assign(size, 0);
    slot_group_.assign(size, -1);
    std::vector<std::int32_t> group_of(n);
    std::vector<std::uint32_t> count;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t s = slot(staged_keys_[i]);
      if (slot_group_[s] < 0) {
        slot_key_[s] = staged_keys_[i];
        slot_group_[s] = static_cast<std::int32_t>(count.size());
        count.push_back(0);
      }
      group_of[i] = slot_group_[s];
      ++count[static_cast<std::size_t>(group_of[i])];
    }
    start_.assign(count.size() + 1, 0);
    for (std::size_t g = 0; g < count.size(); ++g) start_[g + 1] = start_[g] + count[g];
    cursor_.assign(start_.begin(), start_.end() - 1);
    std::vector<std::uint32_t> fill(cursor_);
    entries_.resize(n);
    for (std::size_t i = 0; i < n; ++i) entries_[fill[static_cast<std::size_t>(group_of[i])]++] = staged_ids_[i];
    std::vector<std::uint64_t>().swap(staged_keys_);
    std::vector<NodeId>().swap(staged_ids_);
  }

  /// The group of `key`, or -1.
  [[nodiscard]] std::int32_t find(std::uint64_t key) const {
    if (slot_key_.empty()) return -1;
    return slot_group_[slot(key)];
  }
  [[nodiscard]] std::uint32_t end(std::int32_t g) const { return start_[static_cast<std::size_t>(g) + 1]; }
  std::uint32_t& cursor(std::int32_t g) { return cursor_[static_cast<std::size_t>(g)]; }
  [[nodiscard]] NodeId at(std::uint32_t i) const { return entries_[i]; }

 private:
  /// Linear probing from the key's low bits (keys are already mixed): the
  /// slot holding `key`, or the empty one where it would go.
  [[nodiscard]] std::size_t slot(std::uint64_t key) const {
    std::size_t s = static_cast<std::size_t>(key) & mask_;
    while (slot_group_[s] >= 0 && slot_key_[s] != key) s = (s + 1) & mask_;
    return s;
  }

  std::vector<std::uint64_t> staged_keys_;
  std::vector<NodeId> staged_ids_;
  std::size_t mask_ = 0;
  std::vector<std::uint64_t> slot_key_;
  std::vector<std::int32_t> slot_group_;
  std::vector<std::uint32_t> start_, cursor_;  // group g: entries [start_[g], start_[g+1]); before cursor_[g]: paired
  std::vector<NodeId> entries_;
};

using Index = FlatIndex;

class Matcher {
 public:
  Matcher(const Program& a, const Program& b) : a_(a), b_(b) {
    m_.a_to_b.assign(a.nodes.size(), -1);
    m_.b_to_a.assign(b.nodes.size(), -1);
    attr_a_.resize(a.nodes.size());
    attr_b_.resize(b.nodes.size());
    src_a_.resize(a.nodes.size());
    src_b_.resize(b.nodes.size());
    iter_a_.resize(a.nodes.size());
    iter_b_.resize(b.nodes.size());
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
      attr_a_[i] = attribute_hash(a.nodes[i]);
      iter_a_[i] = iteration_hash(a.nodes[i]);
      src_a_[i] = source_hash(a.nodes[i], iter_a_[i]);
    }
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
      attr_b_[i] = attribute_hash(b.nodes[i]);
      iter_b_[i] = iteration_hash(b.nodes[i]);
      src_b_[i] = source_hash(b.nodes[i], iter_b_[i]);
    }
  }

  NodeMatch run() {
    pair_named_leaves();
    build_indexes();
    exact_pass(/*constants=*/false);
    position_pass(/*with_op=*/true);
    outputs_pass();
    position_pass(/*with_op=*/false);
    exact_pass(/*constants=*/false);
    for (int round = 0; round < kRounds; ++round) {
      const std::size_t before = paired_;
      sharing_pass();
      exact_pass(/*constants=*/false);
      if (paired_ == before) break;
    }
    exact_pass(/*constants=*/true);
    diagonal_pass();
    return std::move(m_);
  }

 private:
  const Node& na(NodeId id) const { return a_.nodes[static_cast<std::size_t>(id)]; }
  const Node& nb(NodeId id) const { return b_.nodes[static_cast<std::size_t>(id)]; }
  NodeId partner_of_a(NodeId id) const { return m_.a_to_b[static_cast<std::size_t>(id)]; }
  NodeId partner_of_b(NodeId id) const { return m_.b_to_a[static_cast<std::size_t>(id)]; }

  void pair(NodeId a, NodeId b) {
    m_.a_to_b[static_cast<std::size_t>(a)] = b;
    m_.b_to_a[static_cast<std::size_t>(b)] = a;
    ++paired_;
  }

  /// Pairs, then walks down: an argument position where both arguments are
  /// unpaired and of one op pairs them too (an edited constant under an
  /// unchanged expression, a renamed input).
  void pair_down(NodeId a, NodeId b) {
    pair(a, b);
    work_.clear();
    work_.emplace_back(a, b);
    while (!work_.empty()) {
      auto [x, y] = work_.back();
      work_.pop_back();
      const Node& p = na(x);
      const Node& q = nb(y);
      const std::size_t n = std::min(p.args.size(), q.args.size());
      for (std::size_t k = 0; k < n; ++k) {
        const NodeId u = p.args[k], v = q.args[k];
        if (partner_of_a(u) < 0 && partner_of_b(v) < 0 && na(u).op == nb(v).op) {
          pair(u, v);
          work_.emplace_back(u, v);
        }
      }
    }
  }

  /// First unpaired id of the key's group that `accept` takes. The cursor
  /// skips the group's leading paired ids for good; past it at most kTries
  /// unpaired ids are offered and kScan ids looked at, so a lookup costs
  /// O(1) beyond the skipped prefix whatever the group holds.
  template <class Accept>
  NodeId take(Index& index, std::uint64_t key, Accept&& accept) {
    const std::int32_t g = index.find(key);
    if (g < 0) return -1;
    std::uint32_t& cursor = index.cursor(g);
    const std::uint32_t end = index.end(g);
    while (cursor < end && partner_of_a(index.at(cursor)) >= 0) ++cursor;
    int tries = 0;
    for (std::uint32_t i = cursor; i < end && i < cursor + kScan && tries < kTries; ++i) {
      const NodeId id = index.at(i);
      if (partner_of_a(id) >= 0) continue;
      ++tries;
      if (accept(id)) return id;
    }
    return -1;
  }

  /// Where B's node `b` would be in A if the nodes just before it kept
  /// their place: one past the partner of the nearest paired node among
  /// the few before it (its own id when none is). Duplicates of one node
  /// then pair in order even when an edit or an inserted node let a later
  /// duplicate be looked at first.
  NodeId diagonal(NodeId b) const {
    for (NodeId j = b - 1; j >= 0 && j >= b - kTries; --j)
      if (const NodeId p = partner_of_b(j); p >= 0) return p + (b - j);
    return b;
  }

  template <class Accept>
  NodeId on_diagonal(NodeId b, Accept&& accept) const {
    const NodeId a = diagonal(b);
    return a >= 0 && static_cast<std::size_t>(a) < a_.nodes.size() && partner_of_a(a) < 0 && accept(a) ? a : -1;
  }

  // -- pass 1: inputs, parameters and state by op and name ---------------
  void pair_named_leaves() {
    std::unordered_map<std::uint64_t, std::vector<NodeId>> by_name;
    for (const Node& n : a_.nodes)
      if (n.op == Op::Input || n.op == Op::Parameter || n.op == Op::State)
        by_name[mix(hash_text(n.name), static_cast<std::uint64_t>(n.op))].push_back(n.id);
    for (const Node& n : b_.nodes) {
      if (n.op != Op::Input && n.op != Op::Parameter && n.op != Op::State) continue;
      auto it = by_name.find(mix(hash_text(n.name), static_cast<std::uint64_t>(n.op)));
      if (it == by_name.end()) continue;
      for (NodeId id : it->second)  // names are unique per op in a valid program: at most one hit
        if (partner_of_a(id) < 0 && na(id).op == n.op && na(id).name == n.name) {
          pair(id, n.id);
          break;
        }
    }
  }

  // -- the indexes of A ----------------------------------------------------
  /// An argument's word in an identity key: a constant by its value (two
  /// equal constants are interchangeable, and pairing them by their users
  /// keeps a moved statement from swapping them), any other node by the id
  /// it has in A.
  static std::uint64_t constant_word(double v) { return mix(0x636f6e7374000001ULL, bits(v)); }

  std::uint64_t exact_key_a(const Node& n) const {
    std::uint64_t h = attr_a_[static_cast<std::size_t>(n.id)];
    for (NodeId arg : n.args)
      h = mix(h, na(arg).op == Op::Constant ? constant_word(na(arg).value) : static_cast<std::uint32_t>(arg));
    return mix(h, n.args.size());
  }

  static std::uint64_t position_key(std::uint64_t src, Op op, bool with_op) {
    return with_op ? mix(src, static_cast<std::uint64_t>(op) + 1) : mix(src, 0);
  }

  static std::uint64_t sharing_key(Op op, std::size_t arity, std::size_t k, NodeId arg) {
    return mix(mix(mix(mix(0x7368617265000001ULL, static_cast<std::uint64_t>(op)), arity), k),
               static_cast<std::uint32_t>(arg));
  }

  void build_indexes() {
    for (const Node& n : a_.nodes) {
      const auto i = static_cast<std::size_t>(n.id);
      const std::uint64_t exact = exact_key_a(n);
      exact_.add(exact, n.id);
      if (located(n)) exact_at_.add(mix(exact, src_a_[i]), n.id);
      if (!n.iteration.empty()) exact_in_.add(mix(exact, iter_a_[i]), n.id);
    }
    for (Index* index : {&exact_, &exact_at_, &exact_in_}) index->build();
  }

  // The later passes' indexes hold only the A nodes still unpaired when the
  // pass first runs (a node paired by then is never a candidate again): after
  // a small edit they are small, and they stay empty when nothing is left.
  bool all_paired() const { return paired_ == b_.nodes.size() || paired_ == a_.nodes.size(); }

  void build_position_indexes() {
    if (built_positions_) return;
    built_positions_ = true;
    for (const Node& n : a_.nodes) {
      if (partner_of_a(n.id) >= 0 || !located(n)) continue;
      const auto i = static_cast<std::size_t>(n.id);
      at_op_.add(position_key(src_a_[i], n.op, true), n.id);
      at_.add(position_key(src_a_[i], n.op, false), n.id);
    }
    at_op_.build();
    at_.build();
  }

  void build_sharing_indexes() {
    if (built_sharing_) return;
    built_sharing_ = true;
    for (const Node& n : a_.nodes) {
      if (partner_of_a(n.id) >= 0) continue;
      const auto i = static_cast<std::size_t>(n.id);
      for (std::size_t k = 0; k < n.args.size(); ++k) {
        const std::uint64_t key = sharing_key(n.op, n.args.size(), k, n.args[k]);
        sharing_.add(key, n.id);
        if (located(n) || !n.iteration.empty()) sharing_at_.add(mix(key, src_a_[i]), n.id);
      }
    }
    sharing_.build();
    sharing_at_.build();
  }

  // -- pass 2: identical nodes over paired arguments, bottom-up -----------
  bool identical(NodeId a, const Node& b) const {
    const Node& x = na(a);
    if (x.op != b.op || x.args.size() != b.args.size()) return false;
    for (std::size_t k = 0; k < b.args.size(); ++k) {
      const NodeId u = x.args[k], v = b.args[k];
      if (nb(v).op == Op::Constant) {
        // Equal values, and not already told apart by another pairing.
        if (na(u).op != Op::Constant || bits(na(u).value) != bits(nb(v).value)) return false;
        if (partner_of_a(u) != v && (partner_of_a(u) >= 0 || partner_of_b(v) >= 0)) return false;
      } else if (u != partner_of_b(v)) {
        return false;
      }
    }
    return attr_a_[static_cast<std::size_t>(a)] == attr_b_[static_cast<std::size_t>(b.id)] &&
           diff_detail::own_field_changes(x, b) == 0;
  }

  /// Bottom-up over B. A constant is paired through its first paired user
  /// (and by itself only when `constants`, for those left over).
  void exact_pass(bool constants) {
    if (all_paired()) return;
    for (const Node& n : b_.nodes) {
      if (partner_of_b(n.id) >= 0 || (!constants && n.op == Op::Constant)) continue;
      std::uint64_t h = attr_b_[static_cast<std::size_t>(n.id)];
      bool ready = true;
      for (NodeId arg : n.args) {
        if (nb(arg).op == Op::Constant) {
          h = mix(h, constant_word(nb(arg).value));
          continue;
        }
        const NodeId p = partner_of_b(arg);
        if (p < 0) {
          ready = false;
          break;
        }
        h = mix(h, static_cast<std::uint32_t>(p));
      }
      if (!ready) continue;
      h = mix(h, n.args.size());
      auto accept = [&](NodeId a) { return identical(a, n); };
      // Of identical candidates, the one from the same place comes first,
      // then one from the same loop iteration (robust to moved lines).
      // Then the node on the diagonal (see diagonal()), then the first one.
      const auto i = static_cast<std::size_t>(n.id);
      NodeId a = -1;
      if (located(n)) a = take(exact_at_, mix(h, src_b_[i]), accept);
      if (a < 0 && !n.iteration.empty()) a = take(exact_in_, mix(h, iter_b_[i]), accept);
      if (a < 0) a = on_diagonal(n.id, accept);
      if (a < 0) a = take(exact_, h, accept);
      if (a < 0) continue;
      pair(a, n.id);
      const Node& x = na(a);
      for (std::size_t k = 0; k < n.args.size(); ++k)
        if (partner_of_b(n.args[k]) < 0 && partner_of_a(x.args[k]) < 0) pair(x.args[k], n.args[k]);
    }
  }

  // -- pass 3: the same source position and iteration ---------------------
  /// Arguments paired on both sides must not all contradict the pair: at
  /// least one agrees, or none disagrees. After lines were inserted, two
  /// unrelated statements share a position; their paired arguments differ.
  bool consistent(const Node& x, const Node& y) const {
    int agree = 0, disagree = 0;
    const std::size_t n = std::min(x.args.size(), y.args.size());
    for (std::size_t k = 0; k < n; ++k) {
      const NodeId u = partner_of_a(x.args[k]);
      if (u < 0 || partner_of_b(y.args[k]) < 0) continue;
      (u == y.args[k] ? agree : disagree) += 1;
    }
    return agree > 0 || disagree == 0;
  }

  void position_pass(bool with_op) {
    if (all_paired()) return;
    build_position_indexes();
    Index& index = with_op ? at_op_ : at_;
    for (const Node& n : b_.nodes) {
      if (partner_of_b(n.id) >= 0 || !n.location || !n.location->valid()) continue;
      const NodeId a = take(index, position_key(src_b_[static_cast<std::size_t>(n.id)], n.op, with_op), [&](NodeId id) {
        const Node& x = na(id);
        return same_source(x, n) && (!with_op || x.op == n.op) && consistent(x, n);
      });
      if (a >= 0) pair_down(a, n.id);
    }
  }

  // -- pass 4: outputs of one name are one value, whatever their op ------
  void outputs_pass() {
    std::unordered_map<std::string_view, NodeId> by_name;
    for (const auto& [name, id] : a_.outputs) by_name.emplace(name, id);
    for (const auto& [name, id] : b_.outputs) {
      auto it = by_name.find(name);
      if (it == by_name.end() || partner_of_a(it->second) >= 0 || partner_of_b(id) >= 0) continue;
      pair_down(it->second, id);
    }
  }

  // -- pass 5: the same op over a shared paired argument ------------------
  /// No argument paired on both sides may disagree.
  bool agrees(const Node& x, const Node& y) const {
    if (x.op != y.op || x.args.size() != y.args.size()) return false;
    for (std::size_t k = 0; k < x.args.size(); ++k) {
      const NodeId u = partner_of_a(x.args[k]);
      if (u >= 0 && partner_of_b(y.args[k]) >= 0 && u != y.args[k]) return false;
    }
    return true;
  }

  void sharing_pass() {
    if (all_paired()) return;
    build_sharing_indexes();
    for (const Node& n : b_.nodes) {
      if (partner_of_b(n.id) >= 0 || n.args.empty()) continue;
      NodeId a = -1;
      for (std::size_t k = 0; k < n.args.size() && a < 0; ++k) {
        const NodeId shared = partner_of_b(n.args[k]);
        if (shared < 0) continue;
        const std::uint64_t key = sharing_key(n.op, n.args.size(), k, shared);
        auto accept = [&](NodeId id) { return agrees(na(id), n) && na(id).args[k] == shared; };
        if (located(n) || !n.iteration.empty())
          a = take(sharing_at_, mix(key, src_b_[static_cast<std::size_t>(n.id)]), accept);
        if (a < 0) a = on_diagonal(n.id, accept);
        if (a < 0) a = take(sharing_, key, accept);
      }
      if (a >= 0) pair_down(a, n.id);
    }
  }

  // -- pass 6: what is left, unlocated, by the diagonal ------------------
  /// A node no pass could pair (its arguments are all constants, and no
  /// user leads to it) pairs with the node of its op on the diagonal, when
  /// neither side has a source position: in an artifact edited in place,
  /// that is the node it was.
  void diagonal_pass() {
    for (const Node& n : b_.nodes) {
      if (partner_of_b(n.id) >= 0 || located(n)) continue;
      const NodeId a = on_diagonal(n.id, [&](NodeId id) {
        const Node& x = na(id);
        return x.op == n.op && !located(x) && x.args.size() == n.args.size() && consistent(x, n);
      });
      if (a >= 0) pair_down(a, n.id);
    }
  }

  const Program& a_;
  const Program& b_;
  NodeMatch m_;
  std::size_t paired_ = 0;
  std::vector<std::uint64_t> attr_a_, attr_b_, src_a_, src_b_, iter_a_, iter_b_;
  Index exact_, exact_at_, exact_in_, at_op_, at_, sharing_, sharing_at_;
  bool built_positions_ = false, built_sharing_ = false;
  std::vector<std::pair<NodeId, NodeId>> work_;
};

}  // namespace

NodeMatch match_circuits(const Program& a, const Program& b) { return Matcher(a, b).run(); }

}  // namespace tc
