// The package's test runner (npm test): node's test runner over test/.
//
//   node scripts/test.mjs                 every group whose real parts are present
//   node scripts/test.mjs --only GROUP    one group: core, python, webgpu, browser,
//                                         browser-webgpu; exit 77 (ctest's SKIPPED)
//                                         when its real part is absent
//
// Groups beyond core need: python, the Python package in $TC_PYTHON_DIR
// (build/python); webgpu, Dawn's adapter from the npm `webgpu` package;
// browser, a chromium binary; browser-webgpu, a chromium binary that offers a
// WebGPU adapter (test/browser_webgpu.mjs, run directly: it exits 77 itself
// when the page finds no adapter). Under ctest each group is its own test
// (TC_TS_CORE_ONLY=1 keeps npm test to the core group there).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prerequisites } from '../test/env.mjs';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const groupOf = (f) => (f.startsWith('python_') ? 'python' : f.startsWith('webgpu_') ? 'webgpu' : f.startsWith('browser_') ? 'browser' : 'core');
const files = fs.readdirSync(path.join(here, 'test')).filter((f) => f.endsWith('.test.mjs')).sort();

// Scripts that are not node:test files: their exit status is the result (77: skipped).
const scripts = { 'browser-webgpu': 'test/browser_webgpu.mjs' };
let groups = only ? [only] : process.env.TC_TS_CORE_ONLY === '1' ? ['core'] : ['core', 'python', 'webgpu', 'browser', 'browser-webgpu'];
const selected = [];
const scriptGroups = [];
for (const g of groups) {
  const why = await prerequisites(g === 'browser-webgpu' ? 'browser' : g);
  if (why) {
    console.log(`${g}: skipped: ${why}`);
    if (only) process.exit(77);
    continue;
  }
  if (scripts[g]) scriptGroups.push(g);
  else selected.push(...files.filter((f) => groupOf(f) === g).map((f) => path.join('test', f)));
}
// Dawn's OpenGL ES backend needs a surfaceless EGL platform without a display.
const env = { EGL_PLATFORM: 'surfaceless', MESA_SHADER_CACHE_DISABLE: 'true', ...process.env };
if (only && scripts[only] && scriptGroups.length) {
  const r = spawnSync(process.execPath, [scripts[only]], { cwd: here, stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}
if (selected.length === 0 && scriptGroups.length === 0) {
  console.log('skipped: no test group can run here');
  process.exit(77);
}
let status = 0;
if (selected.length) {
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...selected], { cwd: here, stdio: 'inherit', env });
  status = r.status ?? 1;
}
for (const g of scriptGroups) {
  const r = spawnSync(process.execPath, [scripts[g]], { cwd: here, stdio: 'inherit', env });
  if (r.status === 77) console.log(`${g}: skipped (see above)`);
  else if (r.status !== 0) status = status || (r.status ?? 1);
}
process.exit(status);
