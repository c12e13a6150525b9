// Program, Runtime and Builder: the typed face of the engine's handles.
// Everything here is synchronous; load() (index.ts) is the only await.
import type {
  Analysis, CoreArg, CoreBuilder, CoreHostFunction, CoreModule, CoreProgram, CoreRuntime, NumberMap, ProgramInfo,
  StepOutcome, Values,
} from './core.js';
import { type DomainLike, domainText } from './domains.js';
import { BuildError, EvaluationError, TensorcodeError, errorFromCore, unwrap } from './errors.js';
import { type WasmRun, runWasmBytes } from './wasm.js';
import { type Tolerances, type WgslReport, runWgsl } from './webgpu.js';

// Native handles are freed when their JavaScript owner is collected, or at
// once by dispose().
const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry<{ delete(): void }>((h) => h.delete())
  : undefined;

function own<T extends { delete(): void }>(owner: object, handle: T): T {
  registry?.register(owner, handle, owner);
  return handle;
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

/** Runs a native call; a host function's own exception becomes the error's cause. */
function hosted<T>(state: HostState | undefined, f: () => T): T {
  if (state) state.last = undefined;
  try {
    return f();
  } catch (e) {
    if (state?.last !== undefined && e instanceof TensorcodeError) (e as Error & { cause?: unknown }).cause = state.last;
    throw e;
  }
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

export interface BatchResult {
  /** One column per output, one entry per case (unspecified where the case failed). */
  outputs: Record<string, Float64Array>;
  /** 1 where the case failed. */
  failed: Uint8Array;
  errors: { index: number; error: EvaluationError }[];
}

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

export class Program {
  /** @internal */ readonly core: CoreModule;
  /** @internal */ readonly handle: CoreProgram;
  /** @internal */ host?: HostState;
  private infoCache?: ProgramInfo;
  private inputNames?: string[];
  private outputNames?: string[];

  /** @internal Use tc.compile, tc.Program.fromJSON or a Builder. */
  constructor(core: CoreModule, handle: CoreProgram) {
    this.core = core;
    this.handle = own(this, handle);
  }

  /** @internal */
  static fromJSONWith(core: CoreModule, text: string): Program {
    if (typeof text !== 'string') text = JSON.stringify(text);
    const h = new core.CoreProgram();
    const r = h.load(text);
    if (r.error) {
      h.delete();
      throw errorFromCore(r.error);
    }
    return new Program(core, h);
  }

  /** Names, domains and values of the program's inputs, parameters, states and outputs. */
  get info(): ProgramInfo {
    return (this.infoCache ??= this.handle.info());
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
    const h = new this.core.CoreProgram();
    h.bindFrom(this.handle, wrapBindings(bindings, host));
    const p = new Program(this.core, h);
    p.host = host;
    return p;
  }

  /** The artifact (JSON text, canonical field order). */
  toJSON(): string {
    return this.handle.toJSON();
  }

  /** One checked evaluation: {result: 10}. Throws EvaluationError. */
  run(inputs: Values, options: RunOptions = {}): NumberMap {
    if (!options.params && !options.state) {
      // Fast path: exactly the program's inputs, all numbers, in node order.
      const names = (this.inputNames ??= this.inputs);
      const keys = Object.keys(inputs);
      if (keys.length === names.length) {
        const values = new Float64Array(names.length);
        let plain = true;
        for (let k = 0; k < names.length && plain; ++k) {
          const v = inputs[names[k]];
          if (typeof v === 'number' && Number.isFinite(v)) values[k] = v;
          else plain = false;
        }
        if (plain) {
          const r = hosted(this.host, () => {
            const got = this.handle.runValues(values);
            if (!(got instanceof Float64Array)) throw errorFromCore(got.error);
            return got;
          });
          const outputs: NumberMap = {};
          const outNames = (this.outputNames ??= this.outputs);
          for (let k = 0; k < outNames.length; ++k) outputs[outNames[k]] = r[k];
          return outputs;
        }
      }
    }
    // Everything else (and every error about names or values) through the engine's own checks.
    return hosted(this.host, () => unwrap(this.handle.run(inputs, options.params, options.state)).outputs);
  }

  /** One evaluation of a stateful program: [outputs, next state]. */
  step(inputs: Values, state?: Values, options: { params?: Values } = {}): [NumberMap, NumberMap] {
    const r = hosted(this.host, () => unwrap(this.handle.run(inputs, options.params, state)));
    return [r.outputs, r.nextState];
  }

  /**
   * Many cases at once: either an array of {name: value} objects or columns
   * {name: array} of equal length. Failing cases are reported, not thrown.
   */
  runBatch(cases: Values[] | Record<string, ArrayLike<number>>, options: RunOptions & { dtype?: 'float64' | 'float32' } = {}): BatchResult {
    const names = this.inputs;
    let count: number;
    let data: Float64Array;
    if (Array.isArray(cases)) {
      count = cases.length;
      data = new Float64Array(names.length * count);
      names.forEach((name, k) => {
        for (let c = 0; c < count; ++c) {
          const v = cases[c][name];
          if (v === undefined) throw new EvaluationError({ kind: 'evaluation', message: `case ${c}: missing input '${name}'`, detail: `case ${c}: missing input '${name}'` });
          data[k * count + c] = Number(v);
        }
      });
    } else {
      count = names.length ? (cases[names[0]]?.length ?? 0) : 0;
      data = new Float64Array(names.length * count);
      names.forEach((name, k) => {
        const col = cases[name];
        if (!col || col.length !== count) {
          const msg = `column '${name}' is missing or not ${count} long`;
          throw new EvaluationError({ kind: 'evaluation', message: msg, detail: msg });
        }
        data.set(col, k * count);
      });
    }
    const r = hosted(this.host, () => unwrap(this.handle.runBatch(data, count, options.params, options.state, options.dtype)));
    const outputs: Record<string, Float64Array> = {};
    this.outputs.forEach((name, k) => { outputs[name] = r.outputs[k]; });
    return { outputs, failed: r.failed, errors: r.errors.map((e) => ({ index: e.index, error: errorFromCore(e.error) as EvaluationError })) };
  }

  /** d(output)/d(x) for every differentiable input and parameter: {x: 0, weight: 5}. */
  gradients(inputs: Values, options: GradientOptions = {}): NumberMap {
    return this.valueAndGradients(inputs, options).gradients;
  }

  /** The output's value and its gradients, as `tensorcode grad` prints them. */
  valueAndGradients(inputs: Values, options: GradientOptions = {}): { result: number; gradients: NumberMap } {
    const { params, state, ...rest } = options;
    return hosted(this.host, () => unwrap(this.handle.gradients(inputs, params, state, rest)));
  }

  /** Checked constant folding, dead-code removal and affine packing: a new Program. */
  optimize(options: { fold?: boolean; pack?: boolean; sparse?: boolean } = {}): Program {
    const out = new this.core.CoreProgram();
    const r = this.handle.optimizeInto(out, options);
    if (r.error) {
      out.delete();
      throw errorFromCore(r.error);
    }
    return new Program(this.core, out);
  }

  /** Parameters turned into constants (all of them without names): a new Program. */
  freeze(names?: string[]): Program {
    const out = new this.core.CoreProgram();
    const r = this.handle.freezeInto(out, names);
    if (r.error) {
      out.delete();
      throw errorFromCore(r.error);
    }
    return new Program(this.core, out);
  }

  /** Dependency layers of node ids: leaves in layer 0. */
  schedule(): number[][] {
    return unwrap(this.handle.schedule());
  }

  /** Interval of every node and warnings about operations that may fail. */
  analyze(options: { params?: Values; freeParameters?: boolean } = {}): Analysis {
    return unwrap(this.handle.analyze(options));
  }

  /** A WebAssembly module running the program over a batch in float32 (see runWasm). */
  emitWasm(): Uint8Array {
    return unwrap(this.handle.emitWasm());
  }

  /** The float32 compute shader and how to bind its buffers. */
  emitWgsl(): WgslModule {
    const code = unwrap(this.handle.emitWgsl());
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
  async runWgsl(device: GPUDevice, cases: Values[], tolerances: Tolerances): Promise<WgslReport> {
    return runWgsl(this, device, cases, tolerances);
  }

  /** Frees the native program now instead of at garbage collection. */
  dispose(): void {
    registry?.unregister(this);
    this.handle.delete();
  }
}

export interface RuntimeOptions {
  /** Events the runtime may commit in its whole life (default 1,000,000). */
  maxSteps?: number;
}

export interface ReplayResult {
  committed: number;
  failure?: { index: number; error: EvaluationError };
}

/** Event-state runtime: dispatch commits an event only when every check passed. */
export class Runtime {
  /** @internal */ readonly core: CoreModule;
  /** @internal */ readonly handle: CoreRuntime;
  private host?: HostState;

  /** A runtime at the program's initial state; a bound program's host functions come along. */
  constructor(program: Program, options: RuntimeOptions = {}) {
    this.core = program.core;
    this.host = program.host;
    const h = new this.core.CoreRuntime();
    const r = h.create(program.handle, options.maxSteps ?? 1_000_000);
    if (r.error) {
      h.delete();
      throw errorFromCore(r.error);
    }
    this.handle = own(this, h);
  }

  /** @internal */
  static restoreWith(core: CoreModule, snapshot: string | object, bindings?: Bindings): Runtime {
    const text = typeof snapshot === 'string' ? snapshot : JSON.stringify(snapshot);
    const host: HostState = {};
    const h = new core.CoreRuntime();
    const r = h.restore(text, bindings ? wrapBindings(bindings, host) : undefined);
    if (r.error) {
      h.delete();
      throw errorFromCore(r.error);
    }
    const rt = Object.create(Runtime.prototype) as Runtime;
    (rt as { core: CoreModule }).core = core;
    (rt as { handle: CoreRuntime }).handle = own(rt, h);
    rt.host = host;
    return rt;
  }

  /** Evaluates one event against the committed state and commits it. */
  dispatch(inputs: Values): StepOutcome {
    return hosted(this.host, () => unwrap(this.handle.dispatch(inputs)));
  }

  /** Evaluates one event without committing (state: default the committed one). */
  step(inputs: Values, state?: Values): StepOutcome {
    return hosted(this.host, () => unwrap(this.handle.step(inputs, state)));
  }

  /** Dispatches events in order, stopping at the first that fails. */
  replay(events: Values[]): ReplayResult {
    const r = hosted(this.host, () => unwrap(this.handle.replay(events)));
    return r.failure ? { committed: r.committed, failure: { index: r.failure.index, error: errorFromCore(r.failure.error) as EvaluationError } } : { committed: r.committed };
  }

  /** The snapshot JSON text (program, state, steps, budget). */
  snapshot(): string {
    return this.handle.snapshot();
  }

  get state(): NumberMap {
    return this.handle.state();
  }
  get steps(): number {
    return this.handle.steps();
  }
  get maxSteps(): number {
    return this.handle.maxSteps();
  }
  get program(): Program {
    const out = new this.core.CoreProgram();
    this.handle.programInto(out);
    return new Program(this.core, out);
  }

  dispose(): void {
    registry?.unregister(this);
    this.handle.delete();
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
  private readonly b: CoreBuilder;
  private error?: string;

  /** @internal Use new tc.Builder(options). */
  constructor(core: CoreModule, options: BuilderOptions = {}) {
    this.core = core;
    const b = new core.CoreBuilder();
    const r = b.init(options);
    if (r.error) {
      b.delete();
      throw errorFromCore(r.error);
    }
    this.b = own(this, b);
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
    return this.v(this.b.input(name, domainText(domain), options.differentiable));
  }
  parameter(name: string, value: number): Value { return this.v(this.b.parameter(name, value)); }
  constant(value: number): Value { return this.v(this.b.constant(value)); }
  state(name: string, initial: number, domain: DomainLike): Value { return this.v(this.b.state(name, initial, domainText(domain))); }
  update(state: Value, next: Arg): void { this.b.update(this.arg(state), this.arg(next)); }
  select(condition: Arg, yes: Arg, no: Arg): Value { return this.v(this.b.select(this.arg(condition), this.arg(yes), this.arg(no))); }
  /** Any op of the engine's table by name ("add", "lt", "mod", "relu", ...). */
  op(name: string, ...args: Arg[]): Value { return this.v(this.b.op(name, this.args(args))); }

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
  floordiv(a: Arg, b: Arg): Value { return this.op('floordiv', a, b); }
  mod(a: Arg, b: Arg): Value { return this.op('mod', a, b); }

  /** values[index]; the index must be an integer in range at run time. */
  gather(values: Arg[], index: Arg): Value { return this.v(this.b.gather(this.args(values), this.arg(index))); }
  /** n selector wires eq(index, k), k = 0..n-1. */
  oneHot(index: Arg, n: number): Value[] { return this.b.oneHot(this.arg(index), n).map((id) => this.v(id)); }
  /** The value whose selector is 1 (checked: exactly one). */
  gatherOneHot(selectors: Arg[], values: Arg[]): Value { return this.v(this.b.gatherOneHot(this.args(selectors), this.args(values))); }
  affine(xs: Arg[], coefficients: number[], bias?: number): Value { return this.v(this.b.affine(this.args(xs), coefficients, bias)); }
  sparseAffine(xs: Arg[], indices: number[], coefficients: number[], bias?: number): Value {
    return this.v(this.b.sparseAffine(this.args(xs), indices, coefficients, bias));
  }
  /** A host call bound by name at run time (not serialized). */
  call(name: string, ...args: Arg[]): Value { return this.v(this.b.call(name, this.args(args))); }
  /** Copies `program` in with its inputs wired; returns its outputs by name. */
  include(program: Program, inputs: Record<string, Arg>, prefix = 'region'): Record<string, Value> {
    const wired: Record<string, CoreArg> = {};
    for (const [k, a] of Object.entries(inputs)) wired[k] = this.arg(a);
    const out: Record<string, Value> = {};
    for (const [k, id] of Object.entries(this.b.include(program.handle, wired, prefix))) out[k] = this.v(id);
    return out;
  }
  /** carry = body(carry, item) for each item, expanded into the circuit. */
  scan(body: (carry: Value, item: Value) => Arg, init: Arg, sequence: Arg[]): Value {
    let thrown: unknown;
    const id = this.b.scan((carry, item) => {
      if (thrown !== undefined) return 0;
      try {
        return this.arg(body(this.v(carry), this.v(item)));
      } catch (e) {
        thrown = e;  // rethrown below: an exception must not unwind through the engine
        return 0;
      }
    }, this.arg(init), this.args(sequence));
    if (thrown !== undefined) throw thrown;
    return this.v(id);
  }
  /** Parameters to turn into constants at build() (all without names). */
  freeze(names?: string[]): void { this.b.freeze(names); }

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
    const out = new this.core.CoreProgram();
    const r = this.b.buildInto(out, spec);
    if (r.error) {
      out.delete();
      throw errorFromCore(r.error);
    }
    return new Program(this.core, out);
  }
}

export { TensorcodeError };
