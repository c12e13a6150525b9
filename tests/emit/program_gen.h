#pragma once
// Test helpers shared by tests/emit, tests/vulkan, bench/vulkan_bench.cpp and
// the Node.js checks' fixture writer: random stateless float32 programs, random cases, the
// frontend corpus, and float32 ulp distance. Header-only so each test
// executable can include it.
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "frontend/compile.h"
#include "ir/program.h"

namespace tc::testgen {

struct GenOptions {
  int nodes = 60;              ///< computing nodes (before outputs)
  int inputs = 3;
  bool int_inputs = false;     ///< int32:-6:6 inputs (zeros and integral floordiv/mod)
  bool sigmoid_outputs = false;  ///< add outputs sigmoid(x) of exact values
  std::uint64_t seed = 1;
};

inline Node leaf(Op op, NodeId id) {
  Node n;
  n.op = op;
  n.id = id;
  return n;
}

/// A random, valid, stateless program in float32. Every op the backends
/// support appears; errors (division by zero, bad indices, domains, overflow)
/// happen on some cases by design.
inline Program random_program(const GenOptions& o) {
  std::mt19937_64 rng(o.seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.dtype = Dtype::Float32;
  auto add = [&](Node n) {
    n.id = static_cast<NodeId>(p.nodes.size());
    p.nodes.push_back(std::move(n));
    return p.nodes.back().id;
  };
  std::vector<NodeId> pool, bools;
  for (int k = 0; k < o.inputs; ++k) {
    Node n = leaf(Op::Input, 0);
    n.name = "x" + std::to_string(k);
    n.domain = o.int_inputs ? Domain::int32(-6, 6) : Domain::float32(-4, 4);
    pool.push_back(add(n));
  }
  const double consts[] = {0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 0.1};
  auto pick = [&]() -> NodeId {
    // Mostly recent nodes, so the circuit is deep rather than flat.
    const int n = static_cast<int>(pool.size());
    return pool[static_cast<std::size_t>(n - 1 - std::min(n - 1, uni(0, 5) == 0 ? uni(0, n - 1) : uni(0, std::min(n - 1, 8))))];
  };
  auto constant = [&]() {
    Node n = leaf(Op::Constant, 0);
    n.value = consts[uni(0, 7)];
    return add(n);
  };
  auto arg = [&]() { return uni(0, 6) == 0 ? constant() : pick(); };
  auto binary = [&](Op op, NodeId a, NodeId b) {
    Node n = leaf(op, 0);
    n.args = {a, b};
    return add(n);
  };
  // A binary node whose operator and operands are drawn from the generator:
  // right operand, left operand, then the operator, each in a statement of
  // its own. Drawn as a call's arguments, their order would be the
  // compiler's (gcc goes right to left, clang left to right) and so would
  // the program; this is gcc's order, which the goldens were made with.
  auto drawn = [&](auto op, auto left, auto right) {
    const NodeId b = right();
    const NodeId a = left();
    const Op o = op();
    return binary(o, a, b);
  };
  auto is = [](Op op) { return [op] { return op; }; };
  // Divisors are rarely zero: a non-zero constant or x + 0.37.
  auto divisor = [&]() {
    if (uni(0, 1)) {
      Node c = leaf(Op::Constant, 0);
      const double nz[] = {0.5, 2.0, 3.0, -2.5, 1.5};
      c.value = nz[uni(0, 4)];
      return add(c);
    }
    Node n = leaf(Op::Affine, 0);
    n.args = {pick()};
    n.edit_linear().coefficients = {1.0};
    n.edit_linear().bias = 0.37;
    return add(n);
  };
  for (int i = 0; i < o.nodes; ++i) {
    const int choice = uni(0, 18);
    NodeId id = 0;
    switch (choice) {
      case 0: case 1: id = drawn(is(Op::Add), arg, arg); break;
      case 2: id = drawn(is(Op::Sub), arg, arg); break;
      case 3: id = drawn([&] { return uni(0, 1) ? Op::Mul : Op::Add; }, arg, arg); break;
      case 4: id = drawn(is(Op::Div), arg, divisor); break;
      case 5: { Node n = leaf(Op::Neg, 0); n.args = {pick()}; id = add(n); break; }
      case 6: id = drawn(is(o.int_inputs ? Op::FloorDiv : Op::Div), arg, divisor); break;
      case 7: id = drawn(is(o.int_inputs ? Op::Mod : Op::Mul), arg, [&] { return o.int_inputs ? divisor() : arg(); }); break;
      case 8: case 9: {
        const Op cmp[] = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne};
        id = drawn([&] { return cmp[uni(0, 5)]; }, arg, arg);
        bools.push_back(id);
        break;
      }
      case 10: case 11: {
        if (bools.empty()) { id = drawn(is(Op::Add), arg, arg); break; }
        Node n = leaf(Op::Select, 0);
        n.args = {bools[static_cast<std::size_t>(uni(0, static_cast<int>(bools.size()) - 1))], arg(), arg()};
        id = add(n);
        break;
      }
      case 12: { Node n = leaf(Op::Relu, 0); n.args = {pick()}; id = add(n); break; }
      case 13: {
        // gather with a 0/1 index (or an arbitrary value: invalid-index errors)
        Node n = leaf(Op::Gather, 0);
        const NodeId ix = !bools.empty() && uni(0, 9) != 0 ? bools.back() : pick();
        n.args = {ix, arg(), arg()};
        if (uni(0, 1)) n.args.push_back(arg());
        id = add(n);
        break;
      }
      case 14: {
        if (bools.empty()) { id = drawn(is(Op::Sub), arg, arg); break; }
        Node one = leaf(Op::Constant, 0);
        one.value = 1.0;
        const NodeId c = bools.back();
        const NodeId s1 = binary(Op::Sub, add(one), c);
        Node n = leaf(Op::GatherOneHot, 0);
        // Sometimes a broken selection (both selectors from the same wire).
        n.args = {c, uni(0, 9) == 0 ? c : s1, arg(), arg()};
        id = add(n);
        break;
      }
      case 15: {
        Node n = leaf(Op::Affine, 0);
        const int k = uni(1, 3);
        for (int j = 0; j < k; ++j) {
          n.args.push_back(pick());
          n.edit_linear().coefficients.push_back(consts[uni(0, 7)] + 0.25);
        }
        if (uni(0, 1)) n.edit_linear().bias = 0.75;
        id = add(n);
        break;
      }
      case 16: {
        Node n = leaf(Op::SparseAffine, 0);
        n.args = {pick(), pick(), pick()};
        n.edit_linear().indices = {0, 2};
        n.edit_linear().coefficients = {1.5, -0.3};
        id = add(n);
        break;
      }
      case 17: {
        // A domain check that fails on some cases.
        id = drawn(is(Op::Add), arg, arg);
        p.nodes[static_cast<std::size_t>(id)].domain = o.int_inputs ? Domain::int32(-60, 60) : Domain::float32(-40, 40);
        break;
      }
      default: {
        Node n = leaf(Op::Neg, 0);
        n.args = {arg()};
        id = add(n);
        break;
      }
    }
    pool.push_back(id);
  }
  const std::size_t n = p.nodes.size();
  p.outputs.push_back({"result", static_cast<NodeId>(n - 1)});
  p.outputs.push_back({"result[1]", static_cast<NodeId>(n - 2)});
  p.outputs.push_back({"result[2]", pool[static_cast<std::size_t>(uni(0, static_cast<int>(pool.size()) - 1))]});
  if (o.sigmoid_outputs) {
    for (int k = 0; k < 3; ++k) {
      Node s = leaf(Op::Sigmoid, 0);
      s.args = {pool[pool.size() - 1 - static_cast<std::size_t>(k)]};
      p.outputs.push_back({"sig" + std::to_string(k), add(s)});
    }
    // Wide arguments too, where exp over- and underflows.
    Node m = leaf(Op::Mul, 0);
    Node c = leaf(Op::Constant, 0);
    c.value = 30.0;
    m.args = {pool.back(), add(c)};
    Node s = leaf(Op::Sigmoid, 0);
    s.args = {add(m)};
    p.outputs.push_back({"sig_wide", add(s)});
  }
  return p;
}

/// A deep circuit whose values stay in [-1, 1] for inputs in [-1, 1], so
/// cases succeed however large it is: affine means and differences, products,
/// relu, max via compare + select, negation (or sigmoid). Also the circuit
/// of bench/vulkan_bench.cpp (seed 2024, with sigmoid).
inline Program bounded_program(int nodes, std::uint64_t seed, bool sigmoid = false, int inputs = 4) {
  std::mt19937_64 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.dtype = Dtype::Float32;
  auto add = [&](Node n) {
    n.id = static_cast<NodeId>(p.nodes.size());
    p.nodes.push_back(std::move(n));
    return p.nodes.back().id;
  };
  std::vector<NodeId> pool;
  for (int k = 0; k < inputs; ++k) {
    Node n = leaf(Op::Input, 0);
    n.name = "x" + std::to_string(k);
    n.domain = Domain::float32(-1, 1);
    pool.push_back(add(n));
  }
  auto pick = [&] {
    return pool[pool.size() - 1 - static_cast<std::size_t>(uni(0, std::min<int>(15, static_cast<int>(pool.size()) - 1)))];
  };
  while (static_cast<int>(p.nodes.size()) < nodes) {
    Node n;
    const int c = uni(0, 19);
    if (c < 6) {
      n.op = Op::Affine;
      n.args = {pick(), pick()};
      n.edit_linear().coefficients = {0.5, c < 3 ? 0.5 : -0.5};
    } else if (c < 9) {
      n.op = Op::Mul;
      n.args = {pick(), pick()};
    } else if (c < 12) {
      n.op = Op::Relu;
      n.args = {pick()};
    } else if (c < 17) {
      Node g = leaf(Op::Gt, 0);
      const NodeId a = pick(), b = pick();
      g.args = {a, b};
      n.op = Op::Select;
      n.args = {add(g), a, b};
    } else if (sigmoid) {
      n.op = Op::Sigmoid;
      n.args = {pick()};
    } else {
      n.op = Op::Neg;
      n.args = {pick()};
    }
    pool.push_back(add(n));
  }
  for (int k = 0; k < 4; ++k) p.outputs.push_back({"result[" + std::to_string(k) + "]", pool[pool.size() - 1 - static_cast<std::size_t>(k)]});
  return p;
}

/// Random cases: columns[k][c] for input k (ascending ids). Integral domains
/// get integers; every column includes its domain's ends and zero. With
/// `out_of_domain`, some values fall outside the domain.
inline std::vector<std::vector<double>> random_cases(const Program& p, std::size_t count, std::uint64_t seed,
                                                     bool out_of_domain = false) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> cols;
  for (NodeId id : p.nodes_of(Op::Input)) {
    const Domain& d = *p.nodes[static_cast<std::size_t>(id)].domain;
    double lo = std::max(d.lo(), -1e6), hi = std::min(d.hi(), 1e6);
    std::vector<double> col(count);
    for (std::size_t c = 0; c < count; ++c) {
      double v;
      if (c == 0) v = lo;
      else if (c == 1) v = hi;
      else if (c == 2) v = std::min(std::max(0.0, lo), hi);
      else if (d.type == DomainType::Boolean) v = static_cast<double>(rng() & 1);
      else if (d.is_integral()) v = std::floor(std::uniform_real_distribution<double>(lo, hi + 1)(rng));
      else v = static_cast<double>(static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng)));
      if (v > hi) v = hi;
      if (out_of_domain && c % 17 == 5) v = hi + 1;
      col[c] = v;
    }
    cols.push_back(std::move(col));
  }
  return cols;
}

/// The frontend corpus (tests/data/corpus/*.py) compiled in float32 (or
/// `dtype`) with their `# tensorcode: input` directives. Files that do not compile are
/// returned with an empty program name so callers can report them.
struct CorpusEntry {
  std::string file;
  Program program;
  std::string error;  ///< compile error, empty when compiled
};

inline std::vector<CorpusEntry> load_corpus(const std::string& dir, Dtype dtype = Dtype::Float32) {
  std::vector<CorpusEntry> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    CompileOptions opts;
    opts.filename = f.filename().string();
    opts.dtype = dtype;
    CorpusEntry entry;
    entry.file = f.filename().string();
    // Header: leading "# key: value" lines (see tests/data/corpus/README.md).
    std::istringstream lines(ss.str());
    std::string line;
    while (std::getline(lines, line) && line.rfind("#", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = line.substr(1, colon - 1), value = line.substr(colon + 1);
      key.erase(0, key.find_first_not_of(' '));
      if (key == "function") opts.function = value.substr(value.find_first_not_of(' '));
      if (key != "inputs") continue;
      std::istringstream items(value);
      std::string item;
      while (items >> item) {
        const auto eq = item.find('=');
        auto d = parse_domain(eq == std::string::npos ? "" : item.substr(eq + 1));
        if (d.ok()) opts.inputs.emplace_back(item.substr(0, eq), *d);
        else entry.error = "bad input header item '" + item + "'";
      }
    }
    auto r = compile_python(ss.str(), opts);
    if (!entry.error.empty()) {
    } else if (r.ok()) {
      entry.program = std::move(r->program);
    } else {
      entry.error = r.error().format();
    }
    out.push_back(std::move(entry));
  }
  return out;
}

/// Distance in units in the last place between two floats (0 when equal,
/// also for +0 and -0).
/// Per node: whether its value depends on a sigmoid (exp), and whether some
/// decision it depends on (a comparison, select condition, gather index or
/// selector) does: the backends' tolerance classes (docs/backends.md).
struct SigmoidDependence {
  std::vector<std::uint8_t> value, decision;
};
inline SigmoidDependence sigmoid_dependence(const Program& p) {
  SigmoidDependence d{std::vector<std::uint8_t>(p.nodes.size(), 0), std::vector<std::uint8_t>(p.nodes.size(), 0)};
  for (const Node& n : p.nodes) {
    const auto i = static_cast<std::size_t>(n.id);
    d.value[i] = n.op == Op::Sigmoid;
    for (std::size_t k = 0; k < n.args.size(); ++k) {
      const auto a = static_cast<std::size_t>(n.args[k]);
      d.value[i] |= d.value[a];
      d.decision[i] |= d.decision[a];
      const bool decision_arg = is_comparison(n.op) || (n.op == Op::Select && k == 0) ||
                                (n.op == Op::Gather && k == 0) || (n.op == Op::GatherOneHot && k < n.args.size() / 2);
      if (decision_arg && d.value[a]) d.decision[i] = 1;
    }
  }
  return d;
}

inline std::uint64_t ulp_distance(float a, float b) {
  auto key = [](float f) -> std::int64_t {
    const auto bits = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(f));
    return bits & 0x80000000 ? 0x80000000 - bits : bits;
  };
  const std::int64_t d = key(a) - key(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

}  // namespace tc::testgen
