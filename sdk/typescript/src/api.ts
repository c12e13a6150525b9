// The API both entries share (index.ts for Node, browser.ts for pages and
// bundlers): everything but how the engine's .wasm is found.
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
  Arg, BatchOptions, BatchResult, Bindings, BuilderOptions, HostFunction, CompileOptions, GradientOptions, RunOptions, RuntimeOptions, WgslBinding,
  WgslModule,
} from './program.js';
export type { Analysis, DomainInfo, NumberMap, PlanStatus, ProgramInfo, ReplayRecord, Values } from './core.js';
export type { GpuBuffer, GpuDevice, Tolerances, WgslMismatch, WgslProgram, WgslReport } from './webgpu.js';
export type { WasmRun } from './wasm.js';

export interface LoadOptions {
  /**
   * Where the engine's tensorcode_core.wasm is. In a page: a URL, streamed
   * with WebAssembly.instantiateStreaming (default: the file beside the
   * package's loader, which bundlers that understand
   * `new URL(..., import.meta.url)` copy into their output). In Node: a path,
   * a file: URL or an http(s) URL (default: the file in the package).
   */
  wasmURL?: string | { readonly href: string };
  /** The .wasm's bytes, when the host has them already (nothing is fetched or read). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * The Emscripten factory of tensorcode_core.js, for a loader served from
   * elsewhere. Default: the package's own.
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

/** @internal The synchronous API over a started engine. */
export function bind(core: CoreModule): Tensorcode {
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
