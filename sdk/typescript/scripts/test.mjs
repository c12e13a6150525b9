// The package's test runner (npm test): node's test runner over test/.
//
//   node scripts/test.mjs                 every group whose real parts are present
//   node scripts/test.mjs --only GROUP    one group: core, python, webgpu, browser;
//                                         exit 77 (ctest's SKIPPED) when its real
//                                         part is absent
//
// Groups beyond core need: python, the Python package in $TC_PYTHON_DIR
// (build/python); webgpu, Dawn's adapter from the npm `webgpu` package;
// browser, a chromium binary. Under ctest each group is its own test
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

let groups = only ? [only] : process.env.TC_TS_CORE_ONLY === '1' ? ['core'] : ['core', 'python', 'webgpu', 'browser'];
const selected = [];
for (const g of groups) {
  const why = await prerequisites(g);
  if (why) {
    console.log(`${g}: skipped: ${why}`);
    if (only) process.exit(77);
    continue;
  }
  selected.push(...files.filter((f) => groupOf(f) === g).map((f) => path.join('test', f)));
}
if (selected.length === 0) {
  console.log('skipped: no test group can run here');
  process.exit(77);
}
// Dawn's OpenGL ES backend needs a surfaceless EGL platform without a display.
const env = { EGL_PLATFORM: 'surfaceless', MESA_SHADER_CACHE_DISABLE: 'true', ...process.env };
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...selected], { cwd: here, stdio: 'inherit', env });
process.exit(r.status ?? 1);
