// The programs of interop/builder_artifacts.cpp, built with the TypeScript
// Builder statement by statement in the same order, so the artifacts must be
// byte-identical.
export function builderPrograms(tc) {
  const P = {};
  {
    const b = new tc.Builder({ semantics: 'hybrid', surrogate: 'sigmoid' });
    const x = b.input('x', tc.float64());
    const w = b.parameter('weight', 0.5);
    const cond = b.gt(x, 4);
    const wx = b.mul(w, x);
    P.gated = b.build(b.select(cond, wx, 0));
  }
  {
    const b = new tc.Builder();
    const event = b.input('event', tc.int32(0, 1));
    const count = b.state('count', 0, tc.int32(0, 100));
    b.update(count, b.add(count, event));
    P.counter = b.build(count);
  }
  {
    const b = new tc.Builder({ semantics: 'exact', surrogate: 'sigmoid', temperature: 1, dtype: 'float64' });
    const x = b.input('x', tc.float64(-10, 10));
    const y = b.input('y', tc.float64(-10, 10));
    const w = b.parameter('w', 0.75);
    const h = b.affine([x, y, w], [1.5, -2.0, 0.25], 0.125);
    const s = b.sigmoid(h);
    const r = b.relu(b.sub(x, y));
    P.neuron = b.build({ s, r, mix: b.add(b.mul(s, r), w) });
  }
  {
    const b = new tc.Builder();
    const i = b.input('i', tc.int32(0, 3));
    const x = b.input('x', tc.float64(-4, 4));
    const g = b.gather([x, b.mul(x, 2), b.mul(x, x), 7], i);
    const hot = b.oneHot(i, 4);
    const sel = b.gatherOneHot(hot, [1, x, 3, b.op('neg', x)]);
    const sparse = b.sparseAffine([x, g, sel], [0, 2], [0.5, -1.0], 2.0);
    P.lookup = b.build({ g, sel, sparse });
  }
  {
    const b = new tc.Builder();
    const x = b.input('x', tc.float64(-2, 2));
    const k = b.parameter('k', 1.25);
    const xk = b.mul(x, k);
    const total = b.scan((carry, item) => b.mul(b.op('add', carry, item), 0.5), 0, [x, k, xk, 3]);
    P.scan_sum = b.build(b.op('div', total, b.op('add', k, 1)));
  }
  {
    const rules = new tc.Builder();
    const a = rules.input('a');
    const t = rules.parameter('threshold', 4);
    const algorithm = rules.build(rules.select(rules.gt(a, t), 10, 12));
    const b = new tc.Builder();
    const x = b.input('x');
    const correction = b.parameter('correction', 0.25);
    const region = b.include(algorithm, { a: x }, 'algorithm');
    b.freeze(['algorithm.threshold']);
    P.included = b.build(b.add(region.result, b.mul(correction, x)));
  }
  return P;
}
