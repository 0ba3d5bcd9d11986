// `reins chat` (the built bin) with stdin piped, on the fake Claude Code: --output-schema holds for
// every message sent (it was parsed and then ignored), /steer with nothing running says that it
// started a new turn (it said "the harness cannot steer: started"), and /compact compacts.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeHarnessPath } from '@reins/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCli } from './cli.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../harnesses/src/claude-code/fixtures/${name}`, import.meta.url));

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'reins-cli-chat-'));
  await mkdir(join(home, 'user'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const env = (fixtureName: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  REINS_HOME: join(home, 'reins'),
  HOME: join(home, 'user'),
  TMPDIR: join(home, 'user'),
  IS_SANDBOX: '1',
  REINS_CLAUDE_CODE_BIN: FAKE_CLAUDE,
  FAKE_CLAUDE_FIXTURE: fixture(fixtureName),
});

/** Sends one line once the chat is ready, waits for the turn's summary line, then ends stdin. */
async function chatOnce(args: string[], fixtureName: string, line: string) {
  const cli = startCli(['chat', '-H', 'claude-code', '-C', home, ...args], { env: env(fixtureName) });
  await cli.waitForOutput('/quit to leave');
  cli.child.stdin?.write(`${line}\n`);
  await cli.waitForOutput(/[✓✗■] (completed|failed|cancelled)/);
  cli.child.stdin?.end();
  return cli.done;
}

describe('reins chat', () => {
  it('--output-schema validates the reply of a message: a plain-text reply fails the turn', async () => {
    const schema = join(home, 'verdict.json');
    await writeFile(
      schema,
      JSON.stringify({ type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] }),
    );
    const withSchema = await chatOnce(['--output-schema', schema], 'text-turn.2.1.197.jsonl', 'Is it green?');
    expect(withSchema.code).toBe(0);
    expect(withSchema.stdout).toContain('✗ failed (structured_output_invalid)');
    // The same reply without a schema completes: the failure above is the schema's.
    const without = await chatOnce([], 'text-turn.2.1.197.jsonl', 'Is it green?');
    expect(without.stdout).toContain('✓ completed');
  });

  it('/compact: the harness compacts as a turn of its own, shown as one line with its numbers', async () => {
    const cli = startCli(['chat', '-H', 'claude-code', '-C', home], { env: env('compact.2.1.197.jsonl') });
    await cli.waitForOutput('/quit to leave');
    for (const [index, line] of ['Hello there', 'Tell me more', 'And more', '/compact'].entries()) {
      cli.child.stdin?.write(`${line}\n`);
      await cli.waitForOutput(new RegExp(`(✓ completed[\\s\\S]*){${index + 1}}`));
    }
    cli.child.stdin?.end();
    const result = await cli.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('context compacted (3040 → 587 tokens)');
    expect(result.stdout).not.toContain('unknown command');
  });

  it('/steer with nothing running starts a turn and says so', async () => {
    const result = await chatOnce([], 'text-turn.2.1.197.jsonl', '/steer say hello');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nothing was running: it started a new turn');
    expect(result.stdout).not.toContain('cannot steer');
    expect(result.stdout).toContain('✓ completed');
  });
});
