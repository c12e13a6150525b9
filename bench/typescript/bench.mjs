// The TypeScript package against the native engine and the Python package,
// measured in the same run: module size, load time, and per program `run`
// per call, exact `gradients` per call and `runBatch` per case. Prints
// medians and ratios.
//
// usage: node bench/typescript/bench.mjs [BUILD_DIR] [--before PACKAGE_DIR] [--warmup MS]
//                                        (after npm run build in sdk/typescript)
//
// --also NAME=PACKAGE_DIR adds further builds as columns (for instance the
// same package with an engine built without some flag).
// --warmup MS (default 1000): untimed rounds per program and build, counted
// from its fromJSON, before the timed ones. V8 first runs each wasm function
// from its baseline compiler (Liftoff, about 3x slower here: compare
// `node --liftoff-only`) and recompiles the hot ones with TurboFan on
// background threads, queued behind whatever else got hot (loading artifacts
// and compiling sources queue about a second of TurboFan work on this
// machine); rounds timed in that window measured the compiler, not a call:
// chain64's exact gradients read 40-75 us per call cold and 5.5-6.5 us warm
// (Python: 3.6-3.9 us). The gradients table keeps the cold figure (the 7
// rounds right after fromJSON, what this script used to report) in its own
// column.
// --before PACKAGE_DIR: another built copy of the package (its dist/, for
// instance the previous commit's sdk/typescript with its own engine build)
// measured in the same run, so that a change shows as before/after ratios
// from one machine state. The native baseline is tc_ts_native_timing
// (BUILD_DIR/bin, built with the benchmarks: the same Evaluator calls, one
// thread); the Python one is BUILD_DIR/python (tensorcode.program), when built.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = path.join(root, 'sdk', 'typescript');
const args = process.argv.slice(2);
const beforeAt = args.indexOf('--before');
const beforeDir = beforeAt >= 0 ? path.resolve(args.splice(beforeAt, 2)[1]) : null;
// --also NAME=PACKAGE_DIR (repeatable): more builds in the same run, each a column of its own.
const also = [];
for (let i; (i = args.indexOf('--also')) >= 0;) {
  const [name, dir] = args.splice(i, 2)[1].split('=');
  also.push({ name, pkg: path.resolve(dir) });
}
const warmupAt = args.indexOf('--warmup');
const warmupMs = warmupAt >= 0 ? Number(args.splice(warmupAt, 2)[1]) : 1000;
if (!(warmupMs >= 0)) throw new Error('--warmup takes a number of milliseconds');
const build = path.resolve(args[0] ?? path.join(root, 'build'));
const nativeTool = path.join(build, 'bin', 'tc_ts_native_timing');
const pythonDir = path.join(build, 'python');
const hasPython = fs.existsSync(path.join(pythonDir, 'tensorcode'));
const require = createRequire(import.meta.url);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (s) => (s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : s >= 1e-6 ? `${(s * 1e6).toFixed(2)} us` : `${(s * 1e9).toFixed(0)} ns`);
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

// ---- the builds: size and load time in a fresh process
const variants = [];
if (beforeDir) variants.push({ name: 'before', pkg: beforeDir });
variants.push(...also, { name: 'after', pkg });
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
for (const v of variants) {
  const dist = path.join(v.pkg, 'dist');
  const js = fs.readFileSync(path.join(dist, 'tensorcode_core.js'));
  const parts = [`loader ${mb(js.length)} (${mb(zlib.gzipSync(js).length)} gzipped)`];
  if (fs.existsSync(path.join(dist, 'tensorcode_core.wasm'))) {
    const w = fs.readFileSync(path.join(dist, 'tensorcode_core.wasm'));
    parts.push(`wasm ${mb(w.length)} (${mb(zlib.gzipSync(w).length)} gzipped), a separate file`);
  } else parts.push('wasm embedded in the loader as base64');
  const entry = path.join(dist, 'cjs', 'index.js');
  const script = `const t0 = performance.now(); require(${JSON.stringify(entry)}).load().then(() => console.log(performance.now() - t0));`;
  const loads = [];
  for (let i = 0; i < 5; ++i) loads.push(Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) / 1e3);
  console.log(`${v.name.padEnd(6)}: ${parts.join(', ')}; load (require + instantiate, fresh process) median ${fmt(median(loads))} of 5`);
  v.tc = await require(entry).load();
}

// ---- programs (built with the last build; artifacts carry them to the others)
const tc = variants.at(-1).tc;
function chain(depth) {
  const b = new tc.Builder();
  const x = b.input('x', tc.float64(0, 1));
  const y = b.input('y', tc.float64(0, 1));
  let h = x;
  for (let i = 0; i < depth; ++i) h = b.select(b.gt(h, y), b.affine([h, y], [0.5, 0.25], 0.1), b.relu(b.sub(y, h)));
  return b.build(h);
}
const programs = {
  choose: tc.compile('def choose(a):\n    return 10 if a > 0.5 else 12\n', { inputs: { a: 'float64:0:1' } }),
  chain64: chain(64),
  chain1024: chain(1024),
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-bench-'));

// Python's Program.run and gradients on the same artifact and inputs, timed in its own process.
const pythonTiming = `
import json, sys, time
import tensorcode.program as tp
p = tp.Program.from_json(open(sys.argv[1]).read())
n = int(sys.argv[2]); names = json.loads(sys.argv[3])
s = 12345
def rnd():
    global s
    s = (s * 1103515245 + 12345) % 4294967296
    return (s >> 8) / 16777216
cases = [{k: rnd() for k in names} for _ in range(n)]
run, grad = [], []
for rep in range(7):
    t0 = time.perf_counter()
    for c in cases: p.run(c)
    run.append((time.perf_counter() - t0) / n)
    t0 = time.perf_counter()
    for c in cases[: max(1, n // 4)]: p.gradients(c)
    grad.append((time.perf_counter() - t0) / max(1, n // 4))
run.sort(); grad.sort()
print(json.dumps({"run_per_call_s": run[3], "grad_per_call_s": grad[3]}))
`;

// Per program and build: 7 rounds right after fromJSON (cold: V8 may still
// be compiling, see --warmup), untimed rounds until warmupMs have passed
// since fromJSON, then the 7 rounds reported. The native and Python baselines
// run after that, so that this process's background compilation no longer
// competes with them for the cores.
const rows = [];
for (const [name, built] of Object.entries(programs)) {
  const file = path.join(tmp, `${name}.json`);
  fs.writeFileSync(file, built.toJSON());
  const nodes = built.info.nodes;
  const calls = Math.max(200, Math.floor(400000 / nodes));
  const batch = calls * 5;
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) / 16777216;
  const names = built.inputs;
  const cases = Array.from({ length: calls }, () => Object.fromEntries(names.map((n) => [n, rnd()])));
  const columns = Object.fromEntries(names.map((n) => [n, Float64Array.from({ length: batch }, rnd)]));
  const gradCases = cases.slice(0, Math.max(1, calls >> 2));
  const row = { name, nodes };
  for (const v of variants) {
    const p = v.tc.Program.fromJSON(built.toJSON());
    // n rounds of: run per call, exact gradients per call, runBatch per case; medians.
    const rounds = (n) => {
      const perCall = [], perGrad = [], perCase = [];
      for (let rep = 0; rep < n; ++rep) {
        let t0 = performance.now();
        for (const c of cases) p.run(c);
        perCall.push((performance.now() - t0) / 1e3 / calls);
        t0 = performance.now();
        for (const c of gradCases) p.gradients(c);
        perGrad.push((performance.now() - t0) / 1e3 / gradCases.length);
        t0 = performance.now();
        p.runBatch(columns);
        perCase.push((performance.now() - t0) / 1e3 / batch);
      }
      return { run: median(perCall), grad: median(perGrad), batch: median(perCase) };
    };
    const start = performance.now();
    const cold = rounds(7);
    while (performance.now() - start < warmupMs) rounds(1);
    row[v.name] = { ...rounds(7), coldGrad: cold.grad };
    p.dispose();
  }
  if (fs.existsSync(nativeTool)) row.native = JSON.parse(execFileSync(nativeTool, [file, String(calls), String(batch)], { encoding: 'utf8' }));
  if (hasPython) {
    row.python = JSON.parse(execFileSync(process.env.TC_PYTHON ?? '/usr/bin/python3', ['-c', pythonTiming, file, String(calls), JSON.stringify(names)],
      { encoding: 'utf8', env: { ...process.env, PYTHONPATH: pythonDir } }));
  }
  rows.push(row);
}

const after = variants.at(-1).name;
const line = (cells) => console.log(cells.map((c, i) => (i === 0 ? String(c).padEnd(10) : String(c).padStart(12))).join(' '));
for (const [what, key, pyKey, nativeKey] of [['run per call', 'run', 'run_per_call_s', 'run_per_call_s'],
  ['gradients per call (exact)', 'grad', 'grad_per_call_s', null], ['runBatch per case', 'batch', null, 'batch_per_case_s']]) {
  console.log(`\n${what}${key === 'grad' ? ` (cold: the 7 rounds right after fromJSON; the others after ${warmupMs} ms of rounds)` : ''}`);
  const head = ['program', 'nodes', ...variants.map((v) => v.name)];
  if (beforeDir) head.push('after/before');
  if (key === 'grad') head.push(`${after} cold`);
  if (pyKey && hasPython) head.push('python', 'after/py');
  if (nativeKey && fs.existsSync(nativeTool)) head.push('native', 'after/nat');
  line(head);
  for (const r of rows) {
    const cells = [r.name, r.nodes, ...variants.map((v) => fmt(r[v.name][key]))];
    if (beforeDir) cells.push(ratio(r[after][key], r.before[key]));
    if (key === 'grad') cells.push(fmt(r[after].coldGrad));
    if (pyKey && r.python) cells.push(fmt(r.python[pyKey]), ratio(r[after][key], r.python[pyKey]));
    if (nativeKey && r.native) cells.push(fmt(r.native[nativeKey]), ratio(r[after][key], r.native[nativeKey]));
    line(cells);
  }
}
if (!fs.existsSync(nativeTool)) console.log(`(no native baseline: build tc_ts_native_timing in ${build})`);
if (!hasPython) console.log(`(no Python baseline: build the Python package in ${build})`);
fs.rmSync(tmp, { recursive: true, force: true });
