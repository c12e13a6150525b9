// Program.runWgsl on a real WebGPU device: Dawn from the npm `webgpu`
// package, OpenGL ES backend (llvmpipe when there is no GPU). Every CPU call
// the test needs happens in this process before Dawn starts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { load } from '../dist/index.mjs';
import { corpus, makeCases, unexpectedRefusal } from './env.mjs';

const tc = await load();
const webgpu = await import('webgpu');
const gpu = webgpu.create(['backend=opengles']);

async function device() {
  const adapter = await gpu.requestAdapter({ featureLevel: 'compatibility' });
  assert.ok(adapter, 'Dawn found no adapter');
  return adapter.requestDevice();
}

test('runWgsl: the description example and a failing case agree with the CPU', async () => {
  const p = tc.compile('def f(a, b):\n    return a / b if a > 4 else 12\n', { inputs: { a: 'int32:-128:127', b: 'float32:-4:4' } });
  const cases = [{ a: 5, b: 2 }, { a: 1, b: 0 }, { a: 9, b: 0 }, { a: -128, b: -4 }, { a: 127, b: 3 }];
  const dev = await device();
  const r = await p.runWgsl(dev, cases, { atol: 0, rtol: 0 });
  dev.destroy();
  assert.equal(r.ok, true, JSON.stringify(r.mismatches));
  assert.equal(r.failingOnBoth, 1);
  assert.deepEqual(r.gpu[0], { result: 2.5 });
  assert.ok('error' in r.gpu[2]);
  assert.equal(r.gpu[4].result, Math.fround(127 / 3));
});

test('runWgsl needs explicit tolerances and reports values beyond them', async () => {
  const p = tc.compile('def f(x):\n    return sigmoid(x) * 3\n', { inputs: { x: 'float64:-30:30' } });
  const dev = await device();
  await assert.rejects(() => p.runWgsl(dev, [{ x: 1 }]), /explicit tolerances/);
  const cases = makeCases(p.info.inputs, 256, 9);
  const loose = await p.runWgsl(dev, cases, { atol: 1e-6, rtol: 1e-5 });
  assert.equal(loose.ok, true, JSON.stringify(loose.mismatches.slice(0, 3)));
  // At zero tolerance every difference of the GPU's exp is reported.
  const strict = await p.runWgsl(dev, cases, { atol: 0, rtol: 0 });
  assert.equal(strict.maxAbsDiff, loose.maxAbsDiff);
  assert.equal(strict.ok, strict.maxAbsDiff === 0);
  for (const m of strict.mismatches) assert.notEqual(m.gpu, m.cpu);
  console.log(`sigmoid on dawn: max |gpu - cpu| = ${strict.maxAbsDiff}, ${strict.mismatches.length} of ${cases.length} cases differ at tolerance 0`);
  dev.destroy();
});

test('runWgsl over the corpus (float32): exact outputs agree bit for bit', async () => {
  // Compile everything first (no CPU work interleaves with Dawn below).
  const programs = [];
  const refused = [];
  for (const e of corpus()) {
    let p;
    // Refused in float32 or by the emitter, with the engine's exact refusal text; any other error fails.
    try { p = tc.compile(e.source, { inputs: e.inputs, function: e.function, dtype: 'float32' }); } catch (err) {
      const bad = unexpectedRefusal(err, 'float32');
      if (bad) throw bad;
      refused.push(e.name);
      continue;
    }
    try { p.emitWgsl(); } catch (err) {
      const bad = unexpectedRefusal(err, 'emit');
      if (bad) throw bad;
      refused.push(e.name);
      continue;
    }
    if (p.toJSON().includes('"op": "sigmoid"')) continue;
    programs.push({ name: e.name, p, cases: makeCases(p.info.inputs, 64, 31).map((c) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, Math.fround(v)]))) });
  }
  let checked = 0;
  for (const { name, p, cases } of programs.slice(0, 10)) {
    // One device per program: Dawn's OpenGL ES backend tires of many pipelines on one device.
    const dev = await device();
    const r = await p.runWgsl(dev, cases, { atol: 0, rtol: 0 });
    dev.destroy();
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r.mismatches.slice(0, 3))}`);
    checked += r.cases;
  }
  assert.ok(checked >= 640, `${checked} cases of ${programs.length} programs`);
  console.log(`runWgsl over the corpus: ${checked} cases bit for bit; refused with a known reason: ${refused.join(', ') || 'none'}`);
});
