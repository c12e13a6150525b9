// 100,000 compile/run/dispose cycles leave the WebAssembly heap flat: the
// allocator's bytes in use and the heap's size (heapStats(), the module's own
// mallinfo) are the same after the loop as after a short warm-up. A module
// of its own, so nothing else allocates meanwhile; no yield to the event
// loop inside, so the garbage collector's finalizers cannot help: dispose()
// alone has to free everything.
//
//   node test/memory_cycles.mjs [CYCLES]     (default 100000)
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pkgDir } from './env.mjs';

const cycles = Number(process.argv[2] ?? 100000);
const tcModule = createRequire(import.meta.url)(path.join(pkgDir, 'dist', 'cjs', 'index.js'));
const core = await tcModule.coreModule();
const tc = await tcModule.load({ factory: async () => core });
const source = 'def f(a, b):\n    return a * b + 1 if a > b else b - a\n';
const inputs = { a: 'float64:-4:4', b: 'float64:-4:4' };
const cycle = (k) => {
  const p = tc.compile(source, { inputs });
  const x = (k % 17) / 4 - 2;
  p.run({ a: x, b: 0.5 });
  p.gradients({ a: x, b: 0.5 });
  p.runBatch({ a: [x, 1, -1], b: [0, 2, 3] });
  const rt = new tc.Runtime(p);
  rt.dispatch({ a: x, b: 1 });
  rt.dispose();
  p.dispose();
};
for (let k = 0; k < 1000; ++k) cycle(k);  // warm-up: the engine's one-time caches
const before = core.heapStats();
const t0 = performance.now();
for (let k = 0; k < cycles; ++k) cycle(k);
const seconds = (performance.now() - t0) / 1e3;
const after = core.heapStats();
console.log(`${cycles} compile/run/gradients/runBatch/Runtime/dispose cycles in ${seconds.toFixed(1)} s: ` +
  `heap in use ${before.used} -> ${after.used} bytes, heap size ${before.size} -> ${after.size} bytes`);
assert.equal(after.used, before.used, 'bytes stay allocated after dispose()');
assert.equal(after.size, before.size, 'the heap grew');
