// The shape of the Emscripten module (native/module.cpp registers it). Internal: the
// public API wraps these handles.
import type { CoreResult } from './errors.js';

export interface DomainInfo {
  type: 'int32' | 'boolean' | 'float32' | 'float64';
  min?: number;
  max?: number;
  /** The command-line spelling, e.g. "int32:-128:127". */
  text: string;
}

export interface ProgramInfo {
  dtype: 'float64' | 'float32';
  semantics: 'exact' | 'relaxed' | 'hybrid';
  surrogate: 'sigmoid';
  temperature: number;
  nodes: number;
  inputs: { name: string; domain?: DomainInfo; differentiable: boolean }[];
  parameters: { name: string; value: number; differentiable: boolean }[];
  states: { name: string; initial: number; domain?: DomainInfo }[];
  outputs: string[];
  hasCalls: boolean;
}

/**
 * Which tier evaluates a program (core's PlanStatus). The WebAssembly build
 * has no C compiler, so it always interprets and `reason` says so.
 */
export interface PlanStatus {
  /** One line: "compiled (avx2)", "interpreting: no C compiler in the WebAssembly build", ... */
  summary: string;
  compiled: boolean;
  compiling: boolean;
  /** Why the program is interpreted; empty when compiled or not tried yet. */
  reason: string;
  /** The compiled code's target, when compiled. */
  isa: string;
  cacheHit: boolean;
  compileSeconds: number;
  compiledCases: number;
  /** Cases the compiled code flagged and handed back to the interpreter. */
  handedBack: number;
}

export type Values = Record<string, number | boolean>;
export type NumberMap = Record<string, number>;

interface Handle {
  delete(): void;
}

export interface CoreProgram extends Handle {
  load(text: string): CoreResult<undefined>;
  compile(source: string, options: object): CoreResult<string[]>;
  toJSON(): string;
  bindFrom(other: CoreProgram, bindings: Record<string, CoreHostFunction>): void;
  hasBindings(): boolean;
  info(): ProgramInfo;
  planStatus(): CoreResult<PlanStatus>;
  run(inputs: Values, params?: Values, state?: Values): CoreResult<{ outputs: NumberMap; nextState: NumberMap }>;
  runValues(values: Float64Array): Float64Array | { error: import('./errors.js').CoreError };
  /** The heap address (bytes) of the fast path's value buffer: inputs in node order in, outputs out. */
  fastAddress(): number;
  /** Runs the values at fastAddress(): 0, or 1 with the error in fastError(). */
  runFast(): number;
  fastError(): { error: import('./errors.js').CoreError };
  /** gradients() of the values at fastAddress(): the address of [value, gradient per leaf], or 0 (error in fastError()). */
  gradientsFast(output: string): number;
  /** The leaves of the last gradientsFast(), in its order. */
  fastGradientNames(): string[];
  /** `columns`: one Float64Array of `count` values per input, in input order. */
  runBatch(columns: Float64Array[], count: number, params?: Values, state?: Values, dtype?: string): CoreResult<{
    outputs: Float64Array[];
    failed: Uint8Array;
    errors: { index: number; error: import('./errors.js').CoreError }[];
  }>;
  gradients(inputs: Values, params: Values | undefined, state: Values | undefined, options: object):
      CoreResult<{ result: number; gradients: NumberMap }>;
  optimizeInto(out: CoreProgram, options: object): CoreResult<{ nodesBefore: number; nodesAfter: number }>;
  freezeInto(out: CoreProgram, names: string[] | undefined): CoreResult<undefined>;
  schedule(): CoreResult<number[][]>;
  analyze(options: object): CoreResult<Analysis>;
  emitWasm(): CoreResult<Uint8Array>;
  emitWgsl(): CoreResult<string>;
  emitOnnx(): CoreResult<Uint8Array>;
  emitC(name: string, headerFile: string): CoreResult<{ source: string; header: string }>;
}

export interface Analysis {
  /** Interval per node; null is an unbounded end. */
  nodes: { id: number; op: string; interval: [number | null, number | null] }[];
  outputs: Record<string, [number | null, number | null]>;
  warnings: { node: number; message: string }[];
}

export interface StepOutcome {
  outputs: NumberMap;
  state: NumberMap;
}

/** One committed event of Runtime.replay(), as Python's Runtime.replay gives it. */
export interface ReplayRecord {
  /** The runtime's step count after this event committed. */
  step: number;
  outputs: NumberMap;
  state: NumberMap;
}

export interface CoreRuntime extends Handle {
  create(program: CoreProgram, maxSteps: number): CoreResult<undefined>;
  restore(text: string, bindings?: Record<string, CoreHostFunction>): CoreResult<undefined>;
  dispatch(inputs: Values): CoreResult<StepOutcome>;
  step(inputs: Values, state: Values | undefined): CoreResult<StepOutcome>;
  replay(events: Values[]): CoreResult<{ records: ReplayRecord[]; failure?: { index: number; error: import('./errors.js').CoreError } }>;
  snapshot(): string;
  state(): NumberMap;
  steps(): number;
  maxSteps(): number;
  programInto(out: CoreProgram): void;
}

/** A host function as the native layer takes it: never throws, reports {error} instead. */
export interface CoreHostFunction {
  forward: (args: number[]) => number | { error: string };
  vjp?: (args: number[], result: number) => number[] | { error: string };
}

/** A Builder argument as the native layer takes it: a number or {id}. */
export type CoreArg = number | boolean | { id: number };

export interface CoreBuilder extends Handle {
  init(options: object): CoreResult<undefined>;
  input(name: string, domain: string, differentiable: boolean | undefined): number;
  parameter(name: string, initial: number): number;
  constant(value: number): number;
  state(name: string, initial: number, domain: string): number;
  update(state: CoreArg, next: CoreArg): void;
  select(c: CoreArg, yes: CoreArg, no: CoreArg): number;
  op(name: string, args: CoreArg[]): number;
  gather(values: CoreArg[], index: CoreArg): number;
  oneHot(index: CoreArg, n: number): number[];
  gatherOneHot(selectors: CoreArg[], values: CoreArg[]): number;
  affine(xs: CoreArg[], coefficients: number[], bias: number | undefined): number;
  sparseAffine(xs: CoreArg[], indices: number[], coefficients: number[], bias: number | undefined): number;
  call(name: string, args: CoreArg[]): number;
  include(program: CoreProgram, inputs: Record<string, CoreArg>, prefix: string): Record<string, number>;
  scan(body: (carry: number, item: number) => CoreArg, init: CoreArg, sequence: CoreArg[]): number;
  freeze(names: string[] | undefined): void;
  buildInto(out: CoreProgram, outputs: CoreArg | Record<string, CoreArg>): CoreResult<undefined>;
}

export interface CoreModule {
  CoreProgram: new () => CoreProgram;
  CoreRuntime: new () => CoreRuntime;
  CoreBuilder: new () => CoreBuilder;
  parseDomain(text: string): CoreResult<DomainInfo>;
  opNames(): string[];
  /** The WebAssembly memory as float64s (replaced when the memory grows: read it after every call). */
  HEAPF64: Float64Array;
  /** The allocator's bytes in use and the heap's size (tests). */
  heapStats(): { used: number; size: number };
}

/** The Emscripten factory (MODULARIZE): resolves to the module. */
export type CoreFactory = (options?: object) => Promise<CoreModule>;
