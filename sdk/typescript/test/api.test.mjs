// The API itself: compile, run, errors, domains, Builder, Runtime, passes,
// emitters, and the promise that malformed input never breaks the module.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as tcModule from '../dist/index.mjs';

const tc = await tcModule.load();
const choose = 'def choose(a):\n    return 10 if a > 4 else 12\n';

test('ESM import and CommonJS require give the same classes', async () => {
  const cjs = createRequire(import.meta.url)('../dist/cjs/index.js');
  assert.equal(cjs.CompileError, tcModule.CompileError);
  const viaRequire = await cjs.load();
  assert.deepEqual(viaRequire.compile(choose, { inputs: { a: 'int32:-128:127' } }).run({ a: 5 }), { result: 10 });
});

test('compile and run the description example', () => {
  const p = tc.compile(choose, { inputs: { a: 'int32:-128:127' } });
  assert.deepEqual(p.run({ a: 5 }), { result: 10 });
  assert.deepEqual(p.run({ a: 4 }), { result: 12 });
  assert.deepEqual(p.run({ a: true }), { result: 12 });
  assert.deepEqual(p.inputs, ['a']);
  assert.deepEqual(p.outputs, ['result']);
  assert.equal(p.info.inputs[0].domain.text, 'int32:-128:127');
});

test('planStatus says the WebAssembly build interprets, and why', () => {
  const p = tc.compile(choose, { inputs: { a: 'int32:-128:127' } });
  const before = p.planStatus();
  assert.equal(before.compiled, false);
  assert.equal(p.run({ a: 5 }).result, 10);
  const st = p.planStatus();
  assert.equal(st.compiled, false);
  assert.equal(st.compiling, false);
  assert.equal(st.reason, 'no C compiler in the WebAssembly build');
  assert.equal(st.summary, 'interpreting: no C compiler in the WebAssembly build');
  assert.equal(st.isa, '');
  assert.equal(st.compiledCases, 0);
  assert.equal(st.handedBack, 0);
});

test('domain helpers spell domains as the CLI does', () => {
  assert.equal(String(tc.int32(-128, 127)), 'int32:-128:127');
  assert.equal(String(tc.int32(0)), 'int32:0:2147483647');
  assert.equal(String(tc.boolean()), 'bool');
  assert.equal(String(tc.float64()), 'float64');
  assert.equal(String(tc.float32(-1, 1)), 'float32:-1:1');
  assert.deepEqual(tc.parseDomain(tc.float64(-2, 2.5)), { type: 'float64', min: -2, max: 2.5, text: 'float64:-2:2.5' });
  const p = tc.compile(choose, { inputs: { a: tc.int32(-8, 8) } });
  assert.equal(p.info.inputs[0].domain.text, 'int32:-8:8');
  assert.throws(() => tc.parseDomain('int33'), (e) => e instanceof tcModule.DomainError && /unknown domain type 'int33'/.test(e.message));
});

test('compile errors are CompileError with the line and column', () => {
  assert.throws(() => tc.compile('def f(a):\n    return a +\n', { inputs: { a: 'int32' } }), (e) => {
    assert.ok(e instanceof tcModule.CompileError && e instanceof tcModule.TensorcodeError && e instanceof Error);
    assert.equal(e.line, 2);
    assert.equal(e.column, 15);
    assert.match(e.message, /^<source>:2:15: error: invalid syntax/);
    return true;
  });
  assert.throws(() => tc.compile('def f(a):\n    while a:\n        pass\n    return a\n', { inputs: { a: 'int32' }, filename: 'w.py' }),
    (e) => e instanceof tcModule.CompileError && /^w\.py:2:5: /.test(e.message));
  assert.throws(() => tc.compile(choose, { inputs: { a: 'int32:5:1' } }), /minimum is above maximum/);
  assert.throws(() => tc.compile(choose, { inputs: {} }), /parameter 'a' has no input domain/);
});

test('evaluation errors are EvaluationError naming the node', () => {
  const p = tc.compile('def f(a, b):\n    return a / b\n', { inputs: { a: 'float64', b: 'float64' }, filename: 'div.py' });
  assert.throws(() => p.run({ a: 1, b: 0 }), (e) => {
    assert.ok(e instanceof tcModule.EvaluationError);
    assert.equal(typeof e.node, 'number');
    assert.match(e.message, /^div\.py:2:12: error: node \d+ \(div\).*division by zero/);
    return true;
  });
  assert.throws(() => p.run({ a: 1 }), /missing input 'b'/);
  assert.throws(() => p.run({ a: 1, b: 2, c: 3 }), /unknown input 'c'/);
  assert.throws(() => p.run({ a: 'x', b: 1 }), /input 'a' must be a number/);
  // Through an artifact the location is not in the message (it points into a source we do not have).
  const q = tc.Program.fromJSON(p.toJSON());
  assert.throws(() => q.run({ a: 1, b: 0 }), (e) => /^node \d+ \(div\)/.test(e.message) && e.line === 2);
});

test('artifacts round-trip and malformed ones throw ArtifactError', () => {
  const p = tc.compile(choose, { inputs: { a: 'int32:-128:127' } });
  const text = p.toJSON();
  assert.equal(tc.Program.fromJSON(text).toJSON(), text);
  assert.equal(tc.Program.fromJSON(JSON.parse(text)).toJSON(), text);
  assert.throws(() => tc.Program.fromJSON('{"format": "tensorcode.program"'), tcModule.ArtifactError);
  assert.throws(() => tc.Program.fromJSON('[]'), tcModule.ArtifactError);
  const bad = JSON.parse(text);
  bad.nodes[2].args = [7];
  assert.throws(() => tc.Program.fromJSON(JSON.stringify(bad)), (e) => e instanceof tcModule.ArtifactError && /node 2/.test(e.message));
});

test('malformed sources and artifacts never abort the module', () => {
  const p = tc.compile(choose, { inputs: { a: 'int32:-128:127' } });
  const text = p.toJSON();
  let s = 99, thrown = 0;
  const rand = (n) => ((s = (s * 1103515245 + 12345) % 2147483648) % n);
  const mutate = (t) => {
    const chars = [...t];
    for (let k = 0; k < 1 + rand(4); ++k) {
      const at = rand(chars.length + 1);
      const pick = rand(3);
      if (pick === 0) chars.splice(at, 1);
      else if (pick === 1) chars.splice(at, 0, '{}[]:,"0-e.()ifx \n\t'[rand(19)]);
      else chars[at] = String.fromCharCode(rand(128));
    }
    return chars.join('');
  };
  for (let i = 0; i < 1500; ++i) {
    try { tc.Program.fromJSON(mutate(text)).run({ a: 3 }); } catch (e) { assert.ok(e instanceof tcModule.TensorcodeError, String(e)); thrown++; }
    try { tc.compile(mutate(choose), { inputs: { a: 'int32:-128:127' } }).run({ a: 3 }); } catch (e) { assert.ok(e instanceof tcModule.TensorcodeError, String(e)); thrown++; }
  }
  // Deep nesting and huge inputs are refused, not overflowed.
  for (const deep of ['['.repeat(100000), '{"a":'.repeat(50000)])
    assert.throws(() => tc.Program.fromJSON(deep), tcModule.ArtifactError);
  // The same shapes as objects (issue 37: a bare RangeError / TypeError).
  let deepObject = {};
  for (let i = 0; i < 200000; ++i) deepObject = { a: deepObject };
  const cyclic = JSON.parse(text);
  cyclic.nodes.push(cyclic);
  for (const [what, value] of [['deep', deepObject], ['cyclic', cyclic], ['undefined', undefined], ['function', () => 1]]) {
    assert.throws(() => tc.Program.fromJSON(value), (e) => e instanceof tcModule.ArtifactError &&
      /^the artifact (object cannot be read as a program|must be JSON text or an object)/.test(e.message), what);
  }
  assert.throws(() => tc.compile(`def f(a):\n    return ${'('.repeat(5000)}a${')'.repeat(5000)}\n`, { inputs: { a: 'int32' } }), tcModule.CompileError);
  assert.throws(() => tc.compile(`def f(a):\n    return a${' + 1'.repeat(200000)}\n`, { inputs: { a: 'int32' }, maxNodes: 1000 }), tcModule.CompileError);
  assert.ok(thrown > 1000);
  assert.deepEqual(p.run({ a: 5 }), { result: 10 }, 'the module still works');
});

test('gradients in exact and hybrid semantics', () => {
  const src = 'def gated(x, weight):\n    return weight * x if x > 4 else 0.0\n';
  const p = tc.compile(src, { inputs: { x: 'float64', weight: 'float64' } });
  assert.deepEqual(p.gradients({ x: 5, weight: 2 }), { x: 2, weight: 5 });
  assert.deepEqual(p.valueAndGradients({ x: 5, weight: 2 }), { result: 10, gradients: { x: 2, weight: 5 } });
  const h = p.valueAndGradients({ x: 4, weight: 2 }, { semantics: 'hybrid' });
  assert.equal(h.result, 0);
  assert.ok(h.gradients.x > 0, 'the surrogate gives the decision a gradient');
  assert.throws(() => p.gradients({ x: 1, weight: 1 }, { output: 'nope' }), /nope/);
});

test('batch runs agree with single runs and report failing cases', () => {
  const p = tc.compile('def f(a, b):\n    return a // b\n', { inputs: { a: 'int32:-20:20', b: 'int32:-3:3' } });
  const cases = [];
  for (let a = -20; a <= 20; a += 3) for (let b = -3; b <= 3; ++b) cases.push({ a, b });
  const r = p.runBatch(cases);
  cases.forEach((c, i) => {
    if (c.b === 0) {
      assert.equal(r.failed[i], 1);
      assert.ok(r.errors.some((e) => e.index === i && e.error instanceof tcModule.EvaluationError));
    } else {
      assert.equal(r.failed[i], 0);
      assert.equal(r.outputs.result[i], p.run(c).result);
    }
  });
  const cols = p.runBatch({ a: cases.map((c) => c.a), b: cases.map((c) => c.b) });
  assert.deepEqual(cols.failed, r.failed);
  // errors: 'raise', Python's run_batch default: the first failing case throws, with `case`.
  const first = cases.findIndex((c) => c.b === 0);
  assert.throws(() => p.runBatch(cases, { errors: 'raise' }), (e) => e instanceof tcModule.EvaluationError && e.case === first &&
    e.message === `case ${first}: ${r.errors.find((x) => x.index === first).error.message}`);
  assert.equal(p.runBatch(cases.filter((c) => c.b !== 0), { errors: 'raise' }).failed.every((f) => f === 0), true);
  assert.throws(() => p.runBatch(cases, { errors: 'nan' }), tcModule.ArgumentError);
});

test('optimize, freeze, schedule, analyze', () => {
  const p = tc.compile('def f(x):\n    y = 2 * 3\n    return x * y + 0 * x\n', { inputs: { x: 'float64:-1:1' } });
  const o = p.optimize();
  assert.ok(o.info.nodes < p.info.nodes);
  assert.deepEqual(o.run({ x: 0.5 }), p.run({ x: 0.5 }));
  const layers = p.schedule();
  assert.deepEqual(layers.flat().sort((a, b) => a - b), [...Array(p.info.nodes).keys()]);
  const a = tc.analyze(p);
  assert.deepEqual(a.outputs.result, [-6, 6]);
  const d = tc.compile('def f(a, b):\n    return a / b\n', { inputs: { a: 'float64:-1:1', b: 'float64:-1:1' } }).analyze();
  assert.ok(d.warnings.some((w) => w.message === 'possible division by zero'));
  const g = tc.Builder ? new tc.Builder() : null;
  const x = g.input('x');
  const w = g.parameter('w', 3);
  const q = g.build(g.mul(w, x));
  assert.deepEqual(q.freeze().info.parameters, []);
  assert.deepEqual(q.freeze().run({ x: 2 }), { result: 6 });
  assert.throws(() => q.freeze(['nope']), tcModule.PassError);
});

test('Builder with methods, scan, include, errors at build', () => {
  const b = new tc.Builder({ semantics: 'hybrid' });
  const x = b.input('x', tc.float64(-5, 5));
  const w = b.parameter('weight', 0.5);
  const y = b.select(b.gt(x, 4), b.mul(w, x), 0);
  const p = b.build(y);
  assert.equal(p.info.semantics, 'hybrid');
  assert.deepEqual(p.run({ x: 5 }), { result: 2.5 });
  assert.deepEqual(p.gradients({ x: 5 }).weight, 5);

  const s = new tc.Builder();
  const xs = [1, 2, 3].map((k) => s.input(`x${k}`));
  const total = s.scan((carry, item) => s.add(carry, item), 0, xs);
  const sub = s.include(p, { x: total }, 'inner');
  const q = s.build({ total, inner: sub.result });
  assert.deepEqual(q.run({ x1: 1, x2: 2, x3: 2 }), { total: 5, inner: 2.5 });
  assert.deepEqual(q.info.parameters.map((p) => p.name), ['inner.weight']);

  const bad = new tc.Builder();
  const other = new tc.Builder();
  assert.throws(() => bad.build(bad.add(bad.input('a'), other.input('b'))), (e) => e instanceof tcModule.BuildError && /another builder/.test(e.message));
  const bad2 = new tc.Builder();
  assert.throws(() => bad2.build(bad2.op('nonsense', 1)), /unknown op 'nonsense'/);
  const bad3 = new tc.Builder();
  assert.throws(() => bad3.build(bad3.input('a', 'int32:9:1')), tcModule.BuildError);
  const bad4 = new tc.Builder();
  assert.throws(() => bad4.scan(() => { throw new RangeError('from the body'); }, 0, [1, 2]), RangeError);
  assert.throws(() => new tc.Builder({ semantics: 'fuzzy' }), /semantics must be exact, relaxed or hybrid/);
  assert.ok(tc.opNames.includes('gather_one_hot'));
});

test('Runtime: dispatch, step, replay, snapshot and restore keep the budget', () => {
  const b = new tc.Builder();
  const event = b.input('event', tc.int32(0, 1));
  const count = b.state('count', 0, tc.int32(0, 100));
  b.update(count, b.add(count, event));
  const p = b.build(count);
  assert.deepEqual(p.step({ event: 1 }, { count: 4 }), [{ result: 4 }, { count: 5 }]);
  const rt = new tc.Runtime(p, { maxSteps: 5 });
  // Python's shapes: dispatch gives the outputs, step [outputs, next state].
  assert.deepEqual(rt.dispatch({ event: 1 }), { result: 0 });
  assert.deepEqual(rt.state, { count: 1 });
  assert.deepEqual(rt.step({ event: 1 }), [{ result: 1 }, { count: 2 }]);
  assert.equal(rt.steps, 1);
  assert.throws(() => rt.dispatch({ event: 2 }), tcModule.EvaluationError);
  assert.equal(rt.steps, 1, 'a failed event changes nothing');
  // replay: one {step, outputs, state} per event; the first failure throws with the event and what committed before it.
  assert.deepEqual(rt.replay([{ event: 0 }]), [{ step: 2, outputs: { result: 1 }, state: { count: 1 } }]);
  assert.throws(() => rt.replay([{ event: 1 }, { event: 7 }, { event: 1 }]), (e) => {
    assert.ok(e instanceof tcModule.EvaluationError);
    assert.equal(e.event, 1);
    assert.match(e.message, /^event 1: input 'event': 7 is above the maximum 1/);
    assert.deepEqual(e.records, [{ step: 3, outputs: { result: 1 }, state: { count: 2 } }]);
    return true;
  });
  assert.deepEqual(rt.state, { count: 2 });
  assert.throws(() => rt.replay({ event: 1 }), tcModule.ArgumentError);
  const snap = rt.snapshot();
  assert.equal(JSON.parse(snap).steps, 3);
  const back = tc.Runtime.restore(snap);
  assert.equal(back.steps, 3);
  assert.equal(back.maxSteps, 5);
  back.dispatch({ event: 1 });
  back.dispatch({ event: 1 });
  assert.throws(() => back.dispatch({ event: 1 }), /budget/);
  assert.deepEqual(back.state, { count: 4 });
  assert.throws(() => tc.Runtime.restore('{"format": "tensorcode.snapshot"}'), tcModule.SnapshotError);
  const edited = JSON.parse(snap);
  edited.steps = 9;
  assert.throws(() => tc.Runtime.restore(edited), tcModule.SnapshotError);
});

test('emitWasm bytes run in WebAssembly and agree with the float32 CPU', async () => {
  const p = tc.compile('def f(x, y):\n    return x * y - x / 3 if x > y else y\n', { inputs: { x: 'float32:-10:10', y: 'float32:-10:10' }, dtype: 'float32' });
  const bytes = p.emitWasm();
  assert.ok(WebAssembly.validate(bytes));
  const cases = [];
  for (let i = 0; i < 200; ++i) cases.push({ x: Math.fround(Math.sin(i) * 10), y: Math.fround(Math.cos(i * 1.7) * 10) });
  const { results } = await p.runWasm(cases);
  const cpu = p.runBatch(cases);
  results.forEach((r, i) => assert.equal(r.result, cpu.outputs.result[i], `case ${i}`));
  const st = new tc.Builder();
  const s = st.state('s', 0, 'float64');
  st.update(s, st.add(s, 1));
  assert.throws(() => st.build(s).emitWasm(), tcModule.EmitError);
});

test('emitWgsl gives the shader and its binding layout', () => {
  const p = tc.compile(choose, { inputs: { a: 'int32:-128:127' } });
  const w = p.emitWgsl();
  assert.match(w.code, /@compute @workgroup_size\(64, 1, 1\)/);
  assert.deepEqual(w.bindings.map((b) => [b.binding, b.name, b.type]), [
    [0, 'params', 'read-only-storage'], [1, 'inputs', 'read-only-storage'], [2, 'outputs', 'storage'], [3, 'errors', 'storage']]);
  for (const b of w.bindings) assert.match(w.code, new RegExp(`@binding\\(${b.binding}\\)`));
  assert.deepEqual(w.inputs, ['a']);
});

test('host bindings for call nodes: run, gradients, runtime, and thrown errors', () => {
  const b = new tc.Builder();
  const x = b.input('x', tc.float64(-10, 10));
  const c = b.call('cube', x);
  const s = b.state('total', 0, 'float64');
  b.update(s, b.add(s, c));
  const p = b.build({ c, total: s });
  assert.throws(() => p.run({ x: 2 }), /cube/);  // no binding yet
  const cube = { forward: ([v]) => v * v * v, vjp: ([v]) => [3 * v * v] };
  const bound = p.bind({ cube });
  assert.deepEqual(bound.run({ x: 2 }), { c: 8, total: 0 });
  assert.deepEqual(bound.gradients({ x: 2 }, { output: 'c' }), { x: 12 });
  assert.deepEqual(bound.runBatch([{ x: 1 }, { x: 3 }]).outputs.c, Float64Array.from([1, 27]));
  assert.equal(bound.toJSON(), p.toJSON(), 'bindings are never written into the artifact');
  const rt = new tc.Runtime(bound, { maxSteps: 10 });
  rt.dispatch({ x: 2 });
  rt.dispatch({ x: 1 });
  assert.deepEqual(rt.state, { total: 9 });
  const back = tc.Runtime.restore(rt.snapshot(), { bindings: { cube } });
  back.dispatch({ x: 3 });
  assert.deepEqual(back.state, { total: 36 });
  assert.throws(() => tc.Runtime.restore(rt.snapshot()).dispatch({ x: 1 }), /cube/);

  // A throwing host function: an EvaluationError naming the binding, the original as cause; nothing committed.
  const oops = new RangeError('cube is unwell');
  const failing = p.bind({ cube: { forward: () => { throw oops; } } });
  assert.throws(() => failing.run({ x: 2 }), (e) => e instanceof tcModule.EvaluationError && /binding 'cube' failed: cube is unwell/.test(e.message) && e.cause === oops);
  const frt = new tc.Runtime(failing);
  assert.throws(() => frt.dispatch({ x: 1 }), tcModule.EvaluationError);
  assert.equal(frt.steps, 0);
  // Forward-only: differentiating through the call is an error; a wrong vjp shape too.
  assert.throws(() => p.bind({ cube: { forward: ([v]) => v } }).gradients({ x: 1 }, { output: 'c' }), /forward-only/);
  assert.throws(() => p.bind({ cube: { forward: ([v]) => v, vjp: () => [1, 2] } }).gradients({ x: 1 }, { output: 'c' }), /vjp of binding 'cube' returned 2/);
  assert.throws(() => p.bind({ cube: { forward: () => 'x' } }).run({ x: 1 }), /forward must return a number/);
  assert.throws(() => p.bind({ cube: {} }), TypeError);
  assert.deepEqual(bound.run({ x: -1 }), { c: -1, total: 0 }, 'the module still works');
});
