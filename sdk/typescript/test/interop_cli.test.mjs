// The package against the native engine (the tensorcode CLI and the C++
// Builder): the same artifacts, the same outputs and gradients bit for bit
// in float64, the same error messages, the same passes, and snapshots that
// travel both ways with their step budget.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EvaluationError, load } from '../dist/index.mjs';
import { builderPrograms } from './builder_programs.mjs';
import { spawnSync } from 'node:child_process';
import { builderToolPath, cli, compileFlags, corpus, makeCases, sourceDir, tmpDir } from './env.mjs';

const tc = await load();
const tmp = tmpDir();

// Bit for bit, zeros' signs included: the CLI writes -0 as -0.0.
const sameBits = (mine, native) => Object.is(mine, native);
// Both sides as JSON, with -0 kept (JSON.stringify alone writes it as 0,
// where the CLI writes -0.0).
const asJson = (x) => JSON.parse(JSON.stringify(x, (k, v) => (Object.is(v, -0) ? '-0' : v)));

/** Compares TS with `tensorcode run --cases` and `grad` on one artifact file. */
function compareWithCli(name, artifactFile, program, { gradCases = 3 } = {}) {
  const cases = makeCases(program.info.inputs);
  const casesFile = path.join(tmp, `${name}.cases.jsonl`);
  fs.writeFileSync(casesFile, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const native = cli(['run', artifactFile, '--cases', casesFile]).trim().split('\n').map((l) => JSON.parse(l));
  const batch = program.runBatch(cases);
  let values = 0, errors = 0;
  cases.forEach((c, i) => {
    let single;
    try { single = program.run(c); } catch (e) {
      assert.ok(e instanceof EvaluationError, `${name} case ${i}: ${e}`);
      assert.equal(e.detail, native[i].error, `${name} case ${i}: error message`);
      assert.equal(batch.failed[i], 1, `${name} case ${i}: batch failure`);
      errors++;
      return;
    }
    assert.ok(!('error' in native[i]), `${name} case ${i}: native failed with ${native[i].error}, TS gave ${JSON.stringify(single)}`);
    for (const [out, v] of Object.entries(native[i])) {
      assert.ok(sameBits(single[out], v), `${name} case ${JSON.stringify(c)} output ${out}: native ${v}, TS ${single[out]}`);
      assert.ok(sameBits(batch.outputs[out][i], v), `${name} case ${i} output ${out}: native ${v}, TS batch ${batch.outputs[out][i]}`);
      values++;
    }
  });
  // Gradients where there is something to differentiate.
  const wrt = program.info.inputs.some((i) => i.differentiable) || program.info.parameters.some((p) => p.differentiable);
  let grads = 0;
  if (wrt && program.info.states.length === 0) {
    for (const c of cases.slice(2, 2 + gradCases)) {
      const sets = Object.entries(c).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
      const r = cli(['grad', artifactFile, ...sets], { allowFail: true });
      let mine;
      try { mine = program.valueAndGradients(c); } catch (e) {
        assert.notEqual(r.status, 0, `${name}: TS grad failed (${e.message}) where native succeeded`);
        assert.ok(r.stderr.includes(e.detail), `${name}: grad error '${r.stderr.trim()}' vs '${e.detail}'`);
        continue;
      }
      assert.equal(r.status, 0, `${name}: native grad failed: ${r.stderr}`);
      const native = JSON.parse(r.stdout);
      assert.ok(sameBits(mine.result, native.result), `${name} grad value ${mine.result} vs ${native.result}`);
      assert.deepEqual(Object.keys(mine.gradients), Object.keys(native.gradients));
      for (const [k, g] of Object.entries(native.gradients)) {
        assert.ok(sameBits(mine.gradients[k], g), `${name} case ${JSON.stringify(c)} d/d${k}: native ${g}, TS ${mine.gradients[k]}`);
        grads++;
      }
    }
  }
  return { values, errors, grads };
}

test('corpus: TS compiles the same artifacts as the CLI and runs them bit-identically', () => {
  const totals = { programs: 0, values: 0, errors: 0, grads: 0 };
  for (const entry of corpus()) {
    const file = path.join(tmp, entry.name.replace(/\.py$/, '.json'));
    const r = cli(['compile', entry.file, ...compileFlags(entry), '-o', file], { allowFail: true });
    let mine;
    try {
      mine = tc.compile(entry.source, { inputs: entry.inputs, function: entry.function, dtype: entry.dtype, filename: entry.file });
    } catch (e) {
      assert.notEqual(r.status, 0, `${entry.name}: TS refused (${e.message}) what the CLI compiled`);
      continue;
    }
    assert.equal(r.status, 0, `${entry.name}: the CLI refused: ${r.stderr}`);
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(mine.toJSON(), text, `${entry.name}: artifacts differ`);
    const loaded = tc.Program.fromJSON(text);
    assert.equal(loaded.toJSON(), text);
    const t = compareWithCli(entry.name, file, loaded, { gradCases: 8 });
    totals.programs++;
    for (const k of ['values', 'errors', 'grads']) totals[k] += t[k];
  }
  console.log(`corpus: ${totals.programs} programs, ${totals.values} values and ${totals.grads} gradients bit-identical, ${totals.errors} errors with the same message`);
  assert.ok(totals.programs >= 60 && totals.values > 2000 && totals.grads > 100, JSON.stringify(totals));
});

test('corpus: optimize, schedule and analyze agree with the CLI', () => {
  let n = 0;
  for (const entry of corpus()) {
    const file = path.join(tmp, entry.name.replace(/\.py$/, '.json'));
    if (!fs.existsSync(file)) continue;
    const p = tc.Program.fromJSON(fs.readFileSync(file, 'utf8'));
    const optimized = cli(['optimize', file]);
    assert.equal(p.optimize().toJSON(), optimized, `${entry.name}: optimize`);
    assert.deepEqual(p.schedule(), JSON.parse(cli(['schedule', file])).layers, `${entry.name}: schedule`);
    assert.deepEqual(asJson(p.analyze()), asJson(JSON.parse(cli(['analyze', file]))), `${entry.name}: analyze`);
    n++;
  }
  assert.ok(n >= 60);
});

test('artifacts of resources/ and tests/data/emit run bit-identically', () => {
  const files = [
    ...fs.readdirSync(path.join(sourceDir, 'resources', 'examples')).filter((f) => f.endsWith('.json')).map((f) => path.join(sourceDir, 'resources', 'examples', f)),
    ...fs.readdirSync(path.join(sourceDir, 'tests', 'data', 'emit')).filter((f) => f.endsWith('.json')).map((f) => path.join(sourceDir, 'tests', 'data', 'emit', f)),
  ];
  let values = 0;
  for (const f of files) {
    const p = tc.Program.fromJSON(fs.readFileSync(f, 'utf8'));
    if (p.info.hasCalls) continue;
    values += compareWithCli(path.basename(f), f, p).values;
  }
  assert.ok(values > 300, `${values} values`);
});

// sigmoid is 1 / (1 + exp(-x)): the native engine calls glibc's exp, the
// WebAssembly build the exp of Emscripten's musl, and the two are not the
// same function: on a dense sweep a few values differ in the last bit. The
// bound checked here is 1 ulp (of the double result); the corpus and the
// artifacts above are bit-identical. See docs/typescript.md.
const f64 = new Float64Array(1), i64 = new BigInt64Array(f64.buffer);
function ulpDistance(a, b) {
  const ordered = (x) => { f64[0] = x; const v = i64[0]; return v < 0n ? -(v & 0x7fffffffffffffffn) : v; };
  const d = ordered(a) - ordered(b);
  return Number(d < 0n ? -d : d);
}

test('sigmoid: the WebAssembly build (musl exp) is within 1 ulp of the native one (glibc exp)', () => {
  const b = new tc.Builder();
  const x = b.input('x', tc.float64(-800, 800));
  const p = b.build({ s: b.sigmoid(x), t: b.sigmoid(b.mul(x, 0.001)) });
  const file = path.join(tmp, 'sigmoid.json');
  fs.writeFileSync(file, p.toJSON());
  const cases = [];
  for (let i = 0; i <= 4000; ++i) cases.push({ x: -800 + i * 0.4 + (i % 7) * 1e-3 });
  for (let i = 0; i < 3000; ++i) cases.push({ x: Math.sin(i * 12.9898) * 40 });
  const casesFile = path.join(tmp, 'sigmoid.cases.jsonl');
  fs.writeFileSync(casesFile, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const native = cli(['run', file, '--cases', casesFile]).trim().split('\n').map((l) => JSON.parse(l));
  const mine = p.runBatch(cases);
  let compared = 0, differing = 0, maxUlp = 0;
  cases.forEach((c, i) => {
    if ('error' in native[i]) {
      assert.equal(mine.failed[i], 1, `x=${c.x}: native ${native[i].error}`);
      return;
    }
    for (const k of ['s', 't']) {
      const a = mine.outputs[k][i], e = native[i][k];
      compared++;
      if (sameBits(a, e)) continue;
      differing++;
      const u = ulpDistance(a, e);
      maxUlp = Math.max(maxUlp, u);
      assert.ok(u <= 1, `sigmoid output ${k} at x=${c.x}: native ${e}, wasm ${a} (${u} ulp)`);
    }
  });
  console.log(`sigmoid: ${compared} values, ${differing} differ from glibc's (max ${maxUlp} ulp)`);
  assert.ok(compared > 12000);
});

test('C++ Builder artifacts: the TS Builder builds the same bytes, and both run alike', () => {
  const dir = tmpDir('tc-ts-builder-');
  const r = spawnSync(builderToolPath, [dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const mine = builderPrograms(tc);
  const names = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
  assert.deepEqual(names, Object.keys(mine).sort());
  for (const name of names) {
    const file = path.join(dir, `${name}.json`);
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(mine[name].toJSON(), text, `${name}: the TS Builder's artifact differs from the C++ Builder's`);
    compareWithCli(name, file, tc.Program.fromJSON(text), { gradCases: 8 });
  }
});

test('snapshots: TS -> CLI replay -> TS, with the step budget kept', () => {
  const dir = tmpDir('tc-ts-snap-');
  const counter = builderPrograms(tc).counter;
  const programFile = path.join(dir, 'counter.json');
  fs.writeFileSync(programFile, counter.toJSON());
  const events = (n) => Array.from({ length: n }, (_, i) => ({ event: i % 3 === 0 ? 0 : 1 }));
  const writeEvents = (list) => {
    const f = path.join(dir, `events-${list.length}.jsonl`);
    fs.writeFileSync(f, list.map((e) => JSON.stringify(e)).join('\n') + '\n');
    return f;
  };

  // TS runs 4 of its 7 steps and snapshots.
  const rt = new tc.Runtime(counter, { maxSteps: 7 });
  rt.replay(events(4));
  const snapFile = path.join(dir, 'ts.json');
  fs.writeFileSync(snapFile, rt.snapshot());
  // The CLI resumes it for 2 events and writes its own snapshot...
  const out2 = path.join(dir, 'cli.json');
  const lines = cli(['replay', programFile, '--from-snapshot', snapFile, '--events', writeEvents(events(2)), '--snapshot-out', out2])
    .trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.step), [5, 6]);
  // ...which is what TS writes after the same two events, byte for byte.
  const same = tc.Runtime.restore(rt.snapshot());
  same.replay(events(2));
  assert.equal(fs.readFileSync(out2, 'utf8'), same.snapshot());
  // Back in TS, one step of budget is left.
  const back = tc.Runtime.restore(fs.readFileSync(out2, 'utf8'));
  assert.equal(back.steps, 6);
  assert.equal(back.maxSteps, 7);
  back.dispatch({ event: 1 });
  assert.throws(() => back.dispatch({ event: 1 }), (e) => e instanceof EvaluationError && /budget/.test(e.message));
  // The CLI refuses to go past the budget of a TS snapshot, too.
  fs.writeFileSync(snapFile, back.snapshot());
  const over = cli(['replay', programFile, '--from-snapshot', snapFile, '--events', writeEvents(events(1))], { allowFail: true });
  assert.notEqual(over.status, 0);
  assert.match(over.stderr, /budget/);
});

