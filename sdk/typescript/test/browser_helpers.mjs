// Pages in headless Chromium: the example page (example/index.html), shared
// by browser_page.test.mjs (CPU and WebAssembly) and browser_webgpu.mjs (its
// WebGPU half, a ctest entry of its own that is SKIPPED without an adapter),
// and the bundled apps of bundle_app.mjs (pageReportFrom).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromiumPath, pkgDir, tmpDir } from './env.mjs';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

// Serves `root` and resolves `report` with the JSON the page POSTs.
function serve(root) {
  let deliver;
  const report = new Promise((resolve) => { deliver = resolve; });
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/report') {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => { res.end(); deliver(JSON.parse(body)); });
      return;
    }
    const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
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
// Its profile and its own temporary files (TMPDIR: the singleton socket
// folder it cannot remove when killed) live in one folder removed at exit.
function openPage(url) {
  const profile = tmpDir('tc-chromium-');
  const ownTmp = path.join(profile, 'tmp');
  fs.mkdirSync(ownTmp);
  const args = ['--headless', '--no-sandbox', '--disable-dev-shm-usage', `--user-data-dir=${profile}`,
    '--enable-unsafe-webgpu', url];
  const p = spawn(chromiumPath(), args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: ownTmp } });
  let err = '';
  p.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  const exited = new Promise((resolve) => p.on('close', (code) => resolve(code)));
  return { close: () => { p.kill('SIGKILL'); return exited; }, exited: exited.then((code) => { throw new Error(`chromium exited (${code}) before the page reported: ${err}`); }), };
}

/** Opens the example page and resolves to the JSON it reports (120 s at most). */
export function pageReport() {
  return pageReportFrom(pkgDir, 'example/index.html');
}

/** Serves `root`, opens `page` (a path under it) and resolves to the JSON the page reports. */
export async function pageReportFrom(root, pagePath) {
  const { server, report: reported } = await serve(path.resolve(root));
  const page = openPage(`http://127.0.0.1:${server.address().port}/${pagePath}?report`);
  try {
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the page did not report within 120 s')), 120000).unref());
    return await Promise.race([reported, page.exited, timeout]);
  } finally {
    await page.close();
    server.close();
  }
}
