// Real tier, judged by the protocol: `codex app-server --listen stdio://` (the two-line shim that runs
// the bridge) in front of the REAL pinned Claude Code on the scripted model server, and a scripted
// Codex client that gives the thread the testkit's echo MCP server in `config.mcp_servers`. What a
// Codex client's MCP panel reads: `mcpServer/startupStatus/updated` until the server is ready, then
// `mcpServerStatus/list` naming it connected with its `echo` tool, as Claude Code itself reports it.
// Every message is validated against the pinned Codex's JSON Schema.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/codex-app-server-mcp.real.test.ts
import { fileURLToPath } from 'node:url';
import { reply } from '@reins/testkit';
import { describe, expect, it } from 'vitest';
import { transcriptViolations } from './support/codex-schema.js';
import { JsonLinesPeer } from './support/processes.js';
import { codexShim, realBridgeHome } from './support/real-bridge.js';

/** The conformance suite's echo MCP server (stdio, one tool: `echo`). */
const ECHO_SERVER_PATH = fileURLToPath(new URL('../../testkit/fixtures-mcp/echo-server.mjs', import.meta.url));
const ECHO_TOOL = 'echo';

type Listed = {
  data: { name: string; runtimeStatus: string | null; tools: Record<string, { name: string }>; authStatus: string }[];
  nextCursor: string | null;
};

describe('reins bridge codex-app-server: MCP status in front of the real Claude Code', () => {
  it('tells the echo server’s startup and lists it connected with its tool', async () => {
    const home = await realBridgeHome('claude-code');
    const shim = await codexShim(home);
    const peer = new JsonLinesPeer(shim, ['app-server', '--listen', 'stdio://'], home.env, { cwd: home.cwd });
    try {
      await peer.request(
        'initialize',
        { clientInfo: { name: 'mcp_panel', title: null, version: '1' }, capabilities: null },
        120_000,
      );
      peer.notify('initialized');
      const started = await peer.request(
        'thread/start',
        {
          cwd: home.cwd,
          approvalPolicy: 'never',
          sandbox: 'danger-full-access',
          config: { mcp_servers: { echo: { command: process.execPath, args: [ECHO_SERVER_PATH] } } },
        },
        60_000,
      );
      const threadId = (started.result as { thread: { id: string } }).thread.id;
      // One short turn: a harness may start its servers with its first turn.
      home.server.enqueue(reply().text('Ready with the echo server.'));
      const turn = await peer.request(
        'turn/start',
        { threadId, input: [{ type: 'text', text: 'Say you are ready.', text_elements: [] }] },
        60_000,
      );
      expect(turn.error).toBeUndefined();
      await peer.waitFor((frame) => frame.method === 'turn/completed', 'turn/completed', 180_000);
      await peer.waitFor(
        (frame) =>
          frame.method === 'mcpServer/startupStatus/updated' &&
          frame.params?.name === 'echo' &&
          frame.params?.status !== 'starting',
        'the echo server settled',
        90_000,
      );
      const startup = peer.frames().filter((frame) => frame.method === 'mcpServer/startupStatus/updated');
      expect(startup.filter((frame) => frame.params?.name === 'echo').at(-1)?.params).toMatchObject({
        threadId,
        status: 'ready',
        error: null,
      });
      const listed = (await peer.request('mcpServerStatus/list', { threadId, detail: 'toolsAndAuthOnly' }, 60_000))
        .result as Listed;
      const echo = listed.data.find((entry) => entry.name === 'echo');
      expect(echo).toMatchObject({ runtimeStatus: 'connected', authStatus: 'unknown' });
      expect(Object.keys(echo?.tools ?? {}).some((name) => name === ECHO_TOOL || name.endsWith(`__${ECHO_TOOL}`))).toBe(
        true,
      );
      // Without a thread: the servers of every open thread (this one).
      const all = (await peer.request('mcpServerStatus/list', {}, 60_000)).result as Listed;
      expect(all.data.map((entry) => entry.name)).toContain('echo');
    } finally {
      await peer.close();
      await home.dispose();
      expect(transcriptViolations(peer.sent, peer.frames())).toEqual([]);
    }
  }, 600_000);
});
