// `npm run fuzz` arguments (bin/fuzz-args.mjs) and the selection the fuzz tests read back (run.ts).
import { describe, expect, it } from 'vitest';
import { FUZZ_BRIDGES, fuzzHelp, fuzzPlan, parseFuzzArgs as parseWith } from '../../bin/fuzz-args.mjs';
import { fuzzAdapterNames } from '../../bin/fuzz-targets.mjs';
import { fuzzSelection, reproduceWith, selectByName } from './run.js';

const FUZZ_ADAPTERS = fuzzAdapterNames();
const FUZZ_HELP = fuzzHelp(FUZZ_ADAPTERS);
const parseFuzzArgs = (args: string[]) => parseWith(args, FUZZ_ADAPTERS);

const usage = (args: string[]) => {
  try {
    parseFuzzArgs(args);
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return 'accepted';
};

describe('fuzzAdapterNames', () => {
  it('reads the harness folders with a testing/fuzz.ts', () => {
    expect(FUZZ_ADAPTERS).toEqual(expect.arrayContaining(['codex', 'pi']));
    expect(FUZZ_ADAPTERS).not.toContain('runtime');
  });
});

describe('parseFuzzArgs', () => {
  it('takes --help and -h anywhere, and the help names every option and adapter', () => {
    expect(parseFuzzArgs(['--help'])).toEqual({ help: true });
    expect(parseFuzzArgs(['--seed', '4', '-h'])).toEqual({ help: true });
    for (const word of ['--seed', '--cases', '--case', '--adapters', '--bridges', ...FUZZ_ADAPTERS, ...FUZZ_BRIDGES])
      expect(FUZZ_HELP).toContain(word);
  });

  it('defaults to 200,000 cases on everything', () => {
    const options = parseFuzzArgs([]);
    expect(options).toEqual({ help: false, cases: '200000' });
    if (options.help) throw new Error('not help');
    expect(fuzzPlan(options, '9')).toEqual({
      files: ['.fuzz.test.ts'],
      env: { REINS_FUZZ_SEED: '9', REINS_FUZZ_CASES: '200000' },
      summary: 'fuzz: seed 9, 200000 cases per fuzz test',
    });
  });

  it('reads counts as --name value and --name=value', () => {
    expect(parseFuzzArgs(['--seed', '42', '--cases=500', '--case', '7'])).toEqual({
      help: false,
      seed: '42',
      cases: '500',
      case: '7',
    });
  });

  it('--adapters runs only the adapters fuzz test on those targets; --bridges alike; all means every one', () => {
    const adapters = parseFuzzArgs(['--adapters', 'codex,pi', '--cases', '10']);
    expect(adapters).toMatchObject({ adapters: ['codex', 'pi'] });
    if (adapters.help) throw new Error('not help');
    expect(fuzzPlan(adapters, '1')).toEqual({
      files: ['packages/harnesses/src/translate.fuzz.test.ts'],
      env: { REINS_FUZZ_SEED: '1', REINS_FUZZ_CASES: '10', REINS_FUZZ_ADAPTERS: 'codex,pi' },
      summary: 'fuzz: seed 1, 10 cases per fuzz test; only adapters codex, pi',
    });
    const bridges = parseFuzzArgs(['--bridges=acp', '--adapters=all']);
    if (bridges.help) throw new Error('not help');
    expect(fuzzPlan(bridges, '1')).toMatchObject({
      files: ['packages/harnesses/src/translate.fuzz.test.ts', 'packages/bridges/src/translate.fuzz.test.ts'],
      env: { REINS_FUZZ_ADAPTERS: FUZZ_ADAPTERS.join(','), REINS_FUZZ_BRIDGES: 'acp' },
    });
    const bridgesOnly = parseFuzzArgs(['--bridges', 'all']);
    if (bridgesOnly.help) throw new Error('not help');
    expect(fuzzPlan(bridgesOnly, '1').files).toEqual(['packages/bridges/src/translate.fuzz.test.ts']);
    expect(parseFuzzArgs(['--adapters', 'pi,pi'])).toMatchObject({ adapters: ['pi'] });
  });

  it('refuses what it does not know, with a sentence that says what it takes', () => {
    expect(usage(['--frob'])).toBe('FuzzUsageError: unknown argument "--frob"');
    expect(usage(['200000'])).toBe('FuzzUsageError: unknown argument "200000"');
    expect(usage(['--cases'])).toBe('FuzzUsageError: --cases needs a non-negative integer');
    expect(usage(['--seed', '-1'])).toBe('FuzzUsageError: --seed needs a non-negative integer');
    expect(usage(['--adapters', 'codex,cursor'])).toBe(
      `FuzzUsageError: --adapters: unknown "cursor"; known: ${FUZZ_ADAPTERS.join(', ')}, or all`,
    );
    expect(usage(['--adapters', 'codex,'])).toMatch(/--adapters: unknown ""/);
    expect(usage(['--adapters'])).toMatch(/--adapters needs a comma-separated list/);
    expect(usage(['--adapters', '--cases', '5'])).toMatch(/--adapters needs a comma-separated list/);
    expect(usage(['--bridges', 'codex'])).toBe(
      'FuzzUsageError: --bridges: unknown "codex"; known: codex-app-server, acp, or all',
    );
  });
});

describe('the selection the fuzz tests read', () => {
  const targets = [{ name: 'codex' }, { name: 'acp' }, { name: 'pi' }];

  it('is everything without the variables, and the named targets in their own order with them', () => {
    expect(fuzzSelection({})).toEqual({});
    const selection = fuzzSelection({ REINS_FUZZ_ADAPTERS: 'pi,codex', REINS_FUZZ_BRIDGES: 'acp' });
    expect(selection).toEqual({ adapters: ['pi', 'codex'], bridges: ['acp'] });
    expect(selectByName(targets, undefined, 'X')).toEqual(targets);
    expect(selectByName(targets, selection.adapters, 'X')).toEqual([{ name: 'codex' }, { name: 'pi' }]);
  });

  it('refuses a name no target has (a typo must not fuzz nothing and pass)', () => {
    expect(() => selectByName(targets, ['codx'], 'REINS_FUZZ_ADAPTERS')).toThrow(
      'REINS_FUZZ_ADAPTERS: unknown "codx"; known: codex, acp, pi.',
    );
  });

  it("a failure's reproduce command names the same selection", () => {
    const report = { seed: 42 } as Parameters<ReturnType<typeof reproduceWith>>[1];
    const failure = { index: 1234 } as Parameters<ReturnType<typeof reproduceWith>>[0];
    expect(reproduceWith({})(failure, report)).toBe('npm run fuzz -- --seed 42 --case 1234');
    expect(reproduceWith({ adapters: ['codex', 'pi'] })(failure, report)).toBe(
      'npm run fuzz -- --seed 42 --adapters codex,pi --case 1234',
    );
  });
});
