#!/usr/bin/env node
// A small real MCP server (stdio, @modelcontextprotocol/sdk 1.32.2) for the real tier: it offers one
// tool, `echo`, which answers the text it was given prefixed with "echo: ", so a test can tell the
// tool's own output from anything the model wrote. Harness CLIs start it from `spec.mcpServers`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'reins-echo', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Echoes the given text back, prefixed with "echo: ".',
    inputSchema: { text: z.string().describe('The text to echo') },
  },
  async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
);

await server.connect(new StdioServerTransport());
