// The small real MCP server the conformance suite passes in a SessionSpec: testkit/fixtures-mcp/
// echo-server.mjs (stdio, written with the pinned @modelcontextprotocol/sdk; one tool, `echo`), run by
// the Node that runs the suite. The adapters' own MCP real tests start the same file.
import { fileURLToPath } from 'node:url';
import type { McpServerSpec } from '@reins/core';

/** The one tool the echo server offers. */
export const ECHO_TOOL = 'echo';

/** Two folders up from src/conformance/ and from dist/conformance/ alike: the testkit package root. */
export const ECHO_SERVER_PATH = fileURLToPath(new URL('../../fixtures-mcp/echo-server.mjs', import.meta.url));

export function echoMcpServer(name = 'echo'): McpServerSpec {
  return { name, transport: 'stdio', command: process.execPath, args: [ECHO_SERVER_PATH] };
}
