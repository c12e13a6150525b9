#include "runtime/runtime_util.h"

namespace tc::testing {

Program counter_program(int max_count) {
  Builder b;
  Value event = b.input("event", Domain::int32(0, 1));
  Value count = b.state("count", 0, Domain::int32(0, max_count));
  b.update(count, count + event);
  return must(b.build(count));
}

Program two_state_program(int guard_max) {
  Builder b;
  Value event = b.input("event", Domain::int32(0, 9));
  Value total = b.state("total", 0, Domain::int32(0, 1000));
  Value guard = b.state("guard", 0, Domain::int32(0, guard_max));
  b.update(total, total + event);
  b.update(guard, guard + 1);
  return must(b.build({{"total", total}, {"guard", guard}}));
}

Program divide_program() {
  Builder b;
  Value d = b.input("d", Domain::int32(-3, 3));
  Value acc = b.state("acc", 0, Domain::float64(-1e6, 1e6));
  b.update(acc, acc + Arg(12) / d);
  return must(b.build(acc));
}

Program branching_program() {
  Builder b;
  Value x = b.input("x", Domain::int32(-5, 5));
  Value s = b.state("s", 0, Domain::int32(-1000, 1000));
  Value inner = b.select(x > 3, s + Arg(2) * x, s + x);
  Value y = b.select(x > 0, inner, s - 1);
  Value spare = b.select(x < 0, 1, 2);
  (void)spare;
  b.update(s, y);
  return must(b.build({{"result", y}, {"old", s}}));
}

}  // namespace tc::testing
