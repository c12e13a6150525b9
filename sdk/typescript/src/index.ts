// tensorcode for JavaScript: the engine compiled to WebAssembly.
//
//   const tc = await load();
//   const p = tc.compile(source, { inputs: { a: 'int32:-128:127' } });
//   p.run({ a: 5 });   // {result: 10}
//
// load() is the only asynchronous step; everything after it is synchronous.
import type { CoreFactory, CoreModule, DomainInfo } from './core.js';
import { Domain, boolean, float32, float64, int32 } from './domains.js';
import { unwrap } from './errors.js';
import { type Bindings, Builder, type BuilderOptions, type CompileOptions, Program, Runtime, type RuntimeOptions } from './program.js';
import { domainText } from './domains.js';
import { fromNative } from './errors.js';

/** A call of a free function of the module, its C++ exceptions as TensorcodeErrors. */
function native<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw fromNative(e);
  }
}

export * from './errors.js';
export { Domain, boolean, float32, float64, int32 } from './domains.js';
export type { DomainLike, DomainType } from './domains.js';
export { Builder, Program, Runtime, Value } from './program.js';
export type {
  Arg, BatchResult, Bindings, BuilderOptions, HostFunction, CompileOptions, GradientOptions, ReplayResult, RunOptions, RuntimeOptions, WgslBinding,
  WgslModule,
} from './program.js';
export type { Analysis, DomainInfo, NumberMap, ProgramInfo, StepOutcome, Values } from './core.js';
export type { Tolerances, WgslMismatch, WgslReport } from './webgpu.js';
export type { WasmRun } from './wasm.js';

export interface LoadOptions {
  /**
   * The Emscripten factory of tensorcode_core.js. Default: the global
   * `createTensorcodeCore` (a page that loaded the script), else the file
   * shipped beside this package (Node).
   */
  factory?: CoreFactory;
}

/** What load() resolves to: the engine, ready for synchronous use. */
export interface Tensorcode {
  /** Compiles a Python function (source text) to a Program. Throws CompileError. */
  compile(source: string, options?: CompileOptions): Program;
  Program: { fromJSON(text: string | object): Program };
  Builder: new (options?: BuilderOptions) => Builder;
  Runtime: {
    new (program: Program, options?: RuntimeOptions): Runtime;
    /** Resumes from a snapshot (text or parsed), with its state, steps and budget. */
    restore(snapshot: string | object, options?: { bindings?: Bindings }): Runtime;
  };
  analyze: (program: Program, options?: Parameters<Program['analyze']>[0]) => ReturnType<Program['analyze']>;
  /** Parses a domain spelling ("int32:-128:127"); throws DomainError. */
  parseDomain(text: string | Domain): DomainInfo;
  int32: typeof int32;
  boolean: typeof boolean;
  float32: typeof float32;
  float64: typeof float64;
  /** Every op of the engine's table, by artifact name. */
  opNames: string[];
}

declare const require: undefined | ((id: string) => unknown);

async function findFactory(options: LoadOptions): Promise<CoreFactory> {
  if (options.factory) return options.factory;
  const g = globalThis as { createTensorcodeCore?: CoreFactory };
  if (typeof g.createTensorcodeCore === 'function') return g.createTensorcodeCore;
  // CommonJS (Node): the core sits in dist/, one folder above dist/cjs/.
  if (typeof require === 'function') return require('../tensorcode_core.js') as CoreFactory;
  throw new Error('tensorcode: the engine is not loaded: add <script src=".../tensorcode_core.js"> to the page, or pass load({factory})');
}

/** Loads the engine (WebAssembly) and returns the synchronous API. */
export async function load(options: LoadOptions = {}): Promise<Tensorcode> {
  const factory = await findFactory(options);
  const core: CoreModule = await factory();
  return bind(core);
}

function bind(core: CoreModule): Tensorcode {
  const compile = (source: string, opts: CompileOptions = {}): Program => {
    const inputs: Record<string, string> = {};
    for (const [k, d] of Object.entries(opts.inputs ?? {})) inputs[k] = domainText(d);
    return Program.make(core, (h) => h.compile(source, { ...opts, inputs }));
  };
  class BoundRuntime extends Runtime {
    static restore(snapshot: string | object, opts: { bindings?: Bindings } = {}): Runtime {
      return Runtime.restoreWith(core, snapshot, opts.bindings);
    }
  }
  class BoundBuilder extends Builder {
    constructor(opts: BuilderOptions = {}) {
      super(core, opts);
    }
  }
  return {
    compile,
    Program: { fromJSON: (text: string | object) => Program.fromJSONWith(core, text as string) },
    Builder: BoundBuilder,
    Runtime: BoundRuntime,
    analyze: (program, opts) => program.analyze(opts),
    parseDomain: (text) => {
      const spelled = domainText(text);
      return native(() => unwrap(core.parseDomain(spelled)));
    },
    int32,
    boolean,
    float32,
    float64,
    opNames: native(() => core.opNames()),
  };
}
