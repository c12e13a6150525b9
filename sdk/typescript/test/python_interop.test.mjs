// The package against the Python package (tensorcode.program, built into
// build/python): artifacts both ways with the same outputs and gradients bit
// for bit, snapshots both ways with the step budget kept, and
// Python-compiled artifacts through TypeScript's emitWasm().
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { EvaluationError, load } from '../dist/index.mjs';
import { builderPrograms } from './builder_programs.mjs';
import { FLOAT32_REFUSAL, corpus, makeCases, pkgDir, python, pythonDir, unexpectedRefusal } from './env.mjs';

const tc = await load();

function py(request) {
  const r = spawnSync(python, [path.join(pkgDir, 'test', 'python_driver.py')], {
    input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 1 << 28,
    env: { ...process.env, PYTHONPATH: pythonDir + (process.env.PYTHONPATH ? `:${process.env.PYTHONPATH}` : '') },
  });
  assert.equal(r.status, 0, `python driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// Python's json writes floats with repr (round-trip); -0.0 keeps its sign.
const same = (a, b) => Object.is(a, b);

function runInTs(program, cases) {
  return cases.map((c) => {
    try { return program.run(c); } catch (e) {
      assert.ok(e instanceof EvaluationError, String(e));
      return { error: e.detail };
    }
  });
}
function gradsInTs(program, cases, output) {
  return cases.map((c) => {
    try { return program.gradients(c, { output }); } catch (e) { return { error: e.detail }; }
  });
}
function assertSameRows(what, mine, theirs) {
  assert.equal(mine.length, theirs.length);
  let values = 0;
  mine.forEach((row, i) => {
    if ('error' in row || 'error' in theirs[i]) {
      assert.ok('error' in row && 'error' in theirs[i], `${what} case ${i}: TS ${JSON.stringify(row)}, Python ${JSON.stringify(theirs[i])}`);
      assert.ok(theirs[i].error.includes(row.error), `${what} case ${i}: Python says '${theirs[i].error}', TS '${row.error}'`);
      return;
    }
    assert.deepEqual(Object.keys(row), Object.keys(theirs[i]), `${what} case ${i}: names`);
    for (const [k, v] of Object.entries(theirs[i])) {
      assert.ok(same(row[k], v), `${what} case ${i} ${k}: Python ${v}, TS ${row[k]}`);
      values++;
    }
  });
  return values;
}

const hasGradients = (p) => p.info.inputs.some((i) => i.differentiable) || p.info.parameters.some((q) => q.differentiable);

test('Python-compiled corpus artifacts load in TS with the same outputs and gradients', () => {
  const entries = corpus();
  const compiled = py({ compile: entries.map((e) => ({ name: e.name, source: e.source, inputs: e.inputs, function: e.function ?? null, dtype: e.dtype ?? null })) }).compile;
  const run = [], grads = [], programs = {};
  for (const e of entries) {
    const text = compiled[e.name];
    if (typeof text !== 'string') {
      assert.throws(() => tc.compile(e.source, { inputs: e.inputs, function: e.function, dtype: e.dtype }), `${e.name}: Python refused (${text.error}), TS did not`);
      continue;
    }
    const p = tc.Program.fromJSON(text);
    assert.equal(p.toJSON(), text, `${e.name}: the artifact does not round-trip byte for byte`);
    assert.equal(tc.compile(e.source, { inputs: e.inputs, function: e.function, dtype: e.dtype }).toJSON(), text, `${e.name}: TS compiles another artifact`);
    const cases = makeCases(p.info.inputs, 32);
    programs[e.name] = { p, cases };
    run.push({ name: e.name, artifact: text, cases });
    if (hasGradients(p)) grads.push({ name: e.name, artifact: text, cases: cases.slice(0, 8), output: p.outputs.at(-1) });
  }
  const answer = py({ run, gradients: grads });
  let values = 0, gradients = 0;
  for (const { name } of run) values += assertSameRows(name, runInTs(programs[name].p, programs[name].cases), answer.run[name]);
  for (const { name, cases, output } of grads) gradients += assertSameRows(`${name} gradients`, gradsInTs(programs[name].p, cases, output), answer.gradients[name]);
  console.log(`python -> ts: ${run.length} artifacts, ${values} values and ${gradients} gradients bit-identical`);
  assert.ok(run.length >= 60 && values > 1500 && gradients > 50);
});

test('TS-built artifacts load in Python with the same outputs and gradients', () => {
  const programs = builderPrograms(tc);
  const run = [], grads = [];
  for (const [name, p] of Object.entries(programs)) {
    if (p.info.states.length) continue;
    const cases = makeCases(p.info.inputs, 40, 777);
    run.push({ name, artifact: p.toJSON(), cases });
    for (const output of p.outputs) grads.push({ name: `${name}:${output}`, artifact: p.toJSON(), cases, output });
  }
  const answer = py({ run, gradients: grads });
  let values = 0;
  for (const { name, cases } of run) values += assertSameRows(name, runInTs(programs[name], cases), answer.run[name]);
  for (const { name, cases, output } of grads) {
    values += assertSameRows(`${name} gradients`, gradsInTs(programs[name.split(':')[0]], cases, output), answer.gradients[name]);
  }
  assert.ok(values > 300);
});

test('snapshots: TS -> Python -> TS and Python -> TS, with the step budget kept', () => {
  const counter = builderPrograms(tc).counter;
  const events = (n, bad = -1) => Array.from({ length: n }, (_, i) => ({ event: i === bad ? 5 : i % 3 === 0 ? 0 : 1 }));
  const rt = new tc.Runtime(counter, { maxSteps: 6 });
  rt.replay(events(3));
  // Python resumes the TS snapshot: event 1 fails (nothing changes), then two commit and the budget runs out.
  const answer = py({
    resume: [{ name: 'from-ts', snapshot: rt.snapshot(), events: [{ event: 1 }, { event: 1 }, { event: 1 }, { event: 1 }] }],
    start: [{ name: 'from-py', artifact: counter.toJSON(), max_steps: 4, events: events(3, 1) }],
  });
  const r = answer.resume['from-ts'];
  assert.deepEqual(r.records.map((x) => x.steps), [4, 5, 6]);
  assert.equal(r.failure.index, 3);
  assert.match(r.failure.error, /budget/);
  // The same events in TS give the same snapshot.
  const mine = tc.Runtime.restore(rt.snapshot());
  for (const e of [{ event: 1 }, { event: 1 }, { event: 1 }]) mine.dispatch(e);
  assert.throws(() => mine.dispatch({ event: 1 }), /budget/);
  assert.deepEqual(JSON.parse(mine.snapshot()), r.snapshot);
  const back = tc.Runtime.restore(r.snapshot);
  assert.equal(back.steps, 6);
  assert.equal(back.maxSteps, 6);
  assert.throws(() => back.dispatch({ event: 0 }), /budget/);

  // A Python runtime's snapshot (after a failed event) resumes in TS.
  const p = answer.start['from-py'];
  assert.equal(p.failure.index, 1);
  assert.equal(p.steps, 1);
  const resumed = tc.Runtime.restore(p.snapshot);
  assert.deepEqual(resumed.state, p.records.at(-1).state);
  assert.equal(resumed.steps, 1);
  assert.equal(resumed.maxSteps, 4);
  resumed.replay(events(3));
  assert.equal(resumed.steps, 4);
  assert.throws(() => resumed.dispatch({ event: 1 }), /budget/);
});

// Output classes as in tests/node/check_backends.mjs: outputs computed
// without sigmoid must be bit-identical; sigmoid-derived ones within a
// float32 tolerance (the module calls JavaScript's Math.exp); outputs whose
// decisions depend on a sigmoid are not compared value by value.
function outputClasses(json) {
  const dep = [], dec = [];
  for (const n of json.nodes) {
    let d = n.op === 'sigmoid', x = false;
    n.args.forEach((a, k) => {
      d ||= dep[a];
      x ||= dec[a];
      const decisionArg = ['lt', 'le', 'gt', 'ge', 'eq', 'ne'].includes(n.op) || (n.op === 'select' && k === 0) ||
        (n.op === 'gather' && k === 0) || (n.op === 'gather_one_hot' && k < n.args.length / 2);
      if (decisionArg && dep[a]) x = true;
    });
    dep.push(d);
    dec.push(x);
  }
  return Object.fromEntries(Object.entries(json.outputs).map(([name, id]) => [name, dec[id] ? 'skip' : dep[id] ? 'sigmoid' : 'exact']));
}

test('Python-compiled float32 artifacts through TS emitWasm() agree with the CPU', async () => {
  const entries = corpus();
  const compiled = py({ compile: entries.map((e) => ({ name: e.name, source: e.source, inputs: e.inputs, function: e.function ?? null, dtype: 'float32' })) }).compile;
  let programs = 0, exact = 0, approx = 0, failing = 0;
  for (const e of entries) {
    const text = compiled[e.name];
    if (typeof text !== 'string') {
      // Integers beyond 2^24 do not fit float32: refused by Python with the engine's text; anything else fails.
      assert.match(String(text?.error ?? JSON.stringify(text)), FLOAT32_REFUSAL, `python compile ${e.name}`);
      continue;
    }
    const p = tc.Program.fromJSON(text);
    let bytes;
    try { bytes = p.emitWasm(); } catch (err) {
      const bad = unexpectedRefusal(err, 'emit');
      if (bad) throw bad;
      continue;
    }
    assert.ok(bytes.length > 8);
    const cases = makeCases(p.info.inputs, 64, 4242).map((c) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, Math.fround(v)])));
    const { results } = await p.runWasm(cases);
    const cpu = p.runBatch(cases);
    const cls = outputClasses(JSON.parse(text));
    results.forEach((r, i) => {
      if ('error' in r || cpu.failed[i]) {
        assert.ok('error' in r && cpu.failed[i], `${e.name} case ${i}: wasm ${JSON.stringify(r)}, cpu failed=${cpu.failed[i]}`);
        failing++;
        return;
      }
      for (const [name, k] of Object.entries(cls)) {
        const a = r[name], b = cpu.outputs[name][i];
        if (k === 'exact') { assert.ok(Object.is(a, b) || (a === 0 && b === 0), `${e.name} case ${i} ${name}: wasm ${a}, cpu ${b}`); exact++; }
        else if (k === 'sigmoid') { assert.ok(Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)), `${e.name} ${name}: wasm ${a}, cpu ${b}`); approx++; }
      }
    });
    programs++;
  }
  console.log(`python float32 artifacts through emitWasm: ${programs} programs, ${exact} values bit-identical, ${approx} sigmoid values within 1e-6, ${failing} cases failing on both`);
  assert.ok(programs >= 40 && exact > 1000);
});
