// Types of fuzz-targets.mjs (the fuzz targets `npm run fuzz` can pick), for the fuzz tests.
export declare function fuzzAdapterNames(source?: string): string[];
