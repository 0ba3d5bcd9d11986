// The command line a Codex client launches `codex app-server` with: what the bridge honours, ignores
// or refuses, by name.
import { describe, expect, it } from 'vitest';
import { configValueOf, launchOptionsOf } from './launch.js';
import { ParamsError } from './requests.js';

function refused(input: Parameters<typeof launchOptionsOf>[0]): string {
  try {
    launchOptionsOf(input);
  } catch (error) {
    if (error instanceof ParamsError) return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe('launchOptionsOf', () => {
  it('takes no overrides as nothing to change', () => {
    expect(launchOptionsOf({})).toEqual({ ignored: [] });
  });

  it('honours the settings any harness has, as TOML values', () => {
    expect(
      launchOptionsOf({
        config: [
          'model="sonnet"',
          "model_reasoning_effort='high'",
          'approval_policy=on-request',
          'sandbox_mode="workspace-write"',
        ],
      }),
    ).toEqual({ model: 'sonnet', effort: 'high', posture: 'ask', ignored: [] });
    expect(launchOptionsOf({ config: ['approval_policy="never"', 'sandbox_mode=danger-full-access'] })).toEqual({
      posture: 'bypass',
      ignored: [],
    });
  });

  it('ignores what tunes only Codex itself, and says so', () => {
    expect(
      launchOptionsOf({ config: ['analytics.enabled=false', 'features.web_search=true'], features: ['unified_exec'] }),
    ).toEqual({
      ignored: ['features.unified_exec', 'analytics.enabled', 'features.web_search'],
    });
  });

  it('refuses what it cannot honour, by name', () => {
    expect(refused({ config: ['model_provider="azure"'] })).toBe(
      '-c model_provider: the Reins bridge cannot honour this Codex setting in front of another harness.',
    );
    expect(refused({ config: ['model_reasoning_effort=none'] })).toMatch(/^-c model_reasoning_effort: must be one of/);
    expect(refused({ config: ['approval_policy=sometimes'] })).toMatch(/^-c approval_policy: must be one of/);
    // A narrower sandbox than the bridge can enforce is taken only when every action asks first.
    expect(refused({ config: ['sandbox_mode=read-only'] })).toMatch(
      /^-c sandbox_mode: the Reins bridge cannot make a harness read-only/,
    );
    expect(launchOptionsOf({ config: ['sandbox_mode=read-only'], posture: 'ask' })).toEqual({
      posture: 'ask',
      ignored: [],
    });
    // workspace-write with nothing asking first: posture workspace (writes kept to the cwd).
    expect(launchOptionsOf({ config: ['sandbox_mode=workspace-write'] })).toEqual({
      posture: 'workspace',
      ignored: [],
    });
    expect(refused({ config: ['novalue'] })).toMatch(/^-c: takes key=value/);
  });

  it('reads values as Codex does: TOML scalars, else the raw text', () => {
    expect(configValueOf('"a \\"b\\""')).toBe('a "b"');
    expect(configValueOf('true')).toBe(true);
    expect(configValueOf('42')).toBe(42);
    expect(configValueOf('o3')).toBe('o3');
  });
});
