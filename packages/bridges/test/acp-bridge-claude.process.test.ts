// Process level, judged by the protocol: `reins bridge acp -H claude-code` in front of the FAKE Claude
// Code (recorded 2.1.197 transcripts), spoken to in raw ndjson. Every message the bridge writes is
// validated against the ACP SDK's own schema. What is checked is what strict ACP clients measured:
// notices only for a client that advertises them, the model option from session/new on (Claude Code
// names its model only at the first turn), a resumed session on the model it ran, a fork (session/fork)
// whose first prompt goes out with the source's conversation (what the fake would send its model:
// FAKE_CLAUDE_CONVERSATIONS), diff content on a file write, and an over-long line answered, not an exit.
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeHarnessPath, until } from '@reins/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acpViolations } from './support/acp-schema.js';
import { HARNESS_FIXTURES, JsonLinesPeer, type Message, processesWithMarker, REINS } from './support/processes.js';

const FAKE_CLAUDE = fakeHarnessPath('claude-code');

let workdir: string;
beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'reins-acp-claude-'));
  await chmod(FAKE_CLAUDE, 0o755);
  return () => rm(workdir, { recursive: true, force: true });
});

const peers: JsonLinesPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    await peer.close();
    expect(acpViolations(peer.sent, peer.frames())).toEqual([]);
  }
});

async function bridge(
  fixture: string,
  clientCapabilities: Record<string, unknown> = {},
  knobs: Record<string, string> = {},
) {
  const marker = randomUUID();
  const peer = new JsonLinesPeer(
    process.execPath,
    [REINS, 'bridge', 'acp', '-H', 'claude-code', '--binary', FAKE_CLAUDE],
    {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: workdir,
      TMPDIR: workdir,
      REINS_HOME: join(workdir, 'reins-home'),
      IS_SANDBOX: '1',
      FAKE_CLAUDE_FIXTURE: join(HARNESS_FIXTURES, 'claude-code', 'fixtures', `${fixture}.2.1.197.jsonl`),
      REINS_BRIDGE_TEST_MARKER: marker,
      ...knobs,
    },
    { jsonrpc: true, cwd: workdir },
  );
  peers.push(peer);
  const init = await peer.request('initialize', { protocolVersion: 1, clientCapabilities });
  expect(init.result).toMatchObject({ protocolVersion: 1 });
  return { peer, marker, init };
}

const updates = (frames: Message[], kind: string) =>
  frames.filter(
    (frame) =>
      frame.method === 'session/update' &&
      (frame.params?.update as { sessionUpdate?: string } | undefined)?.sessionUpdate === kind,
  );

type Options = { configOptions: { id: string; currentValue: string; options: { value: string }[] }[] };

describe('reins bridge acp -H claude-code over raw stdio', () => {
  it('offers the model option at session/new, before Claude Code has named its model; a client can pick haiku', async () => {
    const { peer } = await bridge('text-turn');
    const created = await peer.request('session/new', { cwd: workdir, mcpServers: [] });
    const [model] = (created.result as Options).configOptions;
    expect(model).toMatchObject({ id: 'model', currentValue: 'default' });
    expect(model?.options.map((option) => option.value)).toContain('haiku');
    const sessionId = (created.result as { sessionId: string }).sessionId;
    const set = await peer.request('session/set_config_option', { sessionId, configId: 'model', value: 'haiku' });
    expect((set.result as Options).configOptions[0]).toMatchObject({ currentValue: 'haiku' });
  });

  it('resumes a session in a new process on the model it ran', async () => {
    const first = await bridge('text-turn');
    const sessionId = (
      (await first.peer.request('session/new', { cwd: workdir, mcpServers: [] })).result as { sessionId: string }
    ).sessionId;
    await first.peer.request('session/set_config_option', { sessionId, configId: 'model', value: 'haiku' });
    await first.peer.close();
    const second = await bridge('text-turn');
    const resumed = await second.peer.request('session/resume', { sessionId, cwd: workdir });
    expect((resumed.result as Options).configOptions[0]).toMatchObject({ id: 'model', currentValue: 'haiku' });
  });

  it('forks a session (Claude Code implements fork): a new session id whose first prompt carries the source’s conversation', async () => {
    const conversations = await mkdtemp(join(workdir, 'conversations-'));
    const { peer, init } = await bridge('resume', {}, { FAKE_CLAUDE_CONVERSATIONS: conversations });
    expect(init.result).toMatchObject({ agentCapabilities: { sessionCapabilities: { fork: {} } } });
    const source = (
      (await peer.request('session/new', { cwd: workdir, mcpServers: [] })).result as { sessionId: string }
    ).sessionId;
    const first = await peer.request('session/prompt', {
      sessionId: source,
      prompt: [{ type: 'text', text: 'Remember the word teal' }],
    });
    expect(first.result).toMatchObject({ stopReason: 'end_turn' });
    const forked = await peer.request('session/fork', { sessionId: source, cwd: workdir, mcpServers: [] });
    const fork = (forked.result as { sessionId: string }).sessionId;
    expect(fork).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(fork).not.toBe(source);
    const second = await peer.request('session/prompt', {
      sessionId: fork,
      prompt: [{ type: 'text', text: 'Which word?' }],
    });
    expect(second.result).toMatchObject({ stopReason: 'end_turn' });
    const requests = (await readFile(join(conversations, 'requests.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sessionId: string; messages: string[] });
    expect(requests).toEqual([
      { sessionId: source, messages: ['Remember the word teal'] },
      { sessionId: fork, messages: ['Remember the word teal', 'Which word?'] },
    ]);
  });

  it('lists Claude Code’s conversations of a folder with session/list, page by page to the end', async () => {
    // Claude Code keeps one transcript per conversation under ~/.claude/projects/<folder slug>/.
    const listed = await mkdtemp(join(workdir, 'listed-'));
    const projects = join(workdir, '.claude', 'projects', listed.replace(/[^A-Za-z0-9]/g, '-'));
    await mkdir(projects, { recursive: true });
    const ids = Array.from({ length: 53 }, () => randomUUID());
    for (const [index, id] of ids.entries()) {
      const entry = {
        type: 'user',
        sessionId: id,
        cwd: listed,
        message: { role: 'user', content: `question ${index}` },
      };
      await writeFile(join(projects, `${id}.jsonl`), `${JSON.stringify(entry)}\n`);
    }
    const { peer, init } = await bridge('text-turn');
    expect(init.result).toMatchObject({ agentCapabilities: { sessionCapabilities: { list: {} } } });
    expect(
      (init.result as { agentCapabilities: { sessionCapabilities: object } }).agentCapabilities.sessionCapabilities,
    ).not.toHaveProperty('delete');
    const seen: { sessionId: string; cwd: string; title?: string }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (await peer.request('session/list', { cwd: listed, ...(cursor ? { cursor } : {}) })).result as {
        sessions: { sessionId: string; cwd: string; title?: string }[];
        nextCursor?: string;
      };
      seen.push(...page.sessions);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(2);
    expect(seen.map((session) => session.sessionId).sort()).toEqual([...ids].sort());
    expect(seen.every((session) => session.cwd === listed)).toBe(true);
    expect(seen.find((session) => session.sessionId === ids[7])?.title).toBe('question 7');
    // The bridge's own folder holds none of them; a relative folder is refused.
    const own = (await peer.request('session/list', { cwd: workdir })).result as { sessions: unknown[] };
    expect(own.sessions).toEqual([]);
    expect((await peer.request('session/list', { cwd: 'listed' })).error).toMatchObject({ code: -32602 });
    expect((await peer.request('session/delete', { sessionId: ids[0] })).error).toMatchObject({ code: -32601 });
  });

  it('sends notices only to a client that advertised session.notices', async () => {
    for (const [capabilities, shown] of [
      [{}, false],
      [{ session: { notices: {} } }, true],
    ] as const) {
      const { peer } = await bridge('text-turn', capabilities);
      const sessionId = (
        (await peer.request('session/new', { cwd: workdir, mcpServers: [] })).result as { sessionId: string }
      ).sessionId;
      const answer = await peer.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Say hello' }] });
      expect(answer.result).toMatchObject({ stopReason: 'end_turn' });
      // Claude Code billing an API key is a metered_key notice.
      expect(updates(peer.frames(), 'notice').length > 0).toBe(shown);
      if (!shown) expect(peer.stderr).toMatch(/metered_key/);
    }
  });

  it('carries diff content on a file write', async () => {
    const { peer } = await bridge('write-turn');
    const sessionId = (
      (await peer.request('session/new', { cwd: workdir, mcpServers: [] })).result as { sessionId: string }
    ).sessionId;
    await peer.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Write the file' }] });
    const diffs = updates(peer.frames(), 'tool_call_update').flatMap((frame) =>
      (((frame.params?.update ?? {}) as { content?: { type: string }[] }).content ?? []).filter(
        (content) => content.type === 'diff',
      ),
    );
    expect(diffs).toEqual([
      expect.objectContaining({ type: 'diff', path: expect.any(String), oldText: null, newText: expect.any(String) }),
    ]);
  });

  it('answers an over-long line with a JSON-RPC error and goes on serving', async () => {
    const { peer, marker } = await bridge('text-turn');
    peer.write(
      `{"jsonrpc":"2.0","id":"huge","method":"session/new","params":{"cwd":"${'x'.repeat(64 * 1024 * 1024)}"}}`,
    );
    const refused = await peer.answerTo('huge', 'the over-long line', 60_000);
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/over the 67108864/) });
    // A line with no id to answer is skipped with a word on stderr.
    peer.write(`{"jsonrpc":"2.0","method":"session/cancel","params":{"pad":"${'y'.repeat(64 * 1024 * 1024)}"}}`);
    const created = await peer.request('session/new', { cwd: workdir, mcpServers: [] }, 60_000);
    expect(created.result).toMatchObject({ sessionId: expect.any(String) });
    expect(peer.stderr).toMatch(/skipped an input line of \d+ bytes/);
    await peer.close();
    await until(() => processesWithMarker(marker).length === 0, 'every marked process to end', 15_000);
  });
});
