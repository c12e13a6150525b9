// The example page (example/index.html) in headless Chromium: the engine
// loads from a <script>, the ES-module API runs the artifact on the CPU and
// through the emitted WebAssembly. Its WebGPU half is browser_webgpu.mjs,
// a ctest entry of its own (ts.browser_webgpu), SKIPPED without an adapter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageReport } from './browser_helpers.mjs';

test('the example page runs the artifact and its WebAssembly', async () => {
  const report = await pageReport();
  assert.equal(report.failure, undefined, report.failure);
  assert.deepEqual(report.cpu, [{ result: 10 }, { result: 12 }]);
  assert.equal(report.error.name, 'EvaluationError');
  assert.match(report.error.message, /input 'a': 500 is above the maximum 127/);
  assert.equal(report.wasmAgrees, true);
  assert.ok(report.wgslBytes > 100);
  assert.equal(report.done, true);
  console.log('page: cpu and WebAssembly agree');
});
