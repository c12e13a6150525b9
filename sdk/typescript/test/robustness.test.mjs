// Bad values, disposal during a call, truncated indices and C++ exceptions
// (issue 23, defects 5 to 8): every one of them is a TensorcodeError of a
// known class with a message, and the module stays usable afterwards.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import * as tcModule from '../dist/index.mjs';

const { ArgumentError, DisposedError, EvaluationError, ResourceError, TensorcodeError } = tcModule;
const tc = await tcModule.load();
const plusOne = tc.compile('def f(a):\n    return a + 1\n', { inputs: { a: 'int32:-100:100' } });

/** What a call gives: {value} or {error: {name, detail}}. */
function outcome(f) {
  try {
    return { value: f() };
  } catch (e) {
    assert.ok(e instanceof TensorcodeError, `not a TensorcodeError: ${e?.stack ?? e}`);
    return { error: { name: e.name, detail: e.detail } };
  }
}

test('runBatch refuses exactly the values run() refuses, with the same error', () => {
  const values = [null, '', false, true, [7], '0x10', '1', NaN, Infinity, -Infinity, {}, undefined, 1n, 3, -0, 2.5, 500];
  for (const v of values) {
    const single = outcome(() => plusOne.run({ a: v }).result);
    // A Float64Array column takes runBatch's whole-column copy when every value is finite.
    const forms = [['cases', [{ a: 1 }, { a: v }]], ['columns', { a: [1, v] }]];
    if (typeof v === 'number') forms.push(['float64 column', { a: Float64Array.of(1, v) }]);
    for (const [form, cases] of forms) {
      const what = `${form} with ${typeof v === 'bigint' ? `${v}n` : JSON.stringify(v) ?? String(v)}`;
      const batch = outcome(() => plusOne.runBatch(cases));
      if (single.error && batch.error) {
        // Refused as run() refuses it: same class, run()'s message with the case in front.
        assert.equal(batch.error.name, single.error.name, what);
        assert.equal(batch.error.detail, `case 1: ${single.error.detail}`, what);
      } else if (single.error) {
        // A value of the right type that fails its case (a domain): reported for that case, not computed.
        const r = batch.value;
        assert.deepEqual([...r.failed], [0, 1], `${what}: run() refuses it (${single.error.detail}), runBatch computed it`);
        assert.equal(r.errors[0].error.detail, single.error.detail, what);
        assert.ok(r.errors[0].error instanceof EvaluationError);
      } else {
        assert.equal(batch.error, undefined, `${what}: run() accepts it, runBatch refused: ${batch.error?.detail}`);
        assert.deepEqual([...batch.value.outputs.result], [2, single.value], what);
      }
    }
  }
  // The coercions of the defect: none of these is computed any more.
  for (const v of [null, '', [7], '0x10']) assert.throws(() => plusOne.runBatch([{ a: v }]), EvaluationError);
});

test('runBatch refuses unknown input names and malformed cases, as run() does', () => {
  assert.throws(() => plusOne.run({ a: 1, zz: 2 }), (e) => e instanceof EvaluationError && /unknown input 'zz'/.test(e.message));
  assert.throws(() => plusOne.runBatch([{ a: 1 }, { a: 1, zz: 2 }]),
    (e) => e instanceof EvaluationError && e.message === "case 1: unknown input 'zz'");
  assert.throws(() => plusOne.runBatch({ a: [1], zz: [2] }), (e) => e instanceof EvaluationError && /unknown input 'zz'/.test(e.message));
  assert.throws(() => plusOne.runBatch([{ a: 1 }, {}]), (e) => e instanceof EvaluationError && e.message === "case 1: missing input 'a'");
  assert.throws(() => plusOne.runBatch([7]), (e) => e instanceof EvaluationError && /case 0: input must be an object/.test(e.message));
  assert.throws(() => plusOne.runBatch({ a: new BigInt64Array(2) }), (e) => e instanceof EvaluationError && /must be a number, got bigint/.test(e.message));
  // Typed columns and booleans still work.
  assert.deepEqual([...plusOne.runBatch({ a: new Int32Array([1, -3]) }).outputs.result], [2, -2]);
  assert.deepEqual([...plusOne.runBatch([{ a: true }, { a: false }]).outputs.result], [2, 1]);
});

const doubler = (() => {
  const b = new tc.Builder();
  return b.build(b.call('double', b.input('x')));
})();

test('dispose() inside a host function takes effect when the call returns', () => {
  let p;
  p = doubler.bind({ double: { forward: ([x]) => { p.dispose(); return 2 * x; } } });
  assert.deepEqual(p.run({ x: 3 }), { result: 6 });
  assert.equal(p.disposed, true);
  assert.throws(() => p.run({ x: 3 }), (e) => e instanceof DisposedError && /this Program was disposed/.test(e.message));
  assert.throws(() => p.toJSON(), DisposedError);

  // The slow path, batches, gradients: the same.
  for (const use of [(q) => q.run({ x: 3 }, { params: {} }).result, (q) => q.runBatch([{ x: 1 }, { x: 3 }]).outputs.result[1],
    (q) => q.valueAndGradients({ x: 3 }).result]) {
    let q;
    q = doubler.bind({ double: { forward: ([x]) => { q.dispose(); return 2 * x; }, vjp: () => [2] } });
    assert.equal(use(q), 6);
    assert.throws(() => q.run({ x: 1 }), DisposedError);
  }

  // A call made after dispose() from inside the running call is refused, and the outer call still finishes.
  let r, inner;
  r = doubler.bind({ double: { forward: ([x]) => {
    r.dispose();
    try { r.run({ x: 1 }); } catch (e) { inner = e; }
    return 2 * x;
  } } });
  assert.deepEqual(r.run({ x: 4 }), { result: 8 });
  assert.ok(inner instanceof DisposedError);
});

test('a host function differentiating its own program during gradients() gets a tape of its own', () => {
  // gradients() keeps one prepared tape per output; a nested call from a host
  // function must not run that tape while the outer call is using it.
  const b = new tc.Builder();
  const x = b.input('x', 'float64');
  const p = b.build(b.add(b.mul(b.mul(x, x), 3), b.call('probe', x)));
  let depth = 0;
  const inner = [];
  const bound = p.bind({
    probe: {
      forward: ([v]) => { if (depth++ === 0) inner.push(bound.valueAndGradients({ x: v + 1 })); return 0; },
      vjp: () => [1],
    },
  });
  const outer = bound.valueAndGradients({ x: 2 });
  assert.deepEqual(outer, { result: 12, gradients: { x: 13 } });
  assert.deepEqual(inner, [{ result: 27, gradients: { x: 19 } }]);
  depth = 1;
  assert.deepEqual(bound.valueAndGradients({ x: 2 }), outer, 'the cached tape still gives the same');
});

test('a host function running its own program\'s runBatch during runBatch gets input columns of its own', () => {
  // runBatch copies the columns into a buffer the program keeps between
  // calls; the nested batch must not overwrite the one the outer batch is
  // still reading (the add reads x after the call).
  const b = new tc.Builder();
  const x = b.input('x', 'float64');
  const p = b.build(b.add(b.call('probe', x), x));
  let depth = 0;
  const inner = [];
  const bound = p.bind({
    probe: { forward: () => { if (depth++ === 0) inner.push([...bound.runBatch({ x: Float64Array.of(100, 200, 300) }).outputs.result]); return 0; } },
  });
  assert.deepEqual([...bound.runBatch({ x: Float64Array.of(1, 2, 3) }).outputs.result], [1, 2, 3]);
  assert.deepEqual(inner, [[100, 200, 300]]);
  assert.deepEqual([...bound.runBatch({ x: Float64Array.of(4, 5, 6) }).outputs.result], [4, 5, 6], 'the kept buffer serves the next batch');
});

test('dispose() of a Runtime inside its own dispatch is deferred too', () => {
  const b = new tc.Builder();
  const total = b.state('total', 0, 'float64');
  const next = b.add(total, b.call('double', b.input('x')));
  b.update(total, next);
  const counter = b.build(next);
  let rt;
  const bound = counter.bind({ double: { forward: ([x]) => { rt.dispose(); return 2 * x; } } });
  rt = new tc.Runtime(bound);
  assert.deepEqual(rt.dispatch({ x: 5 }), { result: 10 });
  assert.throws(() => rt.dispatch({ x: 1 }), (e) => e instanceof DisposedError && /this Runtime was disposed/.test(e.message));
  assert.throws(() => rt.state, DisposedError);
  // A scan body disposing its builder: the native builder lives until scan returns, the body's next use is refused.
  const sb = new tc.Builder();
  const x0 = sb.input('x');
  assert.throws(() => sb.scan((c, item) => { sb.dispose(); return sb.add(c, item); }, 0, [x0, x0]), DisposedError);
  assert.throws(() => sb.input('y'), (e) => e instanceof DisposedError && /this Builder was disposed/.test(e.message));
  // A disposed Program as an argument is refused before the engine sees it.
  const gone = tc.compile('def f(a):\n    return a\n', { inputs: { a: 'int32' } });
  gone.dispose();
  gone.dispose();  // twice is harmless
  assert.throws(() => new tc.Runtime(gone), DisposedError);
  const inc = new tc.Builder();
  assert.throws(() => inc.include(gone, { a: inc.input('a', 'int32') }), DisposedError);
});

test('sparseAffine refuses indices that are not int32 integers instead of truncating them', () => {
  const b = new tc.Builder();
  const xs = [b.input('y'), b.input('z')];
  for (const bad of [2 ** 40, 1.9, -1.5, NaN, Infinity, 2 ** 31, -(2 ** 31) - 1, '1', null]) {
    assert.throws(() => b.sparseAffine(xs, [bad, 1], [1, 1]), (e) => {
      assert.ok(e instanceof ArgumentError && e instanceof TensorcodeError, String(e));
      assert.match(e.message, /^sparseAffine: indices\[0\] must be an integer from -2147483648 to 2147483647, got /);
      return true;
    }, String(bad));
  }
  assert.throws(() => b.sparseAffine(xs, 1, [1]), ArgumentError);
  assert.throws(() => b.sparseAffine(xs, [0], ['2']), (e) => e instanceof ArgumentError && /coefficients\[0\] must be a number, got string/.test(e.message));
  assert.throws(() => b.affine(xs, [1, 1], '3'), (e) => e instanceof ArgumentError && /affine: bias must be a number/.test(e.message));
  assert.throws(() => b.oneHot(xs[0], 1.5), (e) => e instanceof ArgumentError && /oneHot: n must be an integer from 1 to 2147483647, got 1.5/.test(e.message));
  assert.throws(() => b.oneHot(xs[0], 2 ** 40), ArgumentError);
  // Valid indices still build the circuit they say: 2*y + 3*z + 1.
  const p = b.build(b.sparseAffine(xs, [0, 1], [2, 3], 1));
  assert.deepEqual(p.run({ y: 5, z: 7 }), { result: 32 });
});

test('the native layer checks sparseAffine indices too (no int32 conversion that truncates)', async () => {
  // Below the TypeScript checks: the embind class itself, as a caller of the module would use it.
  const core = await createRequire(import.meta.url)('../dist/cjs/index.js').coreModule();
  for (const [bad, shown] of [[1.9, '1.9'], [2 ** 40, '1099511627776']]) {
    const nb = new core.CoreBuilder();
    nb.init({});
    const y = nb.input('y', 'float64', undefined), z = nb.input('z', 'float64', undefined);
    const s = nb.sparseAffine([{ id: y }, { id: z }], [bad, 1], [1, 1], undefined);
    const out = new core.CoreProgram();
    const r = nb.buildInto(out, { id: s });
    assert.equal(r.error?.message, `sparseAffine: indices[0] must be an integer from -2147483648 to 2147483647, got ${shown}`);
    out.delete();
    nb.delete();
  }
});

test('named options are checked by core, in the words the Python package uses', () => {
  // core/options/binding_options.cpp words these for both bindings
  // (tests/python/test_compile.py expects the same text).
  const src = 'def f(a):\n    return a + 1\n';
  for (const [options, message] of [
    [{ dtype: 'float16' }, "dtype must be float64 or float32, got 'float16'"],
    [{ surrogate: 'tanh' }, "surrogate must be sigmoid, got 'tanh'"],
    [{ semantics: 'fuzzy' }, "semantics must be exact, relaxed or hybrid, got 'fuzzy'"],
    [{ temperature: 0 }, 'temperature must be finite and greater than 0, got 0'],
    [{ temperature: '1' }, "temperature must be finite and greater than 0, got '1'"],
  ]) {
    assert.throws(() => tc.compile(src, { inputs: { a: 'int32' }, ...options }),
      (e) => e instanceof tcModule.CompileError && e.message === message, JSON.stringify(options));
  }
});

test('integer options are checked: finite, integral, in range, with the name in the message', () => {
  const src = 'def f(a):\n    return a + 1\n';
  // The ranges are core's option table's (one for every client): the node
  // budget stops where 8 arguments per node still fit a 32-bit size_t.
  const most = { maxNodes: 536870911, maxIterations: 4294967295 };
  for (const [option, bad] of [['maxNodes', 1e12], ['maxNodes', 0], ['maxNodes', 1.5], ['maxNodes', NaN], ['maxNodes', '10'],
    ['maxNodes', true], ['maxNodes', 536870912], ['maxNodes', 4294967295],
    ['maxIterations', -1], ['maxIterations', 0], ['maxIterations', Infinity], ['maxIterations', 2 ** 32]]) {
    assert.throws(() => tc.compile(src, { inputs: { a: 'int32' }, [option]: bad }), (e) => {
      assert.ok(e instanceof ArgumentError, `${option}=${bad}: ${e}`);
      assert.match(e.message, new RegExp(`^${option} must be an integer from 1 to ${most[option]}, got `));
      return true;
    });
  }
  // 1e12 was wrapped to 0 and reported as "more than 0 nodes"; from 2^29
  // the argument budget (8 per node) wrapped the same way (issue 37 item 3).
  assert.throws(() => tc.compile(src, { inputs: { a: 'int32' }, maxNodes: 1e12 }), /got 1000000000000$/);
  assert.deepEqual(tc.compile(src, { inputs: { a: 'int32' }, maxNodes: 536870911 }).run({ a: 1 }), { result: 2 });
  assert.deepEqual(tc.compile(src, { inputs: { a: 'int32' }, maxIterations: 4294967295 }).run({ a: 1 }), { result: 2 });
  // Budget advice names this package's option, not the CLI's flag.
  assert.throws(() => tc.compile(src, { inputs: { a: 'int32' }, maxNodes: 2 }),
    (e) => /more than 2 nodes/.test(e.message) && e.message.includes('{maxNodes: N}') && !e.message.includes('--max-nodes'));
  const loop = 'def f(a):\n    s = a\n    for i in range(10):\n        s = s + 1\n    return s\n';
  assert.throws(() => tc.compile(loop, { inputs: { a: 'int32' }, maxIterations: 3 }),
    (e) => e.message.includes('{maxIterations: N}') && !e.message.includes('--max-iterations'));
});

test('a compile directive in the source is read as the other clients read it; options given win', () => {
  const src = '# tensorcode: compile dtype=float32 max-nodes=2\ndef f(a):\n    return a + 1\n';
  const inputs = { a: 'int32:-100:100' };  // exact in float32 too
  assert.throws(() => tc.compile(src, { inputs }), /more than 2 nodes/);
  const p = tc.compile(src, { inputs, maxNodes: 100, dtype: 'float64' });
  assert.equal(p.info.dtype, 'float64');
  assert.equal(tc.compile(src, { inputs, maxNodes: 100 }).info.dtype, 'float32');
});

test('options and arguments of the wrong type are TensorcodeErrors naming them, not embind errors', () => {
  const src = 'def f(a):\n    return a + 1\n';
  const compile = (o) => () => tc.compile(src, { inputs: { a: 'int32' }, ...o });
  assert.throws(compile({ function: 5 }), (e) => e instanceof ArgumentError && e.message === 'function must be a string, got number');
  assert.throws(compile({ filename: 7 }), (e) => e instanceof ArgumentError && e.message === 'filename must be a string, got number');
  assert.throws(compile({ useInputDirectives: 'yes' }), (e) => e instanceof ArgumentError && /useInputDirectives must be true or false/.test(e.message));
  assert.throws(compile({ dtype: 3 }), (e) => e instanceof tcModule.CompileError && e.message === 'dtype must be float64 or float32, got number');
  assert.throws(compile({ semantics: 1 }), (e) => e instanceof tcModule.CompileError && /semantics must be exact, relaxed or hybrid, got number/.test(e.message));
  assert.throws(() => plusOne.optimize({ fold: 'x' }), (e) => e instanceof ArgumentError && e.message === 'fold must be true or false, got string');
  assert.throws(() => plusOne.gradients({ a: 1 }, { output: 5 }), (e) => e instanceof ArgumentError && e.message === 'output must be a string, got number');
  assert.throws(() => plusOne.runBatch([{ a: 1 }], { dtype: 5 }), (e) => e instanceof ArgumentError && /dtype must be float64 or float32/.test(e.message));
  // A type embind itself refuses at the boundary.
  assert.throws(() => tc.compile(5, { inputs: { a: 'int32' } }), (e) => e instanceof ArgumentError && /wrong type/.test(e.message) && e.cause?.name === 'BindingError');
  assert.deepEqual(compile({ function: 'f', filename: 'x.py', useInputDirectives: false })().run({ a: 1 }), { result: 2 });
});

test('a C++ exception (a full heap) is a ResourceError with its message, and the module keeps working', async () => {
  // A module of its own: this fills its 2 GiB heap.
  const own = await tcModule.load();
  const b = new own.Builder();
  const i = b.input('i', 'int32:0:2');
  let error;
  try {
    b.oneHot(i, 3e7);
  } catch (e) {
    error = e;
  }
  assert.equal(typeof error, 'object', `a bare ${typeof error} was thrown: ${error}`);
  assert.ok(error instanceof ResourceError && error instanceof TensorcodeError, String(error));
  assert.match(error.message, /^out of memory: the WebAssembly heap \(\d+ MB\) cannot hold this; .*dispose\(\)/);
  b.dispose();
  const p = own.compile('def f(a):\n    return a * 3\n', { inputs: { a: 'int32:-9:9' } });
  assert.deepEqual(p.run({ a: 3 }), { result: 9 });
  assert.deepEqual([...p.runBatch([{ a: 1 }, { a: 2 }]).outputs.result], [3, 6]);
});

test('dispose() frees everything a compile and run allocated (a synchronous loop stays flat)', async () => {
  // The module's own allocator statistics; a module of its own so nothing else allocates meanwhile.
  const core = await createRequire(import.meta.url)('../dist/cjs/index.js').coreModule();
  const own = await tcModule.load({ factory: async () => core });
  const source = 'def f(a):\n    return a * 2 + 1 if a > 0 else -a\n';
  const loop = (n, dispose) => {
    const before = core.heapStats().used;
    for (let k = 0; k < n; ++k) {
      const p = own.compile(source, { inputs: { a: 'int32:-9:9' } });
      p.run({ a: 3 });
      p.runBatch([{ a: 1 }, { a: -2 }]);
      const rt = new own.Runtime(p);
      rt.dispatch({ a: 2 });
      if (dispose) {
        rt.dispose();
        p.dispose();
      }
    }
    return (core.heapStats().used - before) / n;
  };
  loop(50, true);  // warm-up: caches of the engine's first calls
  const disposed = loop(2000, true);
  const kept = loop(200, false);
  console.log(`wasm heap per compile+run+runtime: ${disposed.toFixed(1)} bytes with dispose(), ${kept.toFixed(0)} bytes without (freed only by the garbage collector, after the loop yields)`);
  assert.ok(disposed < 16, `${disposed} bytes per iteration stay allocated after dispose()`);
  assert.ok(kept > 1000, 'without dispose() the objects stay until collected (the measurement itself is broken otherwise)');
});
