// The example page: everything the package does in a browser, reported in
// #log. With ?report in the address (the headless test) the results are
// also POSTed as JSON to /report on the serving host.
import { load } from '../dist/browser/browser.js';

const log = document.getElementById('log');
const report = {};
const say = (line) => { log.textContent += `\n${line}`; };

try {
  const tc = await load();  // streams ../dist/tensorcode_core.wasm (beside the loader)
  log.textContent = 'engine loaded';
  const program = tc.Program.fromJSON(await (await fetch('choose.json')).text());
  report.cpu = [5, 4].map((a) => program.run({ a }));
  say(`cpu: run({a: 5}) = ${JSON.stringify(report.cpu[0])}, run({a: 4}) = ${JSON.stringify(report.cpu[1])}`);
  try {
    program.run({ a: 500 });
  } catch (e) {
    report.error = { name: e.name, message: e.message };
    say(`cpu: run({a: 500}) throws ${e.name}: ${e.message}`);
  }

  const cases = Array.from({ length: 256 }, (_, i) => ({ a: i - 128 }));
  const wasm = await program.runWasm(cases);
  const cpu = program.runBatch(cases, { dtype: 'float32' });
  report.wasmAgrees = wasm.results.every((r, i) => r.result === cpu.outputs.result[i]);
  say(`emitted WebAssembly: ${cases.length} cases, ${report.wasmAgrees ? 'all equal to' : 'DIFFERENT from'} the CPU`);

  const wgsl = program.emitWgsl();
  report.wgslBytes = wgsl.code.length;
  say(`emitted WGSL: ${wgsl.code.length} characters, bindings ${wgsl.bindings.map((b) => b.name).join(', ')}`);
  // Some headless browsers expose navigator.gpu but never answer: give up after 10 s.
  const timeout = new Promise((resolve) => setTimeout(() => resolve(null), 10000));
  const adapter = navigator.gpu ? await Promise.race([navigator.gpu.requestAdapter(), timeout]) : null;
  if (!adapter) {
    report.webgpu = 'unavailable';
    say('WebGPU: not available in this browser (navigator.gpu or an adapter is missing)');
  } else {
    const device = await adapter.requestDevice();
    const r = await program.runWgsl(device, cases, { atol: 0, rtol: 0 });
    report.webgpu = { ok: r.ok, cases: r.cases, mismatches: r.mismatches.length };
    say(`WebGPU: ${r.cases} cases, ${r.ok ? 'all agree with' : `${r.mismatches.length} differ from`} the CPU`);
  }

  document.getElementById('run').onclick = () => {
    const a = Number(document.getElementById('a').value);
    try { say(`run({a: ${a}}) = ${JSON.stringify(program.run({ a }))}`); } catch (e) { say(`${e.name}: ${e.message}`); }
  };
  report.done = true;
} catch (e) {
  report.failure = String(e && e.stack || e);
  say(`failed: ${report.failure}`);
}
if (new URLSearchParams(location.search).has('report')) fetch('/report', { method: 'POST', body: JSON.stringify(report) });
