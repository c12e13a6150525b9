// Program, Runtime and Builder: the typed face of the engine's handles.
// Everything here is synchronous; load() (index.ts) is the only await.
import type {
  Analysis, CoreArg, CoreBuilder, CoreHostFunction, CoreModule, CoreProgram, CoreRuntime, NumberMap, PlanStatus, ProgramInfo,
  ReplayRecord, Values,
} from './core.js';
import { type DomainLike, domainText } from './domains.js';
import {
  ArgumentError, BuildError, DisposedError, EvaluationError, TensorcodeError, errorFromCore, fromNative, makeError, unwrap,
} from './errors.js';
import { type WasmRun, runWasmBytes } from './wasm.js';
import { type GpuDevice, type Tolerances, type WgslModule, type WgslReport, runWgsl } from './webgpu.js';

/**
 * An artifact given as an object, as JSON text. JSON.stringify throws a bare
 * TypeError for an object that refers to itself and a RangeError (the stack)
 * for one nested too deeply: both are an ArtifactError, as the same shape
 * given as text is, and so is a value with no JSON text (undefined, a function).
 */
function artifactText(value: unknown): string {
  let text: unknown;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    const why = e instanceof TypeError && /circular/i.test(e.message)
      ? 'it refers to itself (a cycle), which JSON cannot hold'
      : e instanceof RangeError
        ? 'it is nested too deeply'
        : `JSON.stringify failed: ${e instanceof Error ? e.message : String(e)}`;
    throw makeError('artifact', `the artifact object cannot be read as a program: ${why}`);
  }
  if (typeof text !== 'string')
    throw makeError('artifact', `the artifact must be JSON text or an object, not ${value === null ? 'null' : typeof value}`);
  return text;
}

/**
 * One native handle and its lifetime. Every call into the engine goes
 * through call(), which counts the calls in flight: dispose() during a call
 * (a host function or a scan body disposing the object the engine is using)
 * only marks the handle, and the outermost call frees it when it returns, so
 * the engine never runs on freed memory. Any use after dispose() throws
 * DisposedError. C++ exceptions the bindings report by throwing become
 * TensorcodeErrors here (fromNative).
 *
 * Handles are also freed when their JavaScript owner is garbage-collected
 * (FinalizationRegistry), but a collector only runs once the program yields
 * to the event loop: a synchronous loop that makes Programs without
 * dispose() keeps every one of them in the WebAssembly heap until then.
 */
class Native<H extends { delete(): void }> {
  private busy = 0;
  private state: 'live' | 'disposing' | 'disposed' = 'live';
  constructor(private readonly what: string, private readonly h: H) {}

  /** The handle as an argument of another object's call (no JavaScript runs meanwhile). */
  get handle(): H {
    if (this.state !== 'live') throw this.disposedError();
    return this.h;
  }

  call<T>(f: (h: H) => T, host?: HostState): T {
    if (this.state !== 'live') throw this.disposedError();
    if (host) host.last = undefined;
    ++this.busy;
    try {
      return f(this.h);
    } catch (e) {
      const err = fromNative(e);
      // A host function's own exception becomes the error's cause.
      if (host?.last !== undefined && err instanceof TensorcodeError) (err as Error & { cause?: unknown }).cause = host.last;
      throw err;
    } finally {
      if (--this.busy === 0 && (this.state as string) === 'disposing') this.free();
    }
  }

  get disposed(): boolean {
    return this.state !== 'live';
  }

  /** Whether one of this handle's calls is running (a host function calling back in). */
  get inCall(): boolean {
    return this.busy > 0;
  }

  dispose(): void {
    if (this.state !== 'live') return;
    if (this.busy > 0) this.state = 'disposing';
    else this.free();
  }

  /** The FinalizationRegistry's callback (the owner is gone, so nothing is in flight). */
  finalize(): void {
    if (this.state !== 'disposed') this.free();
  }

  private free(): void {
    this.state = 'disposed';
    this.h.delete();
  }

  private disposedError(): TensorcodeError {
    return makeError('disposed', `this ${this.what} was disposed (dispose() frees its native object; it cannot be used afterwards)`);
  }
}

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry<Native<{ delete(): void }>>((n) => n.finalize())
  : undefined;

function own<H extends { delete(): void }>(owner: object, what: string, handle: H): Native<H> {
  const n = new Native(what, handle);
  registry?.register(owner, n as Native<{ delete(): void }>, owner);
  return n;
}

/** Frees a handle now; what a native call made and a failure left unused. */
function discard(h: { delete(): void }): void {
  h.delete();
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** A JavaScript value as run() takes it (a finite number or a boolean), or the message run() refuses it with. */
function numberOf(v: unknown, what: string, name: string): number | string {
  if (typeof v === 'number') return Number.isFinite(v) ? v : `${what} '${name}' must be a finite number`;
  if (typeof v === 'boolean') return v ? 1 : 0;
  // As the bindings spell JavaScript's typeof.
  return `${what} '${name}' must be a number, got ${v === null ? 'object' : typeof v}`;
}

function allFinite(col: Float64Array): boolean {
  // x - x is 0 for every finite x and NaN for infinities and NaN.
  for (let c = 0; c < col.length; ++c) if (col[c] - col[c] !== 0) return false;
  return true;
}

function argumentError(message: string): ArgumentError {
  return makeError('argument', message) as ArgumentError;
}

/** An integer from lo to hi, or ArgumentError naming `what`. */
function integerArg(v: unknown, what: string, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
    throw argumentError(`${what} must be an integer from ${lo} to ${hi}, got ${typeof v === 'number' ? String(v) : typeName(v)}`);
  return v;
}

function numberList(v: unknown, what: string): number[] {
  if (!Array.isArray(v)) throw argumentError(`${what} must be an array of numbers, got ${typeName(v)}`);
  v.forEach((x, k) => {
    if (typeof x !== 'number') throw argumentError(`${what}[${k}] must be a number, got ${typeName(x)}`);
  });
  return v as number[];
}

/**
 * A host function for `call` nodes of that name: forward(args) returns the
 * value; vjp(args, result) returns one partial derivative per argument
 * (without vjp, differentiating through the call is an error). Never
 * written into artifacts or snapshots.
 */
export interface HostFunction {
  forward: (args: number[]) => number;
  vjp?: ((args: number[], result: number) => number[]) | null;
}
export type Bindings = Record<string, HostFunction>;

/** Wraps host functions so no JavaScript exception unwinds through the engine. */
interface HostState { last?: unknown }
function wrapBindings(bindings: Bindings, state: HostState): Record<string, CoreHostFunction> {
  const out: Record<string, CoreHostFunction> = {};
  const fail = (e: unknown) => {
    state.last = e;
    return { error: e instanceof Error ? e.message : String(e) };
  };
  for (const [name, h] of Object.entries(bindings)) {
    if (!h || typeof h.forward !== 'function') throw new TypeError(`binding '${name}' needs a forward function`);
    const { forward, vjp } = h;
    out[name] = {
      forward: (args) => { try { return forward(args); } catch (e) { return fail(e); } },
      ...(vjp ? { vjp: (args: number[], result: number) => { try { return vjp(args, result); } catch (e) { return fail(e); } } } : {}),
    };
  }
  return out;
}


export interface CompileOptions {
  /** One domain per function parameter: {a: 'int32:-128:127'} or {a: tc.int32(-128, 127)}. */
  inputs?: Record<string, DomainLike>;
  /** The function to compile when the source defines several. */
  function?: string;
  dtype?: 'float64' | 'float32';
  semantics?: 'exact' | 'relaxed' | 'hybrid';
  surrogate?: 'sigmoid';
  temperature?: number;
  maxIterations?: number;
  maxNodes?: number;
  /** Shown in error locations (default "<source>"). */
  filename?: string;
  /** Take missing domains from `# tensorcode: input a=...` lines of the source. */
  useInputDirectives?: boolean;
}

export interface RunOptions {
  /** Parameter values replacing the stored ones. */
  params?: Values;
  /** State values (default: each state's initial value). */
  state?: Values;
}

export interface GradientOptions extends RunOptions {
  /** Output to differentiate (default "result", else the first output). */
  output?: string;
  /** Replaces the program's root semantics for this call. */
  semantics?: 'exact' | 'relaxed' | 'hybrid';
  temperature?: number;
}

export interface BatchOptions extends RunOptions {
  dtype?: 'float64' | 'float32';
  /** 'list' (default): failing cases are listed in the result; 'raise': the first throws EvaluationError with `case`. */
  errors?: 'list' | 'raise';
}

export interface BatchResult {
  /** One column per output, one entry per case (unspecified where the case failed). */
  outputs: Record<string, Float64Array>;
  /** 1 where the case failed. */
  failed: Uint8Array;
  errors: { index: number; error: EvaluationError }[];
}

// The WGSL module's shape lives beside its runner (webgpu.ts), which must
// not import this file: program.ts imports webgpu.ts for runWgsl.
export type { WgslBinding, WgslModule } from './webgpu.js';

export class Program {
  /** @internal */ readonly core: CoreModule;
  /** @internal */ readonly native: Native<CoreProgram>;
  /** @internal */ host?: HostState;
  private infoCache?: ProgramInfo;
  private inputNames?: string[];
  private outputNames?: string[];
  private fastAddress?: number;
  private readonly gradientNames = new Map<string, string[]>();

  /** @internal Use tc.compile, tc.Program.fromJSON or a Builder. */
  constructor(core: CoreModule, handle: CoreProgram) {
    this.core = core;
    this.native = own(this, 'Program', handle);
  }

  /** @internal The native program as an argument of another call; throws DisposedError after dispose(). */
  get handle(): CoreProgram {
    return this.native.handle;
  }

  /** @internal A new native program filled by `fill` (which reports {error} or throws), as a Program. */
  static make(core: CoreModule, fill: (out: CoreProgram) => { error?: import('./errors.js').CoreError } | void): Program {
    const out = new core.CoreProgram();
    let r;
    try {
      r = fill(out);
    } catch (e) {
      discard(out);
      throw fromNative(e);
    }
    if (r && r.error) {
      discard(out);
      throw errorFromCore(r.error);
    }
    return new Program(core, out);
  }

  /** @internal */
  static fromJSONWith(core: CoreModule, text: string): Program {
    if (typeof text !== 'string') text = artifactText(text);
    return Program.make(core, (h) => h.load(text));
  }

  /** Names, domains and values of the program's inputs, parameters, states and outputs. */
  get info(): ProgramInfo {
    return (this.infoCache ??= this.native.call((h) => h.info()));
  }
  get inputs(): string[] {
    return this.info.inputs.map((i) => i.name);
  }
  get outputs(): string[] {
    return this.info.outputs;
  }

  /** This program with host functions for its `call` nodes: a new Program. */
  bind(bindings: Bindings): Program {
    const host: HostState = {};
    const wrapped = wrapBindings(bindings, host);
    const p = Program.make(this.core, (out) => this.native.call((h) => out.bindFrom(h, wrapped)));
    p.host = host;
    return p;
  }

  /** The artifact (JSON text, canonical field order). */
  toJSON(): string {
    return this.native.call((h) => h.toJSON());
  }

  /**
   * The address of the engine's value buffer when `inputs` can take the fast
   * path (exactly the program's inputs, finite numbers, and not from inside
   * one of this program's own calls, such as a host function calling back,
   * while the engine is using that buffer); else 0.
   */
  private fastInputs(inputs: Values): number {
    const names = (this.inputNames ??= this.inputs);
    if (this.native.inCall || typeof inputs !== 'object' || inputs === null || Object.keys(inputs).length !== names.length) return 0;
    for (let k = 0; k < names.length; ++k) {
      const v = inputs[names[k]];
      if (typeof v !== 'number' || !Number.isFinite(v)) return 0;
    }
    return (this.fastAddress ??= this.native.call((h) => h.fastAddress()));
  }

  /** One checked evaluation: {result: 10}. Throws EvaluationError. */
  run(inputs: Values, options: RunOptions = {}): NumberMap {
    const address = !options.params && !options.state ? this.fastInputs(inputs) : 0;
    if (address !== 0) {
      // The values go into the engine's buffer (heap[address / 8 + k]) and the outputs come back there:
      // no JavaScript object crosses into the module. Inside call(): nothing is written to a disposed program.
      const core = this.core, names = this.inputNames!, base = address / 8;
      const outNames = (this.outputNames ??= this.outputs);
      return this.native.call((h) => {
        let heap = core.HEAPF64;
        for (let k = 0; k < names.length; ++k) heap[base + k] = inputs[names[k]] as number;
        if (h.runFast() !== 0) throw errorFromCore(h.fastError().error);
        heap = core.HEAPF64;  // the run may have grown the memory
        const outputs: NumberMap = {};
        for (let k = 0; k < outNames.length; ++k) outputs[outNames[k]] = heap[base + k];
        return outputs;
      }, this.host);
    }
    // Everything else (and every error about names or values) through the engine's own checks.
    return this.native.call((h) => unwrap(h.run(inputs, options.params, options.state)).outputs, this.host);
  }

  /** One evaluation of a stateful program: [outputs, next state]. */
  step(inputs: Values, state?: Values, options: { params?: Values } = {}): [NumberMap, NumberMap] {
    const r = this.native.call((h) => unwrap(h.run(inputs, options.params, state)), this.host);
    return [r.outputs, r.nextState];
  }

  /**
   * Many cases at once: either an array of {name: value} objects or columns
   * {name: array} of equal length. Failing cases are listed in the result
   * (errors: 'list', the default), or the first one throws EvaluationError
   * with `case` set (errors: 'raise', what Python's run_batch does).
   */
  runBatch(cases: Values[] | Record<string, ArrayLike<number>>, options: BatchOptions = {}): BatchResult {
    if (options.errors !== undefined && options.errors !== 'list' && options.errors !== 'raise')
      throw argumentError(`runBatch: errors must be 'list' or 'raise', got ${typeof options.errors === 'string' ? `'${options.errors}'` : typeName(options.errors)}`);
    // Every value is checked as run() checks it: a finite number or a
    // boolean, under a known input name; anything else throws what run()
    // throws for it, with the case (or column) in front.
    const names = this.inputs;
    const known = new Set(names);
    const refuse = (message: string): never => { throw new EvaluationError({ kind: 'evaluation', message, detail: message }); };
    let count: number;
    let data: Float64Array[];  // one column per input, in input order
    if (Array.isArray(cases)) {
      count = cases.length;
      data = names.map(() => new Float64Array(count));
      const index = new Map(names.map((n, k) => [n, k]));
      for (let c = 0; c < count; ++c) {
        const row = cases[c] as unknown;
        if (row === undefined || row === null) {
          if (names.length) refuse(`case ${c}: missing input '${names[0]}'`);
          continue;
        }
        if (typeof row !== 'object') refuse(`case ${c}: input must be an object of numbers`);
        const keys = Object.keys(row as object);
        for (const key of keys) {
          const v = numberOf((row as Record<string, unknown>)[key], 'input', key);
          if (typeof v === 'string') refuse(`case ${c}: ${v}`);
          const k = index.get(key);
          if (k === undefined) refuse(`case ${c}: unknown input '${key}'`);
          data[k!][c] = v as number;
        }
        if (keys.length !== names.length)
          for (const name of names) if (!Object.prototype.hasOwnProperty.call(row, name)) refuse(`case ${c}: missing input '${name}'`);
      }
    } else {
      if (typeof cases !== 'object' || cases === null) refuse(`runBatch takes an array of cases or an object of columns, got ${typeName(cases)}`);
      for (const key of Object.keys(cases)) if (!known.has(key)) refuse(`unknown input '${key}' (a column that is not an input)`);
      count = names.length ? (cases[names[0]]?.length ?? 0) : 0;
      data = names.map((name) => {
        const col = cases[name];
        if (!col || col.length !== count) refuse(`column '${name}' is missing or not ${count} long`);
        // A Float64Array holds numbers only: once all are finite it goes to
        // the engine as it is, copied there once (checking and copying one
        // value at a time into a new array took about 2 ns of the 6-node
        // program's 10 ns per case); otherwise the loop below names the
        // failing case.
        if (col instanceof Float64Array && allFinite(col)) return col;
        const copy = new Float64Array(count);
        for (let c = 0; c < count; ++c) {
          const v = numberOf(col[c], 'input', name);
          if (typeof v === 'string') refuse(`case ${c}: ${v}`);
          copy[c] = v as number;
        }
        return copy;
      });
    }
    const r = this.native.call((h) => unwrap(h.runBatch(data, count, options.params, options.state, options.dtype)), this.host);
    const outputs: Record<string, Float64Array> = {};
    this.outputs.forEach((name, k) => { outputs[name] = r.outputs[k]; });
    if (options.errors === 'raise' && r.errors.length) {
      const first = r.errors.reduce((a, b) => (b.index < a.index ? b : a));
      const prefix = `case ${first.index}: `;
      const err = errorFromCore({ ...first.error, message: prefix + first.error.message, detail: prefix + first.error.detail }) as EvaluationError;
      err.case = first.index;
      throw err;
    }
    return { outputs, failed: r.failed, errors: r.errors.map((e) => ({ index: e.index, error: errorFromCore(e.error) as EvaluationError })) };
  }

  /** d(output)/d(x) for every differentiable input and parameter: {x: 0, weight: 5}. */
  gradients(inputs: Values, options: GradientOptions = {}): NumberMap {
    return this.valueAndGradients(inputs, options).gradients;
  }

  /** The output's value and its gradients, as `tensorcode grad` prints them. */
  valueAndGradients(inputs: Values, options: GradientOptions = {}): { result: number; gradients: NumberMap } {
    const { params, state, ...rest } = options;
    const keys = Object.keys(rest);
    const output = rest.output;
    const address = !params && !state && (keys.length === 0 || (keys.length === 1 && typeof output === 'string')) ? this.fastInputs(inputs) : 0;
    if (address !== 0) {
      // As run(): the inputs through the engine's buffer, [value, gradients...] back from another.
      const core = this.core, names = this.inputNames!, base = address / 8;
      return this.native.call((h) => {
        let heap = core.HEAPF64;
        for (let k = 0; k < names.length; ++k) heap[base + k] = inputs[names[k]] as number;
        const at = h.gradientsFast(output ?? '');
        if (at === 0) throw errorFromCore(h.fastError().error);
        const key = output ?? '';
        let leaves = this.gradientNames.get(key);
        if (!leaves) this.gradientNames.set(key, (leaves = h.fastGradientNames()));
        heap = core.HEAPF64;
        const g = at / 8;
        const gradients: NumberMap = {};
        for (let k = 0; k < leaves.length; ++k) gradients[leaves[k]] = heap[g + 1 + k];
        return { result: heap[g], gradients };
      }, this.host);
    }
    return this.native.call((h) => unwrap(h.gradients(inputs, params, state, rest)), this.host);
  }

  /** Checked constant folding, dead-code removal and affine packing: a new Program. */
  optimize(options: { fold?: boolean; pack?: boolean; sparse?: boolean } = {}): Program {
    return Program.make(this.core, (out) => this.native.call((h) => h.optimizeInto(out, options)));
  }

  /** Parameters turned into constants (all of them without names): a new Program. */
  freeze(names?: string[]): Program {
    return Program.make(this.core, (out) => this.native.call((h) => h.freezeInto(out, names)));
  }

  /**
   * Which tier evaluates this program: the package runs core's interpreter
   * compiled to WebAssembly, which cannot build the native compiled plan, so
   * `compiled` is false and `summary` says why (the same words as Python's
   * `Program.plan_status()` and the CLI's `run --plan-status`).
   */
  planStatus(): PlanStatus {
    return this.native.call((h) => unwrap(h.planStatus()));
  }

  /** Dependency layers of node ids: leaves in layer 0. */
  schedule(): number[][] {
    return this.native.call((h) => unwrap(h.schedule()));
  }

  /** Interval of every node and warnings about operations that may fail. */
  analyze(options: { params?: Values; freeParameters?: boolean } = {}): Analysis {
    return this.native.call((h) => unwrap(h.analyze(options)));
  }

  /** A WebAssembly module running the program over a batch in float32 (see runWasm). */
  emitWasm(): Uint8Array {
    return this.native.call((h) => unwrap(h.emitWasm()));
  }

  /**
   * The program as an ONNX model (`emit --target onnx`, opset 17): each input
   * a 1-D tensor over the batch, parameters as named initializers, the
   * outputs by name plus `failed` and `error_node`, computed in the graph
   * from the CPU evaluator's checks (docs/backends.md). Python: `to_onnx()`.
   */
  emitOnnx(): Uint8Array {
    return this.native.call((h) => unwrap(h.emitOnnx()));
  }

  /**
   * The program as C99 (`emit --target c`): `name` prefixes every exported
   * symbol; with `headerFile` the source includes that header, without it
   * the source stands alone. Compile with -ffp-contract=off. Python: `to_c()`.
   */
  emitC(name = 'tc_program', options: { headerFile?: string } = {}): { source: string; header: string } {
    if (typeof name !== 'string') throw makeError('argument', `name must be a string, got ${typeof name}`);
    const headerFile = options.headerFile ?? '';
    if (typeof headerFile !== 'string') throw makeError('argument', `headerFile must be a string, got ${typeof headerFile}`);
    return this.native.call((h) => unwrap(h.emitC(name, headerFile)));
  }

  /** The float32 compute shader and how to bind its buffers. */
  emitWgsl(): WgslModule {
    const code = this.native.call((h) => unwrap(h.emitWgsl()));
    return {
      code,
      entryPoint: 'main',
      workgroupSize: 64,
      bindings: [
        { binding: 0, name: 'params', type: 'read-only-storage', element: 'u32', layout: '[0] = N' },
        { binding: 1, name: 'inputs', type: 'read-only-storage', element: 'f32', layout: 'inputs[k * N + c] = input k of case c' },
        { binding: 2, name: 'outputs', type: 'storage', element: 'f32', layout: 'outputs[k * N + c] = output k of case c' },
        { binding: 3, name: 'errors', type: 'storage', element: 'u32', layout: 'errors[c] = 0, or (node << 3) | kind' },
      ],
      inputs: this.inputs,
      outputs: this.outputs,
    };
  }

  /** Runs emitWasm()'s module on the cases (WebAssembly in this engine). */
  async runWasm(cases: Values[]): Promise<WasmRun> {
    return runWasmBytes(this.emitWasm(), this.inputs, this.outputs, cases);
  }

  /**
   * Runs emitWgsl()'s shader on a WebGPU device and checks each case against
   * the CPU (float32) within the given tolerances: |gpu - cpu| <= atol + rtol * |cpu|.
   */
  async runWgsl(device: GpuDevice, cases: Values[], tolerances: Tolerances): Promise<WgslReport> {
    return runWgsl(this, device, cases, tolerances);
  }

  /**
   * Frees the native program now instead of at garbage collection. Called
   * while one of this program's calls runs (from a host function), it takes
   * effect when that call returns. Any later use throws DisposedError.
   */
  dispose(): void {
    registry?.unregister(this);
    this.native.dispose();
  }

  /** Whether dispose() was called. */
  get disposed(): boolean {
    return this.native.disposed;
  }
}

export interface RuntimeOptions {
  /** Events the runtime may commit in its whole life (default 1,000,000). */
  maxSteps?: number;
}

/** Event-state runtime: dispatch commits an event only when every check passed. */
export class Runtime {
  /** @internal */ readonly core: CoreModule;
  /** @internal */ readonly native: Native<CoreRuntime>;
  private host?: HostState;

  /** A runtime at the program's initial state; a bound program's host functions come along. */
  constructor(program: Program, options: RuntimeOptions = {}) {
    this.core = program.core;
    this.host = program.host;
    const h = new this.core.CoreRuntime();
    let r;
    try {
      r = h.create(program.handle, options.maxSteps ?? 1_000_000);
    } catch (e) {
      discard(h);
      throw fromNative(e);
    }
    if (r.error) {
      discard(h);
      throw errorFromCore(r.error);
    }
    this.native = own(this, 'Runtime', h);
  }

  /** @internal */
  static restoreWith(core: CoreModule, snapshot: string | object, bindings?: Bindings): Runtime {
    const text = typeof snapshot === 'string' ? snapshot : JSON.stringify(snapshot);
    const host: HostState = {};
    const h = new core.CoreRuntime();
    let r;
    try {
      r = h.restore(text, bindings ? wrapBindings(bindings, host) : undefined);
    } catch (e) {
      discard(h);
      throw fromNative(e);
    }
    if (r.error) {
      discard(h);
      throw errorFromCore(r.error);
    }
    const rt = Object.create(Runtime.prototype) as Runtime;
    (rt as { core: CoreModule }).core = core;
    (rt as { native: Native<CoreRuntime> }).native = own(rt, 'Runtime', h);
    rt.host = host;
    return rt;
  }

  /** Evaluates one event against the committed state and commits it: the event's outputs (as Python's dispatch). */
  dispatch(inputs: Values): NumberMap {
    return this.native.call((h) => unwrap(h.dispatch(inputs)), this.host).outputs;
  }

  /** Evaluates one event without committing (state: default the committed one): [outputs, next state]. */
  step(inputs: Values, state?: Values): [NumberMap, NumberMap] {
    const r = this.native.call((h) => unwrap(h.step(inputs, state)), this.host);
    return [r.outputs, r.state];
  }

  /**
   * Dispatches events in order: one {step, outputs, state} per event, as
   * Python's Runtime.replay. The first event that fails throws
   * EvaluationError ("event N: ...") with `event` (its index) and `records`
   * (the events committed before it, which stay committed).
   */
  replay(events: Values[]): ReplayRecord[] {
    if (!Array.isArray(events)) throw argumentError(`replay takes an array of events, got ${typeName(events)}`);
    const r = this.native.call((h) => unwrap(h.replay(events)), this.host);
    if (r.failure) {
      const err = errorFromCore(r.failure.error) as EvaluationError;
      err.event = r.failure.index;
      err.records = r.records;
      throw err;
    }
    return r.records;
  }

  /** The snapshot JSON text (program, state, steps, budget). */
  snapshot(): string {
    return this.native.call((h) => h.snapshot());
  }

  get state(): NumberMap {
    return this.native.call((h) => h.state());
  }
  get steps(): number {
    return this.native.call((h) => h.steps());
  }
  get maxSteps(): number {
    return this.native.call((h) => h.maxSteps());
  }
  get program(): Program {
    return Program.make(this.core, (out) => this.native.call((h) => h.programInto(out)));
  }

  /** Frees the native runtime now; deferred, as Program.dispose(), while one of its calls runs. */
  dispose(): void {
    registry?.unregister(this);
    this.native.dispose();
  }

  /** Whether dispose() was called. */
  get disposed(): boolean {
    return this.native.disposed;
  }
}

/** A node of a Builder under construction. */
export class Value {
  /** @internal */
  constructor(readonly builder: Builder, readonly id: number) {}
}

export type Arg = Value | number | boolean;

export interface BuilderOptions {
  semantics?: 'exact' | 'relaxed' | 'hybrid';
  surrogate?: 'sigmoid';
  temperature?: number;
  dtype?: 'float64' | 'float32';
}

/** Builds a program node by node, with methods instead of operators. */
export class Builder {
  /** @internal */ readonly core: CoreModule;
  private readonly native: Native<CoreBuilder>;
  private error?: string;

  /** @internal Use new tc.Builder(options). */
  constructor(core: CoreModule, options: BuilderOptions = {}) {
    this.core = core;
    const b = new core.CoreBuilder();
    let r;
    try {
      r = b.init(options);
    } catch (e) {
      discard(b);
      throw fromNative(e);
    }
    if (r.error) {
      discard(b);
      throw errorFromCore(r.error);
    }
    this.native = own(this, 'Builder', b);
  }

  /** A call into the native builder (C++ exceptions become TensorcodeErrors). */
  private nat<T>(f: (b: CoreBuilder) => T): T {
    return this.native.call(f);
  }

  private arg(a: Arg): CoreArg {
    if (typeof a === 'number' || typeof a === 'boolean') return a;
    if (a instanceof Value && a.builder === this) return { id: a.id };
    // Reported at build(), like the engine's own misuse errors.
    this.error ??= a instanceof Value ? 'a value from another builder was used' : `an argument is neither a number nor a value (got ${typeof a})`;
    return 0;
  }
  private args(list: Arg[]): CoreArg[] {
    return list.map((a) => this.arg(a));
  }
  private v(id: number): Value {
    return new Value(this, id);
  }

  /** An input with a domain (default float64); floating inputs are differentiable by default. */
  input(name: string, domain: DomainLike = 'float64', options: { differentiable?: boolean } = {}): Value {
    const d = domainText(domain);
    return this.v(this.nat((b) => b.input(name, d, options.differentiable)));
  }
  parameter(name: string, value: number): Value { return this.v(this.nat((b) => b.parameter(name, value))); }
  constant(value: number): Value { return this.v(this.nat((b) => b.constant(value))); }
  state(name: string, initial: number, domain: DomainLike): Value {
    const d = domainText(domain);
    return this.v(this.nat((b) => b.state(name, initial, d)));
  }
  update(state: Value, next: Arg): void {
    const s = this.arg(state), n = this.arg(next);
    this.nat((b) => b.update(s, n));
  }
  select(condition: Arg, yes: Arg, no: Arg): Value {
    const c = this.arg(condition), y = this.arg(yes), n = this.arg(no);
    return this.v(this.nat((b) => b.select(c, y, n)));
  }
  /** Any op of the engine's table by name ("add", "lt", "mod", "relu", ...). */
  op(name: string, ...args: Arg[]): Value {
    const a = this.args(args);
    return this.v(this.nat((b) => b.op(name, a)));
  }

  add(a: Arg, b: Arg): Value { return this.op('add', a, b); }
  sub(a: Arg, b: Arg): Value { return this.op('sub', a, b); }
  mul(a: Arg, b: Arg): Value { return this.op('mul', a, b); }
  div(a: Arg, b: Arg): Value { return this.op('div', a, b); }
  neg(a: Arg): Value { return this.op('neg', a); }
  lt(a: Arg, b: Arg): Value { return this.op('lt', a, b); }
  le(a: Arg, b: Arg): Value { return this.op('le', a, b); }
  gt(a: Arg, b: Arg): Value { return this.op('gt', a, b); }
  ge(a: Arg, b: Arg): Value { return this.op('ge', a, b); }
  eq(a: Arg, b: Arg): Value { return this.op('eq', a, b); }
  ne(a: Arg, b: Arg): Value { return this.op('ne', a, b); }
  relu(a: Arg): Value { return this.op('relu', a); }
  sigmoid(a: Arg): Value { return this.op('sigmoid', a); }
  square(a: Arg): Value { return this.op('square', a); }
  /** The math module's functions (ops.def rows marked kMathModule). */
  sqrt(a: Arg): Value { return this.op('sqrt', a); }
  exp(a: Arg): Value { return this.op('exp', a); }
  expm1(a: Arg): Value { return this.op('expm1', a); }
  log(a: Arg): Value { return this.op('log', a); }
  log2(a: Arg): Value { return this.op('log2', a); }
  log10(a: Arg): Value { return this.op('log10', a); }
  log1p(a: Arg): Value { return this.op('log1p', a); }
  sin(a: Arg): Value { return this.op('sin', a); }
  cos(a: Arg): Value { return this.op('cos', a); }
  tan(a: Arg): Value { return this.op('tan', a); }
  atan(a: Arg): Value { return this.op('atan', a); }
  tanh(a: Arg): Value { return this.op('tanh', a); }
  floordiv(a: Arg, b: Arg): Value { return this.op('floordiv', a, b); }
  mod(a: Arg, b: Arg): Value { return this.op('mod', a, b); }

  /** values[index]; the index must be an integer in range at run time. */
  gather(values: Arg[], index: Arg): Value {
    const vs = this.args(values), i = this.arg(index);
    return this.v(this.nat((b) => b.gather(vs, i)));
  }
  /** n selector wires eq(index, k), k = 0..n-1 (n: an integer from 1 to 2^31 - 1; ArgumentError otherwise). */
  oneHot(index: Arg, n: number): Value[] {
    integerArg(n, 'oneHot: n', 1, INT32_MAX);
    const i = this.arg(index);
    return this.nat((b) => b.oneHot(i, n)).map((id) => this.v(id));
  }
  /** The value whose selector is 1 (checked: exactly one). */
  gatherOneHot(selectors: Arg[], values: Arg[]): Value {
    const s = this.args(selectors), vs = this.args(values);
    return this.v(this.nat((b) => b.gatherOneHot(s, vs)));
  }
  affine(xs: Arg[], coefficients: number[], bias?: number): Value {
    const a = this.args(xs), c = numberList(coefficients, 'affine: coefficients');
    optionalNumber(bias, 'affine: bias');
    return this.v(this.nat((b) => b.affine(a, c, bias)));
  }
  /**
   * sum(coefficients[k] * xs[indices[k]]) + bias. Every index must be an
   * integer the engine can store (int32): anything else (1.9, 2**40, "1")
   * throws ArgumentError here, as Python raises TypeError, instead of being
   * truncated into another circuit. Indices past xs are reported by build().
   */
  sparseAffine(xs: Arg[], indices: number[], coefficients: number[], bias?: number): Value {
    const a = this.args(xs);
    if (!Array.isArray(indices)) throw argumentError(`sparseAffine: indices must be an array of integers, got ${typeName(indices)}`);
    indices.forEach((k, j) => integerArg(k, `sparseAffine: indices[${j}]`, INT32_MIN, INT32_MAX));
    const c = numberList(coefficients, 'sparseAffine: coefficients');
    optionalNumber(bias, 'sparseAffine: bias');
    return this.v(this.nat((b) => b.sparseAffine(a, indices, c, bias)));
  }
  /** A host call bound by name at run time (not serialized). */
  call(name: string, ...args: Arg[]): Value {
    const a = this.args(args);
    return this.v(this.native.call((b) => b.call(name, a)));
  }
  /** Copies `program` in with its inputs wired; returns its outputs by name. */
  include(program: Program, inputs: Record<string, Arg>, prefix = 'region'): Record<string, Value> {
    const wired: Record<string, CoreArg> = {};
    for (const [k, a] of Object.entries(inputs)) wired[k] = this.arg(a);
    const ph = program.handle;
    const out: Record<string, Value> = {};
    for (const [k, id] of Object.entries(this.native.call((b) => b.include(ph, wired, prefix)))) out[k] = this.v(id);
    return out;
  }
  /** carry = body(carry, item) for each item, expanded into the circuit. */
  scan(body: (carry: Value, item: Value) => Arg, init: Arg, sequence: Arg[]): Value {
    let thrown: unknown;
    const i = this.arg(init), seq = this.args(sequence);
    const id = this.native.call((b) => b.scan((carry, item) => {
      if (thrown !== undefined) return 0;
      try {
        return this.arg(body(this.v(carry), this.v(item)));
      } catch (e) {
        thrown = e;  // rethrown below: an exception must not unwind through the engine
        return 0;
      }
    }, i, seq));
    if (thrown !== undefined) throw thrown;
    return this.v(id);
  }
  /** Parameters to turn into constants at build() (all without names). */
  freeze(names?: string[]): void { this.nat((b) => b.freeze(names)); }

  /** Finishes with one output "result", or named outputs {name: value} in order. */
  build(outputs: Arg | Record<string, Arg>): Program {
    let spec: CoreArg | Record<string, CoreArg>;
    if (typeof outputs === 'number' || typeof outputs === 'boolean' || outputs instanceof Value) {
      spec = this.arg(outputs);
    } else {
      spec = {};
      for (const [k, a] of Object.entries(outputs)) spec[k] = this.arg(a);
    }
    if (this.error) throw new BuildError({ kind: 'build', message: this.error, detail: this.error });
    return Program.make(this.core, (out) => this.nat((b) => b.buildInto(out, spec)));
  }

  /** Frees the native builder now (deferred while a scan body runs); Programs it built stay valid. */
  dispose(): void {
    registry?.unregister(this);
    this.native.dispose();
  }
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function optionalNumber(v: unknown, what: string): void {
  if (v !== undefined && typeof v !== 'number') throw argumentError(`${what} must be a number, got ${typeName(v)}`);
}

export { TensorcodeError };
