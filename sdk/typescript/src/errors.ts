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
    this.name = new.target.name;
    this.kind = error.kind;
    this.detail = error.detail;
    if (error.line !== undefined) this.line = error.line;
    if (error.column !== undefined) this.column = error.column;
    if (error.node !== undefined) this.node = error.node;
  }
}

/** Python source the frontend rejected (syntax, subset, budgets, domains). */
export class CompileError extends TensorcodeError {}
/** A checked evaluation failed: NaN, division by zero, a domain, a bad index. */
export class EvaluationError extends TensorcodeError {}
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
};

export function errorFromCore(error: CoreError): TensorcodeError {
  const Kind = byKind[error.kind] ?? TensorcodeError;
  return new Kind(error);
}

/** A result of the native layer: {value} or {error}. */
export type CoreResult<T> = { value: T; error?: undefined } | { error: CoreError; value?: undefined };

export function unwrap<T>(r: CoreResult<T>): T {
  if (r.error) throw errorFromCore(r.error);
  return r.value as T;
}
