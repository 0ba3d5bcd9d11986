// Small type-level and runtime guards shared by the whole contract.

/** Ends an exhaustive switch: a new union member becomes a compile error here. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}

/** True only when A and B are the same type (not merely mutually assignable). */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compile-time assertion: `const _: Assert<Equals<X, Y>> = true`. */
export type Assert<T extends true> = T;
