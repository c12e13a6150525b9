#include "grad_test_util.h"

#include <cmath>

#include "ir/builder.h"

namespace tc::test {

Program random_program(std::mt19937_64& rng, Semantics semantics, Dtype dtype, int size, bool gathers) {
  std::uniform_real_distribution<double> coef(-2.0, 2.0);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  Builder b(semantics, Surrogate::Sigmoid, pick(2) ? 1.0 : 2.0, dtype);
  std::vector<Value> pool;
  std::vector<Value> conds;
  pool.push_back(b.input("x0", Domain::float64(-3, 3)));
  pool.push_back(b.input("x1", Domain::float64(-3, 3)));
  Value i = b.input("i", Domain::int32(0, 2));
  pool.push_back(b.parameter("p0", coef(rng)));
  pool.push_back(b.parameter("p1", coef(rng)));
  pool.push_back(b.constant(std::round(coef(rng) * 4) / 4));
  auto any = [&]() { return pool[static_cast<std::size_t>(pick(static_cast<int>(pool.size())))]; };
  auto cond = [&]() -> Value {
    if (conds.empty() || pick(3) == 0) {
      static const char* cmp[] = {"lt", "le", "gt", "ge", "eq", "ne"};
      conds.push_back(b.op(cmp[pick(6)], any(), any()));
    }
    return conds[static_cast<std::size_t>(pick(static_cast<int>(conds.size())))];
  };
  for (int k = 0; k < size; ++k) {
    Value v;
    int op = pick(gathers ? 17 : 15);
    if (!gathers && op >= 12) op += 2;  // no gather, no gather_one_hot
    switch (op) {
      case 0: v = any() + any(); break;
      case 1: v = any() - any(); break;
      case 2: v = any() * any(); break;
      case 3: v = pick(2) ? any() / any() : any() / (1.0 + any() * any()); break;
      case 4: v = -any(); break;
      case 5: v = b.op("floordiv", any(), pick(2) ? Arg(0.75) : Arg(any())); break;
      case 6: v = b.op("mod", any(), pick(2) ? Arg(-1.25) : Arg(any())); break;
      case 7: v = cond(); break;
      case 8: case 9: v = b.select(cond(), any(), any()); break;
      case 10: v = b.relu(any()); break;
      case 11: v = b.sigmoid(any()); break;
      case 12: v = b.gather({any(), any(), any()}, i); break;
      case 13: {
        auto sel = b.one_hot(i, 3);
        v = b.gather_one_hot({sel[0], sel[1], sel[2]}, {any(), any(), any()});
        break;
      }
      case 14: v = b.affine({any(), any(), any()}, {coef(rng), coef(rng), coef(rng)}, pick(2) ? std::optional<double>(coef(rng)) : std::nullopt); break;
      case 15: v = b.sparse_affine({any(), any(), any()}, {0, 2}, {coef(rng), coef(rng)}, coef(rng)); break;
      default: v = b.op("eq", any(), any()) * any(); break;
    }
    pool.push_back(v);
  }
  std::vector<Arg> tail(pool.end() - 4, pool.end());
  auto p = b.build(b.affine(tail, {1.0, 1.0, 1.0, 1.0}));
  TC_ASSERT(p.ok());
  return *p;
}

Env random_env(std::mt19937_64& rng, const Program& p) {
  std::uniform_real_distribution<double> x(-3.0, 3.0);
  Env env;
  for (const Node& n : p.nodes) {
    if (n.op != Op::Input) continue;
    if (n.domain->is_integral()) {
      const auto lo = static_cast<std::int64_t>(n.domain->lo()), hi = static_cast<std::int64_t>(n.domain->hi());
      env.inputs[n.name] = static_cast<double>(lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1)));
    } else {
      env.inputs[n.name] = std::max(n.domain->lo(), std::min(n.domain->hi(), x(rng)));
    }
  }
  return env;
}

bool away_from_boundaries(const Program& p, const Env& env, double margin) {
  auto ev = Evaluator::create(p);
  if (!ev) return false;
  CaseTrace trace;
  if (!ev->run(env, &trace).ok()) return false;
  for (const Node& n : p.nodes) {
    const auto i = static_cast<std::size_t>(n.id);
    if (!trace.computed[i]) continue;
    auto val = [&](int k) { return trace.values[static_cast<std::size_t>(n.args[static_cast<std::size_t>(k)])]; };
    const bool hard = p.semantics_of(n) != Semantics::Relaxed;
    switch (n.op) {
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        if (hard && std::fabs(val(0) - val(1)) < margin) return false;
        break;
      case Op::Relu:
        if (std::fabs(val(0)) < margin) return false;
        break;
      case Op::FloorDiv: case Op::Mod: {
        const double q = val(0) / val(1);
        if (std::fabs(q - std::round(q)) < margin) return false;
        break;
      }
      case Op::Select:
        // A relaxed condition feeding a hard select switches where it crosses 0.
        if (hard && std::fabs(val(0)) < margin && val(0) != 0.0) return false;
        break;
      default:
        break;  // smooth where the others are: no kink of its own
    }
  }
  return true;
}

}  // namespace tc::test
