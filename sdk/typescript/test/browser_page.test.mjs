// The example page (example/index.html) in headless Chromium: the engine
// loads from a <script>, the ES-module API runs the artifact on the CPU and
// through the emitted WebAssembly, and WebGPU is used where the browser has it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { chromiumPath, pkgDir, tmpDir } from './env.mjs';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.mjs': 'text/javascript' };

// Serves the package folder and resolves `report` with the JSON the page POSTs.
function serve() {
  let deliver;
  const report = new Promise((resolve) => { deliver = resolve; });
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/report') {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => { res.end(); deliver(JSON.parse(body)); });
      return;
    }
    const file = path.join(pkgDir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(pkgDir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, report })));
}

// Headless Chromium with WebGPU allowed (SwiftShader when there is no GPU);
// it stays open until the page has reported.
function openPage(url) {
  const args = ['--headless', '--no-sandbox', '--disable-dev-shm-usage', `--user-data-dir=${tmpDir('tc-chromium-')}`,
    '--enable-unsafe-webgpu', url];
  const p = spawn(chromiumPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  const exited = new Promise((resolve) => p.on('close', (code) => resolve(code)));
  return { close: () => { p.kill('SIGKILL'); return exited; }, exited: exited.then((code) => { throw new Error(`chromium exited (${code}) before the page reported: ${err}`); }), };
}

test('the example page runs the artifact, its WebAssembly and (if present) WebGPU', async () => {
  const { server, report: reported } = await serve();
  const page = openPage(`http://127.0.0.1:${server.address().port}/example/index.html?report`);
  try {
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the page did not report within 120 s')), 120000).unref());
    const report = await Promise.race([reported, page.exited, timeout]);
    assert.equal(report.failure, undefined, report.failure);
    assert.deepEqual(report.cpu, [{ result: 10 }, { result: 12 }]);
    assert.equal(report.error.name, 'EvaluationError');
    assert.match(report.error.message, /input 'a': 500 is above the maximum 127/);
    assert.equal(report.wasmAgrees, true);
    assert.ok(report.wgslBytes > 100);
    if (report.webgpu !== 'unavailable') assert.equal(report.webgpu.ok, true, JSON.stringify(report.webgpu));
    console.log(`page: cpu and WebAssembly agree; WebGPU: ${JSON.stringify(report.webgpu)}`);
    assert.equal(report.done, true);
  } finally {
    await page.close();
    server.close();
  }
});
