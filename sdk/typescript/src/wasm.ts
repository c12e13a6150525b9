// Runs a module from Program.emitWasm() (ABI in core/emit/wasm_emitter.h):
// imports env.exp, exports memory, heap_base() and run(inputs, outputs,
// errors, count) over float32 columns.
import type { Values } from './core.js';

export interface WasmRun {
  /** Per case: {name: value} in float32, or {error: code} with code = (node << 3) | kind. */
  results: ({ [name: string]: number } | { error: number })[];
}

interface WasmExports {
  memory: WebAssembly.Memory;
  heap_base(): number;
  run(inputs: number, outputs: number, errors: number, count: number): void;
}

export async function runWasmBytes(bytes: Uint8Array, inputs: string[], outputs: string[], cases: Values[]): Promise<WasmRun> {
  const { instance } = (await WebAssembly.instantiate(bytes as BufferSource, { env: { exp: Math.exp, expm1: Math.expm1, log: Math.log, log2: Math.log2, log10: Math.log10, log1p: Math.log1p, sin: Math.sin, cos: Math.cos, tan: Math.tan, atan: Math.atan, tanh: Math.tanh } })) as WebAssembly.WebAssemblyInstantiatedSource;
  const x = instance.exports as unknown as WasmExports;
  const n = cases.length;
  const inPtr = x.heap_base();
  const outPtr = inPtr + 4 * inputs.length * n;
  const errPtr = outPtr + 4 * outputs.length * n;
  const end = errPtr + 4 * n;
  if (end > x.memory.buffer.byteLength) x.memory.grow(Math.ceil((end - x.memory.buffer.byteLength) / 65536));
  const data = new Float32Array(x.memory.buffer, inPtr, inputs.length * n);
  inputs.forEach((name, k) => cases.forEach((row, c) => { data[k * n + c] = Number(row[name]); }));
  x.run(inPtr, outPtr, errPtr, n);
  const out = new Float32Array(x.memory.buffer, outPtr, outputs.length * n);
  const err = new Uint32Array(x.memory.buffer, errPtr, n);
  const results: WasmRun['results'] = [];
  for (let c = 0; c < n; ++c) {
    if (err[c] !== 0) {
      results.push({ error: err[c] });
      continue;
    }
    const row: Record<string, number> = {};
    outputs.forEach((name, k) => { row[name] = out[k * n + c]; });
    results.push(row);
  }
  return { results };
}
