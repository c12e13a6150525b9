// The app the bundler tests build (bundle_app.mjs): what a web developer
// does with the package, reported as JSON to the serving test, which
// compares it with the CLI. `load` comes from the bundled 'tensorcode'.
export const SOURCE = 'def f(x, y):\n    return 3 * x * y - x if x > y else y / (x + 2)\n';
export const INPUTS = { x: 'float64:-1:1', y: 'float64:-1:1' };
export const EVENTS = [1, 0, 1, 1, 0, 1].map((event) => ({ event }));

export async function main(load, options) {
  const report = {};
  try {
    report.nodeBuiltins = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
    const tc = await load(options);
    // Compile and run.
    const p = tc.compile(SOURCE, { inputs: INPUTS });
    report.artifact = p.toJSON();
    report.cases = Array.from({ length: 9 }, (_, i) => ({ x: (i - 4) / 4, y: ((i * 7) % 9 - 4) / 5 }));
    report.run = report.cases.map((c) => p.run(c));
    const batch = p.runBatch(report.cases);
    report.batch = Object.fromEntries(Object.entries(batch.outputs).map(([k, v]) => [k, [...v]]));
    // Differentiate.
    report.grads = report.cases.slice(0, 4).map((c) => p.valueAndGradients(c));
    // An error as a value of its own class.
    try { p.run({ x: 5, y: 0 }); } catch (e) { report.error = { name: e.name, kind: e.kind, detail: e.detail }; }
    // Replay events through a stateful program.
    const b = new tc.Builder();
    const event = b.input('event', tc.int32(0, 1));
    const count = b.state('count', 0, tc.int32(0, 100));
    b.update(count, b.add(count, event));
    const counter = b.build(count);
    report.counter = { artifact: counter.toJSON(), events: EVENTS };
    const rt = new tc.Runtime(counter);
    report.counter.dispatched = EVENTS.slice(0, 2).map((e) => ({ outputs: rt.dispatch(e), state: rt.state }));
    report.counter.replay = rt.replay(EVENTS.slice(2));
    report.counter.state = rt.state;
    report.counter.steps = rt.steps;
    for (const o of [p, counter, rt]) o.dispose();
    b.dispose();
    report.done = true;
  } catch (e) {
    report.failure = String((e && e.stack) || e);
  }
  await fetch('/report', { method: 'POST', body: JSON.stringify(report) });
}
