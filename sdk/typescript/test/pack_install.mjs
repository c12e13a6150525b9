// The package as `npm publish` would ship it: `npm pack`, then the tarball
// installed into a fresh folder without the network, used from there as
// another project uses it: an ES module and a CommonJS script run a program,
// and `tsc --strict --noEmit` (no skipLibCheck) type-checks a TypeScript app
// against the shipped declarations with neither the DOM library, @types/node
// nor @webgpu/types present, under both Node's and bundlers' resolution.
//
//   node test/pack_install.mjs
//
// Exit 0 when all of it works, 1 otherwise, 77 (ctest's SKIPPED) when the
// package is not built.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pkgDir, tmpDir } from './env.mjs';

if (!fs.existsSync(path.join(pkgDir, 'dist', 'tensorcode_core.wasm'))) {
  console.log('skipped: the package is not built (npm run build)');
  process.exit(77);
}
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const work = tmpDir('tc-pack-');

// ---- the tarball and its manifest
const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], pkgDir));
const shipped = new Set(packed.files.map((f) => f.path));
for (const f of ['README.md', 'LICENSE', 'package.json', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/index.mjs',
  'dist/index.d.mts', 'dist/browser/browser.js', 'dist/browser/browser.d.ts', 'dist/tensorcode_core.js',
  'dist/tensorcode_core.mjs', 'dist/tensorcode_core.wasm'])
  assert.ok(shipped.has(f), `the tarball lacks ${f}`);
for (const f of shipped) assert.ok(!/^(src|test|native|scripts|example|interop)\//.test(f), `the tarball ships ${f}`);
const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
for (const key of ['repository', 'keywords', 'files', 'license', 'exports']) assert.ok(manifest[key], `package.json has no ${key}`);
assert.equal(manifest.sideEffects, false);
assert.deepEqual(Object.keys(manifest.exports['.']), ['browser', 'node', 'import', 'require']);
assert.equal(manifest.dependencies, undefined, 'the package has runtime dependencies');
const readme = fs.readFileSync(path.join(pkgDir, 'README.md'), 'utf8');
assert.match(readme, /npm install tensorcode/);
assert.match(readme, /load\(\{ wasmURL \}\)/);

// ---- the browser build holds no Node module (a bundler targeting pages would fail on it)
for (const f of shipped) {
  if (!(f.startsWith('dist/browser/') && f.endsWith('.js')) && f !== 'dist/tensorcode_core.mjs' && f !== 'dist/tensorcode_core.js') continue;
  const text = fs.readFileSync(path.join(pkgDir, f), 'utf8');
  assert.doesNotMatch(text, /\brequire\s*\(|from\s+['"]node:|import\s*\(\s*['"](node:|fs|path)/, `${f} reaches for a Node module`);
}

// ---- a fresh project installs it offline
const app = path.join(work, 'app');
fs.mkdirSync(app);
fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
npm(['install', '--offline', '--no-audit', '--no-fund', path.join(work, packed.filename)], app);
const installed = path.join(app, 'node_modules', 'tensorcode');
assert.ok(fs.existsSync(path.join(installed, 'dist', 'tensorcode_core.wasm')));

const expected = '{"result":10} {"x":2,"weight":3} EvaluationError';
const body = (tc) => `
const b = new tc.Builder();
const x = b.input('x', tc.float64(-10, 10));
const w = b.parameter('weight', 2);
const p = b.build(b.select(b.gt(x, 0), b.mul(w, x), 0));
const g = p.gradients({ x: 3 });
let name = 'none';
try { p.run({ x: 50 }); } catch (e) { name = e.name; }
const c = ${tc}.compile('def f(a):\\n    return a * 2 if a > 0 else -a\\n', { inputs: { a: 'int32:-128:127' } });
console.log(JSON.stringify(c.run({ a: 5 })), JSON.stringify(g), name);
p.dispose(); c.dispose(); b.dispose();
`;
fs.writeFileSync(path.join(app, 'esm.mjs'), `import { load } from 'tensorcode';\nconst tc = await load();\n${body('tc')}`);
fs.writeFileSync(path.join(app, 'cjs.cjs'), `const { load } = require('tensorcode');\nload().then((tc) => {\n${body('tc')}\n});\n`);
for (const script of ['esm.mjs', 'cjs.cjs']) {
  const r = spawnSync(process.execPath, [script], { cwd: app, encoding: 'utf8' });
  assert.equal(r.status, 0, `${script}: ${r.stderr}`);
  assert.equal(r.stdout.trim(), expected, `${script}`);
}

// ---- its types, strict, without skipLibCheck, DOM, @types/node or @webgpu/types
fs.writeFileSync(path.join(app, 'app.mts'), `import { load, EvaluationError, type GpuDevice, type Program, type Tensorcode } from 'tensorcode';
const tc: Tensorcode = await load({ wasmURL: 'tensorcode_core.wasm' });
const p: Program = tc.compile('def f(a):\\n    return a + 1\\n', { inputs: { a: tc.int32(0, 9) } });
const out: Record<string, number> = p.run({ a: 1 });
const batch = p.runBatch({ a: [1, 2] });
const failed: Uint8Array = batch.failed;
const grads: Record<string, number> = p.gradients({ a: 1 });
export async function onGpu(device: GpuDevice): Promise<boolean> {
  return (await p.runWgsl(device, [{ a: 1 }], { atol: 0, rtol: 0 })).ok;
}
export const seen = [out, failed, grads, EvaluationError];
`);
const tsc = path.join(pkgDir, 'node_modules', 'typescript', 'bin', 'tsc');
for (const resolution of ['nodenext', 'bundler']) {
  const config = {
    compilerOptions: {
      strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022', lib: ['ES2022'], types: [],
      module: resolution === 'nodenext' ? 'nodenext' : 'esnext', moduleResolution: resolution,
    },
    files: ['app.mts'],
  };
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(config));
  const r = spawnSync(process.execPath, [tsc, '-p', app], { cwd: app, encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc (moduleResolution ${resolution}): ${r.stdout}${r.stderr}`);
}
const kb = (n) => `${(n / 1e3).toFixed(0)} kB`;
console.log(`npm pack: ${packed.filename}, ${packed.files.length} files, ${kb(packed.size)} packed, ${kb(packed.unpackedSize)} unpacked; ` +
  'installed offline: ESM and CommonJS run, tsc --strict (nodenext, bundler) accepts the types');
fs.rmSync(work, { recursive: true, force: true });
