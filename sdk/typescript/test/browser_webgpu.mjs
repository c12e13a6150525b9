// The WebGPU half of the example page, run directly (not by node --test) so
// it can report SKIPPED: exit 77 when Chromium offers no WebGPU adapter, 0
// when the page's shader agrees with the CPU on every case, 1 otherwise.
//
// usage: node test/browser_webgpu.mjs   (scripts/test.mjs --only browser-webgpu)
import assert from 'node:assert/strict';
import { pageReport } from './browser_helpers.mjs';

try {
  const report = await pageReport();
  assert.equal(report.failure, undefined, report.failure);
  assert.equal(report.done, true);
  if (report.webgpu === 'unavailable') {
    console.log('skipped: headless Chromium offers no WebGPU adapter (navigator.gpu or requestAdapter() missing)');
    process.exit(77);
  }
  assert.deepEqual(report.webgpu, { ok: true, cases: 256, mismatches: 0 }, JSON.stringify(report.webgpu));
  console.log(`page WebGPU: ${report.webgpu.cases} cases, all equal to the CPU`);
  process.exit(0);
} catch (e) {
  console.log(`FAIL: ${e?.stack ?? e}`);
  process.exit(1);
}
