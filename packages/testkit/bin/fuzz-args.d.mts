// Types of fuzz-args.mjs (the `npm run fuzz` argument parser), for its unit test and the fuzz tests.
export declare const FUZZ_BRIDGES: readonly string[];
export declare function fuzzHelp(adapters: readonly string[]): string;
export declare class FuzzUsageError extends Error {}

export interface FuzzOptions {
  help: false;
  seed?: string;
  cases: string;
  case?: string;
  /** Only these adapters' fuzz targets (undefined: every one, unless bridges alone are chosen). */
  adapters?: string[];
  /** Only these bridges (undefined: every one, unless adapters alone are chosen). */
  bridges?: string[];
}

export declare function parseFuzzArgs(
  args: readonly string[],
  adapters: readonly string[],
): { help: true } | FuzzOptions;

export declare function fuzzPlan(
  options: FuzzOptions,
  seed: string,
): { files: string[]; env: Record<string, string>; summary: string };
