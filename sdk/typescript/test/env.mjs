// Shared by the tests and the runner: where the CLI, the C++ Builder tool,
// the Python package and the built package are, and what is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const sourceDir = process.env.TC_SOURCE_DIR ?? path.resolve(pkgDir, '..', '..');
const buildDir = path.join(sourceDir, 'build');
export const cliPath = process.env.TC_CLI ?? path.join(buildDir, 'bin', 'tensorcode');
export const builderToolPath = process.env.TC_BUILDER_ARTIFACTS ?? path.join(buildDir, 'bin', 'tc_ts_builder_artifacts');
export const pythonDir = process.env.TC_PYTHON_DIR ?? path.join(buildDir, 'python');
export const python = process.env.TC_PYTHON ?? '/usr/bin/python3';

/** Why a test group cannot run here, or null when it can. */
export async function prerequisites(group) {
  if (!fs.existsSync(path.join(pkgDir, 'dist', 'index.mjs')) || !fs.existsSync(path.join(pkgDir, 'dist', 'tensorcode_core.js')))
    return 'the package is not built (npm run build)';
  if (group === 'core') {
    if (!fs.existsSync(cliPath)) return `the tensorcode CLI is not built (${cliPath})`;
    if (!fs.existsSync(builderToolPath)) return `tc_ts_builder_artifacts is not built (${builderToolPath})`;
    return null;
  }
  if (group === 'python') {
    if (!fs.existsSync(path.join(pythonDir, 'tensorcode'))) return `the Python package is not built (${pythonDir}/tensorcode is absent)`;
    const r = spawnSync(python, ['-c', 'import tensorcode.program'], { env: { ...process.env, PYTHONPATH: pythonDir }, encoding: 'utf8' });
    if (r.status !== 0) return `'import tensorcode.program' fails: ${(r.stderr || '').trim().split('\n').pop()}`;
    if (!fs.existsSync(cliPath)) return `the tensorcode CLI is not built (${cliPath})`;
    return null;
  }
  if (group === 'webgpu') {
    // In a child process: once Dawn's threads run, spawning processes aborts.
    const probe = `const w = await import('webgpu'); const gpu = w.create(['backend=opengles']);
      const a = await gpu.requestAdapter({ featureLevel: 'compatibility' }); process.exit(a ? 0 : 3);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: pkgDir, env: { EGL_PLATFORM: 'surfaceless', ...process.env }, encoding: 'utf8', timeout: 60000 });
    if (r.status === 3) return 'Dawn (npm webgpu, OpenGL ES backend) found no adapter';
    if (r.status !== 0) return `Dawn (npm webgpu) does not start: ${(r.stderr || '').trim().split('\n').pop()}`;
    return null;
  }
  if (group === 'browser') return chromiumPath() ? null : 'no chromium binary (apt-get install chromium)';
  return `unknown group '${group}'`;
}

export function chromiumPath() {
  for (const c of [process.env.TC_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (c && fs.existsSync(c)) return c;
  return null;
}

const madeDirs = [];
/** A fresh temporary folder, removed with its contents when this process exits. */
export function tmpDir(prefix = 'tc-ts-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (madeDirs.length === 0)
    process.on('exit', () => { for (const d of madeDirs) fs.rmSync(d, { recursive: true, force: true }); });
  madeDirs.push(dir);
  return dir;
}

/** Runs the CLI; returns stdout. Throws with stderr on failure unless `allowFail`. */
export function cli(args, { allowFail = false } = {}) {
  const r = spawnSync(cliPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && !allowFail) throw new Error(`tensorcode ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return allowFail ? r : r.stdout;
}

/** The corpus: [{name, file, source, inputs: {a: 'int32:-8:8'}, function?, dtype?}]. */
export function corpus() {
  const dir = path.join(sourceDir, 'tests', 'data', 'corpus');
  const out = [];
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.py')).sort()) {
    const source = fs.readFileSync(path.join(dir, f), 'utf8');
    const entry = { name: f, file: path.join(dir, f), source, inputs: {} };
    for (const line of source.split('\n')) {
      if (!line.startsWith('#')) break;
      const m = /^#\s*(\w+):\s*(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'inputs') for (const item of m[2].trim().split(/\s+/)) {
        const eq = item.indexOf('=');
        entry.inputs[item.slice(0, eq)] = item.slice(eq + 1);
      }
      if (m[1] === 'function') entry.function = m[2].trim();
      if (m[1] === 'dtype') entry.dtype = m[2].trim();
    }
    out.push(entry);
  }
  return out;
}

/** CLI flags compiling a corpus entry. */
export function compileFlags(entry) {
  const flags = [];
  for (const [k, d] of Object.entries(entry.inputs)) flags.push('--input', `${k}=${d}`);
  if (entry.function) flags.push('--function', entry.function);
  if (entry.dtype) flags.push('--dtype', entry.dtype);
  return flags;
}

// Deterministic cases from the program's input domains (ProgramInfo.inputs).
export function makeCases(inputs, count = 48, seed = 12345) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const full = { int32: [-2147483648, 2147483647], boolean: [0, 1], float32: [-3.4e38, 3.4e38], float64: [-1.7e308, 1.7e308] };
  const cases = [];
  for (let c = 0; c < count; ++c) {
    const row = {};
    for (const inp of inputs) {
      const d = inp.domain ?? { type: 'float64' };
      const lo = Math.max(d.min ?? full[d.type][0], -1e6), hi = Math.min(d.max ?? full[d.type][1], 1e6);
      let v;
      if (c === 0) v = lo;
      else if (c === 1) v = hi;
      else if (c === 2) v = Math.min(Math.max(0, lo), hi);
      else if (d.type === 'boolean') v = rand() < 0.5 ? 0 : 1;
      else if (d.type === 'int32') v = Math.min(hi, Math.floor(lo + rand() * (hi - lo + 1)));
      else if (d.type === 'float32') v = Math.min(Math.max(Math.fround(lo + rand() * (hi - lo)), lo), hi);
      else v = lo + rand() * (hi - lo);
      if (d.type === 'float32' && Math.fround(v) !== v) v = Math.fround(v) <= hi && Math.fround(v) >= lo ? Math.fround(v) : v;
      row[inp.name] = v;
    }
    cases.push(row);
  }
  return cases;
}

/** Same double, bit for bit (NaN equal to NaN, 0 distinct from -0). */
export function sameBits(a, b) {
  return Object.is(a, b);
}

export function execJson(file, args) {
  return JSON.parse(execFileSync(file, args, { encoding: 'utf8' }));
}

// Why a corpus program may be left out of a float32 or emitter check: the
// engine's exact refusal texts. Anything else a test catches is rethrown.
// (tests/node/check_backends.mjs holds the same patterns for the CLI's stderr
// and checks them against refusals it provokes.)
export const FLOAT32_REFUSAL = /beyond 2\^24 \(beyond it float32, the (--dtype|dtype=), does not represent every integer exactly\)/;
export const EMIT_REFUSALS = [
  /^(.*: )?the (wgsl|wasm) backend runs stateless programs only; this program has state$/,
  /^(.*: )?the (wgsl|wasm) backend cannot run host calls: node \d+ \(call[^)\n]*\)[^\n]* calls binding '[^'\n]+'$/,
  /^(.*: )?the (wgsl|wasm) backend runs exact \(or hybrid\) forward semantics only; node \d+ \([^)\n]*\)[^\n]* uses relaxed semantics$/,
];

/** `e` when it is not a known refusal of that stage ('float32' compile or 'emit'): the caller rethrows it. */
export function unexpectedRefusal(e, stage) {
  const message = String(e?.message ?? e);
  if (stage === 'float32' && e?.name === 'CompileError' && FLOAT32_REFUSAL.test(message)) return null;
  if (stage === 'emit' && e?.name === 'EmitError' && EMIT_REFUSALS.some((re) => re.test(message))) return null;
  return e instanceof Error ? e : new Error(message);
}
