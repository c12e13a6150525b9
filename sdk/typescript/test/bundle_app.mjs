// The package as a web developer's bundler sees it: bundles test/bundle_app/
// with BUNDLER (esbuild, vite or webpack, from the package's own npm ci),
// opens the bundled page in headless Chromium, and compares what the page
// computed (compile, run, runBatch, gradients, an error, dispatch and
// replay) with the CLI on the same source and events.
//
//   node test/bundle_app.mjs esbuild|vite|webpack
//
// Exit 0 when everything agrees, 1 on a difference or failure, 77 (ctest's
// SKIPPED) when Chromium, the CLI or the built package is missing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pageReportFrom } from './browser_helpers.mjs';
import { chromiumPath, cli, cliPath, pkgDir, tmpDir } from './env.mjs';

const bundler = process.argv[2];
const skip = (why) => { console.log(`skipped: ${why}`); process.exit(77); };
if (!['esbuild', 'vite', 'webpack'].includes(bundler)) {
  console.error('usage: node test/bundle_app.mjs esbuild|vite|webpack');
  process.exit(2);
}
if (!chromiumPath()) skip('no chromium binary (apt-get install chromium)');
if (!fs.existsSync(cliPath)) skip(`the tensorcode CLI is not built (${cliPath})`);
if (!fs.existsSync(path.join(pkgDir, 'dist', 'browser', 'browser.js'))) skip('the package is not built (npm run build)');

// The app in a folder of its own that depends on the package, as an app would
// after `npm install tensorcode` (a link to this package folder).
const work = tmpDir(`tc-bundle-${bundler}-`);
const app = path.join(work, 'app');
const out = path.join(work, 'out');
fs.cpSync(path.join(pkgDir, 'test', 'bundle_app'), app, { recursive: true });
fs.mkdirSync(path.join(app, 'node_modules'));
fs.symlinkSync(pkgDir, path.join(app, 'node_modules', 'tensorcode'), 'dir');

const t0 = performance.now();
if (bundler === 'esbuild') {
  const esbuild = await import('esbuild');
  // esbuild leaves new URL(..., import.meta.url) alone: the app imports the .wasm as a file instead.
  await esbuild.build({
    absWorkingDir: app, entryPoints: ['app_wasm_url.js'], bundle: true, format: 'esm', platform: 'browser',
    outdir: out, loader: { '.wasm': 'file' }, logLevel: 'warning',
  });
  fs.writeFileSync(path.join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="app_wasm_url.js"></script>\n');
} else if (bundler === 'vite') {
  const { build } = await import('vite');
  await build({ root: app, base: './', logLevel: 'warn', configFile: false, build: { outDir: out, emptyOutDir: true } });
} else {
  const { default: webpack } = await import('webpack');
  const stats = await new Promise((resolve, reject) => webpack({
    mode: 'production', context: app, entry: './app.js', target: 'web', devtool: false,
    output: { path: out, filename: 'app.js', publicPath: 'auto' }, performance: { hints: false },
  }).run((err, s) => (err ? reject(err) : resolve(s))));
  if (stats.hasErrors()) throw new Error(`webpack: ${stats.toString({ all: false, errors: true })}`);
  fs.writeFileSync(path.join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><script src="app.js"></script>\n');
}
const bundleSeconds = (performance.now() - t0) / 1e3;
// The bundler emitted the engine as a file of its own (never inlined into the JavaScript).
const files = fs.readdirSync(out, { recursive: true }).map(String);
const wasm = files.filter((f) => f.endsWith('.wasm'));
assert.equal(wasm.length, 1, `${bundler}: expected one .wasm in the output, got ${JSON.stringify(files)}`);
const jsBytes = files.filter((f) => f.endsWith('.js')).reduce((n, f) => n + fs.statSync(path.join(out, f)).size, 0);

const report = await pageReportFrom(out, 'index.html');
assert.equal(report.failure, undefined, report.failure);
assert.equal(report.done, true);
assert.equal(report.nodeBuiltins, false, 'the page saw Node');

// The CLI on the same source: the artifact byte for byte, then outputs and gradients bit for bit.
const { SOURCE, INPUTS, EVENTS } = await import(path.join(pkgDir, 'test', 'bundle_app', 'main.js'));
const src = path.join(work, 'f.py');
fs.writeFileSync(src, SOURCE);
const artifact = path.join(work, 'f.json');
cli(['compile', src, ...Object.entries(INPUTS).flatMap(([k, d]) => ['--input', `${k}=${d}`]), '-o', artifact]);
assert.equal(report.artifact, fs.readFileSync(artifact, 'utf8'), 'artifact differs from the CLI\'s');
const casesFile = path.join(work, 'cases.jsonl');
fs.writeFileSync(casesFile, report.cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
const native = cli(['run', artifact, '--cases', casesFile]).trim().split('\n').map((l) => JSON.parse(l));
// The page's report comes back through JSON.stringify, which writes -0 as
// 0, while the CLI writes -0.0: the CLI's value goes through the same
// stringify, so equal numbers are equal bits here.
report.cases.forEach((c, i) => {
  for (const [name, cliValue] of Object.entries(native[i])) {
    const v = JSON.parse(JSON.stringify(cliValue));
    assert.equal(report.run[i][name], v, `case ${i} ${name}: CLI ${v}, page run ${report.run[i][name]}`);
    assert.equal(report.batch[name][i], v, `case ${i} ${name}: CLI ${v}, page runBatch ${report.batch[name][i]}`);
  }
});
report.grads.forEach((mine, i) => {
  const sets = Object.entries(report.cases[i]).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  assert.deepEqual(mine, JSON.parse(cli(['grad', artifact, ...sets])), `gradients of case ${i}`);
});
fs.writeFileSync(casesFile, '{"x": 5, "y": 0}\n');
const refused = JSON.parse(cli(['run', artifact, '--cases', casesFile]).trim());
assert.equal(report.error.name, 'EvaluationError');
assert.equal(report.error.kind, 'evaluation');
assert.equal(report.error.detail, refused.error);

// Events: the page's dispatch and replay against `tensorcode replay`.
const counterFile = path.join(work, 'counter.json');
fs.writeFileSync(counterFile, report.counter.artifact);
const eventsFile = path.join(work, 'events.jsonl');
fs.writeFileSync(eventsFile, EVENTS.map((e) => JSON.stringify(e)).join('\n') + '\n');
const lines = cli(['replay', counterFile, '--events', eventsFile]).trim().split('\n').map((l) => JSON.parse(l));
assert.equal(lines.length, EVENTS.length);
report.counter.dispatched.forEach((d, k) => assert.deepEqual(d, { outputs: lines[k].outputs, state: lines[k].state }, `event ${k}`));
assert.deepEqual(report.counter.replay, lines.slice(2), 'replay records');
assert.deepEqual(report.counter.state, lines.at(-1).state);
assert.equal(report.counter.steps, lines.at(-1).step);

console.log(`${bundler}: bundled in ${bundleSeconds.toFixed(1)} s (${(jsBytes / 1e3).toFixed(0)} kB of JavaScript, ${wasm[0]} separate); ` +
  `in Chromium ${report.cases.length} cases, ${report.grads.length} gradients and ${EVENTS.length} events agree with the CLI`);
fs.rmSync(work, { recursive: true, force: true });
