// Runs tensorcode's ONNX exports in ONNX Runtime (npm onnxruntime-node, CPU
// execution provider) and compares them with the CPU evaluator's results
// that tests/emit/onnx_fixtures.cpp wrote beside each model:
//   - outputs of the exact class bit for bit (the sign of zeros included),
//   - sigmoid outputs within tolerances.json's onnx.sigmoid_ulp, outputs
//     derived from a sigmoid within its derived class, outputs behind a
//     decision on a sigmoid not compared (docs/backends.md, 'Tolerances'),
//   - `failed` equal to the evaluator's failure set and `error_node` to its
//     failing node, case for case (not compared where a check depends on a
//     sigmoid's value, counted apart).
// A refused program must be refused for a known reason, and at least
// MIN_PROGRAMS models must run.
//
// usage: node check_onnx.mjs FIXTURE_DIR
// exit: 0 agree, 1 a mismatch, 77 (SKIPPED) without onnxruntime-node.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const dir = process.argv[2];
if (!dir || !fs.existsSync(path.join(dir, 'manifest.json'))) {
  console.error('usage: node check_onnx.mjs FIXTURE_DIR (with the manifest.json of tc_onnx_fixtures)');
  process.exit(2);
}
let ort;
try {
  ort = (await import('onnxruntime-node')).default;
} catch (e) {
  console.log(`skipped: npm package 'onnxruntime-node' is not installed (run npm ci in tests/node): ${e.message}`);
  process.exit(77);
}
const MIN_PROGRAMS = 300;
const TOL = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'data', 'backends', 'tolerances.json'), 'utf8'));
const KNOWN_REFUSALS = [
  /^the onnx backend runs exact \(or hybrid\) forward semantics only; node \d+ \([^)]*\)[^\n]* uses relaxed semantics$/,
  /^the onnx backend needs at least one input: the batch size N is the inputs' length$/,
];
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
let mismatches = 0;
const fail = (msg) => {
  if (++mismatches <= 25) console.log(`MISMATCH ${msg}`);
};
for (const r of manifest.refused)
  if (!KNOWN_REFUSALS.some((re) => re.test(r.why))) fail(`${r.name}: refused for an unknown reason: ${r.why}`);

const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
const bits64 = (x) => { f64[0] = x; return u64[0]; };
const bits32 = (x) => { f32[0] = x; return u32[0]; };
function ulps(a, b, single) {
  if (single) {
    const key = (x) => { const v = bits32(x); return v & 0x80000000 ? 0x80000000 - v : v; };
    return Math.abs(key(a) - key(b));
  }
  const key = (x) => { const v = bits64(x); return v & (1n << 63n) ? (1n << 63n) - v : v; };
  const d = key(a) - key(b);
  return Number(d < 0n ? -d : d);
}

const fmt = (x) => (Object.is(x, -0) ? '-0' : String(x));
const stats = { programs: 0, cases: 0, failed: 0, exact: 0, sigmoid: 0, derived: 0, maxUlp: 0, sigmoidChecksSkipped: 0 };
for (const prog of manifest.programs) {
  const single = prog.dtype === 'float32';
  const n = prog.count, k = prog.inputs.length, m = prog.outputs.length;
  const buf = fs.readFileSync(path.join(dir, prog.data));
  const data = new Float64Array(buf.buffer, buf.byteOffset, buf.length / 8);
  if (data.length !== n * (k + m + 1)) { fail(`${prog.name}: ${prog.data} has ${data.length} values`); continue; }
  const feeds = {};
  prog.inputs.forEach((name, j) => {
    const col = data.subarray(j * n, (j + 1) * n);
    feeds[name] = single ? new ort.Tensor('float32', Float32Array.from(col), [n]) : new ort.Tensor('float64', Float64Array.from(col), [n]);
  });
  let res;
  try {
    const session = await ort.InferenceSession.create(path.join(dir, prog.model), { graphOptimizationLevel: 'all' });
    res = await session.run(feeds);
    await session.release();
  } catch (e) {
    fail(`${prog.name}: onnx runtime failed: ${e.message}`);
    continue;
  }
  stats.programs++;
  const failed = res.failed.data, node = res.error_node.data;
  const cpuNode = data.subarray((k + m) * n);
  for (let c = 0; c < n; ++c) {
    stats.cases++;
    const cpuFailed = cpuNode[c] !== -1;
    if (prog.checks_depend_on_sigmoid) {
      stats.sigmoidChecksSkipped++;
    } else {
      if (Boolean(failed[c]) !== cpuFailed) {
        fail(`${prog.name} case ${c}: cpu ${cpuFailed ? `failed at node ${cpuNode[c]}` : 'succeeded'}, onnx failed=${failed[c]} node ${node[c]}`);
        continue;
      }
      if (Number(node[c]) !== cpuNode[c]) fail(`${prog.name} case ${c}: failing node cpu ${cpuNode[c]}, onnx ${node[c]}`);
    }
    if (cpuFailed) { stats.failed++; continue; }
    if (failed[c]) continue;
    prog.outputs.forEach((o, j) => {
      const cpu = data[(k + j) * n + c], got = res[o.name].data[c];
      const want = single ? Math.fround(cpu) : cpu;
      if (o.class === 'exact') {
        stats.exact++;
        if (single ? bits32(want) !== bits32(got) : bits64(want) !== bits64(got))
          fail(`${prog.name} case ${c} output ${o.name}: cpu ${fmt(want)}, onnx ${fmt(got)}`);
      } else if (o.class === 'sigmoid') {
        stats.sigmoid++;
        const d = ulps(want, got, single);
        stats.maxUlp = Math.max(stats.maxUlp, d);
        if (!(d <= TOL.onnx.sigmoid_ulp)) fail(`${prog.name} case ${c} sigmoid output ${o.name}: cpu ${want}, onnx ${got} (${d} ulp)`);
      } else if (o.class === 'derived') {
        stats.derived++;
        if (!(Math.abs(want - got) <= TOL.derived.relative * Math.abs(want) + TOL.derived.absolute))
          fail(`${prog.name} case ${c} output ${o.name}: cpu ${want}, onnx ${got}`);
      }
    });
  }
}
console.log(`onnx runtime ${ort.env.versions?.common ?? ''}: ${stats.programs} models, ${stats.cases} cases ` +
            `(${stats.failed} failed on the cpu), ${stats.exact} exact outputs bit-identical, ${stats.sigmoid} sigmoid outputs ` +
            `(max ${stats.maxUlp} ulp), ${stats.derived} derived; ${stats.sigmoidChecksSkipped} cases with sigmoid-dependent checks; ` +
            `${manifest.refused.length} refused; ${mismatches} mismatches`);
if (stats.programs < MIN_PROGRAMS) {
  console.log(`FAIL: only ${stats.programs} models ran (want at least ${MIN_PROGRAMS})`);
  process.exit(1);
}
process.exit(mismatches ? 1 : 0);
