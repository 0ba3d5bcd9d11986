// ACP client requests -> Reins calls: prompt blocks, MCP servers, permission answers, settings.
import { ReinsError } from '@reins/core';
import { describe, expect, it } from 'vitest';
import { FALLBACK_ALLOW } from './answers.js';
import { decisionOf, fileRefOf, mcpServersOf, promptInput, settingRequestOf } from './requests.js';

function invalidInput(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (ReinsError.isInstance(error) && error.code === 'invalid_input') return error.message;
    throw error;
  }
  throw new Error('expected invalid_input');
}

describe('promptInput', () => {
  it('joins text fragments, turns a file link into a file reference, and keeps images inline', () => {
    expect(
      promptInput([
        { type: 'text', text: 'Look at ' },
        { type: 'resource_link', uri: 'file:///w/src/main.ts#L3-9', name: 'main.ts' },
        { type: 'text', text: ' and https links stay text: ' },
        { type: 'resource_link', uri: 'https://example.test/doc', name: 'doc' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      ]),
    ).toEqual({
      text: 'Look at main.ts and https links stay text: https://example.test/doc',
      images: [{ source: 'data', mediaType: 'image/png', data: 'aGk=' }],
      files: [{ path: '/w/src/main.ts', lines: { start: 3, end: 9 } }],
    });
  });

  it('inlines an embedded text resource under its uri', () => {
    expect(
      promptInput([
        { type: 'text', text: 'Explain:' },
        { type: 'resource', resource: { uri: 'file:///w/a.txt', text: 'alpha' } },
      ]).text,
    ).toBe('Explain:\nfile:///w/a.txt\nalpha\n');
  });

  it('refuses what Reins cannot pass on, and an empty prompt, with a sentence', () => {
    expect(invalidInput(() => promptInput([{ type: 'audio', data: 'x', mimeType: 'audio/wav' }]))).toMatch(/audio/);
    expect(
      invalidInput(() => promptInput([{ type: 'resource', resource: { uri: 'file:///w/a.bin', blob: 'AAAA' } }])),
    ).toMatch(/binary resource/);
    expect(invalidInput(() => promptInput([{ type: 'text', text: '  ' }]))).toMatch(/empty/);
  });

  it('reads line ranges of file uris and leaves other uris alone', () => {
    expect(fileRefOf('file:///a/b.ts#L7')).toEqual({ path: '/a/b.ts', lines: { start: 7 } });
    expect(fileRefOf('file:///a/b%20c.ts')).toEqual({ path: '/a/b c.ts' });
    expect(fileRefOf('zed://thread/1')).toBeUndefined();
  });
});

describe('mcpServersOf', () => {
  it('maps stdio, http and sse servers to the session spec', () => {
    expect(
      mcpServersOf([
        { name: 'fs', command: '/bin/mcp-fs', args: ['--root', '/w'], env: [{ name: 'TOKEN', value: 't' }] },
        { type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [] },
        { type: 'sse', name: 'events', url: 'http://127.0.0.1:9/sse', headers: [{ name: 'X-K', value: 'v' }] },
      ]),
    ).toEqual([
      { name: 'fs', transport: 'stdio', command: '/bin/mcp-fs', args: ['--root', '/w'], env: { TOKEN: 't' } },
      { name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp' },
      { name: 'events', transport: 'sse', url: 'http://127.0.0.1:9/sse', headers: { 'X-K': 'v' } },
    ]);
  });
});

describe('decisionOf', () => {
  const options = [
    { id: 'once', kind: 'allow_once' as const, label: 'Allow' },
    { id: 'always', kind: 'allow_always' as const, label: 'Always' },
    { id: 'no', kind: 'reject_once' as const, label: 'Reject' },
  ];

  it('maps the chosen option to behaviour, scope and option id', () => {
    expect(decisionOf({ outcome: 'selected', optionId: 'always' }, options)).toEqual({
      behavior: 'allow',
      scope: 'session',
      optionId: 'always',
    });
    expect(decisionOf({ outcome: 'selected', optionId: 'no' }, options)).toEqual({
      behavior: 'deny',
      scope: 'once',
      optionId: 'no',
    });
  });

  it('denies on cancel and on an id nobody offered; the fallback allow allows', () => {
    expect(decisionOf({ outcome: 'cancelled' }, options)).toEqual({ behavior: 'deny' });
    expect(decisionOf({ outcome: 'selected', optionId: 'made-up' }, options)).toEqual({ behavior: 'deny' });
    expect(decisionOf({ outcome: 'selected', optionId: FALLBACK_ALLOW }, [])).toEqual({ behavior: 'allow' });
  });
});

describe('settingRequestOf', () => {
  it('routes the model and effort options and checks effort values', () => {
    expect(settingRequestOf('model', 'fake-model-2')).toEqual({ setting: 'model', model: 'fake-model-2' });
    expect(settingRequestOf('effort', 'high')).toEqual({ setting: 'effort', effort: 'high' });
    expect(invalidInput(() => settingRequestOf('effort', 'ultra'))).toMatch(/Unknown effort "ultra"/);
    expect(invalidInput(() => settingRequestOf('effort', 'default'))).toMatch(/cannot be set/);
    expect(invalidInput(() => settingRequestOf('mode', 'plan'))).toMatch(/Unknown config option "mode"/);
    expect(invalidInput(() => settingRequestOf('model', true))).toMatch(/non-empty string/);
  });
});
