// The checkpoint behaviour against an in-memory harness that really asks the scripted model server (Chat
// Completions, one `bash` tool), really runs the command in the cwd and measures the files around the
// turn: it passes on a faithful harness, and fails with its reason on one that breaks the contract.
import { execFileSync, execSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CheckpointChange,
  computeCapabilities,
  type Harness,
  type ImplementedCapabilities,
  type Session,
  SessionEventStream,
} from '@reins/core';
import { describe, expect, it } from 'vitest';
import type { ModelServer } from '../model-server/index.js';
import { CHECKPOINT_BEHAVIOURS } from './checkpoint-behaviours.js';
import { runConformance } from './suite.js';

type Message = Record<string, unknown>;
type Flaw = 'misses-untracked' | 'leaves-added' | 'drops-stash' | 'keeps-conversation';

/** The caller's GIT_* variables (a hook's GIT_DIR) must not point these commands at another repository. */
const gitEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_')));
const BASH = { type: 'function', function: { name: 'bash', parameters: { properties: { command: {} } } } };

/** One streamed Chat Completions request: the text and the (first) bash command the model asked for. */
async function ask(server: ModelServer, messages: Message[]): Promise<{ text: string; command?: string }> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-model', messages, tools: [BASH], stream: true }),
  });
  let text = '';
  let args = '';
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {};
    text += delta.content ?? '';
    for (const call of delta.tool_calls ?? []) args += call.function?.arguments ?? '';
  }
  return { text, ...(args ? { command: JSON.parse(args).command } : {}) };
}

/** The work tree's files (not .git), as bytes by relative path. */
function files(dir: string, flaw?: Flaw): Map<string, Buffer> {
  const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: dir, env: gitEnv, encoding: 'utf8' }).split('\n'));
  const found = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && !join(entry.parentPath, entry.name).includes('/.git/'),
  );
  const paths = found.map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
  return new Map(
    paths
      .filter((path) => flaw !== 'misses-untracked' || tracked.has(path))
      .map((p) => [p, readFileSync(join(dir, p))]),
  );
}

function changes(before: Map<string, Buffer>, after: Map<string, Buffer>): CheckpointChange[] {
  return [...after].flatMap(([path, bytes]): CheckpointChange[] => {
    const old = before.get(path);
    if (old?.equals(bytes)) return [];
    const added = bytes
      .toString()
      .split('\n')
      .filter((line) => line && !old?.toString().split('\n').includes(line));
    return [{ path, kind: old ? 'modified' : 'added', diff: added.map((line) => `+${line}`).join('\n') }];
  });
}

function memoryHarness(server: ModelServer, implemented: ImplementedCapabilities, flaw?: Flaw): Harness {
  const createSession = async (spec: { cwd: string }): Promise<Session> => {
    const stream = new SessionEventStream({ harness: 'acp', sessionId: 'memory' });
    const conversation: Message[] = [];
    const turns = new Map<string, { before: Map<string, Buffer>; after: Map<string, Buffer>; at: number }>();
    return {
      id: 'memory',
      harness: 'acp',
      nativeSessionId: 'native-1',
      events: stream.events,
      async send(input) {
        const text = typeof input === 'string' ? input : input.text;
        const turnId = stream.startTurn({ text });
        if (!turnId) throw new Error('a turn is running');
        const before = files(spec.cwd, flaw);
        const at = conversation.length;
        conversation.push({ role: 'user', content: text });
        let answer = await ask(server, conversation);
        if (answer.command) {
          const output = execSync(answer.command, { cwd: spec.cwd, encoding: 'utf8', shell: '/bin/sh' });
          const call = { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } };
          conversation.push({ role: 'assistant', content: null, tool_calls: [call] });
          conversation.push({ role: 'tool', tool_call_id: 'c1', content: output });
          answer = await ask(server, conversation);
        }
        conversation.push({ role: 'assistant', content: answer.text });
        stream.completeTurn({ outcome: { status: 'completed' } });
        const after = files(spec.cwd, flaw);
        turns.set(turnId, { before, after, at });
        stream.emit({ type: 'checkpoint', changes: changes(before, after) }, { turnId });
        return { turnId, delivery: 'started' };
      },
      async revert(turnId) {
        const turn = turns.get(turnId);
        if (!turn) throw new Error(`no checkpoint for ${turnId}`);
        const undone = changes(turn.before, turn.after);
        for (const { path, kind } of undone) {
          if (kind === 'added' && flaw !== 'leaves-added') rmSync(join(spec.cwd, path));
          if (kind === 'modified') writeFileSync(join(spec.cwd, path), turn.before.get(path) as Buffer);
        }
        if (flaw === 'drops-stash') execFileSync('git', ['stash', 'drop', '-q'], { cwd: spec.cwd, env: gitEnv });
        if (!implemented.revert) return { turnId, files: undone.map((c) => c.path), conversation: 'unchanged' };
        if (flaw !== 'keeps-conversation') conversation.splice(turn.at);
        return { turnId, files: undone.map((c) => c.path), conversation: 'reverted' };
      },
      async interrupt() {},
      setModel: async () => ({ applied: 'live' }),
      setEffort: async () => ({ applied: 'live' }),
      respondToPermission: async () => {},
      async close() {
        stream.close('requested');
      },
    };
  };
  return {
    id: 'acp',
    displayName: 'Memory harness',
    discover: async () => ({ found: false, searched: [], hint: '' }),
    health: async () => ({ status: 'ready' }),
    capabilities: async () => computeCapabilities({ implemented }),
    createSession,
  };
}

async function verdict(implemented: ImplementedCapabilities, flaw?: Flaw) {
  const [result] = await runConformance(
    {
      id: 'acp',
      setup: async (server) => ({
        harness: memoryHarness(server, implemented, flaw),
        models: { primary: 'a', alternate: 'b' },
      }),
    },
    { behaviours: CHECKPOINT_BEHAVIOURS },
  );
  return result;
}

describe('checkpoint measures a shell edit and revert restores the files', () => {
  it('passes on a faithful harness, and demonstrates revert where the conversation goes back', async () => {
    expect(await verdict({ revert: 'native' })).toMatchObject({ status: 'passed', demonstrated: ['revert'] });
    expect(await verdict({})).toMatchObject({ status: 'passed', demonstrated: [] });
  });

  it('fails when the checkpoint misses the file the command created', async () => {
    expect(await verdict({}, 'misses-untracked')).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('the checkpoint does not list created.txt'),
    });
  });

  it('fails when revert leaves the added file, or touches the stash', async () => {
    expect((await verdict({}, 'leaves-added'))?.reason).toContain('created.txt, added by the turn, is still there');
    expect((await verdict({}, 'drops-stash'))?.reason).toContain("the user's branch, index or stash changed");
  });

  it('fails when a harness claiming revert still sends the reverted turn to the model', async () => {
    expect((await verdict({ revert: 'native' }, 'keeps-conversation'))?.reason).toBe(
      'the next turn still sent the reverted turn to the model',
    );
  });
});
