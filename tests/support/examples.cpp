#include "support/examples.h"

namespace tc::examples {

namespace {
Program must(Result<Program> r) {
  TC_ASSERT(r.ok());
  return std::move(r).value();
}
}  // namespace

Program choose() {
  Builder b;
  b.set_location(SourceLoc{1, 12});
  Value a = b.input("a", Domain::int32(-128, 127));
  b.set_location(SourceLoc{2, 12});
  Value ten = b.constant(10);
  b.set_location(SourceLoc{2, 18});
  Value cond = a > 4;
  b.set_location(SourceLoc{2, 30});
  Value twelve = b.constant(12);
  b.set_location(SourceLoc{2, 12});
  return must(b.build(b.select(cond, ten, twelve)));
}

Program gated() {
  Builder b(Semantics::Hybrid, Surrogate::Sigmoid);
  Value x = b.input("x", Domain::float64());
  Value w = b.parameter("weight", 0.0);
  // One statement per node: the order of a call's arguments is up to the
  // compiler (gcc and clang differ), and node ids follow creation order.
  Value scaled = w * x;
  Value over = x > 4;
  return must(b.build(b.select(over, scaled, 0)));
}

Program counter() {
  Builder b;
  Value event = b.input("event", Domain::int32(0, 1));
  Value count = b.state("count", 0, Domain::int32(0, 100));
  b.update(count, count + event);
  return must(b.build(count));
}

Program learned_correction() {
  Builder rules;
  Value a = rules.input("a");
  Program algorithm = must(rules.build(rules.select(a > 4, 10, 12)));
  Builder b;
  Value x = b.input("x");
  Value correction = b.parameter("correction", 0.0);
  auto region = b.include(algorithm, {{"a", x}}, "algorithm");
  return must(b.build(region["result"] + correction * x));
}

}  // namespace tc::examples
