// One API with Python (docs/typescript.md, "TypeScript and Python side by
// side"): the same calls made in both packages on the corpus and a few bad
// inputs, comparing results and the kind of every error (the error class,
// mapped where Python uses a builtin exception), and the return shapes the
// two share: run, gradients, run_batch with errors raised (`case`),
// dispatch, step, and replay (records, `event` and `records` on failure).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { load } from '../dist/index.mjs';
import { builderPrograms } from './builder_programs.mjs';
import { corpus, makeCases, pkgDir, python, pythonDir } from './env.mjs';

const tc = await load();

function py(request) {
  const r = spawnSync(python, [path.join(pkgDir, 'test', 'python_driver.py')], {
    input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 1 << 28,
    env: { ...process.env, PYTHONPATH: pythonDir + (process.env.PYTHONPATH ? `:${process.env.PYTHONPATH}` : '') },
  });
  assert.equal(r.status, 0, `python driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// The error classes: the same name in both where Python has the class; where
// Python raises a builtin, the TypeScript class it corresponds to.
const PYTHON_KIND = {
  ValueError: ['ArgumentError', 'SnapshotError', 'DomainError'], TypeError: ['ArgumentError'],
  // Python has no SnapshotError: a snapshot that does not restore is an ArtifactError there.
  ArtifactError: ['SnapshotError'],
  // An export the program cannot have: Python's to_onnx/to_c raise CompileError.
  CompileError: ['EmitError'],
};
function sameKind(ts, pyType, what) {
  const ok = ts === pyType || (PYTHON_KIND[pyType] ?? []).includes(ts);
  assert.ok(ok, `${what}: TS throws ${ts}, Python raises ${pyType}`);
}
const tsError = (f) => {
  try { return { value: f() }; } catch (e) { return { error: e }; }
};
const same = (a, b) => Object.is(a, b) || (a === 0 && b === 0 && 1 / a === 1 / b);

test('compile, run, gradients and run_batch agree with Python on the corpus, errors by kind', () => {
  const entries = corpus();
  const answer = py({ compile: entries.map((e) => ({ name: e.name, source: e.source, inputs: e.inputs, function: e.function ?? null, dtype: e.dtype ?? null })) });
  const run = [], grads = [], batch = [];
  const programs = {};
  let compileErrors = 0;
  for (const e of entries) {
    const mine = tsError(() => tc.compile(e.source, { inputs: e.inputs, function: e.function, dtype: e.dtype }));
    const theirs = answer.compile[e.name];
    if (typeof theirs !== 'string' || mine.error) {
      assert.ok(mine.error && typeof theirs !== 'string', `${e.name}: TS ${mine.error ?? 'compiled'}, Python ${JSON.stringify(theirs).slice(0, 200)}`);
      sameKind(mine.error.name, theirs.type, `${e.name} compile`);
      compileErrors++;
      continue;
    }
    assert.equal(mine.value.toJSON(), theirs, `${e.name}: artifacts differ`);
    programs[e.name] = mine.value;
    const cases = makeCases(mine.value.info.inputs, 24, 4242);
    run.push({ name: e.name, artifact: theirs, cases });
    batch.push({ name: e.name, artifact: theirs, cases });
    if (mine.value.info.inputs.some((i) => i.differentiable) || mine.value.info.parameters.some((q) => q.differentiable))
      grads.push({ name: e.name, artifact: theirs, cases: cases.slice(0, 6), output: mine.value.outputs[0] });
  }
  const res = py({ run, gradients: grads, batch });
  let values = 0, errors = 0, batchRaised = 0;
  for (const { name, cases } of run) {
    cases.forEach((c, i) => {
      const mine = tsError(() => programs[name].run(c));
      const theirs = res.run[name][i];
      if (mine.error || 'error' in theirs) {
        assert.ok(mine.error && 'error' in theirs, `${name} case ${i}: TS ${mine.error ?? JSON.stringify(mine.value)}, Python ${JSON.stringify(theirs)}`);
        sameKind(mine.error.name, theirs.type, `${name} run case ${i}`);
        assert.ok(theirs.error.includes(mine.error.detail), `${name} case ${i}: '${theirs.error}' vs '${mine.error.detail}'`);
        errors++;
        return;
      }
      for (const [k, v] of Object.entries(theirs)) assert.ok(same(mine.value[k], v), `${name} case ${i} ${k}: Python ${v}, TS ${mine.value[k]}`);
      values++;
    });
  }
  for (const { name, cases, output } of grads) {
    cases.forEach((c, i) => {
      const mine = tsError(() => programs[name].gradients(c, { output }));
      const theirs = res.gradients[name][i];
      if (mine.error || 'error' in theirs) {
        assert.ok(mine.error && 'error' in theirs, `${name} gradients ${i}: TS ${mine.error ?? 'ok'}, Python ${JSON.stringify(theirs)}`);
        sameKind(mine.error.name, theirs.type, `${name} gradients ${i}`);
        return;
      }
      assert.deepEqual(Object.keys(mine.value), Object.keys(theirs), `${name} gradient names`);
      for (const [k, v] of Object.entries(theirs)) assert.ok(same(mine.value[k], v), `${name} d/d${k}: Python ${v}, TS ${mine.value[k]}`);
      values++;
    });
  }
  for (const { name, cases } of batch) {
    const mine = tsError(() => programs[name].runBatch(cases, { errors: 'raise' }));
    const theirs = res.batch[name];
    if (mine.error || 'error' in theirs) {
      assert.ok(mine.error && 'error' in theirs, `${name} run_batch: TS ${mine.error ?? 'ok'}, Python ${JSON.stringify(theirs).slice(0, 300)}`);
      sameKind(mine.error.name, theirs.type, `${name} run_batch`);
      assert.equal(mine.error.case, theirs.case, `${name} run_batch: the failing case`);
      assert.ok(theirs.error.includes(mine.error.detail), `${name} run_batch: '${theirs.error}' vs '${mine.error.detail}'`);
      batchRaised++;
      continue;
    }
    theirs.outputs.forEach((row, i) => {
      for (const [k, v] of Object.entries(row)) assert.ok(same(mine.value.outputs[k][i], v), `${name} batch case ${i} ${k}`);
    });
  }
  console.log(`parity: ${entries.length} corpus programs (${compileErrors} refused by both), ${values} results, ` +
    `${errors} run errors of the same kind, ${batchRaised} batches raising at the same case`);
  assert.ok(values > 200 && errors > 0 && batchRaised > 0, 'the corpus no longer exercises both paths');
});

test('dispatch, step and replay have Python\'s shapes; bad artifacts and snapshots fail with the same kinds', () => {
  const counter = builderPrograms(tc).counter;
  const events = [{ event: 1 }, { event: 0 }, { event: 1 }, { event: 7 }, { event: 1 }];
  const theirs = py({ replay: [{ name: 'bad', artifact: counter.toJSON(), events }, { name: 'good', artifact: counter.toJSON(), events: events.slice(0, 3) }] }).replay;
  const rt = new tc.Runtime(counter);
  assert.deepEqual(rt.replay(events.slice(0, 3)), theirs.good.records);
  const again = new tc.Runtime(counter);
  const failure = tsError(() => again.replay(events)).error;
  assert.equal(failure.name, theirs.bad.type);
  assert.equal(failure.event, theirs.bad.event);
  assert.deepEqual(failure.records, theirs.bad.records);
  assert.ok(theirs.bad.error.includes(failure.detail), `'${theirs.bad.error}' vs '${failure.detail}'`);
  // dispatch: the outputs; step: [outputs, next state]; as in Python (run_events of the driver records both).
  const fresh = new tc.Runtime(counter);
  assert.deepEqual(fresh.dispatch({ event: 1 }), theirs.good.records[0].outputs);
  assert.deepEqual(fresh.step({ event: 1 }), [{ result: 1 }, { count: 2 }]);

  const broken = {
    'not json': '{',
    'wrong format': '{"format": "tensorcode.snapshot"}',
    'unknown op': counter.toJSON().replace('"add"', '"frobnicate"'),
  };
  const loads = py({ load: Object.entries(broken).map(([name, artifact]) => ({ name, artifact })),
    restore: Object.entries(broken).map(([name, snapshot]) => ({ name, snapshot })) });
  for (const [name, text] of Object.entries(broken)) {
    const a = tsError(() => tc.Program.fromJSON(text)).error;
    assert.ok(a, `${name}: TS loaded it`);
    sameKind(a.name, loads.load[name].type, `load ${name}`);
    const s = tsError(() => tc.Runtime.restore(text)).error;
    assert.ok(s, `${name}: TS restored it`);
    sameKind(s.name, loads.restore[name].type, `restore ${name}`);
  }
});

test('emitOnnx and emitC give the bytes and text of Python\'s to_onnx and to_c, refusals by kind', () => {
  const entries = corpus();
  const programs = [];
  for (const e of entries) {
    const mine = tsError(() => tc.compile(e.source, { inputs: e.inputs, function: e.function, dtype: e.dtype }));
    if (!mine.error) programs.push({ name: e.name, program: mine.value });
  }
  // Relaxed semantics has no export (docs/backends.md): refused by both.
  programs.push({ name: 'relaxed', program: tc.compile('def f(x):\n    return 1.0 if x > 0 else 2.0\n',
    { inputs: { x: 'float64' }, semantics: 'relaxed' }) });
  const answer = py({ emit: programs.map((p) => ({ name: p.name, artifact: p.program.toJSON() })) });
  let models = 0, refused = 0;
  for (const { name, program } of programs) {
    const theirs = answer.emit[name];
    const onnx = tsError(() => program.emitOnnx());
    const c = tsError(() => program.emitC('tc_program', { headerFile: 'model.h' }));
    if (theirs.error) {
      assert.ok(onnx.error, `${name}: TS emitted ONNX, Python refused: ${theirs.error}`);
      sameKind(onnx.error.name, theirs.type, `${name} emit`);
      refused++;
      continue;
    }
    assert.ok(!onnx.error && !c.error, `${name}: ${onnx.error ?? c.error}`);
    assert.equal(Buffer.from(onnx.value).toString('hex'), theirs.onnx, `${name}: ONNX bytes differ`);
    assert.deepEqual(c.value, theirs.c, `${name}: C export differs`);
    models++;
  }
  assert.ok(models > 50, `only ${models} programs exported`);
  assert.ok(refused > 0, 'the relaxed program was not refused');
  for (const p of programs) p.program.dispose();
});
