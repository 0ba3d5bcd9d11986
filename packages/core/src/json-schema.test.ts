import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { type ReinsEvent, ReinsEventSchema, SessionSpecSchema } from './index.js';
import { protocolJsonSchema, protocolJsonSchemaText } from './json-schema.js';

const checkedIn = new URL('../schema/events.schema.json', import.meta.url);

const sample: ReinsEvent[] = [
  { type: 'session.started', seq: 1, harness: 'codex', sessionId: 's', turnId: null, at: 1, cwd: '/w' },
  {
    type: 'item.completed',
    seq: 2,
    harness: 'codex',
    sessionId: 's',
    turnId: 't',
    at: 2,
    item: {
      kind: 'tool_call',
      id: 'i',
      status: 'completed',
      tool: { kind: 'command', name: 'exec_command' },
      input: { cmd: 'ls' },
      output: { text: 'a\n', structured: { stdout: 'a\n' } },
      exitCode: 0,
    },
    native: { source: 'codex.app-server', method: 'item/completed', frame: {} },
  },
  {
    type: 'usage.updated',
    seq: 3,
    harness: 'claude-code',
    sessionId: 's',
    turnId: 't',
    at: 3,
    turn: { input: 10, output: 2 },
    costUsd: { amount: 0.01, currency: 'USD', source: 'provider' },
  },
  {
    type: 'turn.completed',
    seq: 4,
    harness: 'codex',
    sessionId: 's',
    turnId: 't',
    at: 4,
    outcome: { status: 'failed', error: { code: 'provider_error', message: '500', data: { kind: 'server_error' } } },
  },
];

describe('event protocol JSON Schema', () => {
  it('matches the checked-in file (run `npm run schema:generate` after changing the zod schemas)', () => {
    expect(readFileSync(checkedIn, 'utf8')).toBe(protocolJsonSchemaText());
  });

  it('accepts real events and rejects malformed ones, like the zod schema', () => {
    const validate = new Ajv2020({ strict: false }).compile(protocolJsonSchema());
    for (const event of sample) {
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
      expect(ReinsEventSchema.safeParse(event).success).toBe(true);
    }
    const bad = [
      { ...sample[0], seq: 0 },
      { ...sample[0], type: 'session.exploded' },
      { ...sample[3], outcome: { status: 'failed' } },
      { ...sample[2], costUsd: { amount: 1, source: 'guess' } },
    ];
    for (const event of bad) {
      expect(validate(event)).toBe(false);
      expect(ReinsEventSchema.safeParse(event).success).toBe(false);
    }
  });

  it('validates session specs at the boundary', () => {
    expect(SessionSpecSchema.safeParse({ cwd: '/w', posture: 'bypass', effort: 'high' }).success).toBe(true);
    expect(SessionSpecSchema.safeParse({ cwd: '', posture: 'bypass' }).success).toBe(false);
    expect(SessionSpecSchema.safeParse({ cwd: '/w', posture: 'yolo' }).success).toBe(false);
  });
});

describe('@reins/core stays browser-safe', () => {
  it('imports no Node built-ins outside tests', () => {
    const root = new URL('.', import.meta.url).pathname;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8');
          if (/from ['"](node:|fs|path|child_process|os|crypto)['"/]/.test(text)) offenders.push(path);
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
