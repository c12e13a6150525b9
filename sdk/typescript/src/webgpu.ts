// Runs Program.emitWgsl()'s shader on a WebGPU device (navigator.gpu in a
// page, Dawn through the npm `webgpu` package in Node) and checks every
// case against the CPU evaluator in float32 with the caller's tolerances.
import type { Values } from './core.js';

export interface WgslBinding {
  binding: number;
  name: 'params' | 'inputs' | 'outputs' | 'errors';
  type: 'read-only-storage' | 'storage';
  element: 'u32' | 'f32';
  /** What the buffer holds; N is the case count, c a case. */
  layout: string;
}

export interface WgslModule {
  code: string;
  entryPoint: 'main';
  workgroupSize: number;
  /** Group 0; every binding is a storage buffer of 4-byte elements. */
  bindings: WgslBinding[];
  /** Input names in column order (inputs[k * N + c] is input k of case c). */
  inputs: string[];
  /** Output names in column order. */
  outputs: string[];
}

/**
 * What runWgsl needs of a program (a Program is one): its shader and its
 * checked float32 batch run. Written structurally so that this module does
 * not import program.ts, which imports it.
 */
export interface WgslProgram {
  emitWgsl(): WgslModule;
  runBatch(
    cases: Values[],
    options: { dtype: 'float32' },
  ): { outputs: Record<string, Float64Array>; failed: Uint8Array; errors: { index: number; error: Error }[] };
}

// WebGPU's flag values (the spec's constants), so that no global
// GPUBufferUsage object is needed in Node.
const STORAGE = 0x80, COPY_SRC = 0x04, COPY_DST = 0x08, MAP_READ = 0x01, COMPUTE = 0x4, READ = 0x1;

/**
 * The part of a WebGPU device runWgsl uses, written out so the package's
 * types need neither @webgpu/types nor the DOM's: a GPUDevice from a page
 * (navigator.gpu) or from Dawn (the npm `webgpu` package) fits it.
 */
export interface GpuDevice {
  readonly queue: {
    writeBuffer(buffer: GpuBuffer, offset: number, data: ArrayBufferView): void;
    submit(commandBuffers: unknown[]): void;
  };
  pushErrorScope(filter: 'validation'): void;
  popErrorScope(): Promise<{ readonly message: string } | null>;
  createShaderModule(descriptor: { code: string }): unknown;
  createBindGroupLayout(descriptor: {
    entries: { binding: number; visibility: number; buffer: { type: 'read-only-storage' | 'storage' } }[];
  }): unknown;
  createPipelineLayout(descriptor: { bindGroupLayouts: unknown[] }): unknown;
  createComputePipeline(descriptor: { layout: unknown; compute: { module: unknown; entryPoint: string } }): unknown;
  createBuffer(descriptor: { size: number; usage: number }): GpuBuffer;
  createBindGroup(descriptor: { layout: unknown; entries: { binding: number; resource: { buffer: GpuBuffer } }[] }): unknown;
  createCommandEncoder(): {
    beginComputePass(): {
      setPipeline(pipeline: unknown): void;
      setBindGroup(index: number, group: unknown): void;
      dispatchWorkgroups(x: number): void;
      end(): void;
    };
    copyBufferToBuffer(source: GpuBuffer, sourceOffset: number, destination: GpuBuffer, destinationOffset: number, size: number): void;
    finish(): unknown;
  };
}

/** The part of a GPUBuffer runWgsl uses. */
export interface GpuBuffer {
  mapAsync(mode: number): Promise<unknown>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}

export interface Tolerances {
  /** Allowed absolute difference. */
  atol: number;
  /** Allowed difference relative to the CPU value's magnitude. */
  rtol: number;
}

export interface WgslMismatch {
  case: number;
  output?: string;
  gpu: number | { error: number };
  cpu: number | { error: string };
}

export interface WgslReport {
  cases: number;
  /** True when every case agrees: both fail, or every output within atol + rtol * |cpu|. */
  ok: boolean;
  /** Cases where both the GPU and the CPU reported an error. */
  failingOnBoth: number;
  maxAbsDiff: number;
  mismatches: WgslMismatch[];
  /** Per case, what the GPU computed. */
  gpu: ({ [name: string]: number } | { error: number })[];
}

export async function runWgsl(program: WgslProgram, device: GpuDevice, cases: Values[], tol: Tolerances): Promise<WgslReport> {
  if (!tol || !Number.isFinite(tol.atol) || !Number.isFinite(tol.rtol) || tol.atol < 0 || tol.rtol < 0)
    throw new TypeError('runWgsl needs explicit tolerances {atol, rtol}: finite and not negative');
  const shader = program.emitWgsl();
  const n = cases.length;
  const nIn = shader.inputs.length, nOut = shader.outputs.length;
  const data = new Float32Array(Math.max(1, nIn * n));
  shader.inputs.forEach((name, k) => cases.forEach((row, c) => { data[k * n + c] = Number(row[name]); }));

  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: shader.code });
  const layout = device.createBindGroupLayout({
    entries: shader.bindings.map((b) => ({ binding: b.binding, visibility: COMPUTE, buffer: { type: b.type } })),
  });
  const pipeline = device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
    compute: { module, entryPoint: shader.entryPoint },
  });
  const storage = (bytes: number) => device.createBuffer({ size: Math.max(16, bytes), usage: STORAGE | COPY_SRC | COPY_DST });
  const params = storage(16), inBuf = storage(4 * nIn * n), outBuf = storage(4 * nOut * n), errBuf = storage(4 * n);
  device.queue.writeBuffer(params, 0, new Uint32Array([n, 0, 0, 0]));
  device.queue.writeBuffer(inBuf, 0, data);
  const bind = device.createBindGroup({
    layout,
    entries: [params, inBuf, outBuf, errBuf].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const readOut = device.createBuffer({ size: Math.max(16, 4 * nOut * n), usage: MAP_READ | COPY_DST });
  const readErr = device.createBuffer({ size: Math.max(16, 4 * n), usage: MAP_READ | COPY_DST });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(Math.ceil(n / shader.workgroupSize));
  pass.end();
  enc.copyBufferToBuffer(outBuf, 0, readOut, 0, Math.max(16, 4 * nOut * n));
  enc.copyBufferToBuffer(errBuf, 0, readErr, 0, Math.max(16, 4 * n));
  device.queue.submit([enc.finish()]);
  const invalid = await device.popErrorScope();
  if (invalid) throw new Error(`the WebGPU device rejected the shader: ${invalid.message}`);
  await Promise.all([readOut.mapAsync(READ), readErr.mapAsync(READ)]);
  const out = new Float32Array(readOut.getMappedRange().slice(0));
  const err = new Uint32Array(readErr.getMappedRange().slice(0));
  readOut.unmap();
  readErr.unmap();
  for (const b of [params, inBuf, outBuf, errBuf, readOut, readErr]) b.destroy();

  // The CPU reference: the same float32 inputs through the checked evaluator in float32.
  const rounded = cases.map((row) => Object.fromEntries(shader.inputs.map((name) => [name, Math.fround(Number(row[name]))])));
  const cpu = program.runBatch(rounded, { dtype: 'float32' });
  const cpuErrors = new Map(cpu.errors.map((e) => [e.index, e.error.message]));
  const report: WgslReport = { cases: n, ok: true, failingOnBoth: 0, maxAbsDiff: 0, mismatches: [], gpu: [] };
  for (let c = 0; c < n; ++c) {
    const gpuFailed = err[c] !== 0, cpuFailed = cpu.failed[c] === 1;
    if (gpuFailed) report.gpu.push({ error: err[c] });
    else report.gpu.push(Object.fromEntries(shader.outputs.map((name, k) => [name, out[k * n + c]])));
    if (gpuFailed || cpuFailed) {
      if (gpuFailed && cpuFailed) report.failingOnBoth++;
      else report.mismatches.push({ case: c, gpu: gpuFailed ? { error: err[c] } : NaN, cpu: cpuFailed ? { error: cpuErrors.get(c) ?? 'error' } : NaN });
      continue;
    }
    shader.outputs.forEach((name, k) => {
      const g = out[k * n + c], e = cpu.outputs[name][c];
      const d = Math.abs(g - e);
      report.maxAbsDiff = Math.max(report.maxAbsDiff, d);
      if (!(d <= tol.atol + tol.rtol * Math.abs(e))) report.mismatches.push({ case: c, output: name, gpu: g, cpu: e });
    });
  }
  report.ok = report.mismatches.length === 0;
  return report;
}
