// The TypeScript package against the native engine, measured in the same run:
// module size, load time, `run` per call and `runBatch` per case. Prints
// medians and ratios (WebAssembly / native).
//
// usage: node bench/typescript/bench.mjs [BUILD_DIR]   (after npm run build in sdk/typescript)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = path.join(root, 'sdk', 'typescript');
const build = path.resolve(process.argv[2] ?? path.join(root, 'build'));
const nativeTool = path.join(build, 'bin', 'tc_ts_native_timing');
const { load } = await import(path.join(pkg, 'dist', 'index.mjs'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (s) => (s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : s >= 1e-6 ? `${(s * 1e6).toFixed(2)} us` : `${(s * 1e9).toFixed(0)} ns`);

// ---- size and load time
const core = path.join(pkg, 'dist', 'tensorcode_core.js');
const bytes = fs.readFileSync(core);
console.log(`module: ${(bytes.length / 1e6).toFixed(2)} MB (${(zlib.gzipSync(bytes).length / 1e6).toFixed(2)} MB gzipped), wasm embedded as base64`);
const loads = [];
for (let i = 0; i < 5; ++i) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e',
    `const t0 = performance.now(); const { load } = await import(${JSON.stringify(path.join(pkg, 'dist', 'index.mjs'))}); await load(); console.log(performance.now() - t0);`], { encoding: 'utf8' });
  loads.push(Number(out) / 1e3);
}
console.log(`load (import + instantiate, fresh process): median ${fmt(median(loads))} of ${loads.length}`);

// ---- programs
const tc = await load();
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
console.log('\nprogram      nodes  run/call wasm  native   ratio   batch/case wasm  native   ratio');
for (const [name, p] of Object.entries(programs)) {
  const file = path.join(tmp, `${name}.json`);
  fs.writeFileSync(file, p.toJSON());
  const calls = Math.max(200, Math.floor(400000 / p.info.nodes));
  const batch = calls * 5;
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) / 16777216;
  const names = p.inputs;
  const cases = Array.from({ length: calls }, () => Object.fromEntries(names.map((n) => [n, rnd()])));
  const columns = Object.fromEntries(names.map((n) => [n, Float64Array.from({ length: batch }, rnd)]));
  const perCall = [], perCase = [];
  for (let rep = 0; rep < 7; ++rep) {
    let t0 = performance.now();
    for (const c of cases) p.run(c);
    perCall.push((performance.now() - t0) / 1e3 / calls);
    t0 = performance.now();
    p.runBatch(columns);
    perCase.push((performance.now() - t0) / 1e3 / batch);
  }
  let native = null;
  if (fs.existsSync(nativeTool)) native = JSON.parse(execFileSync(nativeTool, [file, String(calls)], { encoding: 'utf8' }));
  const wCall = median(perCall), wCase = median(perCase);
  const row = [name.padEnd(11), String(p.info.nodes).padStart(6), fmt(wCall).padStart(14)];
  if (native) row.push(fmt(native.run_per_call_s).padStart(8), `${(wCall / native.run_per_call_s).toFixed(1)}x`.padStart(7));
  else row.push('      -', '      -');
  row.push(fmt(wCase).padStart(16));
  if (native) row.push(fmt(native.batch_per_case_s).padStart(8), `${(wCase / native.batch_per_case_s).toFixed(1)}x`.padStart(7));
  console.log(row.join('  '));
}
if (!fs.existsSync(nativeTool)) console.log(`(no native baseline: build tc_ts_native_timing in ${build})`);
fs.rmSync(tmp, { recursive: true, force: true });
