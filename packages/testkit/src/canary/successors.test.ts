// The canary's successor finder against a fake npm registry served on 127.0.0.1: a package whose README
// says it moved (claude-agent-acp's case), one deprecated in favour of another, one that merely mentions
// another package, and one that names a package the registry does not have.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown, renderText } from './report.js';
import { findSuccessors, registryFetch } from './successors.js';

const doc = (
  name: string,
  latest: string,
  extra: { readme?: string; repository?: string; deprecated?: string } = {},
): Record<string, unknown> => ({
  name,
  'dist-tags': { latest },
  versions: { [latest]: { name, version: latest, ...(extra.deprecated ? { deprecated: extra.deprecated } : {}) } },
  ...(extra.readme ? { readme: extra.readme } : {}),
  ...(extra.repository ? { repository: { type: 'git', url: extra.repository } } : {}),
});

const DOCUMENTS: Record<string, Record<string, unknown>> = {
  '@zed-industries/claude-agent-acp': doc('@zed-industries/claude-agent-acp', '0.23.1', {
    readme:
      '# ACP adapter for Claude Code\n\nThis package has moved to @agentclientprotocol/claude-agent-acp. Install that.',
    repository: 'git+https://github.com/zed-industries/claude-code-acp.git',
  }),
  '@agentclientprotocol/claude-agent-acp': doc('@agentclientprotocol/claude-agent-acp', '0.101.0', {
    repository: 'https://github.com/zed-industries/claude-code-acp',
  }),
  'old-tool': doc('old-tool', '1.0.0', { deprecated: 'Renamed: use `new-tool` instead, it is the successor.' }),
  'new-tool': doc('new-tool', '2.0.0', { repository: 'github:someone/else' }),
  'chatty-tool': doc('chatty-tool', '3.0.0', { readme: 'Works well with @agentclientprotocol/sdk and `new-tool`.' }),
  'orphan-tool': doc('orphan-tool', '1.0.0', { readme: 'This project moved to @nowhere/gone.' }),
};

let server: Server;
let registry: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const name = decodeURIComponent((request.url ?? '/').slice(1));
    asked.push(name);
    const document = DOCUMENTS[name];
    response.writeHead(document ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(document ?? { error: 'Not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('canary successors', () => {
  it('names the package a README says it moved to, confirmed by the same repository', async () => {
    const found = await findSuccessors(['@zed-industries/claude-agent-acp'], registryFetch(registry));
    expect(found).toEqual([
      {
        name: '@zed-industries/claude-agent-acp',
        successor: '@agentclientprotocol/claude-agent-acp',
        evidence: 'readme',
        says: 'This package has moved to @agentclientprotocol/claude-agent-acp.',
        sameRepository: true,
        newest: '0.101.0',
      },
    ]);
  });

  it('follows a deprecation message; another repository is reported, not hidden', async () => {
    const [found] = await findSuccessors(['old-tool'], registryFetch(registry));
    expect(found).toMatchObject({
      successor: 'new-tool',
      evidence: 'deprecated',
      sameRepository: false,
      newest: '2.0.0',
    });
  });

  it('finds none for a package that only mentions others, or names one the registry does not have', async () => {
    expect(await findSuccessors(['chatty-tool', 'orphan-tool', 'no-such-package'], registryFetch(registry))).toEqual(
      [],
    );
    // It read only the documents of the packages named (no search, no listing).
    expect(asked).not.toContain('-/v1/search');
    expect(asked).toContain('@nowhere/gone');
  });
});

describe('the canary report', () => {
  it('names each successor in the text and in the drift report', async () => {
    const successors = await findSuccessors(['@zed-industries/claude-agent-acp'], registryFetch(registry));
    const report = { date: '2026-12-01', cache: '~/c', packages: [], harnesses: [], regressions: [], successors };
    expect(renderText(report)).toContain(
      '@zed-industries/claude-agent-acp -> @agentclientprotocol/claude-agent-acp 0.101.0 (readme, same repository)',
    );
    expect(renderMarkdown(report)).toContain('## Successors');
  });
});
