// Real Claude Code (current pin), hermetic: MCP servers passed in the spec. A real stdio server written
// with @modelcontextprotocol/sdk (testkit/fixtures-mcp/echo-server.mjs) is reported connected with its
// tool, the scripted model calls that tool and the item is `tool.kind: mcp` with the tool's output; a
// server whose command exits 1 gives a warning notice and a failed status.
import { fileURLToPath } from 'node:url';
import type { McpServerStatus, ReinsEvent, Session, ToolCallItem } from '@reins/core';
import { reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClaudeRig, claudeRig } from '../../test/support/claude-rig.js';

const ECHO_SERVER = fileURLToPath(new URL('../../../testkit/fixtures-mcp/echo-server.mjs', import.meta.url));

/** Asks until no server is pending any more (Claude Code connects them in the background). */
async function settledStatus(session: Session, deadlineMs = 30_000): Promise<McpServerStatus[]> {
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

describe('claude-code real: MCP servers', () => {
  let rig: ClaudeRig | undefined;
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  it('reports a real stdio server connected, calls its tool as an mcp item, and warns about one that cannot start', async () => {
    rig = await claudeRig('mcp');
    const { session, recorder } = await rig.open({
      mcpServers: [
        { name: 'echo', transport: 'stdio', command: process.execPath, args: [ECHO_SERVER] },
        { name: 'broken', transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'] },
      ],
    });
    const status = await settledStatus(session);
    const echo = status.find((entry) => entry.name === 'echo');
    expect(echo).toMatchObject({ status: 'connected' });
    expect(echo?.tools).toContain('echo');
    const broken = status.find((entry) => entry.name === 'broken');
    expect(broken?.status).toBe('failed');

    const warning = await recorder.waitFor(isMcpWarning, 'the warning about the broken MCP server');
    expect(warning).toMatchObject({ type: 'notice', kind: 'warning', data: { name: 'broken' } });

    rig.server.enqueue(
      reply().toolCall('mcp__echo__echo', { text: 'ping' }),
      reply().text('The tool said echo: ping.'),
    );
    const sent = await session.send('Call the echo tool with "ping".');
    const terminal = await recorder.terminalOf(sent);
    expect(terminal.outcome).toEqual({ status: 'completed' });
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
    const requests = await rig.server.waitForRequests(2);
    expect(JSON.stringify(requests[1]?.body)).toContain('echo: ping');
    // One warning per server, however often Claude Code reports it (every turn's system/init does).
    expect(recorder.events.filter(isMcpWarning)).toHaveLength(1);
    await recorder.close();
  });
});
