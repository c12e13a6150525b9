// Independent checks of tensorcode's emitted code, against the CPU evaluator
// (dtype float32) through the tensorcode CLI:
//   - the WGSL, run by Dawn (npm `webgpu`, OpenGL ES backend, compatibility
//     adapter) on the GPU of this machine (llvmpipe in CI);
//   - the WebAssembly module, run by Node's own engine.
// Programs: every tests/data/corpus/*.py (compiled with --dtype float32) and
// every tests/data/emit/*.json artifact (random programs).
//
// Tolerance classes come from tests/data/backends/tolerances.json, shared with
// the C++ Vulkan test; the WebAssembly module must be bit-identical on every
// output. A program that does not compile in float32 or is refused by the
// emitters must be refused for a known reason, and at least MIN_PROGRAMS
// programs must run, so a broken emitter cannot pass by emitting nothing.
//
// usage: node check_backends.mjs TENSORCODE_CLI [--only wasm|wgsl]
// exit: 0 agree, 1 a mismatch or an unexpected failure, 77 skipped (--only
// wgsl without a Dawn adapter: ctest reports the test as skipped).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const cli = process.argv[2];
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
if (!cli || !fs.existsSync(cli)) {
  console.error('usage: node check_backends.mjs TENSORCODE_CLI');
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-node-'));
const CASES = 256;
const MIN_PROGRAMS = 60;
const TOL = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'data', 'backends', 'tolerances.json'), 'utf8'));
// Why a program may be left out: the engine's exact refusal texts (anything
// else is a failure). checkRefusalTexts() below makes each refusal happen
// and checks that its text is matched by its pattern and by no other, so a
// changed message fails here instead of widening what is skipped.
const FLOAT32_REFUSAL = /error: [^\n]* beyond 2\^24 \(beyond it float32, the --dtype, does not represent every integer exactly\)/;
const EMIT_REFUSALS = {
  state: /error: the (wgsl|wasm) backend runs stateless programs only; this program has state/,
  call: /error: the (wgsl|wasm) backend cannot run host calls: node \d+ \(call[^)\n]*\)[^\n]* calls binding '[^'\n]+'/,
  relaxed: /error: the (wgsl|wasm) backend runs exact \(or hybrid\) forward semantics only; node \d+ \([^)\n]*\)[^\n]* uses relaxed semantics/,
};
const knownEmitRefusal = (why) => Object.values(EMIT_REFUSALS).some((re) => re.test(why));
const unexpected = [];

function tc(args) {
  return execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
}

// ---- programs
function corpusPrograms() {
  const dir = path.join(root, 'tests', 'data', 'corpus');
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.py')).sort()) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const args = [];
    for (const line of text.split('\n')) {
      if (!line.startsWith('#')) break;
      const m = /^#\s*(\w+):\s*(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'inputs') for (const item of m[2].trim().split(/\s+/)) args.push('--input', item);
      if (m[1] === 'function') args.push('--function', m[2].trim());
    }
    const json = path.join(tmp, f.replace(/\.py$/, '.json'));
    try {
      tc(['compile', path.join(dir, f), ...args, '--dtype', 'float32', '-o', json]);
    } catch (e) {
      // Not compilable in float32 (e.g. integers beyond 2^24): the frontend's
      // tests cover it. Any other failure is a failure here.
      const why = String(e.stderr ?? e.message);
      if (!FLOAT32_REFUSAL.test(why)) unexpected.push(`compile ${f}: ${why.trim()}`);
      continue;
    }
    out.push({ name: f, artifact: json });
  }
  return out;
}
function generatedPrograms() {
  const dir = path.join(root, 'tests', 'data', 'emit');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
      .map((f) => ({ name: f, artifact: path.join(dir, f) }));
}

// ---- cases (deterministic)
let seed = 12345;
function rand() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
function domainRange(d) {
  const full = { int32: [-2147483648, 2147483647], boolean: [0, 1], float32: [-3.4028234663852886e38, 3.4028234663852886e38],
                 float64: [-1.7976931348623157e308, 1.7976931348623157e308] }[d.type];
  return [Math.max(d.min ?? full[0], -1e6), Math.min(d.max ?? full[1], 1e6)];
}
function makeCases(program) {
  const inputs = program.nodes.filter((n) => n.op === 'input');
  const cases = [];
  for (let c = 0; c < CASES; ++c) {
    const row = {};
    for (const n of inputs) {
      const [lo, hi] = domainRange(n.domain);
      let v;
      if (c === 0) v = lo; else if (c === 1) v = hi; else if (c === 2) v = Math.min(Math.max(0, lo), hi);
      else if (n.domain.type === 'boolean') v = rand() < 0.5 ? 0 : 1;
      else if (n.domain.type === 'int32') v = Math.min(hi, Math.floor(lo + rand() * (hi - lo + 1)));
      else v = Math.fround(lo + rand() * (hi - lo));
      if (v > hi) v = hi;
      if (v < lo) v = Math.fround(lo) >= lo ? Math.fround(lo) : lo;
      row[n.name] = v;
    }
    cases.push(row);
  }
  return { inputs, cases };
}

// ---- tolerance classes per output (see docs/backends.md)
function classes(program) {
  const dep = [], dec = [];
  for (const n of program.nodes) {
    let d = n.op === 'sigmoid', x = false;
    n.args.forEach((a, k) => {
      d = d || dep[a];
      x = x || dec[a];
      const decisionArg = ['lt', 'le', 'gt', 'ge', 'eq', 'ne'].includes(n.op) || (n.op === 'select' && k === 0) ||
          (n.op === 'gather' && k === 0) || (n.op === 'gather_one_hot' && k < n.args.length / 2);
      if (decisionArg && dep[a]) x = true;
    });
    dep.push(d);
    dec.push(x);
  }
  return Object.entries(program.outputs).filter(([name]) => !name.startsWith('__sigmoid_argument_')).map(([name, id]) => ({
    name, cls: program.nodes[id].op === 'sigmoid' ? 'sigmoid' : dec[id] ? 'skip' : dep[id] ? 'derived' : 'exact',
  }));
}

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
function orderedBits(x) {
  f32[0] = x;
  const b = u32[0];
  return b & 0x80000000 ? 0x80000000 - b : b;
}
function ulps(a, b) { return Math.abs(orderedBits(a) - orderedBits(b)); }
// Every bit, except that the CPU side comes through the CLI's JSON, which
// prints an integral value as an integer and so cannot carry the sign of a
// zero: there -0 and +0 are the same value (the C++ Vulkan test, with both
// sides in memory, compares the sign of zeros too).
function sameBits(a, b) {
  if (a === 0) return b === 0;
  f32[0] = a;
  const x = u32[0];
  f32[0] = b;
  return x === u32[0];
}

const stats = {};
function compare(target, prog, outs, expected, cases) {
  const s = (stats[target] ??= { programs: 0, cases: 0, errors: 0, exact: 0, sigmoid: 0, maxUlp: 0, derived: 0, maxRel: 0, mismatches: 0 });
  s.programs++;
  const cls = classes(prog.json);
  const fail = (msg) => {
    s.mismatches++;
    if (s.mismatches <= 20) console.log(`MISMATCH ${target} ${prog.name}: ${msg}`);
  };
  for (let c = 0; c < cases.length; ++c) {
    s.cases++;
    const cpu = expected[c], dev = outs[c];
    if ('error' in cpu || 'error' in dev) {
      if (!('error' in cpu && 'error' in dev)) {
        fail(`case ${JSON.stringify(cases[c])}: cpu ${JSON.stringify(cpu)}, ${target} ${JSON.stringify(dev)}`);
      } else s.errors++;
      continue;
    }
    for (const { name, cls: k } of cls) {
      const a = Math.fround(cpu[name]), b = dev[name];
      if (target === 'wasm' && TOL.wasm.bit_identical) {
        // Bit-identical on every output, sigmoid and decisions included.
        if (k === 'sigmoid') s.sigmoid++; else if (k === 'derived') s.derived++; else s.exact++;
        if (!sameBits(a, b)) fail(`case ${JSON.stringify(cases[c])} output ${name} (${k}): cpu ${a}, ${target} ${b}`);
        continue;
      }
      if (k === 'skip') continue;
      if (k === 'exact') {
        s.exact++;
        if (!sameBits(a, b)) fail(`case ${JSON.stringify(cases[c])} output ${name}: cpu ${a}, ${target} ${b}`);
      } else if (k === 'sigmoid') {
        s.sigmoid++;
        const flush = TOL.sigmoid.flush_below;
        if (Math.abs(a) < flush && Math.abs(b) < flush) continue;
        const d = ulps(a, b);
        s.maxUlp = Math.max(s.maxUlp, d);
        const x = Math.fround(cpu[sigmoidArgumentName(prog.json, name)]);
        const bound = TOL.sigmoid.ulp_base + TOL.sigmoid.ulp_per_abs_argument * Math.abs(x);
        if (!(d <= bound)) fail(`case ${JSON.stringify(cases[c])} sigmoid output ${name}: cpu ${a}, ${target} ${b} (${d} ulp, bound ${bound} at x = ${x})`);
      } else {
        s.derived++;
        const diff = Math.abs(a - b);
        s.maxRel = Math.max(s.maxRel, diff / Math.max(1, Math.abs(a)));
        // A relative bound with a small absolute floor (tolerances.json says why).
        if (!(diff <= TOL.derived.relative * Math.abs(a) + TOL.derived.absolute))
          fail(`case ${JSON.stringify(cases[c])} output ${name}: cpu ${a}, ${target} ${b}`);
      }
    }
  }
}

// Each sigmoid output's bound depends on its argument: the artifact the
// backends and the CPU run gets the argument as an extra output.
function sigmoidArgumentName(program, outputName) {
  return `__sigmoid_argument_${outputName}`;
}
function withSigmoidArguments(program) {
  const out = JSON.parse(JSON.stringify(program));
  for (const [name, id] of Object.entries(program.outputs))
    if (program.nodes[id].op === 'sigmoid') out.outputs[sigmoidArgumentName(program, name)] = program.nodes[id].args[0];
  return out;
}

// ---- device runs; both return per case {name: value} or {error: code}
function layout(prog, inputs, cases) {
  const n = cases.length;
  const inputIds = prog.json.nodes.filter((x) => x.op === 'input').map((x) => x.id);
  const data = new Float32Array(Math.max(1, inputs.length * n));
  inputs.forEach((inp, k) => cases.forEach((row, c) => { data[k * n + c] = row[inp.name]; }));
  return { n, data, inputIds };
}
function collect(prog, outF32, errU32, n) {
  const names = Object.keys(prog.json.outputs);
  const res = [];
  for (let c = 0; c < n; ++c) {
    if (errU32[c] !== 0) { res.push({ error: errU32[c] }); continue; }
    const row = {};
    names.forEach((name, k) => { row[name] = outF32[k * n + c]; });
    res.push(row);
  }
  return res;
}

async function runWasm(prog, inputs, cases) {
  const bytes = fs.readFileSync(prog.wasm);
  const { instance } = await WebAssembly.instantiate(bytes, { env: { exp: Math.exp, expm1: Math.expm1, log: Math.log, log2: Math.log2, log10: Math.log10, log1p: Math.log1p, sin: Math.sin, cos: Math.cos, tan: Math.tan, atan: Math.atan, tanh: Math.tanh } });
  const { memory, run, heap_base } = instance.exports;
  const { n, data } = layout(prog, inputs, cases);
  const nOut = Object.keys(prog.json.outputs).length;
  const inPtr = heap_base();
  const outPtr = inPtr + 4 * data.length;
  const errPtr = outPtr + 4 * nOut * n;
  const end = errPtr + 4 * n;
  if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536));
  new Float32Array(memory.buffer, inPtr, data.length).set(data);
  run(inPtr, outPtr, errPtr, n);
  return collect(prog, new Float32Array(memory.buffer, outPtr, nOut * n), new Uint32Array(memory.buffer, errPtr, n), n);
}

async function makeDawn() {
  let webgpu;
  try {
    webgpu = await import('webgpu');
  } catch (e) {
    return { why: `npm package 'webgpu' is not installed (run npm ci in tests/node): ${e.message}` };
  }
  Object.assign(globalThis, webgpu.globals);
  const gpu = webgpu.create(['backend=opengles']);
  const adapter = await gpu.requestAdapter({ featureLevel: 'compatibility' });
  if (!adapter) return { why: 'Dawn found no OpenGL ES adapter (set EGL_PLATFORM=surfaceless)' };
  const info = adapter.info ? `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}` : 'adapter';
  return { gpu, info };
}

async function runWgsl(dawn, prog, inputs, cases) {
  // A device per program: one long-lived device on Dawn's OpenGL ES backend
  // aborts after a few dozen pipelines.
  const adapter = await dawn.gpu.requestAdapter({ featureLevel: 'compatibility' });
  const device = await adapter.requestDevice();
  const { n, data } = layout(prog, inputs, cases);
  const nOut = Object.keys(prog.json.outputs).length;
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: fs.readFileSync(prog.wgsl, 'utf8') });
  const bgl = device.createBindGroupLayout({
    entries: [0, 1, 2, 3].map((b) => ({ binding: b, visibility: GPUShaderStage.COMPUTE,
                                        buffer: { type: b < 2 ? 'read-only-storage' : 'storage' } })),
  });
  const pipeline = device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [bgl] }),
    compute: { module, entryPoint: 'main' },
  });
  const storage = (bytes) => device.createBuffer({ size: Math.max(16, bytes),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  const params = storage(16), inBuf = storage(4 * data.length), outBuf = storage(4 * nOut * n), errBuf = storage(4 * n);
  device.queue.writeBuffer(params, 0, new Uint32Array([n, 0, 0, 0]));
  device.queue.writeBuffer(inBuf, 0, data);
  const bind = device.createBindGroup({ layout: bgl, entries: [params, inBuf, outBuf, errBuf].map((buffer, b) => ({ binding: b, resource: { buffer } })) });
  const readOut = device.createBuffer({ size: Math.max(16, 4 * nOut * n), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const readErr = device.createBuffer({ size: Math.max(16, 4 * n), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(Math.ceil(n / 64));
  pass.end();
  enc.copyBufferToBuffer(outBuf, 0, readOut, 0, Math.max(16, 4 * nOut * n));
  enc.copyBufferToBuffer(errBuf, 0, readErr, 0, Math.max(16, 4 * n));
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) throw new Error(`dawn rejected the shader of ${prog.name}: ${err.message}`);
  await readOut.mapAsync(GPUMapMode.READ);
  await readErr.mapAsync(GPUMapMode.READ);
  const res = collect(prog, new Float32Array(readOut.getMappedRange().slice(0)), new Uint32Array(readErr.getMappedRange().slice(0)), n);
  readOut.unmap();
  readErr.unmap();
  for (const b of [params, inBuf, outBuf, errBuf, readOut, readErr]) b.destroy();
  device.destroy();
  return res;
}

// ---- the refusal texts, checked against the real refusals
function stderrOf(args) {
  try {
    tc(args);
  } catch (e) {
    return String(e.stderr ?? e.message);
  }
  return '';
}
function checkRefusalTexts() {
  const dir = fs.mkdtempSync(path.join(tmp, 'refusals-'));
  const file = (name, text) => { const f = path.join(dir, name); fs.writeFileSync(f, text); return f; };
  const relaxed = path.join(dir, 'relaxed.json');
  tc(['compile', file('relaxed.py', 'def f(x):\n    return 1 if x > 0 else 2\n'), '--input', 'x=float32', '--semantics', 'relaxed', '-o', relaxed]);
  const node = (id, op, args, extra = {}) => ({ id, op, args, shape: [], domain: null, differentiable: false, location: null, ...extra });
  const call = file('call.json', JSON.stringify({
    format: 'tensorcode.program', version: 1, semantics: 'exact', dtype: 'float32', surrogate: 'sigmoid', temperature: 1.0,
    nodes: [node(0, 'input', [], { domain: { type: 'float32' }, name: 'x' }), node(1, 'call', [0], { name: 'sq' })],
    outputs: { result: 1 }, updates: {},
  }));
  const observed = {
    state: stderrOf(['emit', path.join(root, 'resources', 'examples', 'counter.json'), '--target', 'wgsl', '-o', path.join(dir, 'o')]),
    call: stderrOf(['emit', call, '--target', 'wasm', '-o', path.join(dir, 'o')]),
    relaxed: stderrOf(['emit', relaxed, '--target', 'wgsl', '-o', path.join(dir, 'o')]),
  };
  for (const [kind, why] of Object.entries(observed)) {
    const matching = Object.entries(EMIT_REFUSALS).filter(([, re]) => re.test(why)).map(([k]) => k);
    if (matching.length !== 1 || matching[0] !== kind) unexpected.push(`the ${kind} refusal '${why.trim()}' is matched by [${matching}]`);
    if (FLOAT32_REFUSAL.test(why)) unexpected.push(`the ${kind} refusal is matched by the float32 pattern`);
  }
  const f32 = stderrOf(['compile', file('big.py', 'def f(x):\n    return x * 100000\n'), '--input', 'x=int32:0:1000', '--dtype', 'float32', '-o', path.join(dir, 'o')]);
  if (!FLOAT32_REFUSAL.test(f32) || knownEmitRefusal(f32)) unexpected.push(`the float32 refusal '${f32.trim()}' is not matched by its pattern alone`);
  // Other failures that mention the same words stay failures.
  for (const other of [`error: cannot open '${dir}/a.float32.call.json'`, 'error: node 3 (call) failed: relaxed float32 state',
    stderrOf(['emit', path.join(dir, 'missing.json'), '--target', 'wgsl', '-o', path.join(dir, 'o')])])
    if (FLOAT32_REFUSAL.test(other) || knownEmitRefusal(other)) unexpected.push(`'${other.trim()}' would be taken for a known refusal`);
}

// ---- main
checkRefusalTexts();
// Every CLI call happens before Dawn starts: spawning processes once Dawn's
// threads run aborts on this platform ("futex facility returned an
// unexpected error code").
const programs = [...corpusPrograms(), ...generatedPrograms()].filter((p) => !process.env.TC_NODE_FILTER || p.name.includes(process.env.TC_NODE_FILTER));
const ready = [];
for (const prog of programs) {
  const base = path.join(tmp, prog.name.replace(/\.\w+$/, ''));
  prog.json = withSigmoidArguments(JSON.parse(fs.readFileSync(prog.artifact, 'utf8')));
  prog.artifact = base + '.augmented.json';
  fs.writeFileSync(prog.artifact, JSON.stringify(prog.json));
  prog.wgsl = base + '.wgsl';
  prog.wasm = base + '.wasm';
  try {
    tc(['emit', prog.artifact, '--target', 'wgsl', '-o', prog.wgsl]);
    tc(['emit', prog.artifact, '--target', 'wasm', '-o', prog.wasm]);
  } catch (e) {
    // Not a backend program (state, calls, relaxed semantics): refused with
    // an error that says so. Any other emit failure is a failure.
    const why = String(e.stderr ?? e.message);
    if (!knownEmitRefusal(why)) unexpected.push(`emit ${prog.name}: ${why.trim()}`);
    continue;
  }
  const { inputs, cases } = makeCases(prog.json);
  const casesFile = base + '.cases.jsonl';
  fs.writeFileSync(casesFile, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const expected = tc(['run', prog.artifact, '--cases', casesFile]).trim().split('\n').map((l) => JSON.parse(l));
  ready.push({ prog, inputs, cases, expected });
}
if (only !== 'wgsl')
  for (const r of ready) compare('wasm', r.prog, await runWasm(r.prog, r.inputs, r.cases), r.expected, r.cases);
const dawn = only === 'wasm' ? { why: 'skipped by --only wasm' } : await makeDawn();
let dawnMissing = false;
if (dawn.why) {
  console.log(`wgsl on dawn: skipped: ${dawn.why}`);
  dawnMissing = only === 'wgsl';
} else {
  console.log(`wgsl on dawn: ${dawn.info}`);
  for (const r of ready) {
    if (process.env.TC_NODE_VERBOSE) console.log('wgsl:', r.prog.name);
    compare('wgsl', r.prog, await runWgsl(dawn, r.prog, r.inputs, r.cases), r.expected, r.cases);
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
for (const [target, s] of Object.entries(stats)) {
  console.log(`${target}: ${s.programs} programs, ${s.cases} cases (${s.errors} failing on both), ${s.exact} values ` +
              `bit-identical, ${s.sigmoid} sigmoid values (max ${s.maxUlp} ulp), ${s.derived} exp-derived values ` +
              `(max relative difference ${s.maxRel.toExponential(2)}), ${s.mismatches} mismatches`);
}
for (const u of unexpected) console.log(`UNEXPECTED ${u}`);
if (ready.length < MIN_PROGRAMS) console.log(`FAILED: only ${ready.length} programs reached the backends (at least ${MIN_PROGRAMS} expected)`);
const bad = unexpected.length > 0 || ready.length < MIN_PROGRAMS || Object.values(stats).some((s) => s.mismatches > 0);
if (bad) process.exit(1);
if (dawnMissing) process.exit(77);  // the Dawn half could not run: ctest reports SKIPPED
process.exit(0);
