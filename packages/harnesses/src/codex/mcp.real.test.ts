// Real Codex (pinned), hermetic: MCP servers passed in the spec. A real stdio server written with
// @modelcontextprotocol/sdk (testkit/fixtures-mcp/echo-server.mjs) is reported connected with its
// tool, the scripted model calls that tool and the item is `tool.kind: mcp` with the tool's output;
// a server whose command exits 1 gives a warning notice and a failed status.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { McpServerStatus, ReinsEvent, Session, ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodexRig, codexRig } from '../../test/support/codex-rig.js';

const ECHO_SERVER = fileURLToPath(new URL('../../../testkit/fixtures-mcp/echo-server.mjs', import.meta.url));

/**
 * 0.171.0 defers MCP tools behind its client-side `tool_search` when the model's catalog entry says
 * `supports_search_tool` (the bundled template does): the scripted model would have to search first.
 * With it off, Codex offers the server's tools directly. The catalog is read when app-server starts.
 */
async function offerMcpToolsDirectly(rig: CodexRig): Promise<void> {
  const catalogPath = rig.home.files.find((file) => file.endsWith('models.json'));
  if (!catalogPath) throw new Error('the Codex home has no model catalog');
  const catalog = JSON.parse(await readFile(catalogPath, 'utf8')) as { models: Array<Record<string, unknown>> };
  for (const model of catalog.models) model.supports_search_tool = false;
  await writeFile(catalogPath, JSON.stringify(catalog));
}

/** Asks until no server is pending any more (Codex starts them in the background). */
async function settledStatus(session: Session, deadlineMs = 20_000): Promise<McpServerStatus[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const status = (await session.mcpStatus?.()) ?? [];
    if (status.length > 0 && status.every((entry) => entry.status !== 'pending')) return status;
    if (Date.now() > until) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const isMcpWarning = (event: ReinsEvent) =>
  event.type === 'notice' && event.kind === 'warning' && /MCP server "broken"/.test(event.message);

describe('codex real: MCP servers', () => {
  let rig: CodexRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('reports a real stdio server connected, calls its tool as an mcp item, and warns about one that cannot start', async () => {
    rig = await codexRig('mcp');
    await offerMcpToolsDirectly(rig);
    const { session, recorder } = await rig.open({
      mcpServers: [
        { name: 'echo', transport: 'stdio', command: process.execPath, args: [ECHO_SERVER] },
        { name: 'broken', transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'] },
      ],
    });
    rig.server.enqueue(
      reply().toolCall('echo', { text: 'ping' }, { namespace: 'mcp__echo' }),
      reply().text('The tool said echo: ping.'),
    );
    const sent = await session.send('Call the echo tool with "ping".');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });

    const status = await settledStatus(session);
    const echo = status.find((entry) => entry.name === 'echo');
    expect(echo).toMatchObject({ status: 'connected' });
    expect(echo?.tools).toContain('echo');
    const broken = status.find((entry) => entry.name === 'broken');
    expect(broken?.status).toBe('failed');

    const warning = await recorder.waitFor(isMcpWarning, 'the warning about the broken MCP server');
    expect(warning).toMatchObject({ type: 'notice', kind: 'warning', data: { name: 'broken' } });
    // One warning per server, however often Codex reports it.
    expect(recorder.events.filter(isMcpWarning)).toHaveLength(1);

    const tools = recorder
      .turnEvents(sent.turnId)
      .flatMap((event): ToolCallItem[] =>
        event.type === 'item.completed' && event.item.kind === 'tool_call' ? [event.item] : [],
      );
    const call = tools.find((tool) => tool.tool.kind === 'mcp');
    expect(call?.tool.name).toBe('mcp__echo__echo');
    expect(call?.status).toBe('completed');
    expect(call?.output?.text).toBe('echo: ping');
    // The tool's output went back to the model.
    const after = await rig.server.waitForRequests(2);
    expect(JSON.stringify(after[1]?.body)).toContain('echo: ping');
    await recorder.close();
  });
});
