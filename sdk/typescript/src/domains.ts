// Value domains, spelled as on the command line ("int32:-128:127", "bool",
// "float64", "float32:-1:1"). The helpers build the same spellings.

export type DomainType = 'int32' | 'boolean' | 'float32' | 'float64';

const fullRange: Record<DomainType, [number, number]> = {
  int32: [-2147483648, 2147483647],
  boolean: [0, 1],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};

export class Domain {
  constructor(readonly type: DomainType, readonly min?: number, readonly max?: number) {}

  /** The command-line spelling the engine parses. */
  toString(): string {
    const name = this.type === 'boolean' ? 'bool' : this.type;
    if (this.type === 'boolean' || (this.min === undefined && this.max === undefined)) return name;
    // The spelling needs both bounds: a missing one is the type's own limit.
    const [lo, hi] = fullRange[this.type];
    return `${name}:${this.min ?? lo}:${this.max ?? hi}`;
  }
}

/** A domain as compile options and Builder.input accept it. */
export type DomainLike = Domain | string;

export const int32 = (min?: number, max?: number): Domain => new Domain('int32', min, max);
export const boolean = (): Domain => new Domain('boolean');
export const float32 = (min?: number, max?: number): Domain => new Domain('float32', min, max);
export const float64 = (min?: number, max?: number): Domain => new Domain('float64', min, max);

export function domainText(d: DomainLike): string {
  return typeof d === 'string' ? d : d.toString();
}
