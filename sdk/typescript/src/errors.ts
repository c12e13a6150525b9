// Errors thrown by the package: Error subclasses carrying the engine's
// message (with "FILE:LINE:COL: " in front when the engine located it) and,
// where known, the line, column and IR node it concerns.

/** The shape the native layer reports an error in. */
export interface CoreError {
  kind: string;
  message: string;
  detail: string;
  line?: number;
  column?: number;
  node?: number;
}

export class TensorcodeError extends Error {
  /** Which part of the engine refused: compile, artifact, evaluation, ... */
  readonly kind: string;
  /** The engine's message without the location prefix. */
  readonly detail: string;
  readonly line?: number;
  readonly column?: number;
  /** The IR node the error concerns, when there is one. */
  readonly node?: number;

  constructor(error: CoreError) {
    super(error.message);
    this.kind = error.kind;
    this.detail = error.detail;
    if (error.line !== undefined) this.line = error.line;
    if (error.column !== undefined) this.column = error.column;
    if (error.node !== undefined) this.node = error.node;
  }
}

/** Python source the frontend rejected (syntax, subset, budgets, domains). */
export class CompileError extends TensorcodeError {}
/**
 * A checked evaluation failed: NaN, division by zero, a domain, a bad index.
 * From runBatch(..., {errors: 'raise'}): `case` is the failing case; from
 * Runtime.replay(): `event` is the failing event and `records` what
 * committed before it (as Python's EvaluationError carries them).
 */
export class EvaluationError extends TensorcodeError {
  case?: number;
  event?: number;
  records?: { step: number; outputs: Record<string, number>; state: Record<string, number> }[];
}
/** Artifact text that is not a valid program. */
export class ArtifactError extends TensorcodeError {}
/** A snapshot that cannot be restored, or a runtime that cannot start. */
export class SnapshotError extends TensorcodeError {}
/** A Builder misuse reported at build(). */
export class BuildError extends TensorcodeError {}
/** A program the WGSL or WASM emitter refuses (state, calls, relaxed semantics). */
export class EmitError extends TensorcodeError {}
/** A domain spelling that does not parse. */
export class DomainError extends TensorcodeError {}
/** A pass (optimize, freeze, schedule, analyze) refused the program. */
export class PassError extends TensorcodeError {}
/** A WGSL run whose results disagree with the CPU beyond the given tolerances. */
export class MismatchError extends TensorcodeError {}
/**
 * A value of the wrong type or out of range given to the API (a Builder
 * index that is not an integer, an option that is not a finite integer):
 * what Python reports as TypeError or ValueError.
 */
export class ArgumentError extends TensorcodeError {}
/** The engine ran out of memory (the WebAssembly heap is full) or hit a size limit. */
export class ResourceError extends TensorcodeError {}
/** A Program, Runtime or Builder used after dispose(). */
export class DisposedError extends TensorcodeError {}

// Each class's `name`, written out: minifiers (Vite's, webpack's) rename
// classes, so new.target.name would read "dr" in a bundled app.
const names = {
  TensorcodeError, CompileError, EvaluationError, ArtifactError, SnapshotError, BuildError, EmitError, DomainError,
  PassError, MismatchError, ArgumentError, ResourceError, DisposedError,
};
for (const [name, Class] of Object.entries(names))
  Object.defineProperty(Class.prototype, 'name', { value: name, writable: true, configurable: true, enumerable: false });

const byKind: Record<string, new (e: CoreError) => TensorcodeError> = {
  compile: CompileError,
  evaluation: EvaluationError,
  artifact: ArtifactError,
  snapshot: SnapshotError,
  runtime: SnapshotError,
  build: BuildError,
  emit: EmitError,
  domain: DomainError,
  pass: PassError,
  argument: ArgumentError,
  resource: ResourceError,
  disposed: DisposedError,
};

export function errorFromCore(error: CoreError): TensorcodeError {
  const Kind = byKind[error.kind] ?? TensorcodeError;
  return new Kind(error);
}

/** A result of the native layer: {value} or {error}. */
export type CoreResult<T> = { value: T; error?: undefined } | { error: CoreError; value?: undefined };

/** A TensorcodeError of `kind` whose message is `message` (no location). */
export function makeError(kind: string, message: string): TensorcodeError {
  return errorFromCore({ kind, message, detail: message });
}

/**
 * What a native call threw, as a TensorcodeError: the bindings throw
 * {error: CoreError} for a C++ exception in a method that has no result
 * object to report it in. A bare number is a C++ exception that escaped the
 * bindings' guard (it should not happen); it is reported, never passed on.
 * Other values (a host function's own exception, embind's errors) are
 * returned unchanged.
 */
export function fromNative(e: unknown): unknown {
  if (e instanceof TensorcodeError) return e;
  if (typeof e === 'object' && e !== null && !(e instanceof Error)) {
    const inner = (e as { error?: CoreError }).error;
    if (inner && typeof inner.kind === 'string' && typeof inner.message === 'string') return errorFromCore(inner);
  }
  // embind refusing an argument's type at the boundary (a number where a
  // name is expected): a misuse of the API like any other ArgumentError.
  if (e instanceof Error && e.name === 'BindingError') {
    const err = makeError('argument', `an argument has the wrong type: ${e.message}`);
    (err as Error & { cause?: unknown }).cause = e;
    return err;
  }
  if (typeof e === 'number') {
    return makeError('internal', `internal error: a C++ exception left the engine without a message (exception object ${e})`);
  }
  return e;
}

export function unwrap<T>(r: CoreResult<T>): T {
  if (r.error) throw errorFromCore(r.error);
  return r.value as T;
}
