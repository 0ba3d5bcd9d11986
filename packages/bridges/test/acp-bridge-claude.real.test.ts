// Real tier, judged by the protocol: `reins bridge acp -H claude-code` in front of the REAL pinned
// Claude Code on the scripted model server, spoken to in raw ndjson. What strict ACP clients
// measured, on the real CLI: the model option offered at session/new (Claude Code names its model
// only at its first turn) and a switch to another listed model, diff content on a file write, no
// notice for a client that did not advertise them, a session resumed in a new process on the
// model it ran, a fork (session/fork) whose first prompt reaches the model with the source's
// conversation, and session/list naming both conversations of the folder. Every message is
// validated against the ACP SDK's schema.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/acp-bridge-claude.real.test.ts
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reply } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { acpViolations } from './support/acp-schema.js';
import { JsonLinesPeer, type Message, REINS } from './support/processes.js';
import { type RealBridgeHome, realBridgeHome } from './support/real-bridge.js';

type Options = { configOptions: { id: string; currentValue: string; options: { value: string }[] }[] };

function acp(home: RealBridgeHome): JsonLinesPeer {
  return new JsonLinesPeer(
    process.execPath,
    [REINS, 'bridge', 'acp', '-H', 'claude-code', '--binary', home.binaryPath],
    home.env,
    {
      jsonrpc: true,
      cwd: home.cwd,
    },
  );
}

const updates = (frames: Message[], kind: string) =>
  frames.filter(
    (frame) =>
      frame.method === 'session/update' &&
      ((frame.params?.update ?? {}) as { sessionUpdate?: string }).sessionUpdate === kind,
  );

describe('reins bridge acp in front of the real Claude Code', () => {
  it('offers the model at session/new, writes with a diff, keeps notices to itself, and resumes on its model', async () => {
    const home = await realBridgeHome('claude-code');
    const peers: JsonLinesPeer[] = [];
    try {
      const first = acp(home);
      peers.push(first);
      await first.request('initialize', { protocolVersion: 1, clientCapabilities: {} }, 60_000);
      const created = await first.request('session/new', { cwd: home.cwd, mcpServers: [] }, 60_000);
      const sessionId = (created.result as { sessionId: string }).sessionId;
      const [model] = (created.result as Options).configOptions;
      expect(model?.id).toBe('model');
      const listed = model?.options.map((option) => option.value) ?? [];
      expect(listed).toContain(model?.currentValue);
      const other = listed.find((value) => value !== model?.currentValue) as string;
      const set = await first.request(
        'session/set_config_option',
        { sessionId, configId: 'model', value: other },
        60_000,
      );
      expect((set.result as Options).configOptions[0]?.currentValue).toBe(other);
      // Back to the configured model for the turn (the scripted server answers any model).
      await first.request('session/set_config_option', { sessionId, configId: 'model', value: home.model }, 60_000);

      const path = join(home.cwd, 'written.txt');
      home.server.enqueue(reply().writeFile(path, 'written by the scripted model\n'), reply().text('Wrote it.'));
      const answer = await first.request(
        'session/prompt',
        { sessionId, prompt: [{ type: 'text', text: 'Write the file.' }] },
        180_000,
      );
      expect(answer.result).toMatchObject({ stopReason: 'end_turn' });
      expect(await readFile(path, 'utf8')).toBe('written by the scripted model\n');
      const diffs = updates(first.frames(), 'tool_call_update').flatMap((frame) =>
        (
          ((frame.params?.update ?? {}) as { content?: { type: string; path?: string; newText?: string }[] }).content ??
          []
        ).filter((content) => content.type === 'diff'),
      );
      expect(diffs).toEqual([
        expect.objectContaining({ type: 'diff', path, newText: 'written by the scripted model\n' }),
      ]);
      // The client advertised no session.notices: Claude Code's metered-key notice stays on stderr.
      expect(updates(first.frames(), 'notice')).toEqual([]);
      await first.close();

      const second = acp(home);
      peers.push(second);
      await second.request('initialize', { protocolVersion: 1, clientCapabilities: {} }, 60_000);
      const resumed = await second.request('session/resume', { sessionId, cwd: home.cwd }, 60_000);
      expect((resumed.result as Options).configOptions[0]).toMatchObject({ id: 'model', currentValue: home.model });
      home.server.enqueue(reply().text('Resumed on the same model.'));
      const after = await second.request(
        'session/prompt',
        { sessionId, prompt: [{ type: 'text', text: 'Still there?' }] },
        180_000,
      );
      expect(after.result).toMatchObject({ stopReason: 'end_turn' });
      const last = home.server.requests.filter((request) => request.scripted).at(-1);
      expect(last?.model).toBe(home.model);
      await second.close();
    } finally {
      for (const peer of peers) await peer.close();
      await home.dispose();
      for (const peer of peers) expect(acpViolations(peer.sent, peer.frames())).toEqual([]);
    }
  }, 600_000);

  it('forks a session: a new session whose first prompt reaches the model with the source’s conversation', async () => {
    const home = await realBridgeHome('claude-code');
    const peer = acp(home);
    try {
      const init = await peer.request('initialize', { protocolVersion: 1, clientCapabilities: {} }, 60_000);
      expect(init.result).toMatchObject({ agentCapabilities: { sessionCapabilities: { fork: {} } } });
      const created = await peer.request('session/new', { cwd: home.cwd, mcpServers: [] }, 60_000);
      const source = (created.result as { sessionId: string }).sessionId;
      home.server.enqueue(reply().text('Teal, noted.'));
      const first = await peer.request(
        'session/prompt',
        { sessionId: source, prompt: [{ type: 'text', text: 'Remember the word teal.' }] },
        180_000,
      );
      expect(first.result).toMatchObject({ stopReason: 'end_turn' });
      const forked = await peer.request('session/fork', { sessionId: source, cwd: home.cwd, mcpServers: [] }, 60_000);
      const fork = (forked.result as { sessionId: string }).sessionId;
      expect(fork).toBeTruthy();
      expect(fork).not.toBe(source);
      home.server.enqueue(reply().text('You said teal.'));
      const second = await peer.request(
        'session/prompt',
        { sessionId: fork, prompt: [{ type: 'text', text: 'Which word did I give you?' }] },
        180_000,
      );
      expect(second.result).toMatchObject({ stopReason: 'end_turn' });
      const request = home.server.requests.find((seen) => JSON.stringify(seen.body).includes('Which word did I give'));
      expect(JSON.stringify(request?.body)).toContain('Remember the word teal.');
      expect(JSON.stringify(request?.body)).toContain('Teal, noted.');

      // session/list: both conversations, as Claude Code stored them in this folder (it may write a
      // transcript a moment after the turn's end), and none for another folder.
      expect(init.result).toMatchObject({ agentCapabilities: { sessionCapabilities: { list: {} } } });
      type Listed = { sessions: { sessionId: string; cwd: string; title?: string }[]; nextCursor?: string };
      let listed: Listed = { sessions: [] };
      for (let attempt = 0; attempt < 50; attempt++) {
        listed = (await peer.request('session/list', { cwd: home.cwd }, 60_000)).result as Listed;
        const ids = listed.sessions.map((session) => session.sessionId);
        if (ids.includes(source) && ids.includes(fork)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(listed.sessions.map((session) => session.sessionId).sort()).toEqual([source, fork].sort());
      expect(listed.sessions.every((session) => session.cwd === home.cwd)).toBe(true);
      expect(listed.nextCursor).toBeUndefined();
      const elsewhere = (await peer.request('session/list', { cwd: join(home.cwd, 'elsewhere') }, 60_000))
        .result as Listed;
      expect(elsewhere.sessions).toEqual([]);
    } finally {
      await peer.close();
      await home.dispose();
      expect(acpViolations(peer.sent, peer.frames())).toEqual([]);
    }
  }, 600_000);
});
